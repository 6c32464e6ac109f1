/**
 * What a report writer is: a finished run in, files out. Writers read audit/model.ts and lib's public types only.
 * A file's content is produced as it is written (`chunks()`, which may read the run's spools any number of times),
 * so that large runs are never held whole in memory.
 */
import type { AuditResult } from "../model.js";

export interface ReportFile {
  /** The file name within the run folder (`report.json`). */
  name: string;
  /** The content, in chunks of text or of UTF-8 bytes (text rendered earlier); called once per write. */
  chunks(): AsyncIterable<string | Uint8Array>;
  /** MIME type, for S3 and for index.json. */
  contentType: string;
}

export interface ReportWriter {
  /** The `--format` name. */
  name: string;
  /** The run's files; rendering is pure (no I/O but reading the run, no clock). */
  render(run: AuditResult): ReportFile[];
}
