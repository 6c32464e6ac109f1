import { describe, expect, it } from "vitest";
import { builtinResources } from "../../../../lib/policy/builtin-resources.js";
import { createResourceCatalogue, resourcesOfKinds } from "../../../../lib/policy/resources.js";

const catalogue = createResourceCatalogue(builtinResources());

describe("built-in resources of Kubernetes 1.36", () => {
  it.each([
    { group: "apps", version: "v1", kind: "Deployment", resource: "deployments", namespaced: true },
    { group: "", version: "v1", kind: "Namespace", resource: "namespaces", namespaced: false },
    { group: "", version: "v1", kind: "ConfigMap", resource: "configmaps", namespaced: true },
    {
      group: "rbac.authorization.k8s.io",
      version: "v1",
      kind: "ClusterRole",
      resource: "clusterroles",
      namespaced: false,
    },
    { group: "networking.k8s.io", version: "v1", kind: "Ingress", resource: "ingresses", namespaced: true },
    { group: "policy", version: "v1", kind: "PodDisruptionBudget", resource: "poddisruptionbudgets", namespaced: true },
  ])("$group/$version $kind is served as $resource", ({ group, version, kind, resource, namespaced }) => {
    const info = catalogue.forKind(group, version, kind);
    expect(info?.resource).toBe(resource);
    expect(info?.namespaced).toBe(namespaced);
    expect(catalogue.forResource(group, version, resource)?.kind).toBe(kind);
  });

  it.each([
    {
      resource: "deployments",
      group: "apps",
      sub: "scale",
      kind: { group: "autoscaling", version: "v1", kind: "Scale" },
    },
    {
      resource: "deployments",
      group: "apps",
      sub: "status",
      kind: { group: "apps", version: "v1", kind: "Deployment" },
    },
    { resource: "pods", group: "", sub: "exec", kind: { group: "", version: "v1", kind: "PodExecOptions" } },
    { resource: "pods", group: "", sub: "eviction", kind: { group: "policy", version: "v1", kind: "Eviction" } },
    { resource: "pods", group: "", sub: "ephemeralcontainers", kind: { group: "", version: "v1", kind: "Pod" } },
    {
      resource: "serviceaccounts",
      group: "",
      sub: "token",
      kind: { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" },
    },
  ])("$resource/$sub is served as $kind.kind", ({ resource, group, sub, kind }) => {
    expect(catalogue.kindFor({ group, version: "v1", resource }, sub)).toEqual(kind);
  });

  it("has no subresource that a resource does not serve", () => {
    expect(catalogue.kindFor({ group: "", version: "v1", resource: "configmaps" }, "status")).toBeUndefined();
  });

  it("versions of one group and resource are equivalent, the asked one first", () => {
    const hpa = catalogue.equivalents({ group: "autoscaling", version: "v2", resource: "horizontalpodautoscalers" });
    expect(hpa).toEqual([
      { group: "autoscaling", version: "v2", resource: "horizontalpodautoscalers" },
      { group: "autoscaling", version: "v1", resource: "horizontalpodautoscalers" },
    ]);
  });

  it("core and events.k8s.io events share one storage, so they are equivalent", () => {
    expect(catalogue.equivalents({ group: "", version: "v1", resource: "events" })).toContainEqual({
      group: "events.k8s.io",
      version: "v1",
      resource: "events",
    });
  });

  it("equivalents of a subresource are only the resources that serve it", () => {
    const r = createResourceCatalogue(
      resourcesOfKinds([
        {
          group: "example.com",
          version: "v1",
          kind: "Widget",
          plural: "widgets",
          scope: "Namespaced",
          family: "crd",
          rules: 1,
          subresources: ["status"],
        },
        {
          group: "example.com",
          version: "v1beta1",
          kind: "Widget",
          plural: "widgets",
          scope: "Namespaced",
          family: "crd",
          rules: 1,
        },
        {
          group: "example.com",
          version: "v2",
          kind: "Widget",
          plural: "widgets",
          scope: "Namespaced",
          family: "crd",
          rules: 1,
          subresources: ["status", "scale"],
        },
      ]),
    );
    const gvr = { group: "example.com", version: "v1", resource: "widgets" };
    expect(r.equivalents(gvr).map((x) => x.version)).toEqual(["v1", "v1beta1", "v2"]);
    expect(r.equivalents(gvr, "status").map((x) => x.version)).toEqual(["v1", "v2"]);
    // Asked again, alternately and in a row (answers are kept: each must stay its own question's).
    for (let i = 0; i < 2; i++) {
      expect(r.equivalents(gvr).map((x) => x.version)).toEqual(["v1", "v1beta1", "v2"]);
      expect(r.equivalents(gvr).map((x) => x.version)).toEqual(["v1", "v1beta1", "v2"]);
      expect(r.equivalents(gvr, "status").map((x) => x.version)).toEqual(["v1", "v2"]);
      expect(r.equivalents({ ...gvr, version: "v2" }).map((x) => x.version)).toEqual(["v2", "v1", "v1beta1"]);
    }
    expect(r.kindFor({ ...gvr, version: "v2" }, "scale")).toEqual({
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
    });
  });
});
