/**
 * The runner on two auditing threads (`--workers 2`: the main thread and one worker thread), through the built CLI
 * users run (`tollgate audit`, dist/cli: the worker starts dist/cli/worker.mjs, no tsx): the export of
 * audit.bench.ts (100,000 objects by default, `TOLLGATE_BENCH_AUDIT_OBJECTS`) audited with `--workers 0` (one
 * thread) and with `--workers 2`, as a YAML stream and as a JSON List (parsed whole on one thread; given item by
 * item to the threads, its documents kept until the file's end), spawn to exit, alternating, writing summary.json
 * only (the reports are the same work either way). Each row: µs per object on two threads, against one thread;
 * notes give objects/s, the speed-up, the cores, what `--workers auto` takes for the file (audit/workers/auto.ts),
 * the CPU time of each run (÷ wall: how many cores the run had), and the worker's start-up: the goal is its time
 * to be ready (dist/cli/worker.mjs started with the bundle's artifact, `new Worker` to its `ready` message: thread
 * start, code load, the policy set), and a note gives what starting it costs a small run (the same command on a
 * 50-object file, on two threads minus on one; the main thread audits such an input alone, without waiting for
 * the worker), median of 3 each.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { artifactSource, loadPolicies } from "../../audit/policies.js";
import { resolveWorkers } from "../../audit/workers/auto.js";
import type { FromWorker, WorkerInit } from "../../audit/workers/protocol.js";
import { REPO_ROOT } from "../conformance/corpus.js";
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
  /** The built worker's time from `new Worker` to its `ready` message (median of 3), ms. */
  readyMs: number;
  /** Its own measure of building the policy set from the artifact (median of 3), ms. */
  loadMs: number;
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
  const ready = await workerReady(bundle);
  return { workers, ms: median(diffs), cpuMs: cpuDiffs.reduce((a, b) => a + b, 0) / cpuDiffs.length, ...ready };
}

/**
 * The built worker (dist/cli/worker.mjs) started as the runner starts it (the bundle's artifact, the main thread's
 * digest), timed from `new Worker` to its `ready` message: thread start, code load and the artifact's policy set.
 * Median of 3, one worker at a time, in this process (idle meanwhile).
 */
async function workerReady(bundle: string): Promise<{ readyMs: number; loadMs: number }> {
  const loaded = await loadPolicies(bundle);
  const init: WorkerInit = {
    policies: await artifactSource(loaded.source, loaded.policySet),
    digest: loaded.policySet.digest,
    ownerLabels: ["team"],
    startedAt: new Date().toISOString(),
    waiversAt: new Date().toISOString(),
  };
  const ready: number[] = [];
  const load: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const worker = new Worker(join(REPO_ROOT, "dist/cli/worker.mjs"), { workerData: init });
    const m = await new Promise<FromWorker>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    ready.push(performance.now() - t0);
    await worker.terminate();
    if (m.type !== "ready") throw new Error(`the built worker did not start: ${JSON.stringify(m)}`);
    load.push(m.loadMs);
  }
  return { readyMs: median(ready), loadMs: median(load) };
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
    `worker start-up: the built worker is ready ${Math.round(startup.readyMs)} ms after \`new Worker\` (of which ` +
      `${Math.round(startup.loadMs)} ms building the policy set from the artifact); what it costs a 50-object run ` +
      `(on ${startup.workers} threads less the same on one; the main thread audits it alone): ` +
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
      goal("worker start-up to ready, built CLI (wall)", startup.readyMs, "<=", STARTUP_GOAL_MS, "ms"),
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
      workerReadyMs: startup.readyMs,
      workerLoadMs: startup.loadMs,
    },
  };
}

export const auditWorkersCases: readonly BenchCase[] = [
  { name: "audit/yaml-workers", run: (ctx) => workersRow(ctx, "yaml") },
  { name: "audit/json-workers", run: (ctx) => workersRow(ctx, "json") },
];
