/**
 * The sharded audit's steps (audit/shards/) on local folders: what the plan lists and how it sizes shards, what a
 * shard accepts, and how the merge puts partial runs together, refuses gaps and overlaps, and publishes once.
 * (The steps over S3, run by the state machine's definition, are in test/e2e/audit-steps.test.ts.)
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveAuditConfig } from "../../../audit/config.js";
import { verifyEvidence } from "../../../audit/evidence.js";
import { executeAudit } from "../../../audit/execute.js";
import { type ShardItem, shardsFolder } from "../../../audit/shards/layout.js";
import { mergeShards } from "../../../audit/shards/merge.js";
import { planRun } from "../../../audit/shards/plan.js";
import { runShard } from "../../../audit/shards/shard.js";
import { DEFAULT_SOURCE_OPTIONS } from "../../../audit/sources/index.js";
import { openUnits } from "../../../audit/sources/listing.js";
import { buildTar } from "../../helpers/tar.js";

const ROOT = join(import.meta.dirname, "../../..");
const POLICIES = join(ROOT, "examples/policies");
const work = mkdtempSync(join(tmpdir(), "tollgate-shards-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const example = (name: string) => readFileSync(join(ROOT, "examples/objects", name), "utf8");

/** A folder of four document files (one in a subfolder, one not an object, one skipped), a file, an archive. */
function fixture(name: string): { folder: string; file: string; archive: string } {
  const base = join(work, name);
  const folder = join(base, "repo");
  mkdirSync(join(folder, "sub"), { recursive: true });
  mkdirSync(join(folder, ".git"), { recursive: true });
  writeFileSync(join(folder, "a.yaml"), example("widget-valid.yaml"));
  writeFileSync(join(folder, "b.yaml"), example("widget-too-many-replicas.yaml"));
  writeFileSync(
    join(folder, "sub", "c.json"),
    JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }),
  );
  writeFileSync(join(folder, "values.yaml"), "replicas: 3\n");
  writeFileSync(join(folder, ".git", "config.yaml"), "not: audited\n");
  writeFileSync(join(folder, "README.md"), "not a document file\n");
  const file = join(base, "one.yaml");
  writeFileSync(file, example("widget-valid.yaml"));
  const archive = join(base, "snap.tar");
  writeFileSync(archive, buildTar([{ name: "w.yaml", content: example("widget-too-many-replicas.yaml") }]));
  return { folder, file, archive };
}

const config = (sources: string[], out: string) =>
  resolveAuditConfig({ sources, bundle: POLICIES, out, workers: "0" }, {}, "test");

const START = new Date("2026-11-22T02:00:00Z");

async function manifestOf(out: string): Promise<ShardItem[]> {
  return JSON.parse(readFileSync(join(shardsFolder(out, "20261122T020000Z"), "manifest.json"), "utf8"));
}

/** Every step in process: plan, the shards in batches of the plan's size, merge. */
async function shardedRun(sources: string[], out: string, size: number) {
  const c = config(sources, out);
  const plan = await planRun(c, START, { size });
  const items = await manifestOf(out);
  for (let i = 0; i < items.length; i += plan.batch.maxItems) {
    await runShard({ run: plan.run, items: items.slice(i, i + plan.batch.maxItems) }, c);
  }
  return { plan, items, config: c };
}

describe("planRun", () => {
  it("lists a folder's document files in walk order, a file and an archive whole, and writes the manifest", async () => {
    // Prepare
    const { folder, file, archive } = fixture("plan");
    const out = join(work, "plan", "reports");
    // Act
    const plan = await planRun(config([folder, file, archive], out), START);
    // Assess
    const items = await manifestOf(out);
    expect(items.map((i) => [i.index, i.source, i.name])).toEqual([
      [0, 0, join(folder, "a.yaml")],
      [1, 0, join(folder, "b.yaml")],
      [2, 0, join(folder, "sub", "c.json")],
      [3, 0, join(folder, "values.yaml")],
      [4, 1, undefined],
      [5, 2, undefined],
    ]);
    expect(items.every((i) => i.bytes > 0)).toBe(true);
    expect(plan).toMatchObject({
      run: {
        runId: "20261122T020000Z",
        startedAt: START.toISOString(),
        sources: [folder, file, archive],
        failOn: "violation",
      },
      manifest: {
        location: join(shardsFolder(out, "20261122T020000Z"), "manifest.json"),
        items: 6,
        bytes: items.reduce((n, i) => n + i.bytes, 0),
        largest: Math.max(...items.map((i) => i.bytes)),
      },
      batch: { maxItems: 500, maxInputBytes: 192 * 1024 },
    });
  });

  it.each([
    { name: "the size caps the items per shard", options: { size: 4 }, want: 4 },
    { name: "a shard reads about `bytes` bytes at the units' mean size", options: { size: 100, bytes: 600 }, want: 2 },
    { name: "a unit larger than `bytes` is a shard of its own", options: { bytes: 1 }, want: 1 },
  ])("sizes shards: $name", async ({ options, want }) => {
    const { folder } = fixture("sizes");
    const items = 4;
    const plan = await planRun(config([folder], join(work, "sizes", "out")), START, options);
    expect(plan.manifest.items).toBe(items);
    // The fixture's files average about 250 bytes.
    expect(plan.manifest.bytes / items).toBeGreaterThan(200);
    expect(plan.manifest.bytes / items).toBeLessThan(300);
    expect(plan.batch.maxItems).toBe(want);
  });

  it("refuses a source that does not exist (the listing's error, not the manifest write's)", async () => {
    const err = await planRun(config([join(work, "nowhere")], join(work, "nowhere-out")), START).catch((e) => e);
    expect(err).toMatchObject({ name: "ConfigError" });
    expect((err as Error).message).toMatch(/source ".*nowhere" does not exist/);
  });

  it("refuses sources with no document file", async () => {
    const empty = join(work, "empty");
    mkdirSync(empty, { recursive: true });
    await expect(planRun(config([empty], join(work, "empty-out")), START)).rejects.toThrow(
      "sharded audit: the sources have no document files or objects",
    );
  });
});

describe("runShard", () => {
  it("writes a partial run named by its items, and refuses items that are not consecutive or of no source", async () => {
    const { folder } = fixture("shard");
    const out = join(work, "shard", "out");
    const c = config([folder], out);
    const plan = await planRun(c, START);
    const items = await manifestOf(out);
    const result = await runShard({ run: plan.run, items: items.slice(1, 3) }, c);
    expect(result).toEqual({
      partial: join(shardsFolder(out, "20261122T020000Z"), "parts", "0000000001-0000000002.json"),
      first: 1,
      last: 2,
      documents: 2,
    });
    await expect(runShard({ run: plan.run, items: [items[0]!, items[2]!] }, c)).rejects.toThrow(
      "shard input: the items must be consecutive manifest items, in order",
    );
    await expect(runShard({ run: plan.run, items: [] }, c)).rejects.toThrow(/consecutive/);
    await expect(runShard({ run: plan.run, items: [{ ...items[0]!, source: 3 }] }, c)).rejects.toThrow(
      "shard input: item 0 names no source of the run",
    );
  });

  it("reads only units of its source", async () => {
    const { folder, file } = fixture("foreign");
    await expect(openUnits(folder, [{ name: file, bytes: 1 }], DEFAULT_SOURCE_OPTIONS)).rejects.toThrow(
      /is not one of its units/,
    );
    await expect(
      openUnits(
        "s3://tollgate-exports/exports/",
        [{ name: "s3://other-bucket/exports/a.yaml", bytes: 1 }],
        DEFAULT_SOURCE_OPTIONS,
      ),
    ).rejects.toThrow(/is not one of its units/);
    await expect(
      openUnits(folder, [{ bytes: 1 }, { name: join(folder, "a.yaml"), bytes: 1 }], DEFAULT_SOURCE_OPTIONS),
    ).rejects.toThrow(/a whole source is one unit/);
  });
});

describe("mergeShards", () => {
  it("merges into the report an unsharded run gives, publishes once, and deletes the work folder", async () => {
    // Prepare
    const { folder, file, archive } = fixture("merge");
    const out = join(work, "merge", "out");
    const { plan, config: c } = await shardedRun([folder, file, archive], out, 2);
    const plain = await executeAudit(config([folder, file, archive], join(work, "merge", "plain")));
    // Act
    const merged = await mergeShards(plan.run, c, { items: plan.manifest.items });
    // Assess
    expect(merged).toMatchObject({ runId: "20261122T020000Z", shards: 3, missing: 0, publishedBefore: false });
    expect(merged.folder).toBe(`${join(out, "20261122T020000Z")}/`);
    const report = (dir: string) => JSON.parse(readFileSync(join(dir, "report.json"), "utf8"));
    const a = report(merged.folder);
    const b = report(plain.written.folder);
    expect(a.objects).toEqual(b.objects);
    expect(a.findings.map((f: { id: string }) => f.id)).toEqual(b.findings.map((f: { id: string }) => f.id));
    expect(readdirSync(out).sort()).toEqual(["20261122T020000Z", "history.json", "latest.json"]);
    // The merged run is one line of history.json, and its files verify.
    const historyLines = () => readFileSync(join(out, "history.json"), "utf8").trim().split("\n");
    expect(historyLines().map((l) => JSON.parse(l).path)).toEqual(["20261122T020000Z/"]);
    expect((await verifyEvidence(out)).problems).toEqual([]);
    // Retried after publishing: nothing is written again.
    const latest = readFileSync(join(out, "latest.json"), "utf8");
    writeFileSync(join(out, "latest.json"), latest.replace('"finishedAt"', '"marker": true, "finishedAt"'));
    const again = await mergeShards(plan.run, c, { items: plan.manifest.items });
    expect(again).toMatchObject({ runId: merged.runId, folder: merged.folder, publishedBefore: true });
    expect(readFileSync(join(out, "latest.json"), "utf8")).toContain('"marker": true');
    expect(historyLines()).toHaveLength(1);
  });

  it("refuses missing and overlapping partial runs, and a run older than the one published", async () => {
    const { folder } = fixture("gaps");
    const out = join(work, "gaps", "out");
    const { plan, config: c } = await shardedRun([folder], out, 2);
    const parts = join(shardsFolder(out, "20261122T020000Z"), "parts");
    expect(readdirSync(parts)).toEqual(["0000000000-0000000001.json", "0000000002-0000000003.json"]);

    rmSync(join(parts, "0000000002-0000000003.json"));
    await expect(mergeShards(plan.run, c, { items: 4 })).rejects.toThrow(
      /^sharded audit: 2 of 4 items have no partial run \(the first: items 2 to 3, .*parts\/\); no report written$/,
    );
    copyFileSync(join(parts, "0000000000-0000000001.json"), join(parts, "0000000001-0000000003.json"));
    await expect(mergeShards(plan.run, c, { items: 4 })).rejects.toThrow(
      "sharded audit: partial run 0000000001-0000000003.json overlaps another or lies beyond the manifest's 4 items",
    );
    expect(readdirSync(out)).toEqual(["shards"]);

    writeFileSync(
      join(out, "latest.json"),
      JSON.stringify({ kind: "AuditLatest", runId: "20261123T020000Z", path: "20261123T020000Z/" }),
    );
    await expect(mergeShards(plan.run, c, { items: 4 })).rejects.toMatchObject({
      name: "ConfigError",
      message: expect.stringMatching(/run 20261123T020000Z was published at .* after this run \(20261122T020000Z\)/),
    });
  });
});
