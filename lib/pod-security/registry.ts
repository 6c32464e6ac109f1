/**
 * The check registry (k8s.io/pod-security-admission policy/registry.go): for every policy version from v1.0 to the
 * newest one a check knows, the ordered checks of each level, and the evaluation of a pod at a level-version.
 *
 * - A check revision applies from its minimum version until the next revision's.
 * - Restricted runs the baseline checks too, except those a restricted revision of that version overrides.
 * - Checks run baseline first, then restricted, each group in the order of their ids (so messages are stable).
 * - `latest` and versions newer than the newest known one evaluate as the newest. An emulated Kubernetes version
 *   lowers that newest version (kube-apiserver passes its emulation version: a 1.36 server evaluates `v1.37` and
 *   `latest` as v1.36).
 */
import type { Check, CheckFailure, CheckPod } from "./check.js";
import { BASELINE_CHECKS } from "./checks/baseline.js";
import { RESTRICTED_CHECKS } from "./checks/restricted.js";
import type { LevelVersion } from "./levels.js";
import type { PodView } from "./pod-view.js";

/** Every check, baseline and restricted. */
export const DEFAULT_CHECKS: readonly Check[] = [...BASELINE_CHECKS, ...RESTRICTED_CHECKS];

/** A check that disallowed the pod, with its id. */
export interface CheckViolation extends CheckFailure {
  id: string;
}

interface OrderedCheck {
  id: string;
  check: CheckPod;
}

export interface Evaluator {
  /** The newest policy version the evaluator distinguishes; `latest` and newer versions evaluate as this one. */
  readonly newestMinor: number;
  /** The checks that disallow the pod at this level-version, in the library's order (none for privileged). */
  evaluate(lv: LevelVersion, pod: PodView): CheckViolation[];
  /** The ids of the checks run at this level-version, in order. */
  checkIds(lv: LevelVersion): string[];
}

export interface EvaluatorOptions {
  /**
   * The Kubernetes minor version emulated (kube-apiserver's emulation version): versions newer than it evaluate as
   * it. Default: none (the newest version any check knows).
   */
  emulatedMinor?: number;
}

/** The revision of each check for each version, from the check's first version up to `newest`. */
function inflate(check: Check, newest: number, into: Map<string, { check: CheckPod; overrides: readonly string[] }>[]) {
  for (const [i, revision] of check.versions.entries()) {
    const until = check.versions[i + 1]?.minimumMinor ?? newest + 1;
    for (let v = revision.minimumMinor; v < until && v <= newest; v++) {
      into[v]!.set(check.id, { check: revision.check, overrides: revision.overrides ?? [] });
    }
  }
}

/** Builds the evaluator over `checks` (validated as the library validates them: a broken table is a bug). */
export function createEvaluator(checks: readonly Check[] = DEFAULT_CHECKS, options: EvaluatorOptions = {}): Evaluator {
  validateChecks(checks);
  let newest = 0;
  for (const c of checks) newest = Math.max(newest, c.versions[c.versions.length - 1]!.minimumMinor);
  const tableNewest = newest;
  if (options.emulatedMinor !== undefined && options.emulatedMinor < newest) newest = options.emulatedMinor;

  const baselineById: Map<string, { check: CheckPod; overrides: readonly string[] }>[] = [];
  const restrictedById: Map<string, { check: CheckPod; overrides: readonly string[] }>[] = [];
  for (let v = 0; v <= tableNewest; v++) {
    baselineById.push(new Map());
    restrictedById.push(new Map());
  }
  for (const c of checks) inflate(c, tableNewest, c.level === "baseline" ? baselineById : restrictedById);
  const order = [
    ...checks
      .filter((c) => c.level === "baseline")
      .map((c) => c.id)
      .sort(),
    ...checks
      .filter((c) => c.level === "restricted")
      .map((c) => c.id)
      .sort(),
  ];
  const baseline: OrderedCheck[][] = [];
  const restricted: OrderedCheck[][] = [];
  for (let v = 0; v <= tableNewest; v++) {
    const b = baselineById[v]!;
    const r = restrictedById[v]!;
    const overridden = new Set<string>();
    for (const x of r.values()) for (const id of x.overrides) overridden.add(id);
    baseline.push(order.filter((id) => b.has(id)).map((id) => ({ id, check: b.get(id)!.check })));
    restricted.push(
      order
        .filter((id) => r.has(id) || (b.has(id) && !overridden.has(id)))
        .map((id) => ({ id, check: (r.get(id) ?? b.get(id))!.check })),
    );
  }

  const checksFor = (lv: LevelVersion): OrderedCheck[] => {
    if (lv.level === "privileged") return [];
    const minor = Math.min(lv.version.minor, newest);
    return (lv.level === "baseline" ? baseline : restricted)[minor]!;
  };

  return Object.freeze({
    newestMinor: newest,
    evaluate(lv: LevelVersion, pod: PodView): CheckViolation[] {
      const out: CheckViolation[] = [];
      for (const { id, check } of checksFor(lv)) {
        const failure = check(pod);
        if (failure !== undefined) out.push({ id, ...failure });
      }
      return out;
    },
    checkIds: (lv: LevelVersion) => checksFor(lv).map((c) => c.id),
  });
}

function validateChecks(checks: readonly Check[]): void {
  const ids = new Map<string, string>();
  for (const c of checks) {
    if (ids.has(c.id)) throw new Error(`multiple checks registered for ID ${c.id}`);
    ids.set(c.id, c.level);
    if (c.versions.length === 0) throw new Error(`check ${c.id}: empty`);
    let previous = -1;
    for (const v of c.versions) {
      if (v.minimumMinor <= previous) throw new Error(`check ${c.id}: versions must be strictly increasing`);
      previous = v.minimumMinor;
    }
  }
  for (const c of checks) {
    for (const v of c.versions) {
      if (v.overrides === undefined || v.overrides.length === 0) continue;
      if (c.level !== "restricted") throw new Error(`check ${c.id}: only restricted checks may set overrides`);
      for (const o of v.overrides) {
        const level = ids.get(o);
        if (level !== undefined && level !== "baseline")
          throw new Error(`check ${c.id}: overrides ${level} check ${o}`);
      }
    }
  }
}

/**
 * AggregateCheckResult.ForbiddenDetail: `<reason> (<detail>), <reason>, ...` (a detail only when there is one).
 */
export function forbiddenDetail(violations: readonly CheckViolation[]): string {
  return violations
    .map((v) => {
      const reason = v.reason === "" ? "unknown forbidden reason" : v.reason;
      return v.detail === "" ? reason : `${reason} (${v.detail})`;
    })
    .join(", ");
}

/** AggregateCheckResult.ForbiddenReason: the reasons alone. */
export function forbiddenReason(violations: readonly CheckViolation[]): string {
  return violations.map((v) => (v.reason === "" ? "unknown forbidden reason" : v.reason)).join(", ");
}
