/**
 * `tollgate audit`: runs the audit (audit/execute.ts) with a progress bar on a terminal, then prints a summary of
 * the run. See `tollgate audit --help`.
 */
import type { ResolvedAuditConfig } from "../../config.js";
import type { ExecutedAudit } from "../../execute.js";
import type { CommandIo, CommandOutcome } from "../io.js";

export interface AuditIo extends CommandIo {
  /** Whether standard error is a terminal: only then is a progress bar drawn (never in CI logs). */
  isTty: boolean;
  /** The terminal's width, for the progress bar. Default 80. */
  columns?: number;
}

export async function runAuditCommand(config: Readonly<ResolvedAuditConfig>, io: AuditIo): Promise<CommandOutcome> {
  const { executeAudit } = await import("../../execute.js");
  const executed = await executeAudit(
    config,
    io.isTty
      ? {
          startProgress: async (totalBytes) => {
            const { startProgressBar } = await import("../progress.js");
            return startProgressBar({ write: io.stderr, columns: io.columns ?? 80 }, totalBytes);
          },
        }
      : {},
  );
  io.stdout(summaryText(config, executed));
  return executed.outcome;
}

/** The lines printed after a run: totals, findings, the comparison, and where the reports are. */
function summaryText(config: Readonly<ResolvedAuditConfig>, executed: ExecutedAudit): string {
  const { run, written, files, policiesFromInput } = executed;
  const s = run.summary;
  const lines = [
    `tollgate audit ${run.runId}: ${plural(s.documents, "document")} from ${config.sources.join(" ")} against ${config.bundle} (${plural(run.bundle.kinds, "kind")}${policiesFromInput > 0 ? `, ${plural(policiesFromInput, "policy", "policies")} from the input` : ""})`,
    `  objects: ${s.valid} valid, ${s.invalid} invalid, ${s.skippedUncovered} skipped (no policy for the kind), ${s.skippedNotKubernetes} not Kubernetes objects, ${plural(s.inputErrors, "input error")}`,
    `  findings: ${plural(s.findings.violation, "violation")}${s.grandfathered + s.blocking > 0 ? ` (${s.blocking} blocking, ${s.grandfathered} grandfathered)` : ""}, ${plural(s.findings.warning, "warning")}, ${s.findings.audit > 0 ? `${plural(s.findings.audit, "audit finding")}, ` : ""}${s.findings.shadow} shadowed, ${plural(s.findings["template-annotation-failure"], "template annotation failure")}, ${plural(s.findings["policy-failure"], "policy failure")}`,
  ];
  if (s.podSecurity !== undefined) {
    const levels = Object.entries(s.podSecurity).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    lines.push(
      `  pod security: ${levels.map(([lv, c]) => `${lv}: ${plural(c.pods, "pod")}, ${plural(c.workloads, "workload")}`).join("; ")} checked`,
    );
  }
  const uncovered = Object.entries(s.skippedByKind).sort((a, b) => b[1] - a[1]);
  if (uncovered.length > 0) {
    lines.push(
      `  skipped kinds: ${uncovered
        .slice(0, 5)
        .map(([k, n]) => `${k} (${n})`)
        .join(", ")}${uncovered.length > 5 ? `, and ${uncovered.length - 5} more` : ""}`,
    );
  }
  if (run.comparison !== undefined) {
    const c = run.comparison;
    lines.push(
      `  since ${c.previousRunId}: ${c.newFindings} new, ${c.resolvedFindings} resolved, ${c.persistingFindings} persisting`,
    );
  }
  lines.push(`Reports: ${written.folder}${written.folder.endsWith("/") ? "" : "/"} (${files.join(", ")})`);
  if (files.includes("report.html")) lines.push(`HTML report: ${written.location("report.html")}`);
  return `${lines.join("\n")}\n`;
}

function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n} ${n === 1 ? word : pluralWord}`;
}
