/**
 * The batch auditor's throughput: a generated cluster export of mixed objects, audited
 * through the real path (openSource on a file → bounded decode → `kind: List` unwrapping → PolicySet.validate →
 * findings → summary; runAudit, one thread), as one JSON `kind: List` (what `kubectl get -A -o json` writes) and as
 * a multi-document YAML stream. Each row: µs per object and objects/s per core, next to JSON.parse+JSON.stringify
 * over the JSON text of the same objects, and the process's peak RSS. Goals: the audit at ≥ 10% of the round trip's
 * objects/s on JSON input, ≥ 4% on YAML.
 *
 * The mix (one policy set, loaded once): kinds from the corpus CRDs (Gateway API HTTPRoute, Gateway and GRPCRoute
 * from their experimental CRDs, OpenShift Infrastructure; the corpus' own CREATE cases, valid and invalid), the
 * example export (Widgets, Tenants, a Rollout, a Backup, KubeVirt VirtualMachines validated against their linked
 * Template, uncovered ConfigMaps and Secrets), and Robots of a Go-typed API (+k8s: tags, test/fixtures/declarative).
 * Each generated object is a sample with a fresh name, namespace and uid.
 *
 * `TOLLGATE_BENCH_AUDIT_OBJECTS` sets the number of objects (default 100,000).
 */
import { spawnSync } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { stringify } from "yaml";
import { type BundleFile, loadBundle, type PolicySet, parseDocuments, unwrapList } from "#lib";
import { DEFAULT_OWNER_LABELS } from "../../audit/config.js";
import { runAudit } from "../../audit/run.js";
import { DEFAULT_SOURCE_OPTIONS, openSource } from "../../audit/sources/index.js";
import { REPO_ROOT } from "../conformance/corpus.js";
import { type BenchCase, type BenchContext, type BenchRow, goal } from "./bench-case.js";
import { consumeSink } from "./measure.js";
import { childrenCpuMs, ensureBuilt, selfCpuMs } from "./processes.js";

const DEFAULT_OBJECTS = 100_000;
/** Audit throughput goals: this fraction of the JSON round trip's objects/s, by input format. */
const GOAL_FRACTION_OF_ROUND_TRIP = { json: 0.1, yaml: 0.04 } as const;

/** Corpus case files whose CREATE cases give objects, and the CRD variant to take (one CRD per kind). */
const CORPUS_CASES: readonly { file: string; crdPrefix: string; take: number }[] = [
  { file: "gateway-api/httproute.json", crdPrefix: "gateway-api/experimental/", take: 40 },
  { file: "gateway-api/gateway.json", crdPrefix: "gateway-api/experimental/", take: 20 },
  { file: "gateway-api/grpcroute.json", crdPrefix: "gateway-api/experimental/", take: 15 },
  {
    file: "openshift-api/config.openshift.io-infrastructure.json",
    crdPrefix: "openshift-api/0000_10_config-operator_01_infrastructures-Default",
    take: 15,
  },
];

interface Mix {
  policySet: PolicySet;
  /** The bundle's files (written out as a folder for the CLI). */
  files: BundleFile[];
  samples: Record<string, unknown>[];
  byKind: Map<string, number>;
}

let mixPromise: Promise<Mix> | undefined;

function filesUnder(root: string, prefix: string): BundleFile[] {
  const out: BundleFile[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, name.name);
      if (name.isDirectory()) walk(full);
      else if (/\.(ya?ml|json|go)$|^go\.mod$/.test(name.name)) {
        out.push({
          path: `${prefix}/${relative(root, full).split(sep).join("/")}`,
          content: readFileSync(full, "utf8"),
        });
      }
    }
  };
  walk(root);
  return out;
}

function objectsOf(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const doc of parseDocuments(text)) {
    if (doc.error !== undefined) continue;
    for (const o of unwrapList(doc.object) ?? [doc.object]) out.push(o as Record<string, unknown>);
  }
  return out;
}

async function buildMix(corpusRoot: string): Promise<Mix> {
  const files: BundleFile[] = [...filesUnder(join(REPO_ROOT, "examples/policies"), "examples")];
  files.push(...filesUnder(join(REPO_ROOT, "test/fixtures/declarative/bundle"), "declarative"));
  const samples: Record<string, unknown>[] = [];
  // The example export: its Template and Backup CRD become policies (as --policies-from-input does), the rest samples.
  const exported = objectsOf(readFileSync(join(REPO_ROOT, "examples/export/cluster-export.yaml"), "utf8"));
  exported.forEach((o, i) => {
    if (o.kind === "CustomResourceDefinition" || o.kind === "Template") {
      files.push({ path: `export/policy-${i}.json`, content: JSON.stringify(o) });
    } else {
      samples.push(o);
    }
  });
  for (const name of readdirSync(join(REPO_ROOT, "test/fixtures/declarative/objects"))) {
    samples.push(...objectsOf(readFileSync(join(REPO_ROOT, "test/fixtures/declarative/objects", name), "utf8")));
  }
  const crds = new Set<string>();
  for (const spec of CORPUS_CASES) {
    const cases = JSON.parse(readFileSync(join(corpusRoot, "cases", spec.file), "utf8")) as {
      crd: string;
      operation: string;
      subresource?: string;
      object: Record<string, unknown>;
    }[];
    const picked = cases
      .filter((c) => c.operation === "CREATE" && c.subresource === undefined && c.crd.startsWith(spec.crdPrefix))
      .slice(0, spec.take);
    for (const c of picked) {
      crds.add(c.crd);
      samples.push(c.object);
    }
  }
  for (const crd of crds)
    files.push({ path: `corpus/${crd}`, content: readFileSync(join(corpusRoot, "crds", crd), "utf8") });
  const policySet = await loadBundle(files);
  const byKind = new Map<string, number>();
  for (const s of samples) byKind.set(String(s.kind), (byKind.get(String(s.kind)) ?? 0) + 1);
  return { policySet, files, samples, byKind };
}

/** One sample with placeholders for its name, namespace and uid, as JSON and as YAML text. */
function templates(samples: readonly Record<string, unknown>[]): { json: string[]; yaml: string[] } {
  const json: string[] = [];
  const yaml: string[] = [];
  for (const s of samples) {
    const o = structuredClone(s);
    const meta = (typeof o.metadata === "object" && o.metadata !== null ? o.metadata : {}) as Record<string, unknown>;
    o.metadata = meta;
    meta.name = `${typeof meta.name === "string" && meta.name !== "" ? meta.name.slice(0, 40) : "obj"}-zzidzz`;
    if (typeof meta.namespace === "string") meta.namespace = "ns-zznszz";
    meta.uid = "zzuidzz";
    json.push(JSON.stringify(o));
    yaml.push(stringify(o, { lineWidth: 0 }));
  }
  return { json, yaml };
}

function fill(template: string, i: number): string {
  const uid = `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
  return template
    .replaceAll("zzidzz", String(i))
    .replaceAll("zznszz", String(i % 64))
    .replaceAll("zzuidzz", uid);
}

/** The export as one JSON `kind: List` and as a YAML stream: the same objects, in the same order. */
function generate(samples: readonly Record<string, unknown>[], n: number): { json: string; yaml: string } {
  const t = templates(samples);
  const items: string[] = [];
  const docs: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = i % samples.length;
    items.push(fill(t.json[k]!, i));
    docs.push(fill(t.yaml[k]!, i));
  }
  return {
    json: `{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[\n${items.join(",\n")}\n]}\n`,
    yaml: docs.join("---\n"),
  };
}

let exportCache: { n: number; dir: string; jsonBytes: number; yamlBytes: number; jsonText: string } | undefined;

function objectCount(): number {
  const raw = process.env.TOLLGATE_BENCH_AUDIT_OBJECTS;
  const n = raw === undefined || raw === "" ? DEFAULT_OBJECTS : Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`TOLLGATE_BENCH_AUDIT_OBJECTS must be a positive integer`);
  return n;
}

export async function prepare(ctx: BenchContext): Promise<{ mix: Mix; files: NonNullable<typeof exportCache> }> {
  mixPromise ??= buildMix(ctx.corpusRoot);
  const mix = await mixPromise;
  const n = objectCount();
  if (exportCache === undefined || exportCache.n !== n) {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-bench-audit-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    const { json, yaml } = generate(mix.samples, n);
    writeFileSync(join(dir, "export.json"), json);
    writeFileSync(join(dir, "export.yaml"), yaml);
    exportCache = {
      n,
      dir,
      jsonBytes: Buffer.byteLength(json),
      yamlBytes: Buffer.byteLength(yaml),
      jsonText: json,
    };
  }
  return { mix, files: exportCache };
}

/** One audit of `file` with concurrency 8, timed: wall and CPU time, ms (shared by the family benches). */
export async function auditOnce(
  file: string,
  policySet: PolicySet,
): Promise<{ ms: number; cpuMs: number; run: Awaited<ReturnType<typeof runAudit>> }> {
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
    },
    policySet,
  );
  return { ms: performance.now() - t0, cpuMs: selfCpuMs() - c0, run };
}

/** JSON.parse + JSON.stringify of `text`: the median of `runs` runs, wall and CPU time, ms. */
function roundTripMs(text: string, runs: number): { ms: number; cpuMs: number } {
  const times: { ms: number; cpuMs: number }[] = [];
  let out = 0;
  for (let i = 0; i < runs; i++) {
    const c0 = selfCpuMs();
    const t0 = performance.now();
    out += JSON.stringify(JSON.parse(text)).length;
    times.push({ ms: performance.now() - t0, cpuMs: selfCpuMs() - c0 });
  }
  if (out < 0) console.log(consumeSink());
  return times.sort((a, b) => a.ms - b.ms)[Math.floor(times.length / 2)]!;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function auditRow(ctx: BenchContext, format: "json" | "yaml"): Promise<BenchRow> {
  const { mix, files } = await prepare(ctx);
  const n = files.n;
  const file = join(files.dir, `export.${format}`);
  const rssBefore = process.memoryUsage().rss;
  // Two runs: the first warms the JIT; the second is reported (YAML once when large: it is the slow one).
  const runs = format === "yaml" && n > 20_000 ? 1 : 2;
  let last: Awaited<ReturnType<typeof auditOnce>> | undefined;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    last = undefined;
    last = await auditOnce(file, mix.policySet);
    times.push(last.ms);
  }
  const ms = times[times.length - 1]!;
  const cpuMs = last!.cpuMs;
  const s = last!.run.summary;
  if (s.documents !== n) throw new Error(`audited ${s.documents} documents, generated ${n}`);
  const roundTrip = roundTripMs(files.jsonText, 3);
  const baselineMs = roundTrip.ms;
  // The same fraction from CPU time: objects per CPU-second of the audit against the round trip's.
  const fractionByCpu = roundTrip.cpuMs / cpuMs;
  const perObjectUs = (ms * 1000) / n;
  const baselineUs = (baselineMs * 1000) / n;
  const objectsPerS = Math.round((n * 1000) / ms);
  const baselinePerS = Math.round((n * 1000) / baselineMs);
  const fraction = objectsPerS / baselinePerS;
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const bytes = format === "json" ? files.jsonBytes : files.yamlBytes;
  const kinds = [...mix.byKind.entries()].map(([k, c]) => `${k}×${c}`).join(" ");
  const notes = [
    `${n.toLocaleString("en")} objects, ${mb(bytes)} of ${format.toUpperCase()}: ${objectsPerS.toLocaleString("en")} objects/s on one core ` +
      `(${(bytes / 1024 / 1024 / (ms / 1000)).toFixed(1)} MiB/s); JSON.parse+stringify of the same objects ${baselinePerS.toLocaleString("en")} objects/s; ` +
      `audit at ${(fraction * 100).toFixed(1)}% of it; CPU time ${(cpuMs / 1000).toFixed(2)} s (${(cpuMs / ms).toFixed(2)} × wall), ` +
      `the round trip's ${roundTrip.cpuMs.toFixed(0)} ms: ${(fractionByCpu * 100).toFixed(1)}% by CPU time`,
    `outcome: ${s.valid} valid, ${s.invalid} invalid, ${s.skippedUncovered} skipped (uncovered), ${s.inputErrors} input errors; ` +
      `${s.findings.violation} violations, ${s.findings.warning} warnings; peak RSS of the process ${mb(peakRss)} ` +
      `(RSS ${mb(rssBefore)} before the case); runs ${times.map((t) => `${(t / 1000).toFixed(2)} s`).join(", ")}`,
    `sample mix (${mix.samples.length} samples, cycled): ${kinds}; ${mix.policySet.kinds.length} kinds covered, ${mix.policySet.failures.length} policy failures`,
    ...mix.policySet.failures.map(
      (f) => `policy failure (${f.severity}, counted in the findings): ${f.file ?? ""} ${f.message.slice(0, 160)}`,
    ),
  ];
  return {
    name: `audit/${format}`,
    unit: "µs",
    value: perObjectUs,
    cpu: (cpuMs * 1000) / n,
    min: (Math.min(...times) * 1000) / n,
    max: (Math.max(...times) * 1000) / n,
    baseline: { label: "JSON.parse+stringify", value: baselineUs },
    goals: [
      goal("objects/s ÷ JSON round trip's", fraction, ">=", GOAL_FRACTION_OF_ROUND_TRIP[format], "%", fractionByCpu),
    ],
    notes,
    data: {
      objects: n,
      bytes,
      objectsPerSecond: objectsPerS,
      roundTripObjectsPerSecond: baselinePerS,
      fractionOfRoundTrip: fraction,
      goalMet: fraction >= GOAL_FRACTION_OF_ROUND_TRIP[format],
      peakRssBytes: peakRss,
      violations: s.findings.violation,
      policyFailures: mix.policySet.failures.length,
    },
  };
}

/** The bundle of the mix, written out as a folder, for the CLI. */
export function writeBundle(dir: string, files: readonly BundleFile[]): void {
  for (const f of files) {
    const path = join(dir, f.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.content);
  }
}

/** Writes an n-object export file in pieces (the bench process never holds it whole). */
function writeExport(
  path: string,
  samples: readonly Record<string, unknown>[],
  n: number,
  format: "json" | "yaml",
): number {
  const t = templates(samples);
  const fd = openSync(path, "w");
  let bytes = 0;
  const put = (text: string) => {
    bytes += writeSync(fd, text);
  };
  try {
    if (format === "json") put(`{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[\n`);
    let batch: string[] = [];
    for (let i = 0; i < n; i++) {
      const k = i % samples.length;
      batch.push(format === "json" ? fill(t.json[k]!, i) : fill(t.yaml[k]!, i));
      if (batch.length === 10_000 || i === n - 1) {
        put(
          (format === "json" ? (i < 10_000 ? "" : ",\n") : i < 10_000 ? "" : "---\n") +
            batch.join(format === "json" ? ",\n" : "---\n"),
        );
        batch = [];
      }
    }
    if (format === "json") put("\n]}\n");
  } finally {
    closeSync(fd);
  }
  return bytes;
}

/**
 * The V8 heap cap of the audited process: every size must complete under it (a run whose live memory grew with the
 * input would fail with an out-of-memory error), and the peak RSS shows what the process really took.
 */
const HEAP_CAP_MIB = 512;

/** The most reports may take of a `tollgate audit` run's wall time at the largest size. */
const REPORT_SHARE_GOAL = 1 / 3;

/**
 * `tollgate audit` of one file in a child process: wall time, the child's peak RSS, and how long it took after the
 * audit itself had finished (rendering and writing the reports, then exit): from the run's `finishedAt` (its
 * index.json, the wall clock) to the child's exit.
 */
function auditInChild(
  file: string,
  bundle: string,
  out: string,
  extra: readonly string[],
): { ms: number; peakRss: number; stdout: string; reportMs: number; cpuMs: number } {
  const c0 = childrenCpuMs();
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      `--max-old-space-size=${HEAP_CAP_MIB}`,
      "--import",
      join(REPO_ROOT, "test/bench/rss-probe.mjs"),
      join(REPO_ROOT, "audit/cli/bin.js"),
      "audit",
      file,
      "--bundle",
      bundle,
      "--out",
      out,
      "--fail-on",
      "never",
      ...extra,
    ],
    { cwd: REPO_ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  const ms = performance.now() - t0;
  const endedAt = Date.now();
  const cpuMs = childrenCpuMs() - c0;
  if (r.status !== 0) throw new Error(`tollgate audit exited ${r.status}: ${r.stderr.slice(-2000)}`);
  const m = /tollgate-bench-maxrss (\d+)/.exec(r.stderr);
  if (m === null) throw new Error("the child did not report its peak RSS");
  const latest = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as { path: string };
  const index = JSON.parse(readFileSync(join(out, latest.path, "index.json"), "utf8")) as { finishedAt: string };
  const reportMs = endedAt - Date.parse(index.finishedAt);
  if (!Number.isFinite(reportMs)) throw new Error(`no finishedAt in the run's index.json: ${index.finishedAt}`);
  return { ms, peakRss: Number(m[1]), stdout: r.stdout, reportMs, cpuMs };
}

function memorySizes(): number[] {
  const raw = process.env.TOLLGATE_BENCH_MEMORY_OBJECTS ?? "100000,1000000";
  const sizes = raw.split(",").map((x) => Number(x.trim()));
  if (sizes.length < 2 || sizes.some((n) => !Number.isSafeInteger(n) || n < 1)) {
    throw new Error("TOLLGATE_BENCH_MEMORY_OBJECTS must list at least two positive integers (e.g. 100000,1000000)");
  }
  return sizes.sort((a, b) => a - b);
}

/**
 * Peak memory as the input grows (it should stay flat; at 1,000,000 objects the peak RSS is reported): the whole CLI (`tollgate audit <file> --bundle <folder> --out <tmp>`, every report written) in a
 * child process per size, on a YAML stream and on a JSON List streamed item by item (`--max-json-bytes` below the
 * file's size). Baseline: the same command on the smallest size; the figure is the peak RSS at the largest.
 * Every run has a 512 MiB V8 heap cap, so live memory that grew with the input would end the run. The largest size
 * runs a second time at the same prefix, so the comparison with the previous run (its report.json) is measured too.
 * `TOLLGATE_BENCH_KEEP=1` keeps the generated files and reports (the folder is printed).
 */
async function memoryRow(ctx: BenchContext, format: "json" | "yaml"): Promise<BenchRow> {
  mixPromise ??= buildMix(ctx.corpusRoot);
  const mix = await mixPromise;
  // The built CLI users run (bin.js would otherwise run the sources through tsx).
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), "tollgate-bench-memory-"));
  try {
    writeBundle(join(dir, "bundle"), mix.files);
    const rows: { n: number; bytes: number; ms: number; peakRss: number; reportMs: number; cpuMs: number }[] = [];
    const sizes = memorySizes();
    let compared: { ms: number; peakRss: number } | undefined;
    for (const n of sizes) {
      const file = join(dir, `export-${n}.${format}`);
      const bytes = writeExport(file, mix.samples, n, format);
      const extra = format === "json" ? ["--max-json-bytes", String(Math.min(bytes - 1, 64 * 1024 * 1024))] : [];
      const r = auditInChild(file, join(dir, "bundle"), join(dir, `out-${n}`), extra);
      if (!r.stdout.includes(`${n} documents`))
        throw new Error(`the audit of ${n} objects said: ${r.stdout.slice(0, 400)}`);
      rows.push({ n, bytes, ms: r.ms, peakRss: r.peakRss, reportMs: r.reportMs, cpuMs: r.cpuMs });
      if (n === sizes[sizes.length - 1]) {
        // The nightly case: the same input again at the same prefix, compared with the run just written.
        const again = auditInChild(file, join(dir, "bundle"), join(dir, `out-${n}`), extra);
        if (!/: 0 new, 0 resolved, \d+ persisting/.test(again.stdout)) {
          throw new Error(`the second audit of ${n} objects did not compare: ${again.stdout.slice(0, 600)}`);
        }
        compared = { ms: again.ms, peakRss: again.peakRss };
      }
      if (process.env.TOLLGATE_BENCH_KEEP !== "1") {
        rmSync(file, { force: true });
        rmSync(join(dir, `out-${n}`), { recursive: true, force: true });
      }
    }
    const small = rows[0]!;
    const large = rows[rows.length - 1]!;
    const growth = large.peakRss / small.peakRss;
    const reportShare = large.reportMs / large.ms;
    return {
      name: `audit/memory-${format}`,
      unit: "ms",
      value: large.peakRss / 1024 / 1024,
      min: large.peakRss / 1024 / 1024,
      max: large.peakRss / 1024 / 1024,
      baseline: {
        label: `peak RSS at ${small.n.toLocaleString("en")} objects (MiB)`,
        value: small.peakRss / 1024 / 1024,
      },
      goals: [
        goal(
          `writing the reports, share of the wall time at ${large.n.toLocaleString("en")} objects`,
          reportShare,
          "<=",
          REPORT_SHARE_GOAL,
          "%",
        ),
      ],
      notes: [
        `peak RSS of \`tollgate audit\` (every report written), ${format.toUpperCase()}${format === "json" ? " List streamed item by item" : " stream"}; the figure is MiB, not ms: ` +
          rows
            .map(
              (r) =>
                `${r.n.toLocaleString("en")} objects (${mb(r.bytes)}): ${mb(r.peakRss)} in ${(r.ms / 1000).toFixed(1)} s (${Math.round((r.n * 1000) / r.ms).toLocaleString("en")} objects/s with start-up and reports)`,
            )
            .join("; "),
        `input ×${(large.n / small.n).toFixed(0)}, peak RSS ×${growth.toFixed(2)}; every run under a ${HEAP_CAP_MIB} MiB V8 heap cap (--max-old-space-size)`,
        `writing the reports (the run's finishedAt to the process's exit): ` +
          rows
            .map(
              (r) =>
                `${r.n.toLocaleString("en")} objects ${(r.reportMs / 1000).toFixed(1)} s of ${(r.ms / 1000).toFixed(1)} s wall (${((r.reportMs / r.ms) * 100).toFixed(0)}%; CPU time of the whole run ${(r.cpuMs / 1000).toFixed(1)} s)`,
            )
            .join("; "),
        `${large.n.toLocaleString("en")} objects again at the same prefix, compared with that run (previous report.json read as a stream): ${mb(compared!.peakRss)} in ${(compared!.ms / 1000).toFixed(1)} s`,
      ],
      data: {
        ...Object.fromEntries(
          rows.flatMap((r) => [
            [`peakRssBytes_${r.n}`, r.peakRss],
            [`ms_${r.n}`, Math.round(r.ms)],
          ]),
        ),
        growth,
        reportShare,
        reportMs: Math.round(large.reportMs),
        comparedPeakRssBytes: compared!.peakRss,
        comparedMs: Math.round(compared!.ms),
        heapCapMiB: HEAP_CAP_MIB,
      },
    };
  } finally {
    if (process.env.TOLLGATE_BENCH_KEEP === "1") console.log(`kept ${dir} (TOLLGATE_BENCH_KEEP=1)`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

export const auditCases: BenchCase[] = [
  { name: "audit/json", run: (ctx) => auditRow(ctx, "json") },
  { name: "audit/yaml", run: (ctx) => auditRow(ctx, "yaml") },
  { name: "audit/memory-json", run: (ctx) => memoryRow(ctx, "json") },
  { name: "audit/memory-yaml", run: (ctx) => memoryRow(ctx, "yaml") },
];
