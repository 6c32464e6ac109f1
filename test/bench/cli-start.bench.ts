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
import { bareNodeMs, coldStart, ensureBuilt, median, timedNode } from "./processes.js";

const RUNS = 9;
const GOAL = 2;
const BUNDLE = "examples/policies";
const OBJECT = "examples/objects/widget-valid.yaml";

interface Rounds {
  bare: number[];
  load: number[];
  validate: number[];
  lint: number[];
}

async function measure(): Promise<Rounds> {
  ensureBuilt();
  const objectJson = join(REPO_ROOT, ".bench", "cold-start", "widget-valid.json");
  const doc = parseDocuments(readFileSync(join(REPO_ROOT, OBJECT), "utf8"))[0];
  if (doc?.object === undefined) throw new Error(`${OBJECT} does not decode`);
  mkdirSync(dirname(objectJson), { recursive: true });
  writeFileSync(objectJson, JSON.stringify(doc.object));
  const rounds: Rounds = { bare: [], load: [], validate: [], lint: [] };
  for (let i = 0; i < RUNS; i++) {
    // Alternating, so that a noisy neighbour slows every side.
    rounds.bare.push(bareNodeMs());
    const cold = await coldStart(BUNDLE, objectJson);
    if (!cold.allowed) throw new Error(`${OBJECT} is not allowed by ${BUNDLE}`);
    rounds.load.push(cold.loadMs);
    const v = timedNode(["audit/cli/bin.js", "validate", "--bundle", BUNDLE, OBJECT]);
    if (!v.stdout.includes(" valid")) throw new Error(`tollgate validate said: ${v.stdout}${v.stderr}`);
    rounds.validate.push(v.ms);
    rounds.lint.push(timedNode(["audit/cli/bin.js", "lint", "--bundle", BUNDLE]).ms);
  }
  return rounds;
}

let rounds: Promise<Rounds> | undefined;

function row(name: string, what: string, times: (r: Rounds) => number[]): BenchCase {
  return {
    name,
    async run(): Promise<BenchRow> {
      rounds ??= measure();
      const r = await rounds;
      const xs = times(r);
      const bare = median(r.bare);
      const load = median(r.load);
      const value = median(xs);
      return {
        name,
        unit: "ms",
        value,
        min: Math.min(...xs),
        max: Math.max(...xs),
        baseline: { label: "node -e 0 + loadBundle", value: bare + load },
        goals: [goal("wall ÷ (bare Node + bundle load)", value / (bare + load), "<=", GOAL, "×")],
        notes: [
          `${what}: ${value.toFixed(0)} ms spawn to exit (median of ${RUNS}); bare Node ${bare.toFixed(0)} ms, ` +
            `a cold loadBundle of ${BUNDLE} ${load.toFixed(0)} ms`,
        ],
        data: { bareMs: bare, loadMs: load, wallMs: value, runs: RUNS },
      };
    },
  };
}

export const cliStartCases: readonly BenchCase[] = [
  row("cli/validate", `tollgate validate --bundle ${BUNDLE} ${OBJECT}`, (r) => r.validate),
  row("cli/lint", `tollgate lint --bundle ${BUNDLE}`, (r) => r.lint),
];
