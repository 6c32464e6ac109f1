/**
 * The values an admission policy's CEL expressions see (k8s.io/apiserver pkg/admission/plugin/cel activation.go and
 * condition.go): `object`, `oldObject` and `params` as unstructured JSON (integers as CEL int, other numbers as
 * double, objects as maps); `request` as the AdmissionRequest the plugin builds, with the fields Go's JSON encoding
 * leaves out when empty absent (so `request.namespace` of a cluster-scoped request is "no such key"); and
 * `namespaceObject` as the copy of the Namespace the plugin makes (status, spec and some metadata fields).
 */
import { GoFloat } from "../field/message.js";
import { isMapping } from "../objects/mapping.js";
import type { GroupVersionKind, GroupVersionResource } from "../policy/types.js";
import type { AdmissionAttributes } from "./attributes.js";

/** Unstructured JSON as a CEL value: int64 as bigint, float as number, objects as Maps, lists as arrays. */
export function celValue(v: unknown): unknown {
  switch (typeof v) {
    case "number":
      return Number.isInteger(v) ? BigInt(v) : v;
    case "bigint":
    case "string":
    case "boolean":
      return v;
    case "object": {
      if (v === null) return null;
      if (v instanceof GoFloat) return v.value;
      if (Array.isArray(v)) return v.map(celValue);
      const out = new Map<string, unknown>();
      for (const [k, x] of Object.entries(v)) out.set(k, celValue(x));
      return out;
    }
    default:
      return null;
  }
}

/** The operation options the API server passes when the request has none (its REST handlers always set one). */
export function defaultOptions(attr: AdmissionAttributes): Record<string, unknown> | null {
  const kind =
    attr.operation === "CREATE"
      ? "CreateOptions"
      : attr.operation === "UPDATE"
        ? "UpdateOptions"
        : attr.operation === "DELETE"
          ? "DeleteOptions"
          : undefined;
  if (kind === undefined) return null;
  const out: Record<string, unknown> = { apiVersion: "meta.k8s.io/v1", kind };
  if (attr.dryRun) out.dryRun = ["All"];
  return out;
}

function gvk(k: GroupVersionKind): Record<string, unknown> {
  return { group: k.group, version: k.version, kind: k.kind };
}

function gvr(r: GroupVersionResource): Record<string, unknown> {
  return { group: r.group, version: r.version, resource: r.resource };
}

/** authentication/v1 UserInfo as Go encodes it: empty fields left out. */
function userInfo(attr: AdmissionAttributes): Record<string, unknown> {
  const u = attr.userInfo;
  const out: Record<string, unknown> = {};
  if (u.username !== "") out.username = u.username;
  if (u.uid !== undefined && u.uid !== "") out.uid = u.uid;
  if (u.groups !== undefined && u.groups.length > 0) out.groups = [...u.groups];
  const extra = Object.entries(u.extra ?? {});
  if (extra.length > 0) out.extra = new Map(extra.map(([k, v]) => [k, [...v]]));
  return out;
}

/**
 * CEL's `request` (cel.CreateAdmissionRequest): `kind`/`resource` are the matched ones, `requestKind`/
 * `requestResource` the request's own.
 */
export function requestValue(
  attr: AdmissionAttributes,
  matchedResource: GroupVersionResource,
  matchedKind: GroupVersionKind,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    kind: gvk(matchedKind),
    resource: gvr(matchedResource),
    requestKind: gvk(attr.kind),
    requestResource: gvr(attr.resource),
    operation: attr.operation,
    userInfo: userInfo(attr),
    dryRun: attr.dryRun,
    options: celValue(attr.options ?? defaultOptions(attr)),
  };
  if (attr.subresource !== "") {
    out.subResource = attr.subresource;
    out.requestSubResource = attr.subresource;
  }
  if (attr.name !== "") out.name = attr.name;
  if (attr.namespace !== "") out.namespace = attr.namespace;
  return out;
}

const NAMESPACE_META_FIELDS = [
  "name",
  "generateName",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "finalizers",
] as const;

/**
 * CEL's `namespaceObject` (cel.CreateNamespaceObject): the Namespace's status, spec and these metadata fields; a
 * typed Namespace always has `spec` and `status` (possibly empty) and a `creationTimestamp` (null when unset).
 */
export function namespaceValue(ns: Record<string, unknown>): Map<string, unknown> {
  const meta = isMapping(ns.metadata) ? ns.metadata : {};
  const metadata: Record<string, unknown> = {};
  for (const f of NAMESPACE_META_FIELDS) if (meta[f] !== undefined && meta[f] !== null) metadata[f] = meta[f];
  if (metadata.creationTimestamp === undefined) metadata.creationTimestamp = null;
  return celValue({
    metadata,
    spec: isMapping(ns.spec) ? ns.spec : {},
    status: isMapping(ns.status) ? ns.status : {},
  }) as Map<string, unknown>;
}
