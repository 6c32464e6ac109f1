/**
 * `--workers auto`: how many worker threads a run gets. Starting workers costs wall time (each is a new V8 isolate
 * that loads the sources through tsx, compiles the bundle and warms up: about 1.3 s for one worker with the bench's
 * bundle, 2.5-3 s for two on a 2-core machine; test/bench/audit-workers.bench.ts). One thread audits about 4,000
 * YAML objects (about 1.2 MB) or 20,000 JSON List items (about 6 MB) per second, so workers are used only when the
 * local input is worth a few seconds of one thread: at least {@link AUTO_MIN_BYTES} of YAML, JSON counted at a
 * fifth of its size. s3:// sources are not measured (that would take a listing of its own): name a number of
 * workers for them.
 */
import { availableParallelism } from "node:os";
import { localInputFiles } from "../sources/size.js";

/** Input bytes (YAML, or five times as much JSON) from which `auto` starts workers. */
const AUTO_MIN_BYTES = 4 * 1024 * 1024;
/** JSON decodes about five times faster than YAML: its bytes count this much toward {@link AUTO_MIN_BYTES}. */
const JSON_WEIGHT = 0.2;
/** The most workers `auto` starts. */
const AUTO_MAX_WORKERS = 8;

/**
 * The workers `auto` starts when the input is large: one per core but the main thread's, at most 8; 1 (one core or
 * two) means none, as `--workers 1` does (the main thread reads, cuts and keeps results: on two cores, one worker
 * would compete with it).
 */
export function autoWorkerCount(cores = availableParallelism()): number {
  return Math.min(AUTO_MAX_WORKERS, Math.max(1, cores - 1));
}

/**
 * The worker threads for a run: a number as given (0 and 1 mean none); `auto` → {@link autoWorkerCount} when the
 * local sources hold at least `minBytes` (see {@link AUTO_MIN_BYTES}), else none. Never with `--previous` (the
 * runner stays on one thread then).
 */
export async function resolveWorkers(
  setting: number | "auto" | undefined,
  sources: readonly string[],
  options: { previous?: boolean; minBytes?: number; cores?: number } = {},
): Promise<number> {
  if (options.previous === true || setting === undefined) return 0;
  if (setting !== "auto") return setting > 1 ? setting : 0;
  const count = autoWorkerCount(options.cores ?? availableParallelism());
  if (count < 2) return 0;
  const minBytes = options.minBytes ?? AUTO_MIN_BYTES;
  return (await localBytes(sources, minBytes)) >= minBytes ? count : 0;
}

/** The bytes of the local sources' document files and archives (JSON weighted), counted until `enough`. */
async function localBytes(sources: readonly string[], enough: number): Promise<number> {
  let total = 0;
  for await (const f of localInputFiles(sources)) {
    total += weighted(f.path, f.size);
    if (total >= enough) break;
  }
  return total;
}

function weighted(path: string, bytes: number): number {
  return /\.json$/i.test(path) ? bytes * JSON_WEIGHT : bytes;
}
