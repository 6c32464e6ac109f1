/**
 * The runner on several threads (`workers` counts the main thread: 2 is one worker thread beside it): the same
 * objects (in order), findings (with their ids) and summary as on one thread, for folders, a streamed YAML file and
 * a streamed JSON List; small batches so that many are in flight and come back out of order, every batch on a
 * worker or the main thread auditing its share. A worker that fails fails the run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { AuditResult } from "../../../audit/model.js";
import { loadPolicies, type PolicySource } from "../../../audit/policies.js";
import { type AuditConfig, runAudit } from "../../../audit/run.js";
import { DEFAULT_SOURCE_OPTIONS, openSource, type SourceOptions } from "../../../audit/sources/index.js";
import type { WorkerTuning } from "../../../audit/workers/feed.js";
import { buildTar } from "../../helpers/tar.js";
import { FIXED_START, FIXTURE_BUNDLE, FIXTURE_CURRENT, FIXTURE_WAIVERS } from "./audit-fixture.js";

const dir = mkdtempSync(join(tmpdir(), "tollgate-workers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Several batches per worker in flight, a few parts each; every batch on a worker (none on the main thread). */
const SMALL_BATCHES: WorkerTuning = { batchParts: 7, batchBytes: 4000, inFlightPerWorker: 3, mainAudits: false };

interface RunOptions {
  bundle: string;
  sources: string[];
  workers: number;
  tuning?: WorkerTuning;
  sourceOptions?: Partial<SourceOptions>;
  policiesFromInput?: boolean;
  policySource?: PolicySource;
  /** `--waivers`. */
  waivers?: string;
}

async function audit(o: RunOptions): Promise<AuditResult> {
  const sourceOptions = { ...DEFAULT_SOURCE_OPTIONS, ...o.sourceOptions };
  const sources = await Promise.all(o.sources.map((s) => openSource(s, sourceOptions)));
  const loaded = await loadPolicies(
    o.bundle,
    o.policiesFromInput === true ? sources : undefined,
    {},
    { waivers: o.waivers },
  );
  const config: AuditConfig = {
    sources,
    bundle: o.bundle,
    concurrency: 4,
    failOn: "violation",
    ownerLabels: ["owner", "team"],
    policiesFromInput: loaded.policiesFromInput,
    toolVersion: "0.0.0-test",
    now: () => FIXED_START,
    workers: o.workers,
    policySource: o.policySource ?? loaded.source,
  };
  if (o.tuning !== undefined) config.workerTuning = o.tuning;
  return runAudit(config, loaded.policySet);
}

async function reportOf(run: AuditResult) {
  const { objects, findings, summary, ...header } = run;
  const { durationMs: _d, objectsPerSecond: _o, ...counts } = summary;
  return { header, counts, objects: await objects.toArray(), findings: await findings.toArray() };
}

/** The report on two threads (one worker) with small batches, and on the main thread alone: equal, and returned. */
async function expectSameReport(o: Omit<RunOptions, "workers"> & { workers?: number }) {
  const single = await reportOf(await audit({ ...o, workers: 0 }));
  const parallel = await reportOf(await audit({ ...o, workers: o.workers ?? 2, tuning: o.tuning ?? SMALL_BATCHES }));
  expect(parallel).toEqual(single);
  return single;
}

/** The fixture snapshot repeated `copies` times (half of them renamed), with a `...` end and a directive in between. */
function largeYaml(copies: number): string {
  const text = readFileSync(FIXTURE_CURRENT, "utf8").replace(/\n+$/, "\n");
  const out: string[] = [];
  for (let i = 0; i < copies; i++) {
    out.push(i % 2 === 0 ? text : text.replace(/^( {2}name: )(\S+)$/gm, `$1$2-${i}`));
    if (i === 5) out.push("...\n%YAML 1.2\n");
  }
  return out.join("---\n");
}

/** The example export's objects as one JSON List of `n` items, with a bad item and a nested List in the middle. */
function largeJsonList(n: number, extras = true): string {
  const objects: Record<string, unknown>[] = [];
  for (const doc of parseAllDocuments(readFileSync("examples/export/cluster-export.yaml", "utf8"))) {
    const o = doc.toJS() as Record<string, unknown>;
    if (Array.isArray(o.items)) objects.push(...(o.items as Record<string, unknown>[]));
    else objects.push(o);
  }
  const items: string[] = [];
  for (let i = 0; i < n; i++) {
    const o = structuredClone(objects[i % objects.length]!);
    const meta = o.metadata as Record<string, unknown>;
    if (i % 3 !== 0) meta.name = `${String(meta.name)}-${i}`;
    items.push(JSON.stringify(o));
    if (extras && i === Math.floor(n / 2)) {
      // Neither JSON nor YAML (a bare `tru` would be YAML, which kubectl reads after a JSON syntax error).
      items.push('{"apiVersion": "v1", "kind": "A" "x": 1}');
      items.push(JSON.stringify({ apiVersion: "v1", kind: "List", items: [objects[0], objects[1]] }));
    }
  }
  return `{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[\n${items.join(",\n")}\n]}\n`;
}

// Each case starts worker threads that load tsx and compile the bundle: seconds on a loaded machine.
describe("runAudit on worker threads", { timeout: 30_000 }, () => {
  it("folders: the same report as on one thread (test/fixtures/audit, examples/export)", async () => {
    const report = await expectSameReport({
      bundle: FIXTURE_BUNDLE,
      sources: ["test/fixtures/audit", "examples/export"],
    });
    expect(report.counts.documents).toBeGreaterThan(20);
  });

  it("waivers (the bundle's and --waivers): the workers waive what the main thread waives, at the run's start", async () => {
    const report = await expectSameReport({
      bundle: "examples/policies",
      sources: ["test/fixtures/audit", "examples/export"],
      waivers: FIXTURE_WAIVERS,
      policiesFromInput: true,
    });
    expect(report.counts.findings.waived).toBeGreaterThanOrEqual(1);
    expect(report.header.waivers?.map((w) => w.name)).toEqual([
      "checkout-replicas",
      "debug-shell-privileged",
      "legacy-replicas",
      "changed-labels",
      "leaky-size",
      "broken-gizmo",
    ]);
  });

  it("archives: members, rejected members and an unreadable archive (units without raw() are read here)", async () => {
    const snapshot = readFileSync(FIXTURE_CURRENT, "utf8");
    const members = Array.from({ length: 30 }, (_, i) => ({ name: `deploy/app-${i}.yaml`, content: snapshot }));
    writeFileSync(
      join(dir, "export.tgz"),
      gzipSync(buildTar([...members, { name: "../escape.yaml", content: snapshot }, { name: "README.md" }])),
    );
    writeFileSync(join(dir, "broken.tar"), "not a tar archive at all".repeat(40));
    const report = await expectSameReport({
      bundle: FIXTURE_BUNDLE,
      sources: [join(dir, "export.tgz"), join(dir, "broken.tar"), FIXTURE_CURRENT],
    });
    expect(report.counts.documents).toBe(30 * 10 + 1 + 1 + 10);
  });

  it("--policies-from-input on examples/export: the workers compile the same policy set", async () => {
    const report = await expectSameReport({
      bundle: "examples/policies",
      sources: ["examples/export"],
      policiesFromInput: true,
    });
    expect(report.header.bundle.policiesFromInput).toBeGreaterThan(0);
    expect(report.counts.invalid).toBeGreaterThan(0);
  });

  it("a large streamed YAML file (thousands of documents, input errors, a `...` end and a directive)", async () => {
    const file = join(dir, "large.yaml");
    writeFileSync(file, largeYaml(300));
    const report = await expectSameReport({ bundle: FIXTURE_BUNDLE, sources: [file] });
    expect(report.counts.documents).toBeGreaterThan(2500);
    expect(report.counts.inputErrors).toBeGreaterThan(100);
    expect(report.findings.some((f) => /-\d+$/.test(f.id))).toBe(true); // repeated ids: suffixes in input order
  });

  it("a streamed JSON List (a bad item, and a nested List read again on the main thread)", async () => {
    const file = join(dir, "large.json");
    writeFileSync(file, largeJsonList(2500));
    const report = await expectSameReport({
      bundle: "examples/policies",
      sources: [file],
      sourceOptions: { maxJsonParseBytes: 1024 },
    });
    expect(report.counts.documents).toBe(2500 + 1 + 2);
    expect(report.counts.inputErrors).toBe(1);
    expect(report.objects.at(-1)?.location.item).toBe(2502);
  });

  it("a large JSON List parsed whole on one thread is given item by item: the same report", async () => {
    const file = join(dir, "whole.json");
    writeFileSync(file, largeJsonList(2500, false));
    const report = await expectSameReport({ bundle: "examples/policies", sources: [file] });
    expect(report.counts.documents).toBe(2500);
  });

  it.each([
    { name: "a bad item and a nested List", text: () => largeJsonList(2500) },
    { name: "a truncated file", text: () => largeJsonList(2500, false).slice(0, -20) },
    { name: "an object that is not a List", text: () => `{"kind":"Thing","items":[${largeJsonList(2500, false)}]}` },
  ])("a JSON file parsed whole: $name gives what a whole parse gives", async ({ text }) => {
    const file = join(dir, "whole-bad.json");
    writeFileSync(file, text());
    const report = await expectSameReport({ bundle: "examples/policies", sources: [file] });
    expect(report.counts.documents).toBeLessThan(10);
  });

  it.each([
    { name: "a large streamed YAML file", file: "local.yaml", text: () => largeYaml(300), json: false },
    {
      name: "a streamed JSON List with a bad item and a nested List",
      file: "local.json",
      text: () => largeJsonList(2500),
      json: true,
    },
    {
      name: "a JSON List parsed whole, with a bad item",
      file: "local-whole.json",
      text: () => largeJsonList(2500),
      json: false,
    },
  ])(
    "the main thread auditing its share (all while no worker is ready): $name gives the report of one thread",
    async ({ file, text, json }) => {
      const path = join(dir, file);
      writeFileSync(path, text());
      await expectSameReport({
        bundle: json || file.endsWith(".json") ? "examples/policies" : FIXTURE_BUNDLE,
        sources: [path],
        tuning: { batchParts: 7, batchBytes: 4000, inFlightPerWorker: 3, mainAudits: true },
        ...(json && { sourceOptions: { maxJsonParseBytes: 1024 } }),
      });
    },
  );

  it("three threads (two workers and the main thread's share): the same report for a streamed YAML file", async () => {
    const file = join(dir, "three.yaml");
    writeFileSync(file, largeYaml(300));
    const report = await expectSameReport({
      bundle: FIXTURE_BUNDLE,
      sources: [file, "examples/export"],
      workers: 3,
      tuning: { batchParts: 7, batchBytes: 4000, inFlightPerWorker: 2 },
    });
    expect(report.counts.documents).toBeGreaterThan(2500);
  });

  it("a worker that throws on a batch fails the run with a clear error", async () => {
    await expect(
      audit({
        bundle: FIXTURE_BUNDLE,
        sources: ["test/fixtures/audit", "examples/export"],
        workers: 2,
        tuning: { ...SMALL_BATCHES, batchParts: 1, fault: { kind: "throw", atBatch: 1 } },
      }),
    ).rejects.toThrow(/worker thread \d failed on a batch: Error: injected fault \(test\).*the audit stopped/s);
  });

  it("a worker that exits fails the run with a clear error", async () => {
    await expect(
      audit({
        bundle: FIXTURE_BUNDLE,
        sources: ["test/fixtures/audit", "examples/export"],
        workers: 2,
        tuning: { ...SMALL_BATCHES, batchParts: 1, fault: { kind: "exit", atBatch: 1 } },
      }),
    ).rejects.toThrow(/worker thread \d exited \(code 7\) before the run ended; the audit stopped/);
  });

  it("workers whose policy set is not the main thread's refuse to start", async () => {
    await expect(
      audit({
        bundle: FIXTURE_BUNDLE,
        sources: ["examples/export"],
        workers: 2,
        // Every batch waits for a worker (a small input would otherwise end on the main thread first).
        tuning: { mainAudits: false },
        policySource: { bundle: "examples/policies" },
      }),
    ).rejects.toThrow(
      /worker thread \d could not start: the worker's policy set \(sha256:\w+\) is not the main thread's/,
    );
  });
});
