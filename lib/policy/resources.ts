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
  /**
   * What makes resources equivalent (the API server keys them by storage): resources of one key are the same
   * objects served at other versions or groups. Default `<group>/<resource>`.
   */
  storage?: string;
}

export interface ResourceCatalogue {
  /** Every resource, in the order given (the first of a group, version and resource). */
  readonly resources: readonly ResourceInfo[];
  /** The resource objects of this kind are served as, at this version. */
  forKind(group: string, version: string, kind: string): ResourceInfo | undefined;
  /** The resource of this name, at this version. */
  forResource(group: string, version: string, resource: string): ResourceInfo | undefined;
  /**
   * The resources equivalent to this one (the same objects served at other versions or groups, as
   * matchPolicy `Equivalent` sees them), this one first; with a subresource, only those that serve it
   * (k8s.io/apimachinery runtime.EquivalentResourceRegistry.EquivalentResourcesFor).
   */
  equivalents(gvr: GroupVersionResource, subresource?: string): readonly GroupVersionResource[];
  /**
   * The kind a resource (or one of its subresources) is served as, when known
   * (runtime.EquivalentResourceRegistry.KindFor).
   */
  kindFor(gvr: GroupVersionResource, subresource?: string): GroupVersionKind | undefined;
}

function storageKey(r: { group: string; resource: string; storage?: string }): string {
  return r.storage ?? `${r.group}/${r.resource}`;
}

/**
 * A catalogue of these resources (the first of a group, version and resource wins); equivalents are the resources
 * of one storage key: the same group and resource at other versions, and cohabiting resources.
 */
export function createResourceCatalogue(resources: Iterable<ResourceInfo>): ResourceCatalogue {
  const byKind = new Map<string, ResourceInfo>();
  const byResource = new Map<string, ResourceInfo>();
  const byStorage = new Map<string, ResourceInfo[]>();
  for (const r of resources) {
    const kindKey = `${r.group}/${r.version}/${r.kind}`;
    const resourceKey = `${r.group}/${r.version}/${r.resource}`;
    if (!byKind.has(kindKey)) byKind.set(kindKey, r);
    if (byResource.has(resourceKey)) continue;
    byResource.set(resourceKey, r);
    const list = byStorage.get(storageKey(r)) ?? [];
    list.push(r);
    byStorage.set(storageKey(r), list);
  }
  const forResource = (group: string, version: string, resource: string) =>
    byResource.get(`${group}/${version}/${resource}`);
  const equivalentsOf = new Map<string, readonly GroupVersionResource[]>();
  // The last answer: one request asks again for each policy it is matched against.
  let last:
    | { group: string; version: string; resource: string; subresource: string; out: readonly GroupVersionResource[] }
    | undefined;
  return Object.freeze({
    resources: Object.freeze([...byResource.values()]),
    forKind: (group: string, version: string, kind: string) => byKind.get(`${group}/${version}/${kind}`),
    forResource,
    equivalents(gvr: GroupVersionResource, subresource = ""): readonly GroupVersionResource[] {
      if (
        last !== undefined &&
        last.resource === gvr.resource &&
        last.group === gvr.group &&
        last.version === gvr.version &&
        last.subresource === subresource
      ) {
        return last.out;
      }
      const key = `${gvr.group}/${gvr.version}/${gvr.resource}/${subresource}`;
      const known = equivalentsOf.get(key);
      if (known !== undefined) {
        last = { group: gvr.group, version: gvr.version, resource: gvr.resource, subresource, out: known };
        return known;
      }
      const own = forResource(gvr.group, gvr.version, gvr.resource);
      const same = byStorage.get(storageKey(own ?? gvr)) ?? [];
      const others = same
        .filter((r) => r.group !== gvr.group || r.version !== gvr.version || r.resource !== gvr.resource)
        .filter((r) => subresource === "" || r.subresources.some((s) => s.name === subresource))
        .map((r) => ({ group: r.group, version: r.version, resource: r.resource }));
      const out = Object.freeze([{ ...gvr }, ...others]);
      // Requests name a small set of resources: the answers are kept (bounded, for odd requests).
      if (equivalentsOf.size < 10_000) equivalentsOf.set(key, out);
      return out;
    },
    kindFor(gvr: GroupVersionResource, subresource = ""): GroupVersionKind | undefined {
      const r = forResource(gvr.group, gvr.version, gvr.resource);
      if (r === undefined) return undefined;
      if (subresource === "") return { group: r.group, version: r.version, kind: r.kind };
      return r.subresources.find((s) => s.name === subresource)?.kind;
    },
  });
}

const SCALE: GroupVersionKind = Object.freeze({ group: "autoscaling", version: "v1", kind: "Scale" });

/** The resources of covered kinds (CRDs): their plural, scope and subresources. */
export function resourcesOfKinds(kinds: readonly CoveredKind[]): ResourceInfo[] {
  return kinds.map((k) => ({
    group: k.group,
    version: k.version,
    resource: k.plural,
    kind: k.kind,
    namespaced: k.scope === "Namespaced",
    // A custom resource's scale subresource is served as autoscaling/v1 Scale, its status as the kind itself.
    subresources: (k.subresources ?? []).map((name) => ({
      name,
      kind: name === "scale" ? SCALE : { group: k.group, version: k.version, kind: k.kind },
    })),
  }));
}
