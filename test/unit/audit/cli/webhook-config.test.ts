import { describe, expect, it } from "vitest";
import { webhookConfiguration, webhookRules } from "../../../../audit/cli/commands/webhook-config.js";
import { type CoveredKind, loadBundle } from "../../../../lib/index.js";
import { POD_SECURITY_WEBHOOK_RULES } from "../../../helpers/pod-security-rules.js";

function kind(group: string, version: string, k: string, extra: Partial<CoveredKind> = {}): CoveredKind {
  return {
    group,
    version,
    kind: k,
    plural: `${k.toLowerCase()}s`,
    scope: "Namespaced",
    family: "crd",
    rules: 1,
    ...extra,
  };
}

describe("webhookRules", () => {
  it.each([
    {
      name: "versions with the same resources share a rule",
      kinds: [kind("g.example.com", "v1", "A"), kind("g.example.com", "v1beta1", "A")],
      want: [{ apiGroups: ["g.example.com"], apiVersions: ["v1", "v1beta1"], resources: ["as"], scope: "Namespaced" }],
    },
    {
      name: "a kind served in fewer versions gets its own rule (no cross-product match)",
      kinds: [kind("g.example.com", "v1", "A"), kind("g.example.com", "v1", "B"), kind("g.example.com", "v2", "B")],
      want: [
        { apiGroups: ["g.example.com"], apiVersions: ["v1"], resources: ["as", "bs"], scope: "Namespaced" },
        { apiGroups: ["g.example.com"], apiVersions: ["v2"], resources: ["bs"], scope: "Namespaced" },
      ],
    },
    {
      name: "scopes and groups never share a rule; the core group is empty",
      kinds: [
        kind("g.example.com", "v1", "A", { scope: "Cluster" }),
        kind("g.example.com", "v1", "B"),
        kind("", "v1", "Thing"),
      ],
      want: [
        { apiGroups: [""], apiVersions: ["v1"], resources: ["things"], scope: "Namespaced" },
        { apiGroups: ["g.example.com"], apiVersions: ["v1"], resources: ["as"], scope: "Cluster" },
        { apiGroups: ["g.example.com"], apiVersions: ["v1"], resources: ["bs"], scope: "Namespaced" },
      ],
    },
    {
      name: "the status subresource where the kind validates it",
      kinds: [kind("g.example.com", "v1", "A", { subresources: ["status"] }), kind("g.example.com", "v2", "A")],
      want: [
        { apiGroups: ["g.example.com"], apiVersions: ["v1", "v2"], resources: ["as"], scope: "Namespaced" },
        {
          apiGroups: ["g.example.com"],
          apiVersions: ["v1"],
          resources: ["as/status"],
          scope: "Namespaced",
          operations: ["UPDATE"],
        },
      ],
    },
    { name: "no kinds, no rules", kinds: [], want: [] },
  ])("$name", ({ kinds, want }) => {
    expect(webhookRules(kinds)).toEqual(want.map((r) => ({ operations: ["CREATE", "UPDATE"], ...r })));
  });
});

describe("webhookConfiguration", () => {
  it("registers the requests a bundle's ValidatingAdmissionPolicies match, once each, as their rules say", async () => {
    const rule = {
      apiGroups: ["apps"],
      apiVersions: ["v1"],
      operations: ["CREATE", "DELETE"],
      resources: ["deployments", "deployments/scale"],
      scope: "Namespaced",
      resourceNames: ["web"],
    };
    const policy = (name: string) => ({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name },
      spec: { matchConstraints: { resourceRules: [rule] }, validations: [{ expression: "true" }] },
    });
    const binding = (name: string, policyName: string) => ({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name },
      spec: { policyName, validationActions: ["Deny"] },
    });
    const docs = [policy("a"), binding("a-b", "a"), policy("b"), binding("b-b", "b"), policy("unbound")];
    const set = await loadBundle(docs.map((d, i) => ({ path: `${i}.json`, content: JSON.stringify(d) })));
    const { object } = webhookConfiguration(set, {
      url: "https://tollgate.example.com/validate",
      failurePolicy: "Fail",
      timeoutSeconds: 5,
      name: "tollgate",
      excludeNamespaces: [],
    });
    const webhooks = (object as { webhooks: { rules: unknown[] }[] }).webhooks;
    expect(webhooks[0]?.rules).toEqual([
      {
        apiGroups: ["apps"],
        apiVersions: ["v1"],
        operations: ["CREATE", "DELETE"],
        resources: ["deployments", "deployments/scale"],
        scope: "Namespaced",
      },
    ]);
  });
});

describe("webhookRules of a bundle with a PodSecurityConfiguration", () => {
  it("registers namespaces, pods (and their ephemeral containers) and the workload kinds", async () => {
    const set = await loadBundle("test/fixtures/bundles/pod-security");
    expect(webhookRules(set.kinds)).toEqual(POD_SECURITY_WEBHOOK_RULES);
  });
});
