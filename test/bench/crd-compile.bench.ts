/**
 * CRD compile: `loadBundle` over in-memory CRD files (no disk I/O in the timing), per perf-anchors.md §6 goal 4
 * (≤ 0.2× the Go reference's serve setup). Baseline: `JSON.parse` of the same documents as JSON text, measured in
 * the same run. Rules per CRD are counted from the YAML (see crd-inventory.ts).
 */
import type { PolicySet } from "#lib";
import { loadBundle, parseDocuments } from "#lib";
import { DEFAULT_PARSE_OPTIONS } from "../../lib/objects/limits.js";
import { decodeYamlStreamFully } from "../../lib/objects/yaml-decode.js";
import { GO_COMPILE, GOAL_FRACTION, HTTPROUTE_CRD } from "./anchors.js";
import { type BenchCase, type BenchContext, type BenchRow, goal } from "./bench-case.js";
import type { CrdFile } from "./crd-inventory.js";
import { countCrds, listInventoryCrdFiles } from "./crd-inventory.js";
import { measureRepeated, measureSide } from "./measure.js";

async function compileRow(
  name: string,
  files: CrdFile[],
  goMs: number,
  runs: { minRuns: number; maxRuns: number; budgetMs: number },
): Promise<BenchRow> {
  const counts = countCrds(files);
  const bundle = files.map((f) => ({ path: f.path, content: f.content }));
  const t0 = performance.now();
  const first: PolicySet = await loadBundle(bundle);
  const coldMs = performance.now() - t0;
  const failures = first.failures.filter((f) => f.severity === "error").length;
  const timing = await measureRepeated(() => loadBundle(bundle), runs);
  const baseline = measureSide(
    {
      "JSON.parse": () => {
        let n = 0;
        for (const t of counts.jsonTexts) n += (JSON.parse(t) as unknown[]).length;
        return n;
      },
    },
    { warmupMs: 100, samples: 5, sampleMs: 50 },
  )["JSON.parse"]!;
  const rules = counts.celRules + counts.valueValidations;
  const usPerCel = (1000 * timing.median) / Math.max(1, counts.celRules);
  const usPerRule = (1000 * timing.median) / Math.max(1, rules);
  return {
    name,
    unit: "ms",
    value: timing.median,
    min: timing.min,
    max: timing.max,
    baseline: { label: "JSON.parse of the same CRDs", value: baseline.median / 1000 },
    reference: { label: "Go serve setup", value: goMs, goalFraction: GOAL_FRACTION.compile },
    notes: [
      `${counts.files} files, ${(counts.bytes / 1e6).toFixed(2)} MB YAML, ${counts.crds} CRDs, ${counts.servedVersions} served versions, ` +
        `${counts.celRules} CEL rules + ${counts.valueValidations} OpenAPI value validations (served versions)`,
      `${(timing.median / Math.max(1, counts.crds)).toFixed(2)} ms/CRD, ${usPerCel.toFixed(0)} µs per CEL rule ` +
        `(Go: ${((1000 * goMs) / Math.max(1, counts.celRules)).toFixed(0)}), ${usPerRule.toFixed(1)} µs per rule incl. value validations`,
      `first loadBundle of this set ${coldMs.toFixed(1)} ms, then median of ${timing.runs - 1} runs ` +
        `[${timing.min.toFixed(1)}–${timing.max.toFixed(1)}]; yaml package parse alone, one pass: ${counts.yamlParseMs.toFixed(0)} ms`,
      ...(failures > 0 ? [`${failures} error-severity PolicyFailures at load`] : []),
    ],
    data: {
      files: counts.files,
      crds: counts.crds,
      servedVersions: counts.servedVersions,
      celRules: counts.celRules,
      valueValidations: counts.valueValidations,
      msPerCrd: timing.median / Math.max(1, counts.crds),
      usPerCelRule: usPerCel,
      usPerRule,
      coldMs,
      runs: timing.runs,
      yamlParseMs: counts.yamlParseMs,
      policyFailures: failures,
    },
  };
}

/** How much faster than the `yaml` package path the decoder must read the corpus CRDs. */
const PARSE_GOAL = 10;

/**
 * Decoding the corpus CRD files (parseDocuments: the block reader, the `yaml` package for what it leaves), against
 * the same decoder without the block reader (every document through the `yaml` package: what loading paid before)
 * and JSON.parse of the same documents as JSON, alternating, run by run. Goal: ≥ 10× faster than the `yaml` path.
 */
async function parseRow(files: CrdFile[]): Promise<BenchRow> {
  const counts = countCrds(files);
  const texts = files.map((f) => f.content);
  const times = { tollgate: [] as number[], yaml: [] as number[], json: [] as number[] };
  const time = (xs: number[], fn: () => void) => {
    const t0 = performance.now();
    fn();
    xs.push(performance.now() - t0);
  };
  for (let i = 0; i < 4; i++) {
    time(times.tollgate, () => {
      for (const t of texts) parseDocuments(t);
    });
    time(times.yaml, () => {
      for (const t of texts) decodeYamlStreamFully(t, DEFAULT_PARSE_OPTIONS);
    });
    time(times.json, () => {
      for (const t of counts.jsonTexts) JSON.parse(t);
    });
  }
  // The first pass of each warms the JIT.
  const med = (xs: number[]) => xs.slice(1).sort((a, b) => a - b)[1]!;
  const tollgate = med(times.tollgate);
  const yaml = med(times.yaml);
  const json = med(times.json);
  return {
    name: "crd-parse/all",
    unit: "ms",
    value: tollgate,
    min: Math.min(...times.tollgate.slice(1)),
    max: Math.max(...times.tollgate.slice(1)),
    baseline: { label: "JSON.parse of the same CRDs", value: json },
    goals: [goal("yaml package path ÷ tollgate decode", yaml / tollgate, ">=", PARSE_GOAL, "×")],
    notes: [
      `${counts.files} files, ${(counts.bytes / 1e6).toFixed(2)} MB YAML: decoded in ${tollgate.toFixed(0)} ms; ` +
        `the same decoder without its block reader (the yaml package path) ${yaml.toFixed(0)} ms; JSON.parse ${json.toFixed(1)} ms (median of 3 after a warm-up)`,
    ],
    data: { tollgateMs: tollgate, yamlPackageMs: yaml, jsonParseMs: json, bytes: counts.bytes },
  };
}

export const crdCompileCases: BenchCase[] = [
  { name: "crd-parse/all", run: (ctx: BenchContext) => parseRow(listInventoryCrdFiles(ctx.corpusRoot)) },
  {
    name: "crd-compile/all",
    run: (ctx: BenchContext) =>
      compileRow("crd-compile/all", listInventoryCrdFiles(ctx.corpusRoot), GO_COMPILE.allMs, {
        minRuns: 2,
        maxRuns: 6,
        budgetMs: 8000,
      }),
  },
  {
    name: "crd-compile/httproute",
    run: (ctx: BenchContext) =>
      compileRow(
        "crd-compile/httproute",
        listInventoryCrdFiles(ctx.corpusRoot).filter((f) => f.path === HTTPROUTE_CRD),
        GO_COMPILE.httpRouteMs,
        { minRuns: 3, maxRuns: 10, budgetMs: 3000 },
      ),
  },
];
