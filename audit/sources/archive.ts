/**
 * `.tar`, `.tar.gz` and `.tgz` archives (`git archive` output): every `*.yaml`, `*.yml` and `*.json` member is read
 * like a file of a folder tree (documents that are not Kubernetes objects are skipped). Bounded: the archive file,
 * the uncompressed stream (zlib's `maxOutputLength`), each member and the number of members.
 *
 * One reader for every place an archive comes from: {@link archiveUnits} takes the archive's bytes and the name it
 * is shown under (a local path here, an `s3://bucket/key` URL in s3.ts). A member's unit is named `<name>!<member>`
 * and its documents' locations are `{ file: <name>, entry: <member> }`; an archive that cannot be read at all is one
 * input error located at `{ file: <name> }`.
 */
import { readFile, stat } from "node:fs/promises";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { decodeOptionsOf, decodeText } from "./decode.js";
import { readErrorText } from "./file.js";
import { readTar, TarFormatError } from "./tar.js";
import {
  DOCUMENT_FILE,
  type RawPart,
  type Source,
  type SourceDoc,
  type SourceOptions,
  type SourceUnit,
} from "./types.js";

const gunzipAsync = promisify(gunzip);

export const ARCHIVE_FILE = /\.(tar|tar\.gz|tgz)$/i;

export function archiveSource(path: string, options: SourceOptions): Source {
  return {
    spec: path,
    kind: "archive",
    async *units() {
      let raw: Buffer;
      try {
        const info = await stat(path);
        if (info.size > options.maxArchiveBytes) {
          yield archiveErrorUnit(path, archiveTooLarge(info.size, options));
          return;
        }
        raw = await readFile(path);
        options.onRead?.(raw.length);
      } catch (err) {
        yield archiveErrorUnit(path, readErrorText(err));
        return;
      }
      yield* archiveUnits(raw, path, options);
    },
  };
}

/** The input error of an archive (file or object) of `size` bytes, over `maxArchiveBytes`. */
export function archiveTooLarge(size: number, options: SourceOptions): string {
  return `archive is ${size} bytes, over the limit of ${options.maxArchiveBytes}`;
}

/**
 * The units of an archive given as bytes (a tar stream, gzip-compressed or not), shown as `name`: one per document
 * member, one input error per rejected member (path traversal, absolute names, over `maxFileBytes`), and one input
 * error of the whole archive when it cannot be read (broken gzip, malformed tar, uncompressed stream over
 * `maxArchiveBytes`, more than `maxArchiveEntries` members). Members read before a malformed part are kept.
 *
 * The caller checks the size of the compressed bytes against `maxArchiveBytes` before reading them.
 */
export async function* archiveUnits(raw: Buffer, name: string, options: SourceOptions): AsyncGenerator<SourceUnit> {
  let buf: Buffer;
  try {
    buf = await gunzipIfNeeded(raw, options);
  } catch (err) {
    if (!(err instanceof ArchiveError)) throw err;
    yield archiveErrorUnit(name, err.message);
    return;
  }
  try {
    for (const entry of readTar(buf, {
      maxEntryBytes: options.maxFileBytes,
      maxEntries: options.maxArchiveEntries,
    })) {
      if (entry.kind === "rejected") {
        yield archiveErrorUnit(name, entry.reason, entry.name);
        continue;
      }
      if (!DOCUMENT_FILE.test(entry.name)) continue;
      const { name: member, data } = entry;
      const base = { file: name, entry: member };
      const decodeOptions = decodeOptionsOf(options, options.nonKubernetes ?? "skip");
      yield {
        name: `${name}!${member}`,
        async read(): Promise<SourceDoc[]> {
          return decodeText(data.toString("utf8"), base, decodeOptions);
        },
        async *raw(): AsyncGenerator<RawPart> {
          yield { kind: "text", text: data.toString("utf8"), base, options: decodeOptions };
        },
      };
    }
  } catch (err) {
    if (!(err instanceof TarFormatError)) throw err;
    yield archiveErrorUnit(name, `not a readable tar archive: ${err.message}`);
  }
}

class ArchiveError extends Error {
  override readonly name = "ArchiveError";
}

async function gunzipIfNeeded(raw: Buffer, options: SourceOptions): Promise<Buffer> {
  if (raw[0] !== 0x1f || raw[1] !== 0x8b) return raw;
  try {
    return await gunzipAsync(raw, { maxOutputLength: options.maxArchiveBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
      throw new ArchiveError(`archive uncompresses to more than ${options.maxArchiveBytes} bytes`);
    }
    throw new ArchiveError(`not a readable gzip stream: ${(err as Error).message}`);
  }
}

/** A unit that reads as one input error of the archive `file` (or of its member `entry`). */
export function archiveErrorUnit(file: string, error: string, entry?: string): SourceUnit {
  const location = entry === undefined ? { file } : { file, entry };
  return {
    name: entry === undefined ? file : `${file}!${entry}`,
    async read() {
      return [{ kind: "error", location, error }];
    },
  };
}
