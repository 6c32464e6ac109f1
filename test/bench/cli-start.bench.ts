/**
 * The CLI's start, as users feel it in CI loops, pre-commit hooks and xargs pipelines: the wall time of `tollgate
 * validate` of one small file against the example bundle (and of `tollgate lint` of that bundle), spawn to exit,
 * through package.json's bin (audit/cli/bin.js, which runs the esbuild build `npm ci` leaves in dist/cli). Baseline,
 * measured in the same run, alternating: bare Node's start (`node -e 0`, spawn to exit) plus a cold load of the same
 * bundle (loadBundle, the first in a fresh process). Goal: within 2× of that baseline. Median of RUNS rounds.
 *
 * The build is made first when it is missing or older than a source (bin.js would otherwise run the sources
 * through tsx, which is what the goal is about not paying).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseDocuments } from "../../lib/index.js";
import { REPO_ROOT } from "../conformance/corpus.js";
import { type BenchCase, type BenchRow, goal } from "./bench-case.js";
import { median } from "./measure.js";
import { coldStart, ensureBuilt, timedNode } from "./processes.js";

const RUNS = 9;
const GOAL = 2;
const BUNDLE = "examples/policies";
const OBJECT = "examples/objects/widget-valid.yaml";

/** Wall times per round, and CPU times (ms; bare Node's and the CLI's in 10 ms ticks, so only their means count). */
interface Rounds {
  bare: number[];
  load: number[];
  validate: number[];
  lint: number[];
  cpu: { bare: number[]; load: number[]; validate: number[]; lint: number[] };
}

async function measure(): Promise<Rounds> {
  ensureBuilt();
  const objectJson = join(REPO_ROOT, ".bench", "cold-start", "widget-valid.json");
  const doc = parseDocuments(readFileSync(join(REPO_ROOT, OBJECT), "utf8"))[0];
  if (doc?.object === undefined) throw new Error(`${OBJECT} does not decode`);
  mkdirSync(dirname(objectJson), { recursive: true });
  writeFileSync(objectJson, JSON.stringify(doc.object));
  const rounds: Rounds = {
    bare: [],
    load: [],
    validate: [],
    lint: [],
    cpu: { bare: [], load: [], validate: [], lint: [] },
  };
  for (let i = 0; i < RUNS; i++) {
    // Alternating, so that a noisy neighbour slows every side.
    const bare = timedNode(["-e", "0"]);
    rounds.bare.push(bare.ms);
    rounds.cpu.bare.push(bare.cpuMs);
    const cold = await coldStart(BUNDLE, objectJson);
    if (!cold.allowed) throw new Error(`${OBJECT} is not allowed by ${BUNDLE}`);
    rounds.load.push(cold.loadMs);
    rounds.cpu.load.push(cold.loadCpuMs);
    const v = timedNode(["audit/cli/bin.js", "validate", "--bundle", BUNDLE, OBJECT]);
    if (!v.stdout.includes(" valid")) throw new Error(`tollgate validate said: ${v.stdout}${v.stderr}`);
    rounds.validate.push(v.ms);
    rounds.cpu.validate.push(v.cpuMs);
    const l = timedNode(["audit/cli/bin.js", "lint", "--bundle", BUNDLE]);
    rounds.lint.push(l.ms);
    rounds.cpu.lint.push(l.cpuMs);
  }
  return rounds;
}

let rounds: Promise<Rounds> | undefined;

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function row(name: string, what: string, which: "validate" | "lint"): BenchCase {
  return {
    name,
    async run(): Promise<BenchRow> {
      rounds ??= measure();
      const r = await rounds;
      const xs = r[which];
      const bare = median(r.bare);
      const load = median(r.load);
      const value = median(xs);
      const cpu = mean(r.cpu[which]);
      const baseCpu = mean(r.cpu.bare) + median(r.cpu.load);
      return {
        name,
        unit: "ms",
        value,
        cpu,
        min: Math.min(...xs),
        max: Math.max(...xs),
        baseline: { label: "node -e 0 + loadBundle", value: bare + load },
        goals: [goal("wall ÷ (bare Node + bundle load)", value / (bare + load), "<=", GOAL, "×", cpu / baseCpu)],
        notes: [
          `${what}: ${value.toFixed(0)} ms spawn to exit (median of ${RUNS}); bare Node ${bare.toFixed(0)} ms, ` +
            `a cold loadBundle of ${BUNDLE} ${load.toFixed(0)} ms; CPU time ${cpu.toFixed(0)} ms (mean), bare Node ` +
            `${mean(r.cpu.bare).toFixed(0)} ms (mean), the load ${median(r.cpu.load).toFixed(0)} ms`,
        ],
        data: { bareMs: bare, loadMs: load, wallMs: value, runs: RUNS, cpuMs: cpu, baselineCpuMs: baseCpu },
      };
    },
  };
}

export const cliStartCases: readonly BenchCase[] = [
  row("cli/validate", `tollgate validate --bundle ${BUNDLE} ${OBJECT}`, "validate"),
  row("cli/lint", `tollgate lint --bundle ${BUNDLE}`, "lint"),
];
