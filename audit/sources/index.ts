/**
 * A command-line source → a {@link Source}: `s3://bucket/prefix` (every object under it, through lib/storage), a
 * folder tree, a `.tar`/`.tar.gz`/`.tgz` archive, or a file.
 */
import { stat } from "node:fs/promises";
import { ConfigError } from "#lib";
import { isS3Url, parseS3Url, type S3Options } from "#lib/storage";
import { ARCHIVE_FILE, archiveSource } from "./archive.js";
import { fileSource, folderSource } from "./file.js";
import { s3Source } from "./s3.js";
import type { Source, SourceOptions } from "./types.js";

export type { Source, SourceDoc, SourceOptions, SourceUnit } from "./types.js";
export { DEFAULT_SOURCE_OPTIONS } from "./types.js";

/**
 * Close a source when done with it (`source.close?.()`): an S3 source holds a client open.
 *
 * @param s3 how to reach S3 for `s3://` sources (endpoint, path style); resolved by the CLI or the Lambda
 * @throws ConfigError when the path does not exist or an `s3://` location is malformed: nothing is audited then
 * (exit 2). An S3 prefix is not listed here: listing failures surface when the run reads it (exit 3).
 */
export async function openSource(spec: string, options: SourceOptions, s3: Readonly<S3Options> = {}): Promise<Source> {
  if (isS3Url(spec)) {
    parseS3Url(spec);
    return s3Source(spec, options, s3);
  }
  let isDir: boolean;
  try {
    isDir = (await stat(spec)).isDirectory();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" || code === "ENOTDIR" ? "does not exist" : `cannot be read (${code ?? "error"})`;
    throw new ConfigError(`source ${JSON.stringify(spec)} ${reason}`, { cause: err });
  }
  if (isDir) return folderSource(spec, options);
  if (ARCHIVE_FILE.test(spec)) return archiveSource(spec, options);
  return fileSource(spec, options);
}
