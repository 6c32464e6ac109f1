/**
 * Whether a policy's `matchConstraints` or a binding's `matchResources` match a request, as the API server decides
 * it (k8s.io/apiserver pkg/admission/plugin/policy/matching/matching.go and the webhook predicates it uses:
 * predicates/namespace, predicates/object, predicates/rules):
 *
 * 1. the namespaceSelector: always true for cluster-scoped requests other than on `namespaces`; a Namespace
 *    CREATE/UPDATE is matched on the object's own labels; otherwise the request namespace's labels, looked up in
 *    the cluster state (not found: the lookup's NotFound error);
 * 2. the objectSelector, on the object or the old object (either matching is enough);
 * 3. excludeResourceRules (a match excludes), then resourceRules (none: everything matches), each first on the
 *    request's own resource and then, with matchPolicy Equivalent, on its equivalent resources (the matched kind
 *    and resource are then the equivalent's);
 * 4. selector errors count only when the rules match.
 */
import type { ResourceCatalogue } from "../policy/resources.js";
import type { GroupVersionKind, GroupVersionResource } from "../policy/types.js";
import type { AdmissionAttributes } from "./attributes.js";
import type { MatchResources, NamedRule } from "./documents.js";
import { type LabelSelector, labelsOf, parseLabelSelector } from "./label-selector.js";

export type MatchResult =
  | { kind: "match"; resource: GroupVersionResource; matchKind: GroupVersionKind }
  | { kind: "no-match" }
  | { kind: "error"; message: string };

/** What the matcher needs from outside: Namespaces (by name) and the resource catalogue. */
export interface MatchContext {
  namespace(name: string): Record<string, unknown> | undefined;
  resources: ResourceCatalogue;
}

/** A parsed match criteria: selectors parsed once at compile time. */
export interface CompiledMatch {
  readonly spec: MatchResources;
  readonly namespaceSelector: LabelSelector | { error: string };
  readonly objectSelector: LabelSelector | { error: string };
}

const NO_MATCH: MatchResult = Object.freeze({ kind: "no-match" });

function compileSelector(spec: MatchResources["namespaceSelector"]): LabelSelector | { error: string } {
  const r = parseLabelSelector(spec);
  return r.kind === "selector" ? r.selector : { error: r.message };
}

export function compileMatch(spec: MatchResources): CompiledMatch {
  return {
    spec,
    namespaceSelector: compileSelector(spec.namespaceSelector),
    objectSelector: compileSelector(spec.objectSelector),
  };
}

/** apierrors.NewNotFound(namespaces, name): the lookup's error text. */
export function namespaceNotFound(name: string): string {
  return `namespaces "${name}" not found`;
}

function internalError(message: string): string {
  return `Internal error occurred: ${message}`;
}

type SelectorOutcome = { matches: boolean; error?: string };

/** predicates/namespace MatchNamespaceSelector. */
function matchNamespaceSelector(m: CompiledMatch, attr: AdmissionAttributes, ctx: MatchContext): SelectorOutcome {
  const isNamespaces = attr.resource.resource === "namespaces";
  if (attr.namespace === "" && !isNamespaces) return { matches: true };
  const sel = m.namespaceSelector;
  if ("error" in sel) return { matches: false, error: internalError(sel.error) };
  if (sel.empty) return { matches: true };
  let labels: Record<string, string>;
  if (isNamespaces && attr.subresource === "" && (attr.operation === "CREATE" || attr.operation === "UPDATE")) {
    labels = labelsOf(attr.object);
  } else {
    const ns = ctx.namespace(attr.namespace);
    if (ns === undefined) return { matches: false, error: namespaceNotFound(attr.namespace) };
    labels = labelsOf(ns);
  }
  return { matches: sel.matches(labels) };
}

/** predicates/object MatchObjectSelector. */
function matchObjectSelector(m: CompiledMatch, attr: AdmissionAttributes): SelectorOutcome {
  const sel = m.objectSelector;
  if ("error" in sel) return { matches: false, error: internalError(sel.error) };
  if (sel.empty) return { matches: true };
  const hit = (o: Record<string, unknown> | null) => o !== null && sel.matches(labelsOf(o));
  return { matches: hit(attr.object) || hit(attr.oldObject) };
}

function exactOrWildcard(items: readonly string[], requested: string): boolean {
  return items.some((i) => i === "*" || i === requested);
}

/** predicates/rules Matcher.Matches, with the resource possibly overridden by an equivalent. */
export function ruleMatches(rule: NamedRule, attr: AdmissionAttributes, resource: GroupVersionResource): boolean {
  return (
    scopeMatches(rule.scope, attr, resource) &&
    exactOrWildcard(rule.operations, attr.operation) &&
    exactOrWildcard(rule.apiGroups, resource.group) &&
    exactOrWildcard(rule.apiVersions, resource.version) &&
    resourceMatches(rule.resources, resource.resource, attr.subresource)
  );
}

function isNamespaceResource(r: GroupVersionResource): boolean {
  return r.group === "" && r.version === "v1" && r.resource === "namespaces";
}

function scopeMatches(scope: string, attr: AdmissionAttributes, resource: GroupVersionResource): boolean {
  switch (scope) {
    case "*":
      return true;
    case "Namespaced":
      return !isNamespaceResource(resource) && attr.namespace !== "";
    case "Cluster":
      return isNamespaceResource(resource) || attr.namespace === "";
    default:
      return false;
  }
}

function resourceMatches(resources: readonly string[], opRes: string, opSub: string): boolean {
  for (const r of resources) {
    const slash = r.indexOf("/");
    const res = slash === -1 ? r : r.slice(0, slash);
    const sub = slash === -1 ? "" : r.slice(slash + 1);
    if ((res === "*" || res === opRes) && (sub === "*" || sub === opSub)) return true;
  }
  return false;
}

function nameMatches(rule: NamedRule, name: string): boolean {
  return rule.resourceNames.length === 0 || rule.resourceNames.includes(name);
}

/** matching.go matchesResourceRules. */
function matchesResourceRules(
  rules: readonly NamedRule[],
  matchPolicy: string,
  attr: AdmissionAttributes,
  ctx: MatchContext,
): MatchResult {
  for (const rule of rules) {
    if (ruleMatches(rule, attr, attr.resource) && nameMatches(rule, attr.name)) {
      return { kind: "match", resource: attr.resource, matchKind: attr.kind };
    }
  }
  if (matchPolicy !== "Equivalent") return NO_MATCH;
  const equivalents = ctx.resources.equivalents(attr.resource, attr.subresource);
  for (const rule of rules) {
    for (const equivalent of equivalents) {
      if (sameResource(equivalent, attr.resource)) continue;
      if (!ruleMatches(rule, attr, equivalent)) continue;
      const matchKind = ctx.resources.kindFor(equivalent, attr.subresource);
      if (matchKind === undefined) {
        return { kind: "error", message: `unable to convert to ${gvrText(equivalent)}: unknown kind` };
      }
      if (nameMatches(rule, attr.name)) return { kind: "match", resource: equivalent, matchKind };
    }
  }
  return NO_MATCH;
}

function sameResource(a: GroupVersionResource, b: GroupVersionResource): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}

/** schema.GroupVersionResource's %v: "<group>/<version>, Resource=<resource>". */
function gvrText(r: GroupVersionResource): string {
  return `${r.group}/${r.version}, Resource=${r.resource}`;
}

/** matching.go Matcher.Matches. */
export function matches(m: CompiledMatch, attr: AdmissionAttributes, ctx: MatchContext): MatchResult {
  const ns = matchNamespaceSelector(m, attr, ctx);
  if (!ns.matches && ns.error === undefined) return NO_MATCH;
  const obj = matchObjectSelector(m, attr);
  if (!obj.matches && obj.error === undefined) return NO_MATCH;
  const { spec } = m;
  const excluded = matchesResourceRules(spec.excludeResourceRules, spec.matchPolicy, attr, ctx);
  if (excluded.kind !== "no-match") return excluded.kind === "error" ? excluded : NO_MATCH;
  const result: MatchResult =
    spec.resourceRules.length === 0
      ? { kind: "match", resource: attr.resource, matchKind: attr.kind }
      : matchesResourceRules(spec.resourceRules, spec.matchPolicy, attr, ctx);
  if (result.kind !== "match") return result;
  if (ns.error !== undefined) return { kind: "error", message: ns.error };
  if (obj.error !== undefined) return { kind: "error", message: obj.error };
  return result;
}
