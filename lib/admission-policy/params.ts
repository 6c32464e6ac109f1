/**
 * Parameters of a policy binding, as the API server collects them (k8s.io/apiserver pkg/admission/plugin/policy/
 * generic/policy_dispatcher.go CollectParams): the param objects of the policy's `paramKind` in the cluster state,
 * by `paramRef.name` or `paramRef.selector`, in `paramRef.namespace` or the request's namespace for a namespaced
 * kind; none found with `parameterNotFoundAction: Deny` is a configuration error. A policy without `paramKind`, or
 * a binding without `paramRef`, evaluates once with `params` null.
 */
import type { ClusterState } from "../policy/cluster-state.js";
import type { ResourceInfo } from "../policy/resources.js";
import type { ParamRefSpec } from "./documents.js";
import { type LabelSelector, labelsOf, parseLabelSelector } from "./label-selector.js";

/** A param object as CEL sees it (with the paramKind's apiVersion and kind), and who it is. */
export interface Param {
  object: Record<string, unknown>;
  /** "<namespace>/<name>", or "<name>" for a cluster-scoped param. */
  id: string;
}

/** The resolved paramKind of a policy: its group, version, kind and the resource serving it. */
export interface ParamKind {
  apiVersion: string;
  group: string;
  kind: string;
  resource: ResourceInfo;
}

/** One evaluation with null params. */
export const NO_PARAMS: readonly (Param | null)[] = Object.freeze([null]);

export type ParamsResult = { kind: "params"; params: readonly (Param | null)[] } | { kind: "error"; message: string };

function meta(obj: Record<string, unknown>): { name: string; namespace: string } {
  const m = obj.metadata;
  if (typeof m !== "object" || m === null || Array.isArray(m)) return { name: "", namespace: "" };
  const r = m as Record<string, unknown>;
  return {
    name: typeof r.name === "string" ? r.name : "",
    namespace: typeof r.namespace === "string" ? r.namespace : "",
  };
}

/**
 * The param as the policy sees it: served at the paramKind's version (a custom resource's conversion strategy None
 * only rewrites apiVersion), and a built-in kind's typed object gets its apiVersion and kind from the paramKind
 * (validating/dispatcher.go wrappedParam).
 */
function asParam(obj: Record<string, unknown>, kind: ParamKind): Param {
  const { name, namespace } = meta(obj);
  return {
    object: { ...obj, apiVersion: kind.apiVersion, kind: kind.kind },
    id: namespace === "" ? name : `${namespace}/${name}`,
  };
}

/** A parsed paramRef selector, or the parse error (a configuration error when used). */
export function compileParamSelector(ref: ParamRefSpec | undefined): LabelSelector | { error: string } | undefined {
  if (ref?.selector === undefined) return undefined;
  const r = parseLabelSelector(ref.selector);
  return r.kind === "selector" ? r.selector : { error: r.message };
}

/** CollectParams. `kind` is undefined when the policy has no paramKind. */
export function collectParams(
  kind: ParamKind | undefined,
  ref: ParamRefSpec | undefined,
  selector: LabelSelector | { error: string } | undefined,
  requestNamespace: string,
  cluster: ClusterState,
): ParamsResult {
  if (kind === undefined || ref === undefined) return { kind: "params", params: NO_PARAMS };
  let namespace: string | undefined;
  if (kind.resource.namespaced) {
    namespace = ref.namespace !== "" ? ref.namespace : requestNamespace;
    if (namespace === "") {
      return {
        kind: "error",
        message: "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources",
      };
    }
  } else if (ref.namespace !== "") {
    return { kind: "error", message: "paramRef.namespace must not be provided for a cluster-scoped `paramKind`" };
  }
  const inScope = cluster
    .objectsOf(kind.group, kind.kind)
    .filter((o) => namespace === undefined || meta(o).namespace === namespace);
  let found: Record<string, unknown>[];
  if (ref.name !== "") {
    if (ref.selector !== undefined) {
      return { kind: "error", message: "paramRef.name and paramRef.selector are mutually exclusive" };
    }
    found = inScope.filter((o) => meta(o).name === ref.name).slice(0, 1);
  } else if (selector !== undefined) {
    if ("error" in selector) return { kind: "error", message: selector.error };
    found = inScope.filter((o) => selector.matches(labelsOf(o)));
  } else {
    return { kind: "error", message: "one of name or selector must be provided" };
  }
  if (found.length === 0 && ref.parameterNotFoundAction === "Deny") {
    return { kind: "error", message: "no params found for policy binding with `Deny` parameterNotFoundAction" };
  }
  return { kind: "params", params: found.map((o) => asParam(o, kind)) };
}
