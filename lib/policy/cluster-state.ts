/**
 * The cluster state the admission families consult: Namespaces (their labels decide Pod Security levels and
 * ValidatingAdmissionPolicy namespaceSelectors), RBAC objects (the offline authorizer) and parameter objects of any
 * kind. The webhook takes it from the bundle; the auditor adds the audited input's Namespaces (and, with
 * `--policies-from-input`, the rest). Immutable once built.
 */
import { parseGroupVersion } from "../objects/gvk.js";
import { isMapping } from "../objects/mapping.js";

export interface ClusterState {
  /** Whether any Namespace is known (an empty state cannot tell "no such namespace" from "not given"). */
  readonly hasNamespaces: boolean;
  /** The Namespace object of this name. */
  namespace(name: string): Record<string, unknown> | undefined;
  /**
   * The objects of a group and kind, in the order they were given (all versions: the API server serves an object at
   * every version of its kind).
   */
  objectsOf(group: string, kind: string): readonly Record<string, unknown>[];
  /** Every object, in the order given. */
  readonly objects: readonly Record<string, unknown>[];
}

/** The API group of an apiVersion (apimachinery's ParseGroupVersion); "" for the core group and for bad text. */
function groupOf(apiVersion: unknown): string {
  if (typeof apiVersion !== "string") return "";
  const gv = parseGroupVersion(apiVersion);
  return "error" in gv ? "" : gv.group;
}

function identity(obj: Record<string, unknown>): string {
  const meta = isMapping(obj.metadata) ? obj.metadata : {};
  return `${groupOf(obj.apiVersion)}\0${String(obj.kind)}\0${String(meta.namespace ?? "")}\0${String(meta.name ?? "")}`;
}

/**
 * A ClusterState of these objects. Non-objects are ignored. When two objects have the same group, kind, namespace
 * and name, the first wins (the bundle's, given before the input's).
 */
export function createClusterState(objects: Iterable<unknown>): ClusterState {
  const all: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  const byKind = new Map<string, Record<string, unknown>[]>();
  const namespaces = new Map<string, Record<string, unknown>>();
  for (const o of objects) {
    if (!isMapping(o) || typeof o.kind !== "string") continue;
    const id = identity(o);
    if (seen.has(id)) continue;
    seen.add(id);
    all.push(o);
    const key = `${groupOf(o.apiVersion)}/${o.kind}`;
    const list = byKind.get(key);
    if (list === undefined) byKind.set(key, [o]);
    else list.push(o);
    if (o.kind === "Namespace" && o.apiVersion === "v1" && isMapping(o.metadata)) {
      const name = o.metadata.name;
      if (typeof name === "string" && name !== "") namespaces.set(name, o);
    }
  }
  const empty: readonly Record<string, unknown>[] = Object.freeze([]);
  return Object.freeze({
    hasNamespaces: namespaces.size > 0,
    namespace: (name: string) => namespaces.get(name),
    objectsOf: (group: string, kind: string) => byKind.get(`${group}/${kind}`) ?? empty,
    objects: Object.freeze(all),
  });
}

/** The state with nothing in it. */
export const EMPTY_CLUSTER_STATE: ClusterState = createClusterState([]);
