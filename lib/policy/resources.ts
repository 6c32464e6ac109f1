/**
 * Kind ↔ resource, as the API server's REST mapper knows it: admission matches requests by resource
 * (`deployments`, `pods/ephemeralcontainers`), while the auditor and the CLI only have objects (apiVersion and kind).
 * The catalogue holds the built-in resources of Kubernetes 1.36 and the kinds the bundle's schema families serve
 * (CRDs: their plural, scope and subresources).
 */
import type { CoveredKind, GroupVersionKind, GroupVersionResource } from "./types.js";

export interface ResourceInfo {
  group: string;
  version: string;
  /** The plural resource name (`deployments`). */
  resource: string;
  kind: string;
  namespaced: boolean;
  /** Subresources with the kind they are served as (`status` → the same kind; `scale` → autoscaling/v1 Scale). */
  subresources: readonly { name: string; kind: GroupVersionKind }[];
}

export interface ResourceCatalogue {
  /** The resource objects of this kind are served as, at this version. */
  forKind(group: string, version: string, kind: string): ResourceInfo | undefined;
  /** The resource of this name, at this version. */
  forResource(group: string, version: string, resource: string): ResourceInfo | undefined;
  /**
   * The resources equivalent to this one (the same objects served at other versions or groups, as
   * matchPolicy `Equivalent` sees them), this one first.
   */
  equivalents(gvr: GroupVersionResource): readonly GroupVersionResource[];
}

/** A catalogue of these resources; equivalents are the same group and resource at other versions. */
export function createResourceCatalogue(resources: Iterable<ResourceInfo>): ResourceCatalogue {
  const byKind = new Map<string, ResourceInfo>();
  const byResource = new Map<string, ResourceInfo>();
  const versions = new Map<string, GroupVersionResource[]>();
  for (const r of resources) {
    const kindKey = `${r.group}/${r.version}/${r.kind}`;
    const resourceKey = `${r.group}/${r.version}/${r.resource}`;
    if (!byKind.has(kindKey)) byKind.set(kindKey, r);
    if (byResource.has(resourceKey)) continue;
    byResource.set(resourceKey, r);
    const gr = `${r.group}/${r.resource}`;
    const list = versions.get(gr) ?? [];
    list.push({ group: r.group, version: r.version, resource: r.resource });
    versions.set(gr, list);
  }
  return Object.freeze({
    forKind: (group: string, version: string, kind: string) => byKind.get(`${group}/${version}/${kind}`),
    forResource: (group: string, version: string, resource: string) =>
      byResource.get(`${group}/${version}/${resource}`),
    equivalents(gvr: GroupVersionResource): readonly GroupVersionResource[] {
      const same = versions.get(`${gvr.group}/${gvr.resource}`) ?? [];
      return [gvr, ...same.filter((x) => x.version !== gvr.version)];
    },
  });
}

/** The resources of covered kinds (CRDs): their plural, scope and subresources. */
export function resourcesOfKinds(kinds: readonly CoveredKind[]): ResourceInfo[] {
  return kinds.map((k) => ({
    group: k.group,
    version: k.version,
    resource: k.plural,
    kind: k.kind,
    namespaced: k.scope === "Namespaced",
    subresources: (k.subresources ?? []).map((name) => ({
      name,
      kind: { group: k.group, version: k.version, kind: k.kind },
    })),
  }));
}
