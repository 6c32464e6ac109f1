/**
 * `--workers auto`: how many threads audit a run, the main thread included (`--workers N` is N auditing threads: the
 * main thread and N - 1 worker threads, audit/workers/feed.ts). A worker is ready about 0.2 s after it starts (the
 * built CLI; a new V8 isolate that loads the code and the compiled bundle), then warms up its JIT and compiles each
 * kind's rules as it meets them; the main thread audits alone meanwhile, so a small input never waits for it
 * (test/bench/audit-workers.bench.ts measures it). One thread audits about 15,000 YAML objects (about 4 MB) or 22,000
 * JSON List items (about 6 MB) per second, so workers are started only when the local input is worth a second or more
 * of one thread: at least {@link AUTO_MIN_BYTES} of YAML, JSON counted at a fifth of its size. s3:// sources are not
 * measured (that would take a listing of its own): name a number for them.
 */
import { availableParallelism } from "node:os";
import { localInputFiles } from "../sources/size.js";

/** Input bytes (YAML, or five times as much JSON) from which `auto` audits on several threads. */
const AUTO_MIN_BYTES = 4 * 1024 * 1024;
/** JSON decodes about five times faster than YAML: its bytes count this much toward {@link AUTO_MIN_BYTES}. */
const JSON_WEIGHT = 0.2;
/** The most auditing threads `auto` takes. */
const AUTO_MAX_THREADS = 8;

/**
 * The auditing threads `auto` takes when the input is large: one per core but one, at most 8, the main thread among
 * them (it audits what the workers leave it besides reading the input and keeping the results). The core left over
 * is for V8's own threads: one auditing thread already keeps about 1.3 cores busy (garbage collection and JIT
 * compiles run beside it), and a worker's results cost 10-14 µs a document to hand over (34-49% more CPU than one
 * thread in all; test/bench/audit-workers.bench.ts). On one or two cores that leaves nothing to gain, so `auto` is
 * one thread there (`--workers 2` still asks for two).
 */
export function autoWorkerCount(cores = availableParallelism()): number {
  return cores <= 2 ? 1 : Math.min(AUTO_MAX_THREADS, cores - 1);
}

/**
 * The auditing threads of a run, the main thread included: a number as given (0 and 1 mean one thread, and give
 * 0); `auto` → {@link autoWorkerCount} when the local sources hold at least `minBytes` (see
 * {@link AUTO_MIN_BYTES}), else 0. Never with `--previous` (the runner stays on one thread then).
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
