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
 * Carries `firstSeen` over from the previous report (in place) and returns the comparison.
 *
 * @param findings this run's findings, with `firstSeen` set to this run's start
 */
export function compareWithPrevious(findings: Finding[], previous: PreviousReport): Comparison {
  const before = new Map(previous.findings.map((f) => [f.id, f]));
  const now = new Set<string>();
  let newFindings = 0;
  let persistingFindings = 0;
  for (const f of findings) {
    now.add(f.id);
    const old = before.get(f.id);
    if (old === undefined) {
      newFindings++;
      continue;
    }
    persistingFindings++;
    if (typeof old.firstSeen === "string" && old.firstSeen < f.firstSeen) f.firstSeen = old.firstSeen;
  }
  const resolved: Comparison["resolved"] = [];
  for (const f of previous.findings) {
    if (now.has(f.id)) continue;
    const r: Comparison["resolved"][number] = { id: f.id, severity: f.severity, message: f.message };
    if (f.object !== undefined) r.object = f.object;
    if (f.field !== undefined) r.field = f.field;
    resolved.push(r);
  }
  return {
    previousRunId: previous.runId,
    newFindings,
    resolvedFindings: resolved.length,
    persistingFindings,
    resolved,
  };
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
