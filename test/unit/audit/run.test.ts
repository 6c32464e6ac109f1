import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { loadPolicies } from "../../../audit/policies.js";
import { runAudit } from "../../../audit/run.js";
import { DEFAULT_SOURCE_OPTIONS, openSource, type Source, type SourceDoc } from "../../../audit/sources/index.js";
import { auditFixture, FIXTURE_BUNDLE, FIXTURE_CURRENT } from "./audit-fixture.js";

function memorySource(spec: string, docs: SourceDoc[][]): Source {
  return {
    spec,
    kind: "file",
    async *units() {
      for (const [i, d] of docs.entries()) yield { name: `${spec}#${i}`, read: async () => d };
    },
  };
}

describe("runAudit", () => {
  it("gives exactly one record per document, in input order, and counts uncovered kinds", async () => {
    // Act
    const run = await auditFixture();
    const objects = await run.objects.toArray();
    const findings = await run.findings.toArray();
    // Assess
    expect(objects.map((o) => [o.key, o.outcome])).toEqual([
      ["audit.tollgate.dev/v1/Widget/team-a/legacy", "invalid"],
      ["audit.tollgate.dev/v1/Widget/team-a/changed", "invalid"],
      ["audit.tollgate.dev/v1/Widget/team-b/moved", "valid"],
      ["audit.tollgate.dev/v1/Widget/team-b/fine", "valid"],
      ["audit.tollgate.dev/v1/Widget/team-b/leaky", "invalid"],
      ["audit.tollgate.dev/v1/Gizmo//cluster-gizmo", "invalid"],
      ["v1/Secret/team-a/db", "skipped"],
      ["v1/ConfigMap/team-a/settings", "skipped"],
      [`${FIXTURE_CURRENT}#7[1]:87`, "error"],
      [`${FIXTURE_CURRENT}#8:91`, "error"],
    ]);
    expect(run.summary).toMatchObject({
      documents: 10,
      objects: 8,
      valid: 2,
      invalid: 4,
      skippedUncovered: 2,
      skippedByKind: { "v1/Secret": 1, "v1/ConfigMap": 1 },
      inputErrors: 2,
      policyFailures: { error: 1, warning: 0 },
    });
    expect(new Set(findings.map((f) => f.id)).size).toBe(findings.length);
  });

  it("with --previous: pairs by uid, else identity; ratcheted errors are grandfathered, new ones blocking", async () => {
    const run = await auditFixture({ previous: true });
    const findings = await run.findings.toArray();
    const of = (name: string) =>
      findings.filter((f) => f.object?.name === name).map((f) => `${f.ratchet ?? "-"} ${f.field}: ${f.message}`);
    expect(of("legacy")).toEqual([
      "grandfathered spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
    ]);
    expect(of("changed")).toContain(
      "blocking spec.replicas: Invalid value: 12: spec.replicas in body should be less than or equal to 10",
    );
    // "moved" pairs with its previous version by uid (it was renamed): the transition rule and the name check run.
    expect(of("moved")).toEqual([
      'blocking metadata.name: Invalid value: "moved": field is immutable',
      'blocking spec.region: Invalid value: "us": region is immutable',
    ]);
    expect((await run.objects.toArray()).filter((o) => o.paired === true).map((o) => o.object?.name)).toEqual([
      "legacy",
      "changed",
      "moved",
    ]);
  });

  it("keeps the order of units when reads finish out of order", async () => {
    const policies = await loadPolicies(FIXTURE_BUNDLE);
    const slowFirst: Source = {
      spec: "mem",
      kind: "file",
      async *units() {
        for (let i = 0; i < 6; i++) {
          yield {
            name: `u${i}`,
            read: async () => {
              await new Promise((r) => setTimeout(r, (6 - i) * 3));
              return [{ kind: "not-kubernetes", location: { file: `u${i}` } }];
            },
          };
        }
      },
    };
    const run = await runAudit(
      { sources: [slowFirst], bundle: "b", concurrency: 3, failOn: "never", ownerLabels: [], toolVersion: "t" },
      policies.policySet,
    );
    expect((await run.objects.toArray()).map((o) => o.location.file)).toEqual(["u0", "u1", "u2", "u3", "u4", "u5"]);
  });

  it("a unit that cannot be read ends the run with its error; the reads in flight fail no further", async () => {
    // Prepare: every unit's read fails (storage gone), the first one last, so the others fail while it is awaited.
    const policies = await loadPolicies(FIXTURE_BUNDLE);
    const failing: Source = {
      spec: "mem",
      kind: "file",
      async *units() {
        for (let i = 0; i < 4; i++) {
          yield {
            name: `u${i}`,
            read: async () => {
              await new Promise((r) => setTimeout(r, i === 0 ? 30 : 1));
              throw new Error(`cannot read u${i}`);
            },
          };
        }
      },
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      // Act
      const run = runAudit(
        { sources: [failing], bundle: "b", concurrency: 4, failOn: "never", ownerLabels: [], toolVersion: "t" },
        policies.policySet,
      );
      // Assess
      await expect(run).rejects.toThrow("cannot read u0");
      await new Promise((r) => setTimeout(r, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("--policies-from-input: takes the input's CRDs the bundle lacks; identical copies are one policy", async () => {
    // Prepare
    const crd = (group: string, kind: string) => ({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `${kind.toLowerCase()}s.${group}` },
      spec: {
        group,
        scope: "Namespaced",
        names: { plural: `${kind.toLowerCase()}s`, singular: kind.toLowerCase(), kind },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: { spec: { type: "object", properties: { n: { type: "integer", maximum: 1 } } } },
              },
            },
          },
        ],
      },
    });
    const object = (kind: string, n: number) => ({
      apiVersion: "input.tollgate.dev/v1",
      kind,
      metadata: { name: "x", namespace: "d" },
      spec: { n },
    });
    // The input redefines the bundle's Widget (ignored: the bundle wins) and brings Thing twice.
    const overriding = crd("audit.tollgate.dev", "Widget");
    const docs: SourceDoc[] = [
      { kind: "object", location: { file: "a.yaml", document: 0 }, object: crd("input.tollgate.dev", "Thing") },
      { kind: "object", location: { file: "b.yaml", document: 0 }, object: crd("input.tollgate.dev", "Thing") },
      { kind: "object", location: { file: "b.yaml", document: 1 }, object: overriding },
      { kind: "object", location: { file: "b.yaml", document: 2 }, object: object("Thing", 2) },
    ];
    const source = memorySource("mem", [docs]);
    // Act
    const { policySet, policiesFromInput } = await loadPolicies(FIXTURE_BUNDLE, [source]);
    const run = await runAudit(
      { sources: [source], bundle: "b", concurrency: 1, failOn: "violation", ownerLabels: [], toolVersion: "t" },
      policySet,
    );
    // Assess
    expect(policiesFromInput).toBe(1);
    expect(policySet.failures.filter((f) => f.message.includes("more than one document"))).toEqual([]);
    expect(
      policySet.kinds
        .filter((k) => k.family === "crd")
        .map((k) => k.kind)
        .sort(),
    ).toEqual(["Gizmo", "Thing", "Widget"]);
    expect(
      (await run.findings.toArray())
        .filter((f) => f.severity === "violation")
        .map((f) => `${f.object?.kind} ${f.field}`),
    ).toEqual(["Thing spec.n"]);
  });

  it("folder sources count documents that are not Kubernetes objects as skipped", async () => {
    const policies = await loadPolicies(FIXTURE_BUNDLE);
    const source = await openSource("test/fixtures/audit/bundle", DEFAULT_SOURCE_OPTIONS);
    const run = await runAudit(
      { sources: [source], bundle: "b", concurrency: 2, failOn: "violation", ownerLabels: [], toolVersion: "t" },
      policies.policySet,
    );
    expect(run.summary.skippedByKind).toEqual({ "apiextensions.k8s.io/v1/CustomResourceDefinition": 2 });
  });
});

describe("runAudit with --previous: list-type uniqueness", () => {
  it("an unchanged duplicate list entry is a grandfathered violation (the API server admits the update)", async () => {
    // Prepare: the example Widget CRD keys spec.ports by name; the same duplicate in both snapshots.
    const { policySet } = await loadPolicies("examples/policies");
    const widget = {
      apiVersion: "demo.tollgate.dev/v1alpha1",
      kind: "Widget",
      metadata: { name: "dup", namespace: "shop" },
      spec: {
        image: "registry.example.com/x:1",
        ports: [
          { name: "http", port: 80 },
          { name: "http", port: 8080 },
        ],
      },
    };
    const doc = (file: string): SourceDoc => ({ kind: "object", location: { file, document: 0 }, object: widget });
    // Act
    const run = await runAudit(
      {
        sources: [memorySource("now", [[doc("now.yaml")]])],
        previous: memorySource("before", [[doc("before.yaml")]]),
        bundle: "examples/policies",
        concurrency: 1,
        failOn: "violation",
        ownerLabels: [],
        toolVersion: "t",
      },
      policySet,
    );
    // Assess: the duplicate used to vanish from the report.
    const findings = await run.findings.toArray();
    expect(findings.map((f) => `${f.severity} ${f.ratchet} ${f.field}: ${f.message}`)).toEqual([
      'violation grandfathered spec.ports[1]: Duplicate value: {"name":"http"}',
    ]);
    expect(run.summary).toMatchObject({ grandfathered: 1, blocking: 0 });
  });
});

/** A policy denying CREATEs of ConfigMaps unless `expression` holds, with the message "<name> says no". */
function configMapPolicy(name: string, expression: string) {
  const rule = { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] };
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: { matchConstraints: { resourceRules: [rule] }, validations: [{ expression, message: `${name} says no` }] },
  };
}

/** The binding `<name>-b` of policy `name` with these validation actions. */
function bindingOf(name: string, actions: string[]) {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: `${name}-b` },
    spec: { policyName: name, validationActions: actions },
  };
}

describe("runAudit with ValidatingAdmissionPolicies", () => {
  it("makes each object's admission request as the configured user, and reports denials and warnings", async () => {
    const { loadBundle } = await import("../../../lib/index.js");
    const docs = [
      configMapPolicy("only-ci", "request.userInfo.username == 'ci-bot' && 'ci' in request.userInfo.groups"),
      bindingOf("only-ci", ["Deny"]),
      configMapPolicy("has-team", "has(object.metadata.labels) && 'team' in object.metadata.labels"),
      bindingOf("has-team", ["Warn", "Audit"]),
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
    ];
    const policySet = await loadBundle(docs.map((d, i) => ({ path: `${i}.json`, content: JSON.stringify(d) })));
    const source = memorySource("input.yaml", [
      [
        {
          kind: "object",
          object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", namespace: "shop" } },
          location: { file: "input.yaml", line: 1 },
        },
      ],
    ]);
    const audit = async (user?: { username: string; groups: string[] }) => {
      const run = await runAudit(
        {
          sources: [source],
          bundle: "memory",
          concurrency: 1,
          failOn: "violation",
          ownerLabels: [],
          toolVersion: "test",
          ...(user !== undefined && { user }),
        },
        policySet,
      );
      return (await run.findings.toArray()).map((f) => `${f.severity}: ${f.message}`);
    };
    // The binding's Warn action gives a warning, its Audit action an audit finding.
    expect(await audit({ username: "ci-bot", groups: ["ci"] })).toEqual([
      "warning: Validation failed for ValidatingAdmissionPolicy 'has-team' with binding 'has-team-b': has-team says no",
      "audit: Validation failed for ValidatingAdmissionPolicy 'has-team' with binding 'has-team-b': has-team says no",
    ]);
    expect(await audit({ username: "alice", groups: ["dev"] })).toContain(
      "violation: ValidatingAdmissionPolicy 'only-ci' with binding 'only-ci-b' denied request: only-ci says no",
    );
  });

  it("with --previous: an object the previous snapshot holds is an UPDATE from it (oldObject), a new one a CREATE", async () => {
    // Prepare: a transition rule on ConfigMaps (the level may not go down), denying.
    const { loadBundle } = await import("../../../lib/index.js");
    const rule = { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"] };
    const policy = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "no-downgrade" },
      spec: {
        matchConstraints: { resourceRules: [rule] },
        validations: [
          {
            expression: "request.operation == 'CREATE' || int(object.data.level) >= int(oldObject.data.level)",
            messageExpression: "'level ' + oldObject.data.level + ' may not go down to ' + object.data.level",
          },
        ],
      },
    };
    const namespace = { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } };
    const docs = [policy, bindingOf("no-downgrade", ["Deny"]), namespace];
    const policySet = await loadBundle(docs.map((d, i) => ({ path: `${i}.json`, content: JSON.stringify(d) })));
    const configMap = (name: string, level: string, file: string): SourceDoc => ({
      kind: "object",
      location: { file, document: 0 },
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "shop" }, data: { level } },
    });
    // Act
    const run = await runAudit(
      {
        sources: [memorySource("now", [[configMap("kept", "2", "now.yaml"), configMap("new", "1", "now.yaml")]])],
        previous: memorySource("before", [[configMap("kept", "3", "before.yaml")]]),
        bundle: "memory",
        concurrency: 1,
        failOn: "violation",
        ownerLabels: [],
        toolVersion: "t",
      },
      policySet,
    );
    // Assess: only the update is denied, with the values of both versions; the new object is a CREATE.
    expect((await run.findings.toArray()).map((f) => `${f.severity} ${f.object?.name}: ${f.message}`)).toEqual([
      "violation kept: ValidatingAdmissionPolicy 'no-downgrade' with binding 'no-downgrade-b' denied request: level 3 may not go down to 2",
    ]);
  });

  it("--policies-from-input: takes the input's policies and bindings the bundle lacks; the bundle's win", async () => {
    // Prepare: the bundle's policy 'same-name' allows everything; the input's copy of it would deny everything.
    const namespace = { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } };
    const files = [configMapPolicy("same-name", "true"), bindingOf("same-name", ["Deny"]), namespace].map((d, i) => ({
      path: `${i}.json`,
      content: JSON.stringify(d),
    }));
    const bundleDir = await mkdtemp(join(tmpdir(), "tollgate-vap-"));
    onTestFinished(() => rm(bundleDir, { recursive: true, force: true }));
    for (const f of files) await writeFile(join(bundleDir, f.path), f.content);
    const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", namespace: "shop" } };
    const inputDocs = [
      configMapPolicy("same-name", "false"),
      configMapPolicy("input-only", "object.metadata.name != 'cfg'"),
      bindingOf("input-only", ["Deny"]),
      configMap,
    ];
    const source = memorySource("mem", [
      inputDocs.map((object, document) => ({ kind: "object", location: { file: "in.yaml", document }, object })),
    ]);
    // Act
    const { policySet, policiesFromInput } = await loadPolicies(bundleDir, [source]);
    const run = await runAudit(
      { sources: [source], bundle: bundleDir, concurrency: 1, failOn: "violation", ownerLabels: [], toolVersion: "t" },
      policySet,
    );
    // Assess: the input adds 'input-only' and its binding; its 'same-name' is left out for the bundle's.
    expect(policiesFromInput).toBe(2);
    expect((await run.findings.toArray()).filter((f) => f.severity === "violation").map((f) => f.message)).toEqual([
      "ValidatingAdmissionPolicy 'input-only' with binding 'input-only-b' denied request: input-only says no",
    ]);
  });
});
