/**
 * Summary of the current conformance results, to find bugs: failures grouped by category, by case file, and the
 * most common missing and extra cause shapes (indices, bad values and quoted texts generalised).
 *
 *   npx tsx test/conformance/crd/report.ts [--top N] [--examples N] [key substring]
 */
import type { CorpusCause } from "../corpus.js";
import { resolveCorpusRoot } from "../corpus.js";
import { readKnownFailures } from "./known-failures.js";
import type { CaseResult } from "./run-corpus.js";
import { runCorpus } from "./run-corpus.js";

interface Options {
  top: number;
  examples: number;
  filter?: string;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { top: 25, examples: 2 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--top" || a === "--examples") {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 0) throw new Error(`${a} needs a whole number`);
      if (a === "--top") opts.top = n;
      else opts.examples = n;
    } else if (a === "--help" || a === "-h") {
      console.log("usage: npx tsx test/conformance/crd/report.ts [--top N] [--examples N] [key substring]");
      process.exit(0);
    } else {
      opts.filter = a;
    }
  }
  return opts;
}

/** A cause with its specifics generalised, so that one bug shows as one line. */
export function causeShape(c: CorpusCause): string {
  const field = c.field.replace(/\[\d+\]/g, "[*]");
  let message = c.message.replace(/\[\d+\]/g, "[*]");
  message = message.replace(
    /^(Invalid value|Unsupported value|Duplicate value|Invalid type|Too many): ("(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|null|true|false|\{.*?\}|\[.*?\])(?=: |$)/,
    "$1: <value>",
  );
  message = message.replace(/(must have at most|may not be more than|may not be longer than) \d+/, "$1 <n>");
  message = message.replace(/(greater|less) than( or equal to)? -?[\d.]+/, "$1 than$2 <n>");
  message = message.replace(/(at least|at most) \d+ (chars|items|properties)/, "$1 <n> $2");
  return `${c.type} ${field}: ${message}`;
}

function count<K>(m: Map<K, number>, k: K, by = 1): void {
  m.set(k, (m.get(k) ?? 0) + by);
}

function topOf<K>(m: Map<K, number>, n: number): [K, number][] {
  return [...m.entries()].sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0]))).slice(0, n);
}

function pct(n: number, total: number): string {
  return total === 0 ? "0%" : `${((100 * n) / total).toFixed(1)}%`;
}

function printShapes(
  title: string,
  shapes: Map<string, { n: number; cases: Set<string>; examples: string[] }>,
  opts: Options,
): void {
  console.log(`\n## ${title} (${shapes.size} shapes; top ${opts.top})\n`);
  const sorted = [...shapes.entries()].sort((a, b) => b[1].n - a[1].n || a[0].localeCompare(b[0])).slice(0, opts.top);
  for (const [shape, s] of sorted) {
    console.log(`${String(s.n).padStart(5)} in ${String(s.cases.size).padStart(4)} cases  ${shape}`);
    for (const e of s.examples.slice(0, opts.examples)) console.log(`${" ".repeat(20)}e.g. ${e}`);
  }
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const corpus = resolveCorpusRoot();
  const run = await runCorpus(corpus, { filter: opts.filter });
  const known = readKnownFailures();
  const results = run.results;
  const failing = results.filter((r) => r.failure !== undefined);
  const listed = failing.filter((r) => known.has(r.key)).length;
  const nowPassing = results.filter((r) => r.outcome.passed && known.has(r.key)).length;

  console.log(`# tollgate conformance report${opts.filter !== undefined ? ` (filter: ${opts.filter})` : ""}\n`);
  console.log(
    `${results.length} cases: ${results.length - failing.length} passed (${pct(results.length - failing.length, results.length)}), ` +
      `${failing.length} failing (${listed} listed in known-failures.yaml, ${failing.length - listed} not listed); ` +
      `${nowPassing} listed cases now pass`,
  );
  console.log(
    `time: load ${Math.round(run.ms.load)} ms (${run.crdFiles} CRD files), validate ${Math.round(run.ms.validate)} ms ` +
      `(${((1000 * run.ms.validate) / Math.max(1, results.length)).toFixed(1)} µs/case)`,
  );

  const byCategory = new Map<string, CaseResult[]>();
  for (const r of failing) {
    const k = r.failure!.category;
    const list = byCategory.get(k) ?? [];
    list.push(r);
    byCategory.set(k, list);
  }
  console.log(`\n## Failures by category\n`);
  for (const [category, list] of [...byCategory.entries()].sort((a, b) => b[1].length - a[1].length)) {
    console.log(`${String(list.length).padStart(5)}  ${category}`);
    for (const r of list.slice(0, opts.examples))
      console.log(`${" ".repeat(7)}e.g. ${r.key}\n${" ".repeat(12)}${r.failure!.detail}`);
  }

  const byFile = new Map<string, number>();
  const totalByFile = new Map<string, number>();
  for (const r of results) count(totalByFile, r.file);
  for (const r of failing) count(byFile, r.file);
  console.log(`\n## Failing cases by case file (top ${opts.top})\n`);
  for (const [file, n] of topOf(byFile, opts.top)) {
    console.log(`${String(n).padStart(5)} / ${String(totalByFile.get(file) ?? 0).padEnd(5)} ${file}`);
  }

  const missing = new Map<string, { n: number; cases: Set<string>; examples: string[] }>();
  const extra = new Map<string, { n: number; cases: Set<string>; examples: string[] }>();
  const otherKinds = new Map<string, number>();
  for (const r of failing) {
    for (const d of r.outcome.differences) {
      if (d.kind === "missing-cause" || d.kind === "extra-cause") {
        const into = d.kind === "missing-cause" ? missing : extra;
        const shape = causeShape(d.cause);
        const s = into.get(shape) ?? { n: 0, cases: new Set<string>(), examples: [] };
        s.n++;
        s.cases.add(r.key);
        if (s.examples.length < opts.examples) s.examples.push(`${r.key} → ${d.cause.field}: ${d.cause.message}`);
        into.set(shape, s);
      } else {
        count(otherKinds, d.kind);
      }
    }
  }
  printShapes("Missing causes (expected, not produced)", missing, opts);
  printShapes("Extra causes (produced, not expected)", extra, opts);
  if (otherKinds.size > 0) {
    console.log(`\n## Other differences\n`);
    for (const [kind, n] of topOf(otherKinds, 50)) console.log(`${String(n).padStart(5)}  ${kind}`);
  }
}

await main();
