/**
 * The files a run's local sources will read, with their sizes, found without reading them: the CLI's progress
 * (percent and ETA) and `--workers auto` (whether the input is worth starting workers) both need the input's size.
 * Folders are walked as folder sources walk them (file.ts documentFiles: document files, no report folders); files and
 * archives named on the command line count whole. `s3://` sources are not listed here.
 */
import { stat } from "node:fs/promises";
import { isS3Url } from "#lib/storage";
import { documentFiles } from "./file.js";

/**
 * The local files of the sources with their sizes, in walk order; missing or unreadable paths are left out.
 *
 * @param excludeFolders as SourceOptions.excludeFolders (the run's local `--out`)
 */
export async function* localInputFiles(
  sources: readonly string[],
  excludeFolders?: readonly string[],
): AsyncGenerator<{ path: string; size: number }> {
  for (const s of sources) {
    if (isS3Url(s)) continue;
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(s);
    } catch {
      continue; // openSource reports a missing source.
    }
    if (info.isDirectory()) yield* folderFiles(s, excludeFolders);
    else yield { path: s, size: info.size };
  }
}

async function* folderFiles(
  root: string,
  excludeFolders: readonly string[] | undefined,
): AsyncGenerator<{ path: string; size: number }> {
  for await (const entry of documentFiles(root, excludeFolders)) {
    if (entry.kind !== "file") continue; // the folder source reports it
    try {
      yield { path: entry.path, size: (await stat(entry.path)).size };
    } catch {
      // Gone or unreadable: the folder source reports it.
    }
  }
}
/** A JSON file parsed whole that is at least this large makes byte progress jump: see {@link progressTotalBytes}. */
const LARGE_WHOLE_JSON = 16 * 1024 * 1024;

/**
 * The bytes a progress bar measures the audit against, or undefined when byte progress would mislead: an `s3://`
 * source (its size is not listed here), or a large JSON file parsed whole (read at once, then audited for a long
 * time: its bytes would show 100% at the start).
 */
export async function progressTotalBytes(
  sources: readonly string[],
  maxJsonParseBytes: number,
  excludeFolders?: readonly string[],
): Promise<number | undefined> {
  if (sources.some(isS3Url)) return undefined;
  let total = 0;
  for await (const f of localInputFiles(sources, excludeFolders)) {
    if (/\.json$/i.test(f.path) && f.size >= LARGE_WHOLE_JSON && f.size <= maxJsonParseBytes) return undefined;
    total += f.size;
  }
  return total;
}
