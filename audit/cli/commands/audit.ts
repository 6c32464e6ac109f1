/**
 * `tollgate audit`: open the sources, load the policies (with `--policies-from-input`, also from the sources), run
 * the audit, compare with the previous run, write the reports, print a summary. See `tollgate audit --help`.
 */
import { join } from "node:path";
import { isS3Url } from "#lib/storage";
import type { AuditResult, AuditRunHeader } from "../../model.js";
import type { AuditConfig } from "../../run.js";
import type { ResolvedAuditConfig } from "../audit-args.js";
import type { CommandIo, CommandOutcome } from "../io.js";
import type { ProgressBar } from "../progress.js";

export interface AuditIo extends CommandIo {
  /** Whether standard error is a terminal: only then is a progress bar drawn (never in CI logs). */
  isTty: boolean;
  /** The terminal's width, for the progress bar. Default 80. */
  columns?: number;
}

/** What one `tollgate audit` run produced: its outcome for the exit code, the run, and the folder written. */
export interface AuditCommandResult {
  outcome: CommandOutcome;
  /** The run without its objects and findings (they were written to the reports). */
  run: AuditRunHeader;
  /** The run folder (a local path or an s3:// URL) holding the reports and index.json. */
  folder: string;
}

export async function runAuditCommand(config: Readonly<ResolvedAuditConfig>, io: AuditIo): Promise<CommandOutcome> {
  return (await executeAudit(config, io)).outcome;
}

/** Runs the audit, writes the reports and prints the summary; the result is for callers that need more than the outcome. */
export async function executeAudit(config: Readonly<ResolvedAuditConfig>, io: AuditIo): Promise<AuditCommandResult> {
  const [{ openSource, DEFAULT_SOURCE_OPTIONS }, { loadPolicies }, { runAudit }, { renderReports }, sink, model] =
    await Promise.all([
      import("../../sources/index.js"),
      import("../../policies.js"),
      import("../../run.js"),
      import("../../report/index.js"),
      import("../../sink.js"),
      import("../../model.js"),
    ]);
  const s3 = config.s3;
  // The progress bar counts the bytes the audit reads, once it starts (reads while loading policies are not counted).
  let onRead: ((bytes: number) => void) | undefined;
  const sourceOptions = {
    ...DEFAULT_SOURCE_OPTIONS,
    ...(config.maxJsonBytes !== undefined && { maxJsonParseBytes: config.maxJsonBytes }),
  };
  const sources = await Promise.all(
    config.sources.map((s) => openSource(s, { ...sourceOptions, onRead: (n) => onRead?.(n) }, s3)),
  );
  const previous = config.previous === undefined ? undefined : await openSource(config.previous, sourceOptions, s3);
  let result: AuditResult;
  let policiesFromInput: number;
  try {
    const loaded = await loadPolicies(config.bundle, config.policiesFromInput ? sources : undefined, s3);
    policiesFromInput = loaded.policiesFromInput;
    const compareWith =
      config.compareWith === undefined
        ? await sink.readLatestReport(config.out, { s3 })
        : await sink.readReportFile(config.compareWith, { s3 });
    if (config.compareWith !== undefined && compareWith === undefined) {
      const { ConfigError } = await import("#lib");
      throw new ConfigError(`--compare-with ${JSON.stringify(config.compareWith)} does not exist`);
    }

    const { resolveWorkers } = await import("../../workers/auto.js");
    const workers = await resolveWorkers(config.workers, config.sources, { previous: previous !== undefined });
    let progress: ProgressBar | undefined;
    if (io.isTty) {
      const [{ startProgressBar }, { progressTotalBytes }] = await Promise.all([
        import("../progress.js"),
        import("../../sources/size.js"),
      ]);
      progress = await startProgressBar(
        { write: io.stderr, columns: io.columns ?? 80 },
        await progressTotalBytes(config.sources, sourceOptions.maxJsonParseBytes),
      );
      onRead = progress.onRead;
    }
    const auditConfig: AuditConfig = {
      sources,
      bundle: config.bundle,
      concurrency: config.concurrency,
      failOn: config.failOn,
      ownerLabels: config.ownerLabels,
      policiesFromInput,
      toolVersion: config.toolVersion,
      workers,
      policySource: loaded.source,
    };
    if (previous !== undefined) auditConfig.previous = previous;
    if (compareWith !== undefined) auditConfig.compareWith = compareWith;
    if (progress !== undefined) auditConfig.onProgress = progress.update;
    try {
      result = await runAudit(auditConfig, loaded.policySet);
    } finally {
      progress?.stop();
    }
  } finally {
    await Promise.all([...sources, ...(previous === undefined ? [] : [previous])].map((s) => s.close?.()));
  }

  const files = renderReports(result, config.formats);
  let written: Awaited<ReturnType<typeof sink.writeRun>>;
  try {
    written = await sink.writeRun(config.out, result, files, { s3 });
  } finally {
    model.disposeResult(result);
  }
  const { objects: _objects, findings: _findings, ...run } = result;

  const s = run.summary;
  const lines = [
    `tollgate audit ${run.runId}: ${plural(s.documents, "document")} from ${config.sources.join(" ")} against ${config.bundle} (${plural(run.bundle.kinds, "kind")}${policiesFromInput > 0 ? `, ${plural(policiesFromInput, "policy", "policies")} from the input` : ""})`,
    `  objects: ${s.valid} valid, ${s.invalid} invalid, ${s.skippedUncovered} skipped (no policy for the kind), ${s.skippedNotKubernetes} not Kubernetes objects, ${plural(s.inputErrors, "input error")}`,
    `  findings: ${plural(s.findings.violation, "violation")}${s.grandfathered + s.blocking > 0 ? ` (${s.blocking} blocking, ${s.grandfathered} grandfathered)` : ""}, ${plural(s.findings.warning, "warning")}, ${s.findings.shadow} shadowed, ${plural(s.findings["template-annotation-failure"], "template annotation failure")}, ${plural(s.findings["policy-failure"], "policy failure")}`,
  ];
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
  lines.push(
    `Reports: ${written.folder}${written.folder.endsWith("/") ? "" : "/"} (${files.map((f) => f.name).join(", ")})`,
  );
  if (files.some((f) => f.name === "report.html")) {
    lines.push(
      `HTML report: ${isS3Url(written.folder) ? `${written.folder}/report.html` : join(written.folder, "report.html")}`,
    );
  }
  io.stdout(`${lines.join("\n")}\n`);

  const outcome = model.summaryReachesFailOn(run.summary, config.failOn) ? "violations" : "ok";
  return { outcome, run, folder: written.folder };
}

function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n} ${n === 1 ? word : pluralWord}`;
}
