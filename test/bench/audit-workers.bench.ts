/**
 * The runner on two auditing threads (`--workers 2`: the main thread and one worker thread), through the built CLI
 * users run (`tollgate audit`, dist/cli: the worker starts dist/cli/worker.mjs, no tsx): the export of
 * audit.bench.ts (100,000 objects by default, `TOLLGATE_BENCH_AUDIT_OBJECTS`) audited with `--workers 0` (one
 * thread) and with `--workers 2`, as a YAML stream and as a JSON List (parsed whole on one thread; given item by
 * item to the threads, its documents kept until the file's end), spawn to exit, alternating, writing summary.json
 * only (the reports are the same work either way). Each row: µs per object on two threads, against one thread;
 * notes give objects/s, the speed-up, the cores, what `--workers auto` takes for the file (audit/workers/auto.ts),
 * the CPU time of each run (÷ wall: how many cores the run had), and the start-up cost of the worker: the same
 * command on a 50-object file, on two threads minus on one (thread start, dist/cli/worker.mjs, the bundle
 * artifact's load, competing for the cores; the main thread audits such a small input alone and does not wait for
 * the worker, so this is what starting it costs a small run, not the worker's time to be ready), median of 3.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { resolveWorkers } from "../../audit/workers/auto.js";
import { prepare, writeBundle } from "./audit.bench.js";
import { type BenchCase, type BenchContext, type BenchRow, goal } from "./bench-case.js";
import { median } from "./measure.js";
import { ensureBuilt, timedNode } from "./processes.js";

/** Workers must pay for themselves on 2 cores (2 auditing threads): at least this speed-up over one thread, by format. */
const SPEEDUP_GOAL = { json: 1.5, yaml: 1.7 } as const;
/** The auditing threads of the rows: the main thread and one worker. */
const TWO_THREADS = 2;
/** Starting the workers (thread, code, the compiled bundle) must take well under a second of wall time. */
const STARTUP_GOAL_MS = 500;

interface CliRun {
  ms: number;
  /** CPU time of the child, every thread (10 ms ticks). */
  cpuMs: number;
  stdout: string;
}

/** `tollgate audit` of `file` by the built CLI on `workers` auditing threads (0: one thread), spawn to exit. */
function cliAudit(file: string, bundle: string, out: string, workers: number, format: string): CliRun {
  const args = ["--bundle", bundle, "--out", out, "--format", format, "--fail-on", "never"];
  return timedNode(["audit/cli/bin.js", "audit", file, ...args, "--workers", String(workers)]);
}

interface Startup {
  workers: number;
  ms: number;
  /** Mean of the CPU time differences. */
  cpuMs: number;
}

let shared: Promise<{ dir: string; bundle: string }> | undefined;

/** The bundle of the mix as a folder (once per bench run). */
async function bundleFolder(ctx: BenchContext): Promise<{ dir: string; bundle: string }> {
  shared ??= (async () => {
    const { mix } = await prepare(ctx);
    ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), "tollgate-bench-workers-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    writeBundle(join(dir, "bundle"), mix.files);
    return { dir, bundle: join(dir, "bundle") };
  })();
  return shared;
}

let startupCache: Promise<Startup> | undefined;

/** Wall time of starting the workers: a 50-object run with them, minus the same run on one thread (median of 3). */
async function startupMs(ctx: BenchContext, workers: number): Promise<Startup> {
  const { files } = await prepare(ctx);
  const { dir, bundle } = await bundleFolder(ctx);
  const small = join(dir, "small.yaml");
  // The first 50 documents of the YAML export.
  writeFileSync(
    small,
    readFileSync(join(files.dir, "export.yaml"), "utf8").split("\n---\n").slice(0, 50).join("\n---\n"),
  );
  const diffs: number[] = [];
  const cpuDiffs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const one = cliAudit(small, bundle, join(dir, `out-${i}-0`), 0, "json");
    const many = cliAudit(small, bundle, join(dir, `out-${i}-n`), workers, "json");
    diffs.push(many.ms - one.ms);
    cpuDiffs.push(many.cpuMs - one.cpuMs);
  }
  return { workers, ms: median(diffs), cpuMs: cpuDiffs.reduce((a, b) => a + b, 0) / cpuDiffs.length };
}

async function workersRow(ctx: BenchContext, format: "json" | "yaml"): Promise<BenchRow> {
  const { files } = await prepare(ctx);
  const n = files.n;
  const file = join(files.dir, `export.${format}`);
  const auto = await resolveWorkers("auto", [file]);
  // The goals are for two cores: two auditing threads, whatever auto takes on this machine.
  const workers = TWO_THREADS;
  startupCache ??= startupMs(ctx, workers);
  const startup = await startupCache;
  const { dir, bundle } = await bundleFolder(ctx);

  const single = cliAudit(file, bundle, join(dir, `out-${format}-0`), 0, "summary");
  const parallel = cliAudit(file, bundle, join(dir, `out-${format}-n`), workers, "summary");
  for (const r of [single, parallel]) {
    if (!r.stdout.includes(`${n} documents`))
      throw new Error(`the audit of ${n} objects said: ${r.stdout.slice(0, 400)}`);
  }
  const perS = (ms: number) => Math.round((n * 1000) / ms);
  const speedup = single.ms / parallel.ms;
  const cores = availableParallelism();
  const notes = [
    `${n.toLocaleString("en")} objects of ${format.toUpperCase()}, \`tollgate audit --format summary\` spawn to exit: one thread ` +
      `${perS(single.ms).toLocaleString("en")} objects/s (${(single.ms / 1000).toFixed(2)} s, CPU time ` +
      `${(single.cpuMs / 1000).toFixed(2)} s = ${(single.cpuMs / single.ms).toFixed(2)} × wall), ${workers} threads ` +
      `${perS(parallel.ms).toLocaleString("en")} objects/s (${(parallel.ms / 1000).toFixed(2)} s, CPU time ` +
      `${(parallel.cpuMs / 1000).toFixed(2)} s = ${(parallel.cpuMs / parallel.ms).toFixed(2)} × wall): ${speedup.toFixed(2)}× ` +
      `on ${cores} cores (${cpus()[0]?.model ?? "?"}); auto picks ${auto} threads for this file. CPU time on ` +
      `${workers} threads ÷ one thread's: ${(parallel.cpuMs / single.cpuMs).toFixed(2)}× (each worker compiles the ` +
      "kinds it meets and warms its own JIT; results cross the threads as JSON)",
    `worker start-up (${startup.workers} threads, the 50-object run less the same on one thread): ` +
      `${Math.round(startup.ms)} ms wall, ${Math.round(startup.cpuMs)} ms CPU time (all threads)`,
  ];
  return {
    name: `audit/${format}-workers`,
    unit: "µs",
    value: (parallel.ms * 1000) / n,
    cpu: (parallel.cpuMs * 1000) / n,
    min: (parallel.ms * 1000) / n,
    max: (parallel.ms * 1000) / n,
    baseline: { label: "one thread", value: (single.ms * 1000) / n },
    goals: [
      goal(`speed-up on ${workers} threads`, speedup, ">=", SPEEDUP_GOAL[format], "×"),
      goal("worker start-up, built CLI (wall)", startup.ms, "<=", STARTUP_GOAL_MS, "ms"),
    ],
    notes,
    data: {
      objects: n,
      workers,
      autoWorkers: auto,
      cores,
      oneThreadObjectsPerSecond: perS(single.ms),
      workersObjectsPerSecond: perS(parallel.ms),
      speedup,
      oneThreadCpuMs: single.cpuMs,
      workersCpuMs: parallel.cpuMs,
      startupMs: startup.ms,
      startupCpuMs: startup.cpuMs,
    },
  };
}

export const auditWorkersCases: readonly BenchCase[] = [
  { name: "audit/yaml-workers", run: (ctx) => workersRow(ctx, "yaml") },
  { name: "audit/json-workers", run: (ctx) => workersRow(ctx, "json") },
];
