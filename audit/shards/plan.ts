/**
 * The first step of a sharded run: list the sources into units (audit/sources/listing.ts: a folder's files, a
 * prefix's objects; a single file, an archive and an object named alone stay whole) and write them, numbered in run
 * order, as the run's manifest (layout.ts). Nothing is read but folder entries and S3 listings.
 *
 * The orchestrator (AWS Step Functions' Distributed Map, serverless.yml) reads the manifest and its item batcher cuts
 * it into shards of consecutive items: at most {@link ShardPlan.batch}'s `maxItems` units and `maxInputBytes` bytes of
 * input each. `maxItems` is chosen from the units' sizes: a shard should read about `bytes` bytes (the units' mean
 * size times the count), and holds at most `size` units and at least one.
 *
 * When the bundle enables an admission family (or the run has a what-if Pod Security level), the plan also reads the
 * sources once for their Namespaces (audit/cluster-state.ts: only the parts whose text names the kind are decoded) and
 * writes them, with their name and labels only, beside the manifest: every shard judges its Pods with the namespaces
 * of the whole input.
 *
 * Retried, the plan writes the same manifest to the same place: the run id comes from the start time it is given.
 */
import { Readable } from "node:stream";
import { ConfigError } from "#lib";
import { openLocation } from "#lib/storage";
import { namespacesOf } from "../cluster-state.js";
import { bundleLimitsOf, DEFAULT_WARN_EXPIRY_DAYS, type ResolvedAuditConfig } from "../config.js";
import { sourceOptionsOf, withSources } from "../execute.js";
import { loadPolicies } from "../policies.js";
import { runIdOf } from "../recorder.js";
import { openSource } from "../sources/index.js";
import { listUnits } from "../sources/listing.js";
import { MANIFEST, NAMESPACES, type ShardedRun, type ShardItem, shardsFolder } from "./layout.js";

/** How shards are sized. */
export interface PlanOptions {
  /** Most units (files, objects, archives) in one shard. Default 500. */
  size?: number;
  /** Bytes one shard should read, on average. Default 128 MiB. */
  bytes?: number;
}

export const DEFAULT_SHARD_SIZE = 500;
export const DEFAULT_SHARD_BYTES = 128 * 1024 * 1024;

/**
 * Most bytes of items in one shard's input. A shard's input (its items and the run) must fit in 256 KiB, the most a
 * Step Functions state and an asynchronous Lambda event carry; the run takes at most {@link MAX_RUN_BYTES}.
 */
export const MAX_BATCH_INPUT_BYTES = 192 * 1024;
/** Most bytes of the run's own description (its sources, bundle, out...) as JSON. */
export const MAX_RUN_BYTES = 32 * 1024;

export interface ShardPlan {
  run: ShardedRun;
  /** The manifest: where it is (a path or an `s3://` URL), how many items, their bytes and the largest one's. */
  manifest: { location: string; items: number; bytes: number; largest: number };
  /** How the orchestrator's item batcher cuts the items into shards. */
  batch: { maxItems: number; maxInputBytes: number };
}

/**
 * Lists the sources and writes the manifest.
 *
 * @param start the run's start (its id and first-seen time)
 * @throws ConfigError when the sources list no unit at all, or the run's description is too large for a shard's input;
 * StorageError when a listing or the manifest write fails
 */
export async function planRun(
  config: Readonly<ResolvedAuditConfig>,
  start: Date,
  options: PlanOptions = {},
): Promise<ShardPlan> {
  const run: ShardedRun = {
    runId: runIdOf(start),
    startedAt: start.toISOString(),
    sources: [...config.sources],
    bundle: config.bundle,
    out: config.out,
    ...(config.previous !== undefined && { previous: config.previous }),
    failOn: config.failOn,
    ...(config.podSecurity !== undefined && { podSecurity: config.podSecurity }),
    ...(config.waivers !== undefined && { waivers: config.waivers }),
    ...(config.warnExpiryDays !== DEFAULT_WARN_EXPIRY_DAYS && { warnExpiry: config.warnExpiryDays }),
  };
  if (Buffer.byteLength(JSON.stringify(run)) > MAX_RUN_BYTES) {
    throw new ConfigError(`sharded audit: the run's sources, bundle and out take more than ${MAX_RUN_BYTES} bytes`);
  }
  const stats = { items: 0, bytes: 0, largest: 0 };
  const sourceOptions = sourceOptionsOf(config);
  // The listing runs as the manifest is written; its own failure (a missing source) is the one to report.
  let listing: { error: unknown } | undefined;
  async function* items(): AsyncGenerator<ShardItem> {
    try {
      for (const [source, spec] of config.sources.entries()) {
        for await (const unit of listUnits(spec, sourceOptions, { s3: config.s3 })) {
          yield { index: stats.items, source, ...unit };
          stats.items++;
          stats.bytes += unit.bytes;
          stats.largest = Math.max(stats.largest, unit.bytes);
        }
      }
    } catch (error) {
      listing = { error };
      throw error;
    }
  }
  const folder = shardsFolder(config.out, run.runId);
  const { store, key, where } = await openLocation(folder, "folder", config.s3);
  try {
    await store.write(key + MANIFEST, Readable.from(jsonArray(items()), { objectMode: false }), {
      contentType: "application/json",
    });
  } catch (err) {
    throw listing === undefined ? err : listing.error;
  } finally {
    store.close();
  }
  if (stats.items === 0) throw new ConfigError("sharded audit: the sources have no document files or objects");
  const namespaces = await runNamespaces(config);
  if (namespaces !== undefined) {
    const { store, key } = await openLocation(folder, "folder", config.s3);
    try {
      await store.write(key + NAMESPACES, Readable.from([Buffer.from(JSON.stringify(namespaces))]), {
        contentType: "application/json",
      });
    } finally {
      store.close();
    }
    run.namespaces = true;
  }
  return {
    run,
    manifest: { location: where(key + MANIFEST), ...stats },
    batch: { maxItems: batchSize(stats, options), maxInputBytes: MAX_BATCH_INPUT_BYTES },
  };
}

/**
 * The Namespaces the shards need (name and labels only, to keep the file small), when the bundle enables an admission
 * family or the what-if level is given; undefined otherwise.
 */
async function runNamespaces(config: Readonly<ResolvedAuditConfig>): Promise<Record<string, unknown>[] | undefined> {
  if (config.podSecurity === undefined) {
    const loaded = await loadPolicies(config.bundle, undefined, config.s3, {
      limits: bundleLimitsOf(config.maxDocumentBytes),
    });
    if (!loaded.policySet.families.some((f) => f.stage === "admission")) return undefined;
  }
  const open = config.sources.map((s) => () => openSource(s, sourceOptionsOf(config), { s3: config.s3 }));
  const all = await withSources(open, (sources) => namespacesOf(sources));
  return all.map((ns) => {
    const meta = isRecord(ns.metadata) ? ns.metadata : {};
    const metadata: Record<string, unknown> = { name: meta.name };
    if (meta.labels !== undefined) metadata.labels = meta.labels;
    return { apiVersion: "v1", kind: "Namespace", metadata };
  });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Units per shard: about `bytes` bytes at the units' mean size, from 1 to `size`. */
function batchSize(stats: { items: number; bytes: number }, options: PlanOptions): number {
  const size = options.size ?? DEFAULT_SHARD_SIZE;
  const mean = stats.bytes / Math.max(1, stats.items);
  const bySize = mean > 0 ? Math.floor((options.bytes ?? DEFAULT_SHARD_BYTES) / mean) : size;
  return Math.max(1, Math.min(size, bySize));
}

/** The items as the text of a JSON array, one item per line. */
async function* jsonArray(items: AsyncIterable<ShardItem>): AsyncGenerator<Buffer> {
  let first = true;
  for await (const item of items) {
    yield Buffer.from(`${first ? "[\n" : ",\n"}${JSON.stringify(item)}`);
    first = false;
  }
  yield Buffer.from(first ? "[]\n" : "\n]\n");
}
