/**
 * Timing method (the one research/perf-anchors.md used for the JS figures): warm up for ~300 ms, then take ~10
 * samples of ~100 ms each and report the median sample. A subject and its baseline are sampled alternately, so
 * that a noisy neighbour slows both.
 */

import { type BenchRow, goal } from "./bench-case.js";

export interface Timing {
  /** Median per-operation time, µs. */
  median: number;
  min: number;
  max: number;
  samples: number;
  opsPerSample: number;
}

export interface LoopOptions {
  /** Default 300. */
  warmupMs?: number;
  /** Default 10. */
  samples?: number;
  /** Default 100. */
  sampleMs?: number;
}

/** Results go here so the JIT cannot drop the measured work. */
let sink: unknown;

export function consumeSink(): unknown {
  return sink;
}

function timeOps(fn: () => unknown, ops: number): number {
  const t0 = performance.now();
  for (let i = 0; i < ops; i++) sink = fn();
  return performance.now() - t0;
}

/** Operations that take about `ms` milliseconds. */
function calibrate(fn: () => unknown, ms: number): number {
  let ops = 1;
  for (;;) {
    const t = timeOps(fn, ops);
    if (t >= ms / 4 || ops >= 1 << 24) return Math.max(1, Math.round((ops * ms) / Math.max(t, 1e-3)));
    ops *= 2;
  }
}

/** The median of `xs` (the mean of the two middle values when their count is even). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function summarise(perOpUs: number[], opsPerSample: number): Timing {
  return {
    median: median(perOpUs),
    min: Math.min(...perOpUs),
    max: Math.max(...perOpUs),
    samples: perOpUs.length,
    opsPerSample,
  };
}

/** Times synchronous functions side by side (same warm-up, interleaved samples); µs per operation each. */
export function measureSide(fns: Record<string, () => unknown>, options: LoopOptions = {}): Record<string, Timing> {
  const { warmupMs = 300, samples = 10, sampleMs = 100 } = options;
  const names = Object.keys(fns);
  const ops: Record<string, number> = {};
  for (const name of names) {
    const fn = fns[name]!;
    const end = performance.now() + warmupMs;
    while (performance.now() < end) timeOps(fn, 16);
    ops[name] = calibrate(fn, sampleMs);
  }
  const perOp: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < samples; i++) {
    for (const name of names) perOp[name]!.push((timeOps(fns[name]!, ops[name]!) * 1000) / ops[name]!);
  }
  return Object.fromEntries(names.map((n) => [n, summarise(perOp[n]!, ops[n]!)]));
}

export interface RepeatOptions {
  /** At least this many timed runs (default 3) ... */
  minRuns?: number;
  /** ... and at most this many (default 10) ... */
  maxRuns?: number;
  /** ... stopping once this much time has been spent (default 5000 ms). */
  budgetMs?: number;
}

export interface RepeatTiming {
  /** The first run, in a process where nothing of the kind ran before: ms. */
  first: number;
  /** Median of every run after the first (or the first when it is the only one): ms. */
  median: number;
  min: number;
  max: number;
  runs: number;
}

/** Times an expensive asynchronous operation run by run (CRD compile); ms per run. */
export async function measureRepeated(fn: () => Promise<unknown>, options: RepeatOptions = {}): Promise<RepeatTiming> {
  const { minRuns = 3, maxRuns = 10, budgetMs = 5000 } = options;
  const times: number[] = [];
  const start = performance.now();
  while (times.length < maxRuns && (times.length < minRuns || performance.now() - start < budgetMs)) {
    const t0 = performance.now();
    sink = await fn();
    times.push(performance.now() - t0);
  }
  const later = times.length > 1 ? times.slice(1) : times;
  return {
    first: times[0]!,
    median: median(later),
    min: Math.min(...later),
    max: Math.max(...later),
    runs: times.length,
  };
}

/** Alternates `subject` and `baseline` (so a noisy neighbour slows both), `runs` times each; medians in ms. */
export async function alternate(
  subject: () => Promise<unknown> | unknown,
  baseline: () => unknown,
  runs: number,
): Promise<{ subject: number[]; baseline: number[] }> {
  const out = { subject: [] as number[], baseline: [] as number[] };
  await subject();
  baseline();
  for (let i = 0; i < runs; i++) {
    let t0 = performance.now();
    await subject();
    out.subject.push(performance.now() - t0);
    t0 = performance.now();
    baseline();
    out.baseline.push(performance.now() - t0);
  }
  return out;
}

/**
 * The row of an `alternate` run: the subject's median against the baseline's, with one goal on their ratio (at most
 * `limit` times) and what `describe` says of the two medians.
 */
export function alternatedRow(
  name: string,
  t: { subject: number[]; baseline: number[] },
  baselineLabel: string,
  [goalLabel, limit]: readonly [string, number],
  describe: (value: number, base: number) => { note: string; data: Record<string, number> },
): BenchRow {
  const value = median(t.subject);
  const base = median(t.baseline);
  const { note, data } = describe(value, base);
  return {
    name,
    unit: "ms",
    value,
    min: Math.min(...t.subject),
    max: Math.max(...t.subject),
    baseline: { label: baselineLabel, value: base },
    goals: [goal(goalLabel, value / base, "<=", limit, "×")],
    notes: [note],
    data,
  };
}
