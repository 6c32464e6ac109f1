/**
 * A run's counts per group (policy, namespace, team, controller): findings by severity, and the pass rate's parts
 * (objects checked, objects failed). Counted by the RunRecorder as records and findings come in, so a plain run and
 * a merge of shard runs count the same way; the HTML report, the history line (history.ts) and the group-bys read
 * them.
 *
 * An object is checked when a policy covers its kind (outcome `valid` or `invalid`) and fails when it is `invalid`
 * (a violation or a template annotation failure). Per policy, the objects checked are those of the kinds the policy
 * reported findings on, and the failed ones those with a failing finding of that policy: a policy that reported
 * nothing in the run has no row.
 */
import type { Finding, ObjectRecord } from "./model.js";

/** One group's counts. */
export interface GroupCounts {
  /** Findings by severity (only severities that occurred). */
  findings: Record<string, number>;
  /** Objects a policy checked (see the module comment for policies). */
  checked: number;
  /** Objects among them that failed. */
  failed: number;
}

export const GROUP_BYS = ["policy", "namespace", "team", "controller"] as const;
export type GroupBy = (typeof GROUP_BYS)[number];

/** group-by → group name → counts. */
export type RunGroups = Record<GroupBy, Record<string, GroupCounts>>;

/** Severities that make an object fail (its outcome `invalid`). */
const FAILING: ReadonlySet<string> = new Set(["violation", "template-annotation-failure"]);

/** The policy a finding belongs to, as reports name it: `<family> <policy>` (`input` for input errors). */
export function policyKey(f: Pick<Finding, "severity" | "rule">): string {
  if (f.severity === "input-error") return "input";
  return f.rule.policy === undefined ? f.rule.family : `${f.rule.family} ${f.rule.policy}`;
}

/** A controller's group: `<namespace>/<Kind>/<name>` for a namespaced object, else `<Kind>/<name>`. */
export function controllerGroup(v: Pick<Finding, "controller" | "object">): string | undefined {
  if (v.controller === undefined) return undefined;
  return v.object?.namespace === undefined ? v.controller : `${v.object.namespace}/${v.controller}`;
}

function kindOf(ref: { apiVersion: string; kind: string }): string {
  return `${ref.apiVersion}/${ref.kind}`;
}

function counts(map: Record<string, GroupCounts>, key: string): GroupCounts {
  let c = map[key];
  if (c === undefined) {
    c = { findings: {}, checked: 0, failed: 0 };
    map[key] = c;
  }
  return c;
}

/** Counts a run's groups; {@link GroupTally.result} gives them. */
export class GroupTally {
  private readonly groups: RunGroups = { policy: {}, namespace: {}, team: {}, controller: {} };
  /** Covered objects (valid or invalid) per `apiVersion/kind`. */
  private readonly coveredByKind = new Map<string, number>();
  /** The kinds each policy reported findings on. */
  private readonly kindsOfPolicy = new Map<string, Set<string>>();
  /** The object a policy last failed, so each failing object counts once (an object's findings come together). */
  private readonly lastFailed = new Map<string, string>();

  object(r: ObjectRecord): void {
    if (r.outcome !== "valid" && r.outcome !== "invalid") return;
    const failed = r.outcome === "invalid" ? 1 : 0;
    if (r.object !== undefined) {
      const k = kindOf(r.object);
      this.coveredByKind.set(k, (this.coveredByKind.get(k) ?? 0) + 1);
    }
    for (const [by, key] of [
      ["namespace", r.object?.namespace],
      ["team", r.team],
      ["controller", controllerGroup(r)],
    ] as const) {
      if (key === undefined) continue;
      const c = counts(this.groups[by], key);
      c.checked++;
      c.failed += failed;
    }
  }

  finding(f: Finding): void {
    const policy = policyKey(f);
    for (const [by, key] of [
      ["policy", policy],
      ["namespace", f.object?.namespace],
      ["team", f.team],
      ["controller", controllerGroup(f)],
    ] as const) {
      if (key === undefined) continue;
      const c = counts(this.groups[by], key);
      c.findings[f.severity] = (c.findings[f.severity] ?? 0) + 1;
    }
    if (f.object === undefined || f.severity === "input-error" || f.severity === "policy-failure") return;
    const kind = kindOf(f.object);
    let kinds = this.kindsOfPolicy.get(policy);
    if (kinds === undefined) {
      kinds = new Set();
      this.kindsOfPolicy.set(policy, kinds);
    }
    kinds.add(kind);
    if (!FAILING.has(f.severity)) return;
    const key = `${kind}/${f.object.namespace ?? ""}/${f.object.name}`;
    if (this.lastFailed.get(policy) === key) return;
    this.lastFailed.set(policy, key);
    counts(this.groups.policy, policy).failed++;
  }

  /** The counts; `topOf` re-keys each controller group to the top of its chain (groups merge). */
  result(topOf: (group: string) => string = (g) => g): RunGroups {
    const out = structuredClone(this.groups);
    const byController: Record<string, GroupCounts> = {};
    for (const [group, c] of Object.entries(out.controller)) {
      const into = counts(byController, topOf(group));
      into.checked += c.checked;
      into.failed += c.failed;
      for (const [severity, n] of Object.entries(c.findings))
        into.findings[severity] = (into.findings[severity] ?? 0) + n;
    }
    out.controller = byController;
    for (const [policy, kinds] of this.kindsOfPolicy) {
      let checked = 0;
      for (const k of kinds) checked += this.coveredByKind.get(k) ?? 0;
      counts(out.policy, policy).checked = checked;
    }
    return out;
  }
}

/** Objects checked without failing, over objects checked, as a percentage with one decimal; undefined for none. */
export function passRate(c: Pick<GroupCounts, "checked" | "failed">): number | undefined {
  if (c.checked === 0) return undefined;
  return Math.round((1000 * (c.checked - Math.min(c.failed, c.checked))) / c.checked) / 10;
}
