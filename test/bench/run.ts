/**
 * `npm run bench [-- filter...]`: runs the named benchmark cases whose name contains one of the filters (all when
 * none), prints a table with each figure next to a baseline measured in the same run and the Go reference of
 * shared/research/perf-anchors.md, and writes the results to `.bench/` (gitignored).
 *
 *   npm run bench                      every case (about a minute)
 *   npm run bench -- validate/hr       the HTTPRoute anchors only
 *   npm run bench -- --list            the case names
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, relative } from "node:path";
import { REPO_ROOT, resolveCorpusRoot } from "../conformance/corpus.js";
import { declarativeCases } from "../conformance/declarative/declarative.bench.js";
import { admissionPolicyCases } from "./admission-policy.bench.js";
import { auditCases } from "./audit.bench.js";
import { auditWorkersCases } from "./audit-workers.bench.js";
import type { BenchCase, BenchRow } from "./bench-case.js";
import { formatGoalFigure, goalsOf, isGoalMet } from "./bench-case.js";
import { bundleLoadCases } from "./bundle-load.bench.js";
import { celRulesCases } from "./cel-rules.bench.js";
import { cliStartCases } from "./cli-start.bench.js";
import { crdCompileCases } from "./crd-compile.bench.js";
import { hostileInputCases } from "./hostile-inputs.bench.js";
import { kubevirtCases } from "./kubevirt.bench.js";
import { largeInputCases } from "./large-inputs.bench.js";
import { podSecurityCases } from "./pod-security.bench.js";
import { childrenCpuMs, selfCpuMs } from "./processes.js";
import { validateCases } from "./validate.bench.js";
import { webhookCases } from "./webhook.bench.js";

const ALL_CASES: readonly BenchCase[] = [
  ...crdCompileCases,
  ...validateCases,
  ...celRulesCases,
  ...webhookCases,
  ...bundleLoadCases,
  ...cliStartCases,
  ...declarativeCases,
  ...kubevirtCases,
  ...podSecurityCases,
  ...admissionPolicyCases,
  ...auditCases,
  ...auditWorkersCases,
  ...largeInputCases,
  ...hostileInputCases,
];

function fmt(value: number, unit: string): string {
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`;
}

function pad(cells: string[][]): string {
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells
    .map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  "))
    .join("\n");
}

/**
 * What a case cost the machine while it ran: its wall time, the CPU time of this process (every thread) and of the
 * child processes it waited for, and the 1-minute load average before and after. CPU ÷ wall near the number of
 * busy threads means the case had its cores; far below it, that it waited for them (the machine is shared).
 */
interface CaseUsage {
  wallS: number;
  cpuS: number;
  loadBefore: number;
  loadAfter: number;
}

function usageOf(run: () => Promise<void>): Promise<CaseUsage> {
  const loadBefore = loadavg()[0]!;
  const c0 = selfCpuMs() + childrenCpuMs();
  const t0 = performance.now();
  return run().then(() => ({
    wallS: (performance.now() - t0) / 1000,
    cpuS: (selfCpuMs() + childrenCpuMs() - c0) / 1000,
    loadBefore,
    loadAfter: loadavg()[0]!,
  }));
}

const loadText = (u: CaseUsage | undefined) =>
  u === undefined ? "–" : `${u.loadBefore.toFixed(1)}→${u.loadAfter.toFixed(1)}`;

function table(rows: BenchRow[], usage: ReadonlyMap<string, CaseUsage>): string {
  const header = ["case", "tollgate", "CPU", "baseline", "÷ baseline", "Go ref", "Go ÷ tollgate", "load 1m"];
  const body = rows.map((r) => {
    const ref = r.reference;
    return [
      r.name,
      fmt(r.value, r.unit),
      r.cpu !== undefined && Number.isFinite(r.cpu) ? fmt(r.cpu, r.unit) : "–",
      `${r.baseline.label} ${fmt(r.baseline.value, r.unit)}`,
      `${(r.value / r.baseline.value).toFixed(1)}×`,
      ref !== undefined ? fmt(ref.value, r.unit) : "–",
      ref !== undefined ? `${(ref.value / r.value).toFixed(1)}×` : "–",
      loadText(usage.get(r.name)),
    ];
  });
  return pad([header, ...body]);
}

/** Every goal of every row: its figure, its limit and whether it is met; and how many are. */
function goalTable(
  rows: BenchRow[],
  usage: ReadonlyMap<string, CaseUsage>,
): { text: string; met: number; total: number; missed: string[] } {
  const header = ["case", "goal", "measured", "by CPU time", "limit", "met", "load 1m"];
  const missed: string[] = [];
  const body: string[][] = [];
  let met = 0;
  for (const r of rows) {
    for (const g of goalsOf(r)) {
      const ok = isGoalMet(g);
      if (ok) met++;
      else missed.push(`${r.name} (${g.label})`);
      const byCpu = g.byCpu !== undefined && Number.isFinite(g.byCpu) ? g.byCpu : undefined;
      body.push([
        r.name,
        g.label,
        formatGoalFigure(g.actual, g.unit),
        byCpu === undefined
          ? "–"
          : `${formatGoalFigure(byCpu, g.unit)} (${isGoalMet({ ...g, actual: byCpu }) ? "met" : "not met"})`,
        `${g.op === "<=" ? "≤" : "≥"} ${formatGoalFigure(g.limit, g.unit)}`,
        ok ? "yes" : "NO",
        loadText(usage.get(r.name)),
      ]);
    }
  }
  return { text: body.length > 0 ? pad([header, ...body]) : "", met, total: body.length, missed };
}

/** A row that cannot be a measurement (a case that ran but timed nothing) is a failure too. */
function rowProblem(row: BenchRow): string | undefined {
  const figures = {
    value: row.value,
    baseline: row.baseline.value,
    ...(row.reference && { reference: row.reference.value }),
  };
  for (const [what, v] of Object.entries(figures)) {
    if (!Number.isFinite(v) || v <= 0) return `its ${what} is ${v}, not a measurement`;
  }
  for (const g of goalsOf(row)) if (!Number.isFinite(g.actual)) return `goal "${g.label}" measured ${g.actual}`;
  return undefined;
}

function gitCommit(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: REPO_ROOT, encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes("--list")) {
    for (const c of ALL_CASES) console.log(c.name);
    return 0;
  }
  const filters = args.filter((a) => !a.startsWith("-"));
  const selected = ALL_CASES.filter((c) => filters.length === 0 || filters.some((f) => c.name.includes(f)));
  if (selected.length === 0) {
    console.error(
      `no benchmark case matches ${filters.join(" ")}; cases:\n  ${ALL_CASES.map((c) => c.name).join("\n  ")}`,
    );
    return 1;
  }
  let corpusRoot: string;
  try {
    corpusRoot = resolveCorpusRoot();
  } catch (err) {
    console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
    return 2;
  }

  const started = new Date();
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(
    `tollgate bench — Node ${process.version}, ${cpus().length} × ${cpu}, commit ${gitCommit()}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(`corpus ${corpusRoot}; warm-up 300 ms, median of 10 samples of ~100 ms (compile: run by run)\n`);

  const rows: BenchRow[] = [];
  const usage = new Map<string, CaseUsage>();
  const errors: { name: string; error: string }[] = [];
  for (const c of selected) {
    let row: BenchRow | undefined;
    let failure: unknown;
    const u = await usageOf(async () => {
      try {
        row = await c.run({ corpusRoot });
        const problem = rowProblem(row);
        if (problem !== undefined) throw new Error(`${c.name}: ${problem}`);
      } catch (err) {
        failure = err;
      }
    });
    if (row !== undefined && failure === undefined) {
      rows.push(row);
      usage.set(c.name, u);
      console.log(
        `  ${c.name}: ${fmt(row.value, row.unit)} (${u.wallS.toFixed(1)} s wall, ${u.cpuS.toFixed(1)} s CPU, load ${loadText(u)})`,
      );
    } else {
      const text = failure instanceof Error ? (failure.stack ?? failure.message) : String(failure);
      errors.push({ name: c.name, error: text });
      console.log(`  ${c.name}: FAILED ${text.split("\n")[0]}`);
    }
  }

  const goals = goalTable(rows, usage);
  if (rows.length > 0) {
    console.log(`\n${table(rows, usage)}\n`);
    console.log(
      "CPU: user + system time of the figure where the case measures it (processes and threads it ran); load 1m: the machine's 1-minute load average before → after the case",
    );
    for (const r of rows) for (const n of r.notes) console.log(`${r.name}: ${n}`);
    if (goals.total > 0) {
      console.log(`\ngoals: ${goals.met} of ${goals.total} met\n${goals.text}`);
      if (goals.missed.length > 0) console.log(`\ngoals NOT met: ${goals.missed.join("; ")}`);
    }
  }
  for (const e of errors) console.error(`\n${e.name} failed:\n${e.error}`);

  const dir = join(REPO_ROOT, ".bench");
  mkdirSync(dir, { recursive: true });
  const result = {
    startedAt: started.toISOString(),
    seconds: (Date.now() - started.getTime()) / 1000,
    node: process.version,
    cpu,
    commit: gitCommit(),
    filters,
    loadAverage: loadavg(),
    rows: rows.map((r) => ({ ...r, usage: usage.get(r.name) })),
    goals: rows.flatMap((r) => goalsOf(r).map((g) => ({ case: r.name, ...g, met: isGoalMet(g) }))),
    errors,
  };
  const json = `${JSON.stringify(result, null, 2)}\n`;
  const file = join(dir, `bench-${started.toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, json);
  writeFileSync(join(dir, "latest.json"), json);
  console.log(
    `\nresults: ${relative(REPO_ROOT, file)} (and .bench/latest.json), ${result.seconds.toFixed(1)} s in all`,
  );
  if (errors.length > 0) {
    // Loud and last: a case that cannot run measures nothing, and the run fails (exit 1).
    console.error(
      `\nBENCH FAILED: ${errors.length} of ${selected.length} case(s) could not run: ${errors.map((e) => e.name).join(", ")}`,
    );
    return 1;
  }
  return 0;
}

process.exitCode = await main();
