/**
 * audit/cluster-state.ts: the audited input's Namespaces become the cluster state of the admission families (a
 * pre-pass made only when one is enabled), and the what-if Pod Security level; the counts per level in the summary.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { namespacesOf, withAuditState } from "../../../audit/cluster-state.js";
import { loadPolicies, loadPolicySource } from "../../../audit/policies.js";
import { disposeResult } from "../../../audit/recorder.js";
import { runAudit } from "../../../audit/run.js";
import { DEFAULT_SOURCE_OPTIONS, openSource } from "../../../audit/sources/index.js";

const dir = mkdtempSync(join(tmpdir(), "tollgate-cluster-state-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bundle = join(dir, "bundle");
const noAdmission = join(dir, "no-admission");
mkdirs(bundle, noAdmission);
writeFileSync(
  join(bundle, "pod-security.yaml"),
  "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  audit: restricted\n",
);
writeFileSync(join(noAdmission, "tollgate.yaml"), "apiVersion: tollgate.dev/v1alpha1\nkind: BundleConfig\n");

const input = join(dir, "input");
mkdirs(input);
writeFileSync(
  join(input, "namespaces.yaml"),
  `apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels:
    pod-security.kubernetes.io/enforce: baseline
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: not-a-namespace
  namespace: shop
`,
);
// A JSON List with a Namespace among its items.
writeFileSync(
  join(input, "export.json"),
  JSON.stringify({
    apiVersion: "v1",
    kind: "List",
    items: [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "payments" } },
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "debug", namespace: "shop" },
        spec: { containers: [{ name: "c", image: "i", securityContext: { privileged: true } }] },
      },
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web", namespace: "payments" },
        spec: { template: { spec: { containers: [{ name: "c", image: "i" }] } } },
      },
    ],
  }),
);

function mkdirs(...paths: string[]) {
  for (const p of paths) mkdirSync(p, { recursive: true });
}

async function audit(bundlePath: string, podSecurity?: string) {
  const source = await openSource(input, DEFAULT_SOURCE_OPTIONS);
  const loaded = await withAuditState(
    await loadPolicies(bundlePath),
    [source],
    podSecurity === undefined ? {} : { podSecurity },
    loadPolicySource,
  );
  const run = await runAudit(
    { sources: [source], bundle: bundlePath, concurrency: 1, failOn: "violation", ownerLabels: [], toolVersion: "0" },
    loaded.policySet,
  );
  const findings = await run.findings.toArray();
  const objects = await run.objects.toArray();
  disposeResult(run);
  return { loaded, run, findings, objects };
}

describe("the input's Namespaces as cluster state", () => {
  it("namespacesOf finds the Namespaces of YAML files and JSON Lists, in input order", async () => {
    const source = await openSource(input, DEFAULT_SOURCE_OPTIONS);
    const names = (await namespacesOf([source])).map((n) => (n.metadata as { name: string }).name);
    expect(names.sort()).toEqual(["payments", "shop"]);
  });

  it("a Pod in a namespace the input labels enforce=baseline is a violation", async () => {
    const { loaded, findings, run } = await audit(bundle);
    expect(loaded.source.options?.clusterState?.length).toBe(2);
    const violations = findings.filter((f) => f.severity === "violation");
    expect(violations.map((f) => [f.object?.name, f.rule.policy, f.rule.rule])).toEqual([
      ["debug", "baseline:latest", "privileged"],
    ]);
    expect(run.summary.podSecurity).toEqual({
      "baseline:latest": { pods: 1, workloads: 0 },
      "restricted:latest": { pods: 1, workloads: 1 },
    });
  });

  it("no pre-pass and no second compile without an admission family", async () => {
    const { loaded } = await audit(noAdmission);
    expect(loaded.source.options).toBeUndefined();
  });

  it("the what-if level: every namespace enforces it, workloads' templates included", async () => {
    const { findings, run, objects } = await audit(noAdmission, "restricted:latest");
    const violations = findings.filter((f) => f.severity === "violation");
    expect([...new Set(violations.map((f) => `${f.object?.kind}/${f.object?.name} ${f.rule.policy}`))]).toEqual([
      "Pod/debug restricted:latest",
      "Deployment/web restricted:latest",
    ]);
    expect(run.summary.podSecurity).toEqual({ "restricted:latest": { pods: 1, workloads: 1 } });
    expect(objects.find((o) => o.object?.name === "debug")?.podSecurity).toEqual(["restricted:latest"]);
  });
});

describe("with --policies-from-input: the input's RBAC objects and params as well", () => {
  const vapBundle = join(dir, "vap-bundle");
  const vapInput = join(dir, "vap-input");
  mkdirs(vapBundle, vapInput);
  const deploymentRule = {
    apiGroups: ["apps"],
    apiVersions: ["v1"],
    operations: ["CREATE"],
    resources: ["deployments"],
  };
  const scaleCheck = "authorizer.group('apps').resource('deployments').namespace('shop').check('scale').allowed()";
  const docs = [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "cap" },
      spec: {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        matchConstraints: { resourceRules: [deploymentRule] },
        validations: [{ expression: "object.spec.replicas <= int(params.data.max)", message: "too many replicas" }],
      },
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: "cap-b" },
      spec: {
        policyName: "cap",
        validationActions: ["Deny"],
        paramRef: { name: "limits", namespace: "shop", parameterNotFoundAction: "Deny" },
      },
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "scalers" },
      spec: {
        matchConstraints: { resourceRules: [deploymentRule] },
        validations: [{ expression: scaleCheck, message: "the creator may not scale" }],
      },
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: "scalers-b" },
      spec: { policyName: "scalers", validationActions: ["Deny"] },
    },
  ];
  writeFileSync(join(vapBundle, "policies.json"), JSON.stringify({ apiVersion: "v1", kind: "List", items: docs }));
  const state = [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "limits", namespace: "shop" }, data: { max: "5" } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "scaler" },
      rules: [{ apiGroups: ["apps"], resources: ["deployments"], verbs: ["scale"] }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "everyone-scales" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "scaler" },
      subjects: [{ kind: "Group", name: "system:authenticated" }],
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "shop" },
      spec: { replicas: 3, template: { spec: { containers: [{ name: "c", image: "i" }] } } },
    },
  ];
  writeFileSync(join(vapInput, "export.json"), JSON.stringify({ apiVersion: "v1", kind: "List", items: state }));

  async function violations(stateFromInput: boolean): Promise<string[]> {
    const source = await openSource(vapInput, DEFAULT_SOURCE_OPTIONS);
    const loaded = await withAuditState(
      await loadPolicies(vapBundle, [source]),
      [source],
      { stateFromInput },
      loadPolicySource,
    );
    const run = await runAudit(
      {
        sources: [source],
        bundle: vapBundle,
        concurrency: 1,
        failOn: "violation",
        ownerLabels: [],
        toolVersion: "0",
        user: { username: "tollgate-audit", groups: ["system:authenticated"] },
      },
      loaded.policySet,
    );
    const findings = await run.findings.toArray();
    disposeResult(run);
    return findings.filter((f) => f.severity === "violation").map((f) => f.message);
  }

  it("the param and the RBAC objects of the input decide; without them, their lookups fail", async () => {
    expect(await violations(true)).toEqual([]);
    expect(await violations(false)).toEqual([
      "ValidatingAdmissionPolicy 'cap' with binding 'cap-b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
      `ValidatingAdmissionPolicy 'scalers' with binding 'scalers-b' denied request: expression '${scaleCheck}' resulted in error: authorization check failed: no RBAC objects (Roles, ClusterRoles and their bindings) are known to decide authorization checks`,
    ]);
  });
});
