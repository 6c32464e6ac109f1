/**
 * Cold loads of the Gateway API bundle (every CRD of corpus/crds/gateway-api/standard) as a YAML folder and as a
 * bundle artifact (`tollgate bundle build`), each in fresh `node` processes running an esbuild bundle of
 * cold-start-entry.ts (plain Node, no tsx): loadBundle time and process start to first verdict (a valid HTTPRoute),
 * against bare Node start (`performance.now()` at the first line of `node -e`). Median of RUNS processes each.
 *
 *   npx tsx test/bench/bundle-load.bench.ts        (or register bundleLoadCases in run.ts)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBundleArtifact } from "../../lib/index.js";
import { REPO_ROOT, resolveCorpusRoot } from "../conformance/corpus.js";
import { ANCHOR_OBJECTS, findAnchorCase } from "./anchors.js";
import { type BenchCase, type BenchContext, type BenchRow, goal } from "./bench-case.js";
import { median } from "./measure.js";
import { bareStart, type ColdStartTimes, coldStart } from "./processes.js";

const RUNS = 7;

async function prepare(ctx: BenchContext): Promise<{ artifact: string; folder: string; object: string }> {
  const dir = join(REPO_ROOT, ".bench", "bundle-load");
  mkdirSync(dir, { recursive: true });
  const folder = join(ctx.corpusRoot, "crds/gateway-api/standard");
  const artifact = join(dir, "gateway-api-standard.json");
  writeFileSync(artifact, (await buildBundleArtifact(folder)).text);
  const anchor = ANCHOR_OBJECTS.find((a) => a.id === "hr-valid")!;
  const object = join(dir, "httproute.json");
  writeFileSync(object, JSON.stringify(findAnchorCase(ctx.corpusRoot, anchor).object));
  return { artifact, folder, object };
}

async function measure(ctx: BenchContext): Promise<BenchRow[]> {
  const p = await prepare(ctx);
  const bare: { at: number; cpuMs: number }[] = [];
  const folder: ColdStartTimes[] = [];
  const artifact: ColdStartTimes[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Alternate, so that a noisy neighbour slows every side.
    bare.push(bareStart());
    folder.push(await coldStart(p.folder, p.object));
    artifact.push(await coldStart(p.artifact, p.object));
  }
  const bareMs = median(bare.map((b) => b.at));
  const bareCpuMs = median(bare.map((b) => b.cpuMs));
  const row = (name: string, xs: ColdStartTimes[], base: ColdStartTimes[], baseLabel: string): BenchRow => {
    const first = xs.map((x) => x.firstVerdictAt);
    const cpu = median(xs.map((x) => x.firstVerdictCpuMs));
    return {
      name,
      unit: "ms",
      value: median(first) - bareMs,
      cpu: cpu - bareCpuMs,
      min: Math.min(...first) - bareMs,
      max: Math.max(...first) - bareMs,
      baseline: { label: baseLabel, value: median(base.map((x) => x.firstVerdictAt)) - bareMs },
      notes: [
        `${name}: first verdict ${median(first).toFixed(0)} ms after process start (bare node ${bareMs.toFixed(0)} ms); ` +
          `module import ${median(xs.map((x) => x.startedAt)).toFixed(0)} ms, loadBundle ${median(xs.map((x) => x.loadMs)).toFixed(0)} ms ` +
          `(median of ${RUNS}); CPU time at the first verdict ${cpu.toFixed(0)} ms, bare Node's at its first line ` +
          `${bareCpuMs.toFixed(0)} ms, the load's ${median(xs.map((x) => x.loadCpuMs)).toFixed(0)} ms`,
      ],
      goals: [goal("first verdict over bare Node start", median(first) - bareMs, "<=", 100, "ms", cpu - bareCpuMs)],
      data: {
        bareMs,
        bareCpuMs,
        firstVerdictMs: median(first),
        firstVerdictCpuMs: cpu,
        importMs: median(xs.map((x) => x.startedAt)),
        loadMs: median(xs.map((x) => x.loadMs)),
        loadCpuMs: median(xs.map((x) => x.loadCpuMs)),
        allowed: xs.every((x) => x.allowed),
      },
    };
  };
  return [
    row("bundle/gateway-artifact-first-verdict", artifact, folder, "YAML folder"),
    row("bundle/gateway-folder-first-verdict", folder, folder, "YAML folder"),
  ];
}

let rows: Promise<BenchRow[]> | undefined;
const rowsOnce = (ctx: BenchContext) => {
  rows ??= measure(ctx);
  return rows;
};

export const bundleLoadCases: readonly BenchCase[] = [
  { name: "bundle/gateway-artifact-first-verdict", run: async (ctx) => (await rowsOnce(ctx))[0]! },
  { name: "bundle/gateway-folder-first-verdict", run: async (ctx) => (await rowsOnce(ctx))[1]! },
];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ctx = { corpusRoot: resolveCorpusRoot() };
  for (const r of await measure(ctx)) {
    console.log(
      `${r.name}: ${r.value.toFixed(0)} ms over bare node (${r.baseline.label} ${r.baseline.value.toFixed(0)} ms)`,
    );
    for (const n of r.notes) console.log(`  ${n}`);
  }
}
