/**
 * Better or worse since the previous run: findings are matched by their stable id (model.ts, `findingId`). A finding
 * keeps the `firstSeen` of the earliest run that reported it; new findings are first seen in this run.
 */
import type { Comparison, Finding } from "./model.js";

/** The part of a previous report.json the comparison reads (a report of any version with these fields). */
export interface PreviousReport {
  runId: string;
  findings: ReadonlyArray<Pick<Finding, "id" | "severity" | "message" | "firstSeen" | "object" | "field">>;
}

/**
 * Compares findings with a previous report as they come: {@link Comparer.observe} carries `firstSeen` over (in
 * place) before the finding is written out, and {@link Comparer.result} gives the comparison once all are seen.
 * Memory: the previous findings, and one id per current finding.
 */
export class Comparer {
  private readonly before: Map<string, PreviousReport["findings"][number]>;
  private readonly now = new Set<string>();
  private newFindings = 0;
  private persistingFindings = 0;

  constructor(private readonly previous: PreviousReport) {
    this.before = new Map(previous.findings.map((f) => [f.id, f]));
  }

  /** @param f a finding of this run, with `firstSeen` set to this run's start */
  observe(f: Finding): void {
    this.now.add(f.id);
    const old = this.before.get(f.id);
    if (old === undefined) {
      this.newFindings++;
      return;
    }
    this.persistingFindings++;
    if (typeof old.firstSeen === "string" && old.firstSeen < f.firstSeen) f.firstSeen = old.firstSeen;
  }

  result(): Comparison {
    const resolved: Comparison["resolved"] = [];
    for (const f of this.previous.findings) {
      if (this.now.has(f.id)) continue;
      const r: Comparison["resolved"][number] = { id: f.id, severity: f.severity, message: f.message };
      if (f.object !== undefined) r.object = f.object;
      if (f.field !== undefined) r.field = f.field;
      resolved.push(r);
    }
    return {
      previousRunId: this.previous.runId,
      newFindings: this.newFindings,
      resolvedFindings: resolved.length,
      persistingFindings: this.persistingFindings,
      resolved,
    };
  }
}

/**
 * Carries `firstSeen` over from the previous report (in place) and returns the comparison.
 *
 * @param findings this run's findings, with `firstSeen` set to this run's start
 */
export function compareWithPrevious(findings: Finding[], previous: PreviousReport): Comparison {
  const comparer = new Comparer(previous);
  for (const f of findings) comparer.observe(f);
  return comparer.result();
}

/** Whether parsed JSON looks like a report this comparison can read. */
export function isPreviousReport(v: unknown): v is PreviousReport {
  if (typeof v !== "object" || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.runId === "string" &&
    Array.isArray(r.findings) &&
    r.findings.every((f) => typeof f === "object" && f !== null && typeof (f as { id?: unknown }).id === "string")
  );
}
