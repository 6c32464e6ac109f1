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
    `  findings: ${plural(s.findings.violation, "violation")}${s.grandfathered + s.blocking > 0 ? ` (${s.blocking} blocking, ${s.grandfathered} grandfathered)` : ""}, ${plural(s.findings.warning, "warning")}, ${s.findings.audit > 0 ? `${plural(s.findings.audit, "audit finding")}, ` : ""}${s.findings.waived > 0 ? `${s.findings.waived} waived, ` : ""}${s.findings.shadow} shadowed, ${plural(s.findings["template-annotation-failure"], "template annotation failure")}, ${plural(s.findings["policy-failure"], "policy failure")}`,
  ];
  if (s.podSecurity !== undefined) {
    const levels = Object.entries(s.podSecurity).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    lines.push(
      `  pod security: ${levels.map(([lv, c]) => `${lv}: ${plural(c.pods, "pod")}, ${plural(c.workloads, "workload")}`).join("; ")} checked`,
    );
  }
  lines.push(...waiverLines(run));
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

/**
 * The waivers of the run, when it had any: counts, then the waivers expiring soon (with their expiry), the expired
 * ones (with the findings they no longer waive) and the unused ones, by name.
 */
function waiverLines(run: ExecutedAudit["run"]): string[] {
  const w = run.summary.waivers;
  const list = run.waivers ?? [];
  const lines: string[] = [];
  if (w !== undefined) {
    lines.push(
      `  waivers: ${plural(w.total, "waiver")} (${w.active} active, ${w.expiring} expiring, ${w.expired} expired, ${w.unused} unused), ${plural(run.summary.findings.waived, "finding")} waived`,
    );
  }
  const expiring = list.filter((x) => x.standing === "expiring");
  if (expiring.length > 0) {
    lines.push(
      `  waivers expiring soon: ${expiring.map((x) => `${x.name} (${x.owner}, expires ${x.expires})`).join(", ")}`,
    );
  }
  const expired = list.filter((x) => x.standing === "expired");
  if (expired.length > 0) {
    lines.push(
      `  waivers expired: ${expired.map((x) => `${x.name} (${x.owner}, expired ${x.expires}; ${plural(x.lapsed, "finding")} no longer waived)`).join(", ")}`,
    );
  }
  const unused = list.filter((x) => x.waived + x.lapsed === 0);
  if (unused.length > 0) lines.push(`  waivers unused: ${unused.map((x) => x.name).join(", ")}`);
  if (run.summary.waiversInInput !== undefined && run.summary.waiversInInput > 0) {
    lines.push(
      `  note: ${plural(run.summary.waiversInInput, "Waiver document")} in the audited input not applied (waivers come from the bundle or --waivers only)`,
    );
  }
  return lines;
}

function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n} ${n === 1 ? word : pluralWord}`;
}
