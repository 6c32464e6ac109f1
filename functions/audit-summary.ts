/**
 * What a scheduled audit returns and logs, the plain auditor's (functions/audit.ts) and the sharded audit's merge step's
 * (functions/audit-steps.ts) alike: the run, its folder, its outcome and its totals.
 */
import type { ResolvedAuditConfig } from "../audit/config.js";
import { type AuditRunHeader, type FailOn, type Summary, summaryReachesFailOn } from "../audit/model.js";

/** What the handler returns and logs. */
export interface AuditSummary {
  runId: string;
  /** The run folder, ending in "/": `<out>/<run>/` or `s3://bucket/prefix/<run>/`. */
  folder: string;
  status: "ok" | "violations";
  /** The CLI's exit code for the same run: 0 or 1. */
  exitCode: 0 | 1;
  failOn: FailOn;
  sources: string[];
  bundle: string;
  out: string;
  totals: Summary;
  /** Sharded runs (the state machine's merge step): how many shards the run was made of. */
  shards?: number;
}

/** The summary of a finished run; `shards` for a sharded run's merge. */
export function summaryOf(
  config: Pick<ResolvedAuditConfig, "failOn" | "sources" | "bundle" | "out">,
  run: Pick<AuditRunHeader, "runId" | "summary">,
  written: string,
  shards?: number,
): AuditSummary {
  const outcome = summaryReachesFailOn(run.summary, config.failOn) ? "violations" : "ok";
  return {
    runId: run.runId,
    folder: written.endsWith("/") ? written : `${written}/`,
    status: outcome,
    exitCode: outcome === "ok" ? 0 : 1,
    failOn: config.failOn,
    sources: [...config.sources],
    bundle: config.bundle,
    out: config.out,
    totals: run.summary,
    ...(shards !== undefined && { shards }),
  };
}

/** The run's log line: counts and places, never object content. */
export function logFields(summary: AuditSummary): Record<string, unknown> {
  const t = summary.totals;
  return {
    runId: summary.runId,
    folder: summary.folder,
    status: summary.status,
    exitCode: summary.exitCode,
    failOn: summary.failOn,
    sources: summary.sources.length,
    documents: t.documents,
    objects: t.objects,
    valid: t.valid,
    invalid: t.invalid,
    skippedUncovered: t.skippedUncovered,
    skippedNotKubernetes: t.skippedNotKubernetes,
    inputErrors: t.inputErrors,
    findings: t.findings,
    durationMs: t.durationMs,
    ...(summary.shards !== undefined && { shards: summary.shards }),
  };
}
