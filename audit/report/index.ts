/**
 * The report registry: `--format` name → writer. Every writer turns an AuditRun into files and reads audit/model.ts
 * and lib's public types only.
 */
import { appendAll } from "#lib/objects/append.js";
import { csvWriter } from "./csv.js";
import { fieldErrorsWriter } from "./field-errors.js";
import { htmlWriter } from "./html.js";
import { jsonWriter, summaryWriter } from "./json.js";
import { junitWriter } from "./junit.js";
import { openReportsWriter, policyReportWriter } from "./policy-report.js";
import { sarifWriter } from "./sarif.js";
import type { ReportFile, ReportWriter } from "./types.js";

/** Frees what writing a run's reports kept (the text rendered in the shared pass): once its files are written. */
export { releaseShared as releaseReports } from "./shared-pass.js";
export type { ReportFile, ReportWriter } from "./types.js";

/** Every format, in the order the files are written. */
const REPORT_WRITERS: ReadonlyMap<string, ReportWriter> = new Map(
  [
    jsonWriter,
    summaryWriter,
    sarifWriter,
    junitWriter,
    policyReportWriter,
    openReportsWriter,
    csvWriter,
    fieldErrorsWriter,
    htmlWriter,
  ].map((w) => [w.name, w]),
);

export const REPORT_FORMATS: readonly string[] = [...REPORT_WRITERS.keys()];

/** The files of the selected formats (all by default). */
export function renderReports(run: Parameters<ReportWriter["render"]>[0], formats?: readonly string[]): ReportFile[] {
  const names = formats ?? REPORT_FORMATS;
  const out: ReportFile[] = [];
  for (const name of names) {
    const w = REPORT_WRITERS.get(name);
    if (w === undefined) throw new Error(`unknown report format ${JSON.stringify(name)}`);
    appendAll(out, w.render(run));
  }
  return out;
}
