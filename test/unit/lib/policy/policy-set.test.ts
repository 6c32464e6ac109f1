import { describe, expect, it } from "vitest";
import { type FieldError, invalid } from "../../../../lib/field/error.js";
import type { FamilyPolicy, FamilyRequest, FamilyResult } from "../../../../lib/policy/family.js";
import { createPolicySet } from "../../../../lib/policy/policy-set.js";
import { createResourceCatalogue } from "../../../../lib/policy/resources.js";
import type { ResolvedBundleConfig, RuleFamily } from "../../../../lib/policy/types.js";

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
