/**
 * The sharded mode of the scheduled auditor (functions/audit-shards.ts): the coordinator lists the sources, invokes
 * the same handler once per shard and merges the partial runs. Only the Lambda transport is faked: the injected
 * invoker calls the shard handler in-process (through a JSON round trip, as the Lambda API would); listing, the shard
 * audits, the partial runs in storage, the merge and the reports are the real ones.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { ShardInput, ShardInvoker } from "../../audit/shards.js";
import { type AuditLogger, createAuditHandler, parseAuditInput } from "../../functions/audit.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const POLICIES = join(ROOT, "examples/policies");
const EXPORT = join(ROOT, "examples/export");

const silent: AuditLogger = { info: () => {}, error: () => {}, addContext: () => {} };
const work = mkdtempSync(join(tmpdir(), "tollgate-audit-sharded-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * examples/export (two `kind: List` files) split into one file per item, so it makes several shards (a Pod's
 * Namespace lands in another shard than the Pod: the coordinator passes the Namespaces on); plus a file that is no
 * object.
 */
function splitExport(): string {
  const dir = join(work, "split-export");
  mkdirSync(dir, { recursive: true });
  const items = ["cluster-export.yaml", "workloads-export.yaml"].flatMap(
    (f) => (parse(readFileSync(join(EXPORT, f), "utf8")) as { items: unknown[] }).items,
  );
  items.forEach((item, i) => {
    writeFileSync(join(dir, `${String(i).padStart(2, "0")}.yaml`), stringify(item));
  });
  writeFileSync(join(dir, "values.yaml"), "replicas: 3\n");
  return dir;
}

interface Report {
  startedAt: string;
  summary: Record<string, unknown>;
  findings: { id: string; severity: string; firstSeen: string }[];
  objects: { key: string; outcome: string }[];
  comparison?: { newFindings: number; persistingFindings: number; resolvedFindings: number };
}

function report(folder: string): Report {
  return JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as Report;
}

const withoutTiming = (s: Record<string, unknown>) => ({ ...s, durationMs: 0, objectsPerSecond: 0 });

describe("sharded audit, shards invoked in-process", () => {
  const source = splitExport();
  const calls: ShardInput[] = [];
  const shardHandler = createAuditHandler({ env: {}, logger: silent });
  const invoke: ShardInvoker = async (input) => {
    calls.push(input);
    // What the Lambda API carries: JSON in, JSON out.
    return JSON.parse(JSON.stringify(await shardHandler(JSON.parse(JSON.stringify(input)) as ShardInput)));
  };

  it("merges the shards into the report an unsharded run of the same input gives", async () => {
    const plain = await createAuditHandler({ env: {}, logger: silent })({
      sources: [source],
      bundle: POLICIES,
      out: join(work, "plain"),
    });
    const original = await createAuditHandler({ env: {}, logger: silent })({
      sources: [EXPORT],
      bundle: POLICIES,
      out: join(work, "original"),
    });

    const out = join(work, "sharded");
    const sharded = await createAuditHandler({ env: {}, logger: silent, invoke })({
      sources: [source],
      bundle: POLICIES,
      out,
      shard: { size: 7, concurrency: 2 },
    });

    // 26 objects + values.yaml = 27 files: 4 shards of at most 7, each a JSON message with its part of the listing.
    expect(sharded.shards).toBe(4);
    expect(calls).toHaveLength(4);
    expect(calls.map((c) => c.shardOf.index).sort()).toEqual([0, 1, 2, 3]);
    expect(calls.flatMap((c) => c.parts.flatMap((p) => p.units ?? [])).sort()).toEqual(
      readdirSync(source)
        .map((f) => join(source, f))
        .sort(),
    );
    for (const c of calls) expect(c.parts.flatMap((p) => p.units ?? []).length).toBeLessThanOrEqual(7);
    // The examples enable Pod Security: every shard gets the input's Namespaces.
    for (const c of calls)
      expect(c.namespaces?.map((n) => (n.metadata as { name: string }).name).sort()).toEqual([
        "experiments",
        "kube-system",
        "legacy",
        "payments",
        "shop",
      ]);

    expect(sharded).toMatchObject({ status: "violations", exitCode: 1, sources: [source], out });
    expect(sharded.folder).toBe(`${join(out, sharded.runId)}/`);
    expect(withoutTiming(sharded.totals as unknown as Record<string, unknown>)).toEqual(
      withoutTiming(plain.totals as unknown as Record<string, unknown>),
    );
    expect(sharded.totals).toMatchObject({
      documents: 27,
      objects: 26,
      valid: 13,
      invalid: 6,
      skippedUncovered: 7,
      skippedNotKubernetes: 1,
      inputErrors: 0,
      findings: { violation: 14, warning: 7, audit: 18, "input-error": 0 },
    });

    const merged = report(sharded.folder);
    const single = report(plain.folder);
    expect(merged.findings.map((f) => f.id)).toEqual(single.findings.map((f) => f.id));
    expect(merged.findings.map((f) => f.id).sort()).toEqual(
      report(original.folder)
        .findings.map((f) => f.id)
        .sort(),
    );
    expect(merged.objects).toEqual(single.objects);
    // One run: every new finding is first seen at the coordinator's start, not at its shard's.
    for (const f of merged.findings) expect(f.firstSeen).toBe(merged.startedAt);
    expect(withoutTiming(merged.summary)).toEqual(withoutTiming(single.summary));

    // Reports written through the sink: index.json and latest.json; the partial runs under shards/<runId>/.
    expect(readdirSync(sharded.folder)).toEqual(expect.arrayContaining(["index.json", "report.html", "report.sarif"]));
    const latest = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as { runId: string };
    expect(latest.runId).toBe(sharded.runId);
    expect(readdirSync(join(out, "shards", sharded.runId)).sort()).toEqual([
      "00000.json",
      "00001.json",
      "00002.json",
      "00003.json",
    ]);

    // A second sharded run compares with the first, like `tollgate audit`.
    await new Promise((r) => setTimeout(r, 1100));
    const second = await createAuditHandler({ env: {}, logger: silent, invoke })({
      sources: [source],
      bundle: POLICIES,
      out,
      shard: { size: 10 },
    });
    expect(second.shards).toBe(3);
    expect(report(second.folder).comparison).toMatchObject({
      newFindings: 0,
      persistingFindings: 39,
      resolvedFindings: 0,
    });
    expect(report(second.folder).findings.map((f) => f.firstSeen)).toEqual(merged.findings.map((f) => f.firstSeen));
  });

  it("a failing shard fails the run, naming the shard; no index.json, latest.json untouched", async () => {
    const out = join(work, "failing");
    const failing: ShardInvoker = async (input) => {
      if (input.shardOf.index === 2) throw new Error("function error: Task timed out after 900.00 seconds");
      return invoke(input);
    };
    await expect(
      createAuditHandler({ env: {}, logger: silent, invoke: failing })({
        sources: [source],
        bundle: POLICIES,
        out,
        shard: { size: 4 },
      }),
    ).rejects.toThrow(
      /^sharded audit failed: shard 3 of 7 \(.*08\.yaml, \.\.\.\): function error: Task timed out after 900\.00 seconds; no report written$/,
    );
    const written = existsSync(out) ? readdirSync(out) : [];
    expect(written.filter((f) => f !== "shards")).toEqual([]);
    expect(existsSync(join(out, "latest.json"))).toBe(false);
  });

  it("without an injected invoker, a coordinator needs AWS_LAMBDA_FUNCTION_NAME", async () => {
    await expect(
      createAuditHandler({ env: {}, logger: silent })({
        sources: [source],
        bundle: POLICIES,
        out: join(work, "no-name"),
        shard: {},
      }),
    ).rejects.toThrow(/AWS_LAMBDA_FUNCTION_NAME is not set/);
  });

  it("validates the shard field", () => {
    const base = { sources: [source], bundle: POLICIES, out: "x" };
    expect(parseAuditInput({ ...base, shard: { size: 10, concurrency: 3 } }).shard).toEqual({
      size: 10,
      concurrency: 3,
    });
    expect(() => parseAuditInput({ ...base, shard: 4 })).toThrow(/shard must be an object/);
    expect(() => parseAuditInput({ ...base, shard: { size: 0 } })).toThrow(/shard\.size must be an integer/);
    expect(() => parseAuditInput({ ...base, shard: { sise: 3 } })).toThrow(/unknown field shard\.sise/);
  });
});
