import { describe, expect, it } from "vitest";
import type { AdmissionAttributes } from "../../../../lib/admission-policy/attributes.js";
import type { MatchResources, NamedRule } from "../../../../lib/admission-policy/documents.js";
import { compileMatch, type MatchContext, matches } from "../../../../lib/admission-policy/matching.js";
import { builtinResources } from "../../../../lib/policy/builtin-resources.js";
import { createResourceCatalogue, resourcesOfKinds } from "../../../../lib/policy/resources.js";

const resources = createResourceCatalogue([
  ...resourcesOfKinds([
    {
      group: "example.com",
      version: "v1",
      kind: "Widget",
      plural: "widgets",
      scope: "Namespaced",
      family: "crd",
      rules: 0,
    },
    {
      group: "example.com",
      version: "v1beta1",
      kind: "Widget",
      plural: "widgets",
      scope: "Namespaced",
      family: "crd",
      rules: 0,
    },
  ]),
  ...builtinResources(),
]);

const NAMESPACES: Record<string, Record<string, unknown>> = {
  prod: { apiVersion: "v1", kind: "Namespace", metadata: { name: "prod", labels: { env: "prod" } } },
};
const ctx: MatchContext = { namespace: (n) => NAMESPACES[n], resources };

const EVERYTHING = { matchLabels: {}, matchExpressions: [] };

function rule(overrides: Partial<NamedRule> = {}): NamedRule {
  return {
    operations: ["*"],
    apiGroups: ["*"],
    apiVersions: ["*"],
    resources: ["*"],
    scope: "*",
    resourceNames: [],
    ...overrides,
  };
}

function criteria(overrides: Partial<MatchResources> = {}): MatchResources {
  return {
    namespaceSelector: EVERYTHING,
    objectSelector: EVERYTHING,
    resourceRules: [rule()],
    excludeResourceRules: [],
    matchPolicy: "Equivalent",
    ...overrides,
  };
}

function configMap(overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: "CREATE",
    kind: { group: "", version: "v1", kind: "ConfigMap" },
    resource: { group: "", version: "v1", resource: "configmaps" },
    subresource: "",
    namespace: "prod",
    name: "cfg",
    object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", labels: { team: "a" } } },
    oldObject: null,
    userInfo: { username: "alice" },
    dryRun: false,
    options: null,
    secret: false,
    ...overrides,
  };
}

function outcome(m: MatchResources, attr: AdmissionAttributes): string {
  const r = matches(compileMatch(m), attr, ctx);
  if (r.kind === "match") return `match ${r.resource.group}/${r.resource.version}/${r.resource.resource}`;
  return r.kind === "error" ? `error ${r.message}` : "no-match";
}

describe("resource rules", () => {
  it.each([
    { name: "wildcards", r: rule(), want: "match /v1/configmaps" },
    { name: "operation not listed", r: rule({ operations: ["UPDATE"] }), want: "no-match" },
    { name: "group", r: rule({ apiGroups: ["apps"] }), want: "no-match" },
    { name: "resource by name", r: rule({ resources: ["configmaps"] }), want: "match /v1/configmaps" },
    { name: "scope Cluster", r: rule({ scope: "Cluster" }), want: "no-match" },
    { name: "scope Namespaced", r: rule({ scope: "Namespaced" }), want: "match /v1/configmaps" },
    { name: "resourceNames miss", r: rule({ resourceNames: ["other"] }), want: "no-match" },
    { name: "resourceNames hit", r: rule({ resourceNames: ["cfg"] }), want: "match /v1/configmaps" },
  ])("$name", ({ r, want }) => {
    expect(outcome(criteria({ resourceRules: [r] }), configMap())).toBe(want);
  });

  it("no resourceRules match everything", () => {
    expect(outcome(criteria({ resourceRules: [] }), configMap())).toBe("match /v1/configmaps");
  });

  it("excludeResourceRules win", () => {
    expect(outcome(criteria({ excludeResourceRules: [rule({ resources: ["configmaps"] })] }), configMap())).toBe(
      "no-match",
    );
  });

  const scale = configMap({
    kind: { group: "autoscaling", version: "v1", kind: "Scale" },
    resource: { group: "apps", version: "v1", resource: "deployments" },
    subresource: "scale",
  });
  it.each([
    { resources: ["*"], want: "no-match" },
    { resources: ["deployments"], want: "no-match" },
    { resources: ["deployments/scale"], want: "match apps/v1/deployments" },
    { resources: ["*/scale"], want: "match apps/v1/deployments" },
    { resources: ["deployments/*"], want: "match apps/v1/deployments" },
    { resources: ["*/*"], want: "match apps/v1/deployments" },
  ])("a subresource request and resources $resources: $want", ({ resources, want }) => {
    expect(outcome(criteria({ resourceRules: [rule({ resources })] }), scale)).toBe(want);
  });

  it("a Namespace is cluster-scoped for scope Cluster even with its own name as the request namespace", () => {
    const ns = configMap({
      kind: { group: "", version: "v1", kind: "Namespace" },
      resource: { group: "", version: "v1", resource: "namespaces" },
      operation: "UPDATE",
      namespace: "prod",
      name: "prod",
    });
    expect(outcome(criteria({ resourceRules: [rule({ scope: "Cluster" })] }), ns)).toBe("match /v1/namespaces");
    expect(outcome(criteria({ resourceRules: [rule({ scope: "Namespaced" })] }), ns)).toBe("no-match");
  });
});

describe("matchPolicy", () => {
  const widget = configMap({
    kind: { group: "example.com", version: "v1beta1", kind: "Widget" },
    resource: { group: "example.com", version: "v1beta1", resource: "widgets" },
  });
  const v1Only = rule({ apiGroups: ["example.com"], apiVersions: ["v1"], resources: ["widgets"] });
  it("Equivalent matches another version of the resource, reporting the matched one", () => {
    expect(outcome(criteria({ resourceRules: [v1Only] }), widget)).toBe("match example.com/v1/widgets");
  });
  it("Exact does not", () => {
    expect(outcome(criteria({ resourceRules: [v1Only], matchPolicy: "Exact" }), widget)).toBe("no-match");
  });
  it("an equivalent excluded by an exclude rule is excluded", () => {
    expect(outcome(criteria({ excludeResourceRules: [v1Only] }), widget)).toBe("no-match");
  });
});

describe("selectors", () => {
  const sel = (matchLabels: Record<string, string>) => ({ matchLabels, matchExpressions: [] });
  it.each([
    { name: "namespace labels match", ns: "prod", selector: sel({ env: "prod" }), want: "match /v1/configmaps" },
    { name: "namespace labels differ", ns: "prod", selector: sel({ env: "dev" }), want: "no-match" },
    {
      name: "unknown namespace: the lookup's error",
      ns: "nope",
      selector: sel({ env: "dev" }),
      want: 'error namespaces "nope" not found',
    },
    {
      name: "unknown namespace, empty selector: no lookup",
      ns: "nope",
      selector: EVERYTHING,
      want: "match /v1/configmaps",
    },
  ])("$name", ({ ns, selector, want }) => {
    expect(outcome(criteria({ namespaceSelector: selector }), configMap({ namespace: ns }))).toBe(want);
  });

  it("a cluster-scoped request always matches the namespaceSelector", () => {
    const clusterRole = configMap({
      kind: { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole" },
      resource: { group: "rbac.authorization.k8s.io", version: "v1", resource: "clusterroles" },
      namespace: "",
    });
    expect(outcome(criteria({ namespaceSelector: sel({ env: "prod" }) }), clusterRole)).toBe(
      "match rbac.authorization.k8s.io/v1/clusterroles",
    );
  });

  it("a Namespace CREATE is matched on its own labels", () => {
    const ns = configMap({
      kind: { group: "", version: "v1", kind: "Namespace" },
      resource: { group: "", version: "v1", resource: "namespaces" },
      namespace: "",
      object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "new", labels: { env: "prod" } } },
    });
    expect(outcome(criteria({ namespaceSelector: sel({ env: "prod" }) }), ns)).toBe("match /v1/namespaces");
  });

  it("objectSelector: the new or the old object", () => {
    const update = configMap({
      operation: "UPDATE",
      object: { metadata: { labels: {} } },
      oldObject: { metadata: { labels: { team: "a" } } },
    });
    expect(outcome(criteria({ objectSelector: sel({ team: "a" }) }), update)).toBe("match /v1/configmaps");
    expect(outcome(criteria({ objectSelector: sel({ team: "b" }) }), update)).toBe("no-match");
  });

  it("a selector that does not parse is an error only when the rules match", () => {
    const bad = { matchLabels: {}, matchExpressions: [{ key: "k", operator: "Bogus", values: [] }] };
    expect(outcome(criteria({ objectSelector: bad }), configMap())).toBe(
      'error Internal error occurred: "Bogus" is not a valid label selector operator',
    );
    expect(
      outcome(criteria({ objectSelector: bad, resourceRules: [rule({ apiGroups: ["apps"] })] }), configMap()),
    ).toBe("no-match");
  });
});
