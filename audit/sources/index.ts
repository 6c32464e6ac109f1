/**
 * A command-line source → a {@link Source}: `s3://bucket/prefix` (not yet: needs lib/storage's S3 BlobStore), a
 * folder tree, a `.tar`/`.tar.gz`/`.tgz` archive, or a file.
 */
import { stat } from "node:fs/promises";
import { ConfigError } from "#lib";
import { ARCHIVE_FILE, archiveSource } from "./archive.js";
import { fileSource, folderSource } from "./file.js";
import type { Source, SourceOptions } from "./types.js";

export type { Source, SourceDoc, SourceOptions, SourceUnit } from "./types.js";
export { DEFAULT_SOURCE_OPTIONS } from "./types.js";

/**
 * @throws ConfigError when the path does not exist, or for an S3 source (not supported yet): nothing is audited
 * then (exit 2).
 */
export async function openSource(spec: string, options: SourceOptions): Promise<Source> {
  if (/^s3:\/\//i.test(spec)) {
    throw new ConfigError(`S3 sources are not supported yet: ${spec}`);
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
