/**
 * report.json (the complete run, versioned by `apiVersion`/`reportVersion`; its JSON Schema is
 * report.schema.json beside this file) and summary.json (the totals alone, for dashboards and `latest.json`).
 */
import type { AuditRun } from "../model.js";
import type { ReportWriter } from "./types.js";

export const jsonWriter: ReportWriter = {
  name: "json",
  render(run) {
    return [{ name: "report.json", content: `${JSON.stringify(run, null, 2)}\n`, contentType: "application/json" }];
  },
};

/** The summary document: everything but the objects and findings. */
export function summaryOf(run: AuditRun): Record<string, unknown> {
  const out: Record<string, unknown> = {
    apiVersion: run.apiVersion,
    kind: "AuditSummary",
    reportVersion: run.reportVersion,
    runId: run.runId,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    tool: run.tool,
    bundle: run.bundle,
    sources: run.sources,
    failOn: run.failOn,
    summary: run.summary,
  };
  if (run.previous !== undefined) out.previous = run.previous;
  if (run.comparison !== undefined) {
    const { resolved: _resolved, ...counts } = run.comparison;
    out.comparison = counts;
  }
  return out;
}

export const summaryWriter: ReportWriter = {
  name: "summary",
  render(run) {
    return [
      {
        name: "summary.json",
        content: `${JSON.stringify(summaryOf(run), null, 2)}\n`,
        contentType: "application/json",
      },
    ];
  },
};
