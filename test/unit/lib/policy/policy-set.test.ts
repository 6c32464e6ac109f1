import { describe, expect, it } from "vitest";
import { type FieldError, invalid } from "../../../../lib/field/error.js";
import type { FamilyPolicy, FamilyRequest, FamilyResult } from "../../../../lib/policy/family.js";
import { createPolicySet } from "../../../../lib/policy/policy-set.js";
import { createResourceCatalogue } from "../../../../lib/policy/resources.js";
import {
  EVERY_KIND,
  type PolicyFailure,
  type ResolvedBundleConfig,
  type RuleFamily,
} from "../../../../lib/policy/types.js";

const config: ResolvedBundleConfig = {
  featureGates: {},
  failurePolicy: "Fail",
  families: { crd: true, kubevirt: true, declarative: true, "pod-security": true, "admission-policy": true },
  limits: { documentBytes: 1 << 20, depth: 64 },
};

function result(partial: Partial<FamilyResult> = {}): FamilyResult {
  return { errors: [], warnings: [], shadowed: [], ratcheted: [], ...partial };
}

function error(family: RuleFamily, detail: string): FieldError {
  return invalid("spec", null, detail, { source: { kind: family, policy: family } });
}

/** A family that records the requests it sees and answers `answer`. */
function family(name: RuleFamily, answer: (req: FamilyRequest) => FamilyResult | undefined, seen: string[]) {
  const policy: FamilyPolicy = {
    family: name,
    stage: name === "pod-security" || name === "admission-policy" ? "admission" : "schema",
    kinds: [],
    covers: () => true,
    validate(req) {
      seen.push(name);
      return answer(req);
    },
  };
  return policy;
}

const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns" } };
const resources = createResourceCatalogue([
  { group: "", version: "v1", resource: "pods", kind: "Pod", namespaced: true, subresources: [] },
]);

describe("PolicySet: families in the API server's order", () => {
  it("runs schema families before admission ones, whatever order they are given in", () => {
    const seen: string[] = [];
    const set = createPolicySet({
      digest: "d",
      config,
      failures: [],
      resources,
      families: [
        family("admission-policy", () => result(), seen),
        family("pod-security", () => result(), seen),
        family("crd", () => result(), seen),
      ],
    });
    const v = set.validate({ operation: "CREATE", object: pod });
    expect(seen).toEqual(["crd", "pod-security", "admission-policy"]);
    expect(v).toMatchObject({ allowed: true, covered: true });
  });

  it("does not run admission families when a schema family denies (the strategy validates first)", () => {
    const seen: string[] = [];
    const set = createPolicySet({
      digest: "d",
      config,
      failures: [],
      resources,
      families: [
        family("crd", () => result({ errors: [error("crd", "bad")] }), seen),
        family("pod-security", () => result(), seen),
      ],
    });
    const v = set.validate({ operation: "CREATE", object: pod });
    expect(seen).toEqual(["crd"]);
    expect(v.allowed).toBe(false);
    expect(v.status).toBeUndefined();
  });

  it("stops at the first admission family that denies, keeps its status and the first value of each annotation", () => {
    const seen: string[] = [];
    const status = { code: 403, reason: "Forbidden", message: "no", family: "pod-security" as const };
    const set = createPolicySet({
      digest: "d",
      config,
      failures: [],
      resources,
      families: [
        family("crd", () => result({ object: { ...pod, defaulted: true }, auditAnnotations: { a: "first" } }), seen),
        family(
          "pod-security",
          (req) =>
            result({
              errors: [error("pod-security", "privileged")],
              status,
              warningTexts: [`seen defaulted: ${String(req.object.defaulted)}`],
              auditAnnotations: { a: "second", b: "x" },
              audits: [error("pod-security", "audited")],
            }),
          seen,
        ),
        family("admission-policy", () => result(), seen),
      ],
    });
    const v = set.validate({ operation: "CREATE", object: pod });
    expect(seen).toEqual(["crd", "pod-security"]);
    expect(v.allowed).toBe(false);
    expect(v.status).toEqual(status);
    expect(v.warningTexts).toEqual(["seen defaulted: true"]);
    expect(v.auditAnnotations).toEqual({ a: "first", b: "x" });
    expect(v.audits).toHaveLength(1);
  });

  it("resolves the request's attributes from the object when the caller gives none", () => {
    let got: FamilyRequest | undefined;
    const set = createPolicySet({
      digest: "d",
      config,
      failures: [],
      resources,
      families: [
        family(
          "pod-security",
          (req) => {
            got = req;
            return result();
          },
          [],
        ),
      ],
    });
    set.validate({ operation: "CREATE", object: pod });
    expect(got).toMatchObject({
      namespace: "ns",
      name: "p",
      resource: { group: "", version: "v1", resource: "pods" },
      requestKind: { group: "", version: "v1", kind: "Pod" },
      userInfo: { username: "" },
      dryRun: false,
      secret: false,
    });
    set.validate({ operation: "CREATE", object: { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } } });
    expect(got?.secret).toBe(true);
    expect(got?.resource).toBeUndefined();
  });

  it("answers an internal fault of a family per the failure policy, never by throwing", () => {
    const boom = () => {
      throw new Error("boom");
    };
    for (const failurePolicy of ["Fail", "Ignore"] as const) {
      const set = createPolicySet({
        digest: "d",
        config: { ...config, failurePolicy },
        failures: [],
        resources,
        families: [family("crd", boom, [])],
      });
      const v = set.validate({ operation: "CREATE", object: pod });
      expect(v.allowed).toBe(failurePolicy === "Ignore");
      const [e] = failurePolicy === "Fail" ? v.errors : v.warnings;
      expect(e).toMatchObject({ type: "InternalError", source: { kind: "tollgate" } });
      expect(e?.message).toContain("internal error while validating: boom");
    }
  });
});

describe("PolicySet: the failure policy for kinds whose policy cannot be used", () => {
  const gizmo = { apiVersion: "g.example.com/v1", kind: "Gizmo", metadata: { name: "g" } };
  const compileFailure: PolicyFailure = {
    severity: "error",
    family: "crd",
    stage: "cel",
    file: "gizmo-crd.yaml",
    document: 0,
    path: "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
    kinds: ["g.example.com/v1/Gizmo"],
    message: "compilation failed: ERROR: <input>: Unexpected token: EOF",
  };
  const undecodable: PolicyFailure = {
    severity: "error",
    family: "config",
    stage: "decode",
    file: "broken.yaml",
    document: 1,
    kinds: [EVERY_KIND],
    message: "document 1 (line 4): line 5, column 3: did not find expected key",
  };
  const setWith = (failures: PolicyFailure[], failurePolicy: "Fail" | "Ignore" = "Fail") =>
    createPolicySet({
      digest: "d",
      config: { ...config, failurePolicy },
      failures,
      resources,
      families: [family("crd", () => result(), [])],
    });

  it.each([
    {
      name: "a kind whose policy does not compile: the error names the document, where in it, and why",
      failures: [compileFailure],
      object: gizmo,
      detail:
        "the policy for g.example.com/v1/Gizmo cannot be used: gizmo-crd.yaml#0 spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: compilation failed: ERROR: <input>: Unexpected token: EOF",
    },
    {
      name: "a document of unknown kinds: every object, of any kind, may have its policy there",
      failures: [undecodable],
      object: pod,
      detail:
        "the policy for v1/Pod may be in broken.yaml#1, which cannot be used: document 1 (line 4): line 5, column 3: did not find expected key",
    },
  ])("Fail: $name", ({ failures, object, detail }) => {
    // Act
    const set = setWith(failures);
    const v = set.validate({ operation: "CREATE", object });
    // Assess
    expect(set.covers(object.apiVersion, object.kind)).toBe(true);
    expect(v).toMatchObject({ allowed: false, covered: true, warnings: [] });
    expect(v.errors.map((e) => `${e.field}: ${e.message}`)).toEqual([`kind: Internal error: ${detail}`]);
  });

  it("Ignore: a document of unknown kinds allows every object with a warning naming it", () => {
    const v = setWith([undecodable], "Ignore").validate({ operation: "CREATE", object: gizmo });
    expect(v).toMatchObject({ allowed: true, covered: true, errors: [] });
    expect(v.warningTexts).toEqual([
      "kind: Internal error: the policy for g.example.com/v1/Gizmo may be in broken.yaml#1, which cannot be used: document 1 (line 4): line 5, column 3: did not find expected key",
    ]);
  });

  it("a warning of unknown kinds changes nothing; an object of another kind is not affected by a kind's failure", () => {
    const failures = [{ ...undecodable, severity: "warning" as const }, compileFailure];
    const set = createPolicySet({ digest: "d", config, failures, resources, families: [] });
    expect(set.validate({ operation: "CREATE", object: pod })).toMatchObject({ allowed: true, covered: false });
    expect(set.covers("v1", "Pod")).toBe(false);
    expect(set.covers("g.example.com/v1", "Gizmo")).toBe(true);
  });

  it("keeps the loader's notes apart from the failures", () => {
    const note = { file: "cm.yaml", document: 0, message: 'not a policy document (v1 ConfigMap "c"): ignored' };
    const set = createPolicySet({ digest: "d", config, failures: [], notes: [note], resources, families: [] });
    expect(set.notes).toEqual([note]);
    expect(set.failures).toEqual([]);
    expect(set.validate({ operation: "CREATE", object: pod })).toMatchObject({ allowed: true, covered: false });
  });
});

describe("PolicySet: apiVersion as apimachinery's ParseGroupVersion reads it", () => {
  const seen: FamilyRequest[] = [];
  const set = createPolicySet({
    digest: "d",
    config,
    failures: [],
    resources,
    families: [
      family(
        "pod-security",
        (req) => {
          seen.push(req);
          return result();
        },
        [],
      ),
    ],
  });

  it("routes '/v1' as the core group's v1, as Go does", () => {
    seen.length = 0;
    const v = set.validate({ operation: "CREATE", object: { ...pod, apiVersion: "/v1" } });
    expect(v.allowed).toBe(true);
    expect(seen[0]).toMatchObject({ group: "", version: "v1", kind: "Pod" });
    expect(set.covers("/v1", "Pod")).toBe(true);
  });

  it.each(["apps/", "a/b/c"])("refuses %j, which no API server serves", (apiVersion) => {
    const v = set.validate({ operation: "CREATE", object: { ...pod, apiVersion } });
    expect(v.allowed).toBe(false);
    expect(v.errors[0]?.message).toBe(`Invalid value: "${apiVersion}": unexpected GroupVersion string: ${apiVersion}`);
    expect(set.covers(apiVersion, "Pod")).toBe(false);
  });
});
