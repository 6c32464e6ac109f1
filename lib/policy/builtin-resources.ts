/**
 * The built-in resources of Kubernetes 1.36 (kind ↔ resource, scope, subresources and the kind each is served as),
 * for the admission families' matching. The table is generated from upstream's OpenAPI document
 * (builtin-resources.data.ts, by infra/generate-builtin-resources.ts); this file turns it into ResourceInfos once.
 */
import { BUILTIN_RESOURCE_ROWS } from "./builtin-resources.data.js";
import type { ResourceInfo } from "./resources.js";
import type { GroupVersionKind } from "./types.js";

/**
 * Resources kept in one storage under two groups: the API server's equivalent-resource registry keys resources by
 * their storage prefix, so these are the same objects for matchPolicy `Equivalent`
 * (kubernetes pkg/kubeapiserver/default_storage_factory_builder.go, AddCohabitatingResources).
 */
const COHABITATING: Readonly<Record<string, string>> = {
  "/events": "events",
  "events.k8s.io/events": "events",
};

function splitGroupVersion(gv: string): { group: string; version: string } {
  const i = gv.indexOf("/");
  return i === -1 ? { group: "", version: gv } : { group: gv.slice(0, i), version: gv.slice(i + 1) };
}

function parseSubresource(text: string, own: GroupVersionKind): { name: string; kind: GroupVersionKind } {
  const eq = text.indexOf("=");
  if (eq === -1) return { name: text, kind: own };
  const parts = text.slice(eq + 1).split("/");
  const kind = parts.pop()!;
  const version = parts.pop()!;
  return { name: text.slice(0, eq), kind: { group: parts.join("/"), version, kind } };
}

let cached: readonly ResourceInfo[] | undefined;

/** The built-in resources (built on first use, then shared). */
export function builtinResources(): readonly ResourceInfo[] {
  if (cached !== undefined) return cached;
  cached = Object.freeze(
    BUILTIN_RESOURCE_ROWS.map(([gv, resource, kind, namespaced, subs]): ResourceInfo => {
      const { group, version } = splitGroupVersion(gv);
      const own = { group, version, kind };
      const info: ResourceInfo = {
        group,
        version,
        resource,
        kind,
        namespaced: namespaced === 1,
        subresources: subs === "" ? [] : subs.split(" ").map((s) => parseSubresource(s, own)),
      };
      const storage = COHABITATING[`${group}/${resource}`];
      if (storage !== undefined) info.storage = storage;
      return Object.freeze(info);
    }),
  );
  return cached;
}
