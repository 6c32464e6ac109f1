/** What a report writer is: an AuditRun in, files out. Writers read audit/model.ts and lib's public types only. */
import type { AuditRun } from "../model.js";

export interface ReportFile {
  /** The file name within the run folder (`report.json`). */
  name: string;
  content: string;
  /** MIME type, for S3 and for index.json. */
  contentType: string;
}

export interface ReportWriter {
  /** The `--format` name. */
  name: string;
  /** Turns a run into its files; pure (no I/O, no clock). */
  render(run: AuditRun): ReportFile[];
}
