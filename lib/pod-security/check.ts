/**
 * The shape of a Pod Security check (k8s.io/pod-security-admission policy/checks.go) and the wording helpers the
 * checks share (policy/helpers.go).
 */
import type { Level } from "./levels.js";
import type { ContainerSecurityContext, ContainerView, PodSecurityContext, PodView } from "./pod-view.js";

/** A check that disallowed the pod: CheckResult with Allowed false. */
export interface CheckFailure {
  /** ForbiddenReason: short, always shown ("host ports", "privileged"). */
  reason: string;
  /** ForbiddenDetail: the containers, volumes and values at fault (may be ""). */
  detail: string;
  /** The first field at fault (or the field that must be set), for the finding. */
  field: string;
}

/** A check function: undefined when the pod is allowed. */
export type CheckPod = (pod: PodView) => CheckFailure | undefined;

export interface VersionedCheck {
  /** The first policy version (`v1.<minor>`) this revision applies to. */
  minimumMinor: number;
  check: CheckPod;
  /** Baseline checks this (restricted) revision replaces. */
  overrides?: readonly string[];
}

export interface Check {
  id: string;
  level: Exclude<Level, "privileged">;
  /** Revisions, by strictly increasing minimum version. */
  versions: readonly VersionedCheck[];
}

/** `"a", "b"`: the items quoted (no escaping) and joined. */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? "" : `"${items.join('", "')}"`;
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** `container "a"` / `containers "a", "b"`. */
export function containersText(names: readonly string[]): string {
  return `${pluralize("container", "containers", names.length)} ${joinQuote(names)}`;
}

/** Go's string order (bytes of UTF-8, the same as code points). */
export function goCompare(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** sets.NewString(...).List(): unique, in Go's string order. */
export function sortedSet(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(goCompare);
}

/** The field path of a container: `spec.containers[0]`. */
export function containerPath(pod: PodView, c: ContainerView): string {
  return `${pod.specPath}.${c.list}[${c.index}]`;
}

/** relaxPolicyForUserNamespacePod: the pod runs in a user namespace (`hostUsers: false`). */
export function inUserNamespace(pod: PodView): boolean {
  return pod.hostUsers === false;
}

/**
 * The pod, then the containers, whose security context sets a value `allowed` refuses: the setters as the checks
 * name them (`pod`, `containers "a", "b"`), the values refused, and the first field at fault (`at`: the value's
 * path below `securityContext`).
 */
export function forbiddenSetters(
  pod: PodView,
  read: (sc: PodSecurityContext | ContainerSecurityContext | undefined) => string | undefined,
  allowed: (value: string) => boolean,
  at: string,
): { setters: string[]; values: Set<string>; field: string } {
  const setters: string[] = [];
  const values = new Set<string>();
  let field = "";
  const podValue = read(pod.securityContext);
  if (podValue !== undefined && !allowed(podValue)) {
    setters.push("pod");
    values.add(podValue);
    field = `${pod.specPath}.securityContext.${at}`;
  }
  const bad: string[] = [];
  for (const c of pod.containers) {
    const v = read(c.securityContext);
    if (v === undefined || allowed(v)) continue;
    if (field === "") field = `${containerPath(pod, c)}.securityContext.${at}`;
    bad.push(c.name);
    values.add(v);
  }
  if (bad.length > 0) setters.push(containersText(bad));
  return { setters, values, field };
}
