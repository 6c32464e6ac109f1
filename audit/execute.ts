/**
 * One audit from its resolved configuration (audit/config.ts): open the sources, load the policies (with
 * `policiesFromInput`, also from the sources), read the previous run for the comparison, audit, write the reports
 * and `latest.json`. `tollgate audit` and the scheduled Lambda both run it; what a caller sees while it runs goes
 * through the small {@link ExecuteIo} (a progress display, on a terminal only).
 */
import { ConfigError } from "#lib";
import { isS3Url } from "#lib/storage";
import { withAuditState } from "./cluster-state.js";
import { bundleLimitsOf, type ResolvedAuditConfig } from "./config.js";
import { type AuditResult, type AuditRunHeader, summaryReachesFailOn } from "./model.js";
import { loadPolicies, loadPolicySource } from "./policies.js";
import { disposeResult } from "./recorder.js";
import { releaseReports, renderReports } from "./report/index.js";
import { type AuditConfig, type AuditProgress, runAudit } from "./run.js";
import { readHistory, readLatestReport, readReportFile, type SinkOptions, type WrittenRun, writeRun } from "./sink.js";
import { DEFAULT_SOURCE_OPTIONS, openSource, type Source, type SourceOptions } from "./sources/index.js";
import { progressTotalBytes } from "./sources/size.js";
import { resolveWorkers } from "./workers/auto.js";

/** A progress display: told the bytes read and the documents audited, stopped when the audit ends. */
export interface ProgressReporter {
  /** The sources' read meter (SourceOptions.onRead). */
  onRead(bytes: number): void;
  /** The runner's progress (AuditConfig.onProgress). */
  update(progress: AuditProgress): void;
  /** Erases the display; it is not used afterwards. */
  stop(): void;
}

export interface ExecuteIo {
  /**
   * Starts a progress display when the audit starts reading (after the policies are loaded); `totalBytes` is the
   * input's size, or undefined when it is not known (an `s3://` source). Absent: no progress is shown.
   */
  startProgress?(totalBytes: number | undefined): Promise<ProgressReporter>;
}

/** What one run produced. */
export interface ExecutedAudit {
  /** Whether a finding reaches `failOn`. */
  outcome: "ok" | "violations";
  /** The run without its objects and findings (they were written to the reports). */
  run: AuditRunHeader;
  /** The run folder (a local path or an s3:// URL) holding the reports and index.json. */
  written: WrittenRun;
  /** The report files written, in order. */
  files: readonly string[];
  /** Policy documents taken from the input. */
  policiesFromInput: number;
}

/**
 * Runs the audit and writes its reports.
 *
 * @throws ConfigError for a source, bundle or `compareWith` that does not exist; StorageError when S3 or the
 * report folder fails; WorkerPoolError when a worker thread fails
 */
export async function executeAudit(config: Readonly<ResolvedAuditConfig>, io: ExecuteIo = {}): Promise<ExecutedAudit> {
  const options = sourceOptionsOf(config);
  // The progress display counts the bytes the audit reads once it starts (reads while loading policies are not).
  let onRead: ((bytes: number) => void) | undefined;
  const metered = { ...options, onRead: (n: number) => onRead?.(n) };
  const opened = config.sources.map((s) => () => openSource(s, metered, { s3: config.s3 }));
  if (config.previous !== undefined) opened.push(() => openSource(config.previous!, options, { s3: config.s3 }));
  let policiesFromInput = 0;
  const result = await withSources(opened, async (all) => {
    const sources = all.slice(0, config.sources.length);
    const previous = all[config.sources.length];
    const loaded = await withAuditState(
      await loadPolicies(config.bundle, config.policiesFromInput ? sources : undefined, config.s3, {
        waivers: config.waivers,
        limits: bundleLimitsOf(config.maxDocumentBytes),
      }),
      sources,
      {
        ...(config.podSecurity !== undefined && { podSecurity: config.podSecurity }),
        ...(config.policiesFromInput && { stateFromInput: true }),
      },
      loadPolicySource,
    );
    policiesFromInput = loaded.policiesFromInput;
    const compareWith =
      config.compareWith === undefined
        ? await readLatestReport(config.out, { s3: config.s3 })
        : await readReportFile(config.compareWith, { s3: config.s3 });
    if (config.compareWith !== undefined && compareWith === undefined) {
      throw new ConfigError(`--compare-with ${JSON.stringify(config.compareWith)} does not exist`);
    }
    const auditConfig: AuditConfig = {
      sources,
      bundle: config.bundle,
      concurrency: config.concurrency,
      failOn: config.failOn,
      ownerLabels: config.ownerLabels,
      user: config.user,
      policiesFromInput,
      toolVersion: config.toolVersion,
      warnExpiryDays: config.warnExpiryDays,
      workers: await resolveWorkers(config.workers, config.sources, { previous: previous !== undefined }),
      policySource: loaded.source,
    };
    if (previous !== undefined) auditConfig.previous = previous;
    if (compareWith !== undefined) auditConfig.compareWith = compareWith;
    let progress: ProgressReporter | undefined;
    if (io.startProgress !== undefined) {
      progress = await io.startProgress(
        await progressTotalBytes(config.sources, options.maxJsonParseBytes, options.excludeFolders),
      );
      onRead = progress.onRead;
      auditConfig.onProgress = progress.update;
    }
    try {
      return await runAudit(auditConfig, loaded.policySet);
    } finally {
      progress?.stop();
    }
  });
  const { run, written, files } = await publishRun(result, config);
  const outcome = summaryReachesFailOn(run.summary, config.failOn) ? "violations" : "ok";
  return { outcome, run, written, files, policiesFromInput };
}

/** The sources' bounds: the defaults, with the configured size above which a JSON List is streamed. */
export function sourceOptionsOf(
  config: Pick<ResolvedAuditConfig, "maxJsonBytes" | "maxDocumentBytes" | "out">,
): SourceOptions {
  return {
    ...DEFAULT_SOURCE_OPTIONS,
    ...(config.maxJsonBytes !== undefined && { maxJsonParseBytes: config.maxJsonBytes }),
    ...(config.maxDocumentBytes !== undefined && { maxDocumentBytes: config.maxDocumentBytes }),
    // The reports of this run and its predecessors are never audited (`--out ci-reports .`).
    ...(!isS3Url(config.out) && { excludeFolders: [config.out] }),
  };
}

/**
 * Opens the sources (all at once), runs `f` with them in the given order, and closes every one that opened, also
 * when one fails to open or `f` throws.
 */
export async function withSources<T>(
  open: readonly (() => Promise<Source>)[],
  f: (sources: Source[]) => Promise<T>,
): Promise<T> {
  const settled = await Promise.allSettled(open.map((o) => o()));
  const sources = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  try {
    const failed = settled.find((s) => s.status === "rejected");
    if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
    return await f(sources);
  } finally {
    await Promise.all(sources.map((s) => s.close?.()));
  }
}

/**
 * Renders the reports of a finished run (with the earlier runs of history.json for the trend) and writes them
 * (index.json after them, then the history line, then latest.json), then removes the run's spools. Returns the run
 * without its objects and findings.
 *
 * @param sink how the run folder is chosen (SinkOptions.sameFolder); S3 options come from `config`
 */
export async function publishRun(
  result: AuditResult,
  config: Pick<ResolvedAuditConfig, "out" | "formats" | "s3">,
  sink: Omit<SinkOptions, "s3"> = {},
): Promise<{ run: AuditRunHeader; written: WrittenRun; files: string[] }> {
  let written: WrittenRun;
  let files: ReturnType<typeof renderReports>;
  try {
    result.history = await readHistory(config.out, { s3: config.s3 });
    files = renderReports(result, config.formats);
    written = await writeRun(config.out, result, files, { ...sink, s3: config.s3 });
  } finally {
    releaseReports(result);
    disposeResult(result);
  }
  const { objects: _objects, findings: _findings, controllerLinks: _links, ...run } = result;
  return { run, written, files: files.map((f) => f.name) };
}
