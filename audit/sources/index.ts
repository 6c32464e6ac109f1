/**
 * A location given on the command line → a {@link Source}: `s3://bucket/prefix` (every object under it, through
 * lib/storage), a folder tree, a `.tar`/`.tar.gz`/`.tgz` archive, a file, or `-` for standard input. `tollgate audit`
 * and `tollgate validate` read their inputs through here, and so see the same documents in one folder.
 */
import type { Stats } from "node:fs";
import { stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import { ConfigError } from "#lib";
import { isS3Url, parseS3Url, type S3Options } from "#lib/storage";
import { ARCHIVE_FILE, archiveSource } from "./archive.js";
import { fileSource, folderSource, stdinSource } from "./file.js";
import { s3Source } from "./s3.js";
import type { Source, SourceOptions } from "./types.js";

export type { KubeObject, Source, SourceDoc, SourceOptions, SourceUnit } from "./types.js";
export { DEFAULT_SOURCE_OPTIONS } from "./types.js";

/** How the command line names standard input. */
const STDIN = "-";

export interface OpenOptions {
  /** How to reach S3 for `s3://` sources (endpoint, path style); resolved by the CLI or the Lambda. */
  s3?: Readonly<S3Options>;
  /** What a location that does not exist is called in the error: `source` (the default), `input path`... */
  label?: string;
  /** Standard input, read when the location is {@link STDIN}; without it `-` is a file name. */
  stdin?: Readable;
}

/**
 * Opens a source. Close it when done with it (`source.close?.()`): an S3 source holds a client open.
 *
 * @throws ConfigError when the path does not exist or an `s3://` location is malformed: nothing is audited then
 * (exit 2). An S3 prefix is not listed here: listing failures surface when the run reads it (exit 3).
 */
export async function openSource(spec: string, options: SourceOptions, open: OpenOptions = {}): Promise<Source> {
  if (isS3Url(spec)) {
    parseS3Url(spec);
    return s3Source(spec, options, open.s3 ?? {});
  }
  if (spec === STDIN && open.stdin !== undefined) return stdinSource(open.stdin, options);
  const info = await statPath(spec, open.label ?? "source");
  if (info.isDirectory()) return folderSource(spec, options);
  if (ARCHIVE_FILE.test(spec)) return archiveSource(spec, options);
  return fileSource(spec, options);
}

/**
 * Checks a location given on the command line before anything runs: an `s3://` URL must be well formed (it is not
 * fetched here), a local path must exist.
 *
 * @throws ConfigError naming the location (see {@link statPath})
 */
export async function requireLocation(spec: string, label: string): Promise<void> {
  if (isS3Url(spec)) parseS3Url(spec);
  else await statPath(spec, label);
}

/**
 * What a local path given on the command line is.
 *
 * @throws ConfigError `<label> "<path>" does not exist` (or cannot be read), naming the path as given
 */
export async function statPath(path: string, label: string): Promise<Stats> {
  try {
    return await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" || code === "ENOTDIR" ? "does not exist" : `cannot be read (${code ?? "error"})`;
    throw new ConfigError(`${label} ${JSON.stringify(path)} ${reason}`, { cause: err });
  }
}
