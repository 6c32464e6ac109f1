/**
 * The sharded audit's test data and checks, shared by the tests that run its steps in process and through serverless
 * offline: an export in an S3-compatible server (one object per item of examples/export's two Lists, a file that is no object, a
 * `.tar.gz` archive object of two Widgets) with the example policies, and the check that a sharded run's report is the
 * report an unsharded run of the same input gives.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { expect } from "vitest";
import { parse, stringify } from "yaml";
import type { BlobStore } from "../../lib/storage/index.js";
import { ROOT } from "./spawn.js";
import { buildTar } from "./tar.js";

/** The sources prefix the tests audit, and the bundle beside it. */
export const SOURCE = "s3://exports/cluster-a/";
export const BUNDLE = "s3://exports/policies/";

/**
 * Writes the export and the policies to the `exports` bucket; the units the prefix lists, in order: 26 item objects,
 * values.yaml, and the archive (one unit: archives stay whole).
 */
export async function seedExports(inputs: BlobStore): Promise<string[]> {
  const policies = join(ROOT, "examples/policies");
  for (const name of readdirSync(policies)) {
    await inputs.write(`policies/${name}`, readFileSync(join(policies, name), "utf8"));
  }
  // Both example exports, one object per item: a Pod's Namespace lands in another shard than the Pod (the plan hands
  // every shard the input's Namespaces).
  const items = ["cluster-export.yaml", "workloads-export.yaml"].flatMap(
    (f) => (parse(readFileSync(join(ROOT, "examples/export", f), "utf8")) as { items: unknown[] }).items,
  );
  const units: string[] = [];
  for (const [i, item] of items.entries()) {
    const key = `cluster-a/${String(i).padStart(2, "0")}.yaml`;
    await inputs.write(key, stringify(item));
    units.push(`s3://exports/${key}`);
  }
  await inputs.write("cluster-a/values.yaml", "replicas: 3\n");
  units.push("s3://exports/cluster-a/values.yaml");
  const example = (name: string) => readFileSync(join(ROOT, "examples/objects", name), "utf8");
  await inputs.write(
    "cluster-a/zz-snapshot.tar.gz",
    gzipSync(
      buildTar([
        { name: "snap/widget-valid.yaml", content: example("widget-valid.yaml") },
        { name: "snap/widget-too-many-replicas.yaml", content: example("widget-too-many-replicas.yaml") },
      ]),
    ),
  );
  units.push("s3://exports/cluster-a/zz-snapshot.tar.gz");
  return units;
}

export interface Report {
  runId: string;
  startedAt: string;
  summary: Record<string, unknown>;
  findings: {
    id: string;
    severity: string;
    message: string;
    firstSeen: string;
    location: { file: string; entry?: string };
  }[];
  objects: { key: string; outcome: string; location: { file: string; entry?: string } }[];
  comparison?: { newFindings: number; persistingFindings: number; resolvedFindings: number };
  waivers?: { name: string; standing: string; waived: number; lapsed: number }[];
}

/** report.json of a run folder `s3://reports/<prefix>/<run>/`. */
export async function readReport(reports: BlobStore, folder: string): Promise<Report> {
  const key = `${folder.replace(/^s3:\/\/reports\//, "")}report.json`;
  return JSON.parse(await reports.readText(key)) as Report;
}

/** The keys under a prefix of a store, relative to it, sorted. */
export async function keysUnder(store: BlobStore, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const b of store.list(prefix)) out.push(b.key.slice(prefix.length));
  return out.sort();
}

export const withoutTiming = (s: Record<string, unknown>) => ({ ...s, durationMs: 0, objectsPerSecond: 0 });

/**
 * The totals of the seeded export: the examples' 26 objects (15 of cluster-export, 11 of workloads-export), the
 * archive's 2 Widgets (1 invalid, 1 violation), values.yaml (not an object); examples/policies/waivers.yaml waives
 * the checkout Widget's replicas (a violation without it).
 */
export const SEEDED_TOTALS = {
  documents: 29,
  objects: 28,
  valid: 14,
  invalid: 7,
  skippedUncovered: 7,
  skippedNotKubernetes: 1,
  inputErrors: 0,
  findings: { violation: 14, warning: 7, audit: 18, "input-error": 0, waived: 1 },
};

/** The sharded run's report is the unsharded run's: objects, finding ids and places in order, summary; one run. */
export async function expectSameReport(reports: BlobStore, sharded: string, plain: string): Promise<Report> {
  const merged = await readReport(reports, sharded);
  const single = await readReport(reports, plain);
  expect(merged.objects).toEqual(single.objects);
  expect(merged.findings.map((f) => f.id)).toEqual(single.findings.map((f) => f.id));
  expect(merged.findings.map((f) => f.location)).toEqual(single.findings.map((f) => f.location));
  expect(merged.findings.map((f) => f.message)).toEqual(single.findings.map((f) => f.message));
  expect(withoutTiming(merged.summary)).toEqual(withoutTiming(single.summary));
  expect(merged.summary).toMatchObject(SEEDED_TOTALS);
  // Every shard judged the waivers at the run's start; the merged list counts over all shards.
  expect(merged.waivers).toEqual(single.waivers);
  expect(merged.waivers?.map((w) => [w.name, w.standing, w.waived, w.lapsed])).toEqual([
    ["checkout-replicas", "active", 1, 0],
    ["debug-shell-privileged", "expired", 0, 1],
  ]);
  // One run: every new finding is first seen at the run's start, not at its shard's.
  for (const f of merged.findings) expect(f.firstSeen).toBe(merged.startedAt);
  expect(merged.findings.some((f) => f.location.file === "s3://exports/cluster-a/zz-snapshot.tar.gz")).toBe(true);
  return merged;
}
