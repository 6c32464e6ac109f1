/**
 * `--workers auto`: how many worker threads a run gets. Starting a worker costs about a second of wall time (a new
 * V8 isolate loads the sources through tsx and compiles the bundle; measured in test/bench/audit-workers.bench.ts),
 * during which one thread audits some 5,000 YAML documents (about 5 MiB): workers are used only when the local
 * input holds at least {@link AUTO_MIN_BYTES}. s3:// sources are not measured (that would take a listing of its
 * own): name a number of workers for them.
 */
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { isS3Url } from "#lib/storage";
import { DOCUMENT_FILE } from "../sources/types.js";

/** Input bytes from which `auto` starts workers. */
export const AUTO_MIN_BYTES = 16 * 1024 * 1024;
/** The most workers `auto` starts. */
export const AUTO_MAX_WORKERS = 8;

/** The workers `auto` starts when the input is large: one per core but the main thread's, 2 to 8. */
export function autoWorkerCount(cores = availableParallelism()): number {
  return Math.min(AUTO_MAX_WORKERS, Math.max(2, cores - 1));
}

/**
 * The worker threads for a run: a number as given (0 and 1 mean none); `auto` → {@link autoWorkerCount} when the
 * local sources hold at least `minBytes` and there are at least two cores, else none. Never with `--previous` (the
 * runner stays on one thread then).
 */
export async function resolveWorkers(
  setting: number | "auto" | undefined,
  sources: readonly string[],
  options: { previous?: boolean; minBytes?: number; cores?: number } = {},
): Promise<number> {
  if (options.previous === true || setting === undefined) return 0;
  if (setting !== "auto") return setting > 1 ? setting : 0;
  const cores = options.cores ?? availableParallelism();
  if (cores < 2) return 0;
  const minBytes = options.minBytes ?? AUTO_MIN_BYTES;
  return (await localBytes(sources, minBytes)) >= minBytes ? autoWorkerCount(cores) : 0;
}

/** The bytes of the local sources' document files and archives, counted until `enough`. */
async function localBytes(sources: readonly string[], enough: number): Promise<number> {
  let total = 0;
  const walk = async (dir: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (total >= enough) return;
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== ".git" && e.name !== "node_modules") await walk(path);
      } else if (e.isFile() && DOCUMENT_FILE.test(e.name)) {
        total += await size(path);
      }
    }
  };
  for (const s of sources) {
    if (total >= enough) break;
    if (isS3Url(s)) continue;
    try {
      const info = await stat(s);
      if (info.isDirectory()) await walk(s);
      else total += info.size;
    } catch {
      // openSource reports a missing source.
    }
  }
  return total;
}

async function size(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}
