/**
 * `.tar`, `.tar.gz` and `.tgz` archives (`git archive` output): every `*.yaml`, `*.yml` and `*.json` member is read
 * like a file of a folder tree (documents that are not Kubernetes objects are skipped). Bounded: the archive file,
 * the uncompressed stream (zlib's `maxOutputLength`), each member and the number of members.
 */
import { readFile, stat } from "node:fs/promises";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { decodeText } from "./decode.js";
import { readErrorText } from "./file.js";
import { readTar, TarFormatError } from "./tar.js";
import { DOCUMENT_FILE, type Source, type SourceDoc, type SourceOptions, type SourceUnit } from "./types.js";

const gunzipAsync = promisify(gunzip);

export const ARCHIVE_FILE = /\.(tar|tar\.gz|tgz)$/i;

export function archiveSource(path: string, options: SourceOptions): Source {
  return {
    spec: path,
    kind: "archive",
    async *units() {
      let buf: Buffer;
      try {
        buf = await readArchive(path, options);
      } catch (err) {
        yield errorUnit(path, err instanceof ArchiveError ? err.message : readErrorText(err));
        return;
      }
      try {
        for (const entry of readTar(buf, {
          maxEntryBytes: options.maxFileBytes,
          maxEntries: options.maxArchiveEntries,
        })) {
          if (entry.kind === "rejected") {
            yield errorUnit(path, entry.reason, entry.name);
            continue;
          }
          if (!DOCUMENT_FILE.test(entry.name)) continue;
          const { name, data } = entry;
          yield {
            name: `${path}!${name}`,
            async read(): Promise<SourceDoc[]> {
              return decodeText(
                data.toString("utf8"),
                { file: path, entry: name },
                { nonKubernetes: "skip", maxJsonBytes: options.maxFileBytes },
              );
            },
          };
        }
      } catch (err) {
        if (!(err instanceof TarFormatError)) throw err;
        yield errorUnit(path, `not a readable tar archive: ${err.message}`);
      }
    },
  };
}

class ArchiveError extends Error {
  override readonly name = "ArchiveError";
}

async function readArchive(path: string, options: SourceOptions): Promise<Buffer> {
  const info = await stat(path);
  if (info.size > options.maxArchiveBytes) {
    throw new ArchiveError(`archive is ${info.size} bytes, over the limit of ${options.maxArchiveBytes}`);
  }
  const raw = await readFile(path);
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

function errorUnit(file: string, error: string, entry?: string): SourceUnit {
  const location = entry === undefined ? { file } : { file, entry };
  return {
    name: entry === undefined ? file : `${file}!${entry}`,
    async read() {
      return [{ kind: "error", location, error }];
    },
  };
}
