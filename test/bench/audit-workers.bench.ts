/**
 * The runner on worker threads: the export of audit.bench.ts (100,000 objects by default,
 * `TOLLGATE_BENCH_AUDIT_OBJECTS`) audited by runAudit in-process and on the workers `--workers auto` starts for that
 * file (audit/workers/auto.ts; at least 2: on one or two cores auto stays on one thread, and the row then measures 2
 * workers), as a YAML stream and as a JSON List (parsed whole on one thread; given item by item to the workers). Each row: µs per object with workers, against in-process; notes give objects/s, the
 * speed-up, the worker count and the cores, and the start-up cost of the workers: the same run on a 50-object file,
 * with workers minus on one thread, in this process (thread start, tsx loading the sources in each worker, the
 * bundle artifact's load) and, for the goal, through the built CLI users run (`tollgate audit --workers N` against
 * `--workers 0`, spawn to exit, alternating: thread start and dist/cli/worker.mjs, no tsx).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import type { PolicySet } from "#lib";
import { DEFAULT_OWNER_LABELS } from "../../audit/config.js";
import type { PolicySource } from "../../audit/policies.js";
import { runAudit } from "../../audit/run.js";
import { DEFAULT_SOURCE_OPTIONS, openSource } from "../../audit/sources/index.js";
import { autoWorkerCount, resolveWorkers } from "../../audit/workers/auto.js";
import { prepare, writeBundle } from "./audit.bench.js";
import { type BenchCase, type BenchContext, type BenchRow, goal } from "./bench-case.js";
import { ensureBuilt, median, selfCpuMs, timedNode } from "./processes.js";

/** Workers must pay for themselves on 2 cores: at least this speed-up over in-process, by input format. */
const SPEEDUP_GOAL = { json: 1.5, yaml: 1.7 } as const;
/** Starting the workers (thread, code, the compiled bundle) must take well under a second of wall time. */
const STARTUP_GOAL_MS = 500;

async function timedRun(
  file: string,
  policySet: PolicySet,
  policySource: PolicySource,
  workers: number,
): Promise<{ ms: number; cpuMs: number; documents: number }> {
  const source = await openSource(file, DEFAULT_SOURCE_OPTIONS);
  const c0 = selfCpuMs();
  const t0 = performance.now();
  const run = await runAudit(
    {
      sources: [source],
      bundle: "bench",
      concurrency: 8,
      failOn: "violation",
      ownerLabels: DEFAULT_OWNER_LABELS,
      toolVersion: "bench",
      workers,
      policySource,
    },
    policySet,
  );
  const ms = performance.now() - t0;
  const cpuMs = selfCpuMs() - c0;
  run.objects.dispose();
  run.findings.dispose();
  return { ms, cpuMs, documents: run.summary.documents };
}

interface Startup {
  workers: number;
  /** In this process (workers load the sources through tsx). */
  ms: number;
  /** Through the built CLI. */
  cliMs: number;
  /** Through the built CLI, CPU time (10 ms ticks, a mean of the differences). */
  cliCpuMs: number;
}

let startupCache: Promise<Startup> | undefined;

/** `tollgate audit` of `file` by the built CLI with `workers` worker threads (0: one thread), spawn to exit, ms. */
function cliAuditMs(file: string, bundle: string, out: string, workers: number): { ms: number; cpuMs: number } {
  const args = ["--bundle", bundle, "--out", out, "--format", "json", "--fail-on", "never"];
  return timedNode(["audit/cli/bin.js", "audit", file, ...args, "--workers", String(workers)]);
}

/** Wall time of starting the workers: a 50-object run with them, minus the same run on one thread (median of 3). */
async function startupMs(ctx: BenchContext, workers: number): Promise<Startup> {
  const { mix, files } = await prepare(ctx);
  const small = join(files.dir, "small.yaml");
  // The first 50 documents of the YAML export.
  writeFileSync(
    small,
    readFileSync(join(files.dir, "export.yaml"), "utf8").split("\n---\n").slice(0, 50).join("\n---\n"),
  );
  const source: PolicySource = { files: mix.files };
  const diffs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const inProcess = await timedRun(small, mix.policySet, source, 0);
    const withWorkers = await timedRun(small, mix.policySet, source, workers);
    diffs.push(withWorkers.ms - inProcess.ms);
  }
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), "tollgate-bench-workers-"));
  const cliDiffs: number[] = [];
  const cliCpuDiffs: number[] = [];
  try {
    writeBundle(join(dir, "bundle"), mix.files);
    for (let i = 0; i < 3; i++) {
      const one = cliAuditMs(small, join(dir, "bundle"), join(dir, `out-${i}-0`), 0);
      const many = cliAuditMs(small, join(dir, "bundle"), join(dir, `out-${i}-n`), workers);
      cliDiffs.push(many.ms - one.ms);
      cliCpuDiffs.push(many.cpuMs - one.cpuMs);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cliCpuMs = cliCpuDiffs.reduce((a, b) => a + b, 0) / cliCpuDiffs.length;
  return { workers, ms: median(diffs), cliMs: median(cliDiffs), cliCpuMs };
}

async function workersRow(ctx: BenchContext, format: "json" | "yaml"): Promise<BenchRow> {
  const { mix, files } = await prepare(ctx);
  const n = files.n;
  const file = join(files.dir, `export.${format}`);
  const source: PolicySource = { files: mix.files };
  const auto = await resolveWorkers("auto", [file]);
  // On a machine where auto stays on one thread (one core, or a small input), the row still measures the workers
  // auto would start for a large input.
  const workers = auto > 1 ? auto : Math.max(2, autoWorkerCount());
  startupCache ??= startupMs(ctx, workers);
  const startup = await startupCache;

  // One warm-up run in-process (JIT), then each way once (YAML is slow: ~20 s per run at 100,000 objects).
  if (format === "json") await timedRun(file, mix.policySet, source, 0);
  const single = await timedRun(file, mix.policySet, source, 0);
  const parallel = await timedRun(file, mix.policySet, source, workers);
  if (single.documents !== n || parallel.documents !== n) {
    throw new Error(`audited ${single.documents} / ${parallel.documents} documents, generated ${n}`);
  }
  const perS = (ms: number) => Math.round((n * 1000) / ms);
  const speedup = single.ms / parallel.ms;
  const cores = availableParallelism();
  const notes = [
    `${n.toLocaleString("en")} objects of ${format.toUpperCase()}: in-process ${perS(single.ms).toLocaleString("en")} objects/s ` +
      `(${(single.ms / 1000).toFixed(2)} s), ${workers} workers ${perS(parallel.ms).toLocaleString("en")} objects/s ` +
      `(${(parallel.ms / 1000).toFixed(2)} s): ${speedup.toFixed(2)}× on ${cores} cores (${cpus()[0]?.model ?? "?"}); ` +
      `auto picks ${auto} workers for this file; CPU time in-process ${(single.cpuMs / 1000).toFixed(2)} s ` +
      `(${(single.cpuMs / single.ms).toFixed(2)} × wall), with workers ${(parallel.cpuMs / 1000).toFixed(2)} s ` +
      `(${(parallel.cpuMs / parallel.ms).toFixed(2)} × wall: near ${workers + 1} only when the cores were free)`,
    `worker start-up (${startup.workers} workers, the 50-object run less the same on one thread): ` +
      `${Math.round(startup.cliMs)} ms through the built CLI (CPU time ${Math.round(startup.cliCpuMs)} ms, all threads); ` +
      `${Math.round(startup.ms)} ms in this process, ` +
      "whose workers load the sources through tsx",
  ];
  return {
    name: `audit/${format}-workers`,
    unit: "µs",
    value: (parallel.ms * 1000) / n,
    cpu: (parallel.cpuMs * 1000) / n,
    min: (parallel.ms * 1000) / n,
    max: (parallel.ms * 1000) / n,
    baseline: { label: "in-process", value: (single.ms * 1000) / n },
    goals: [
      goal(`speed-up with ${workers} workers`, speedup, ">=", SPEEDUP_GOAL[format], "×"),
      goal("worker start-up, built CLI (wall)", startup.cliMs, "<=", STARTUP_GOAL_MS, "ms"),
    ],
    notes,
    data: {
      objects: n,
      workers,
      autoWorkers: auto,
      cores,
      inProcessObjectsPerSecond: perS(single.ms),
      workersObjectsPerSecond: perS(parallel.ms),
      speedup,
      startupMs: startup.ms,
      cliStartupMs: startup.cliMs,
    },
  };
}

export const auditWorkersCases: readonly BenchCase[] = [
  { name: "audit/yaml-workers", run: (ctx) => workersRow(ctx, "yaml") },
  { name: "audit/json-workers", run: (ctx) => workersRow(ctx, "json") },
];
