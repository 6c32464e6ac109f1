/**
 * One shard of a sharded run: audit a batch of consecutive manifest items (plan.ts) and write the partial run, the
 * shard's AuditRun in report.json's format, to `parts/<first>-<last>.json` of the run's folder (layout.ts). The partial
 * run has no comparison and no report of its own: the merge (merge.ts) compares and publishes the whole run.
 *
 * Each source's items are read through a source narrowed to them (audit/sources/listing.ts `openUnits`), so the
 * documents, their locations and their input errors are those an unsharded run gives for the same units, in the
 * same order, and no folder or prefix is listed again. Every shard loads the bundle and, with `previous`, indexes the
 * whole previous snapshot.
 *
 * Retried, a shard writes the same partial run to the same place: the name is its items' range.
 */
import { Readable } from "node:stream";
import { openLocation } from "#lib/storage";
import { bundleLimitsOf, type ResolvedAuditConfig } from "../config.js";
import { sourceOptionsOf, withSources } from "../execute.js";
import { loadPolicies, loadPolicySource, type PolicySourceOptions } from "../policies.js";
import { disposeResult } from "../recorder.js";
import { reportJson } from "../report/json.js";
import { runAudit } from "../run.js";
import { openSource, type Source } from "../sources/index.js";
import { openUnits } from "../sources/listing.js";
import { NAMESPACES, PARTS, partName, type ShardedRun, type ShardItem, shardsFolder } from "./layout.js";

/** The input of one shard: the run and its items (the orchestrator's batch). */
export interface ShardBatch {
  run: ShardedRun;
  items: ShardItem[];
}

/** What a shard returns: small, since the orchestrator keeps it. */
export interface ShardResult {
  /** The partial run: a path or an `s3://` URL. */
  partial: string;
  first: number;
  last: number;
  /** Documents the shard audited. */
  documents: number;
}

/**
 * Audits the batch's items and writes its partial run (replacing one a failed attempt wrote).
 *
 * @throws Error when the items are not consecutive (the merge could not put the partial run in place); ConfigError
 * for an item that names no unit of its source; StorageError when reading or writing fails
 */
export async function runShard(batch: ShardBatch, config: Readonly<ResolvedAuditConfig>): Promise<ShardResult> {
  const { run, items } = batch;
  const first = items[0]?.index ?? -1;
  if (items.length === 0 || items.some((item, i) => item.index !== first + i)) {
    throw new Error("shard input: the items must be consecutive manifest items, in order");
  }
  const last = first + items.length - 1;
  const unknown = items.find((item) => run.sources[item.source] === undefined);
  if (unknown !== undefined) throw new Error(`shard input: item ${unknown.index} names no source of the run`);
  const options = sourceOptionsOf(config);
  const open: (() => Promise<Source>)[] = groupBySource(items).map(
    (group) => () => openUnits(run.sources[group.source] as string, group.items, options, { s3: config.s3 }),
  );
  if (run.previous !== undefined) open.push(() => openSource(run.previous as string, options, { s3: config.s3 }));
  const groups = open.length - (run.previous === undefined ? 0 : 1);
  const result = await withSources(open, async (all) => {
    const loaded = await loadPolicies(config.bundle, undefined, config.s3, {
      waivers: config.waivers,
      limits: bundleLimitsOf(config.maxDocumentBytes),
    });
    const state = await shardState(run, config);
    const policySet =
      Object.keys(state).length === 0
        ? loaded.policySet
        : await loadPolicySource({ ...loaded.source, options: { ...loaded.source.options, ...state } });
    const previous = all[groups];
    return runAudit(
      {
        sources: all.slice(0, groups),
        bundle: config.bundle,
        concurrency: config.concurrency,
        failOn: config.failOn,
        ownerLabels: config.ownerLabels,
        user: config.user,
        toolVersion: config.toolVersion,
        // Every shard judges the waivers' expiry at the run's start, as an unsharded run does.
        waiversAt: new Date(run.startedAt),
        warnExpiryDays: config.warnExpiryDays,
        ...(previous !== undefined && { previous }),
      },
      policySet,
    );
  });
  const documents = result.summary.documents;
  const folder = shardsFolder(run.out, run.runId);
  try {
    const { store, key, where } = await openLocation(folder, "folder", config.s3);
    try {
      const name = `${key}${PARTS}${partName(first, last)}`;
      await store.write(name, Readable.from(reportJson(result), { objectMode: false }), {
        contentType: "application/json",
      });
      return { partial: where(name), first, last, documents };
    } finally {
      store.close();
    }
  } finally {
    disposeResult(result);
  }
}

/** The run's cluster state for the admission families: the plan's Namespaces and the what-if Pod Security level. */
async function shardState(run: ShardedRun, config: Readonly<ResolvedAuditConfig>): Promise<PolicySourceOptions> {
  const options: PolicySourceOptions = {};
  if (run.podSecurity !== undefined) options.podSecurity = { enforce: run.podSecurity };
  if (run.namespaces !== true) return options;
  const { store, key } = await openLocation(shardsFolder(run.out, run.runId), "folder", config.s3);
  try {
    const namespaces: unknown = JSON.parse(await store.readText(key + NAMESPACES));
    if (!Array.isArray(namespaces)) throw new Error(`shard input: ${NAMESPACES} of the run is not a JSON array`);
    if (namespaces.length > 0) options.clusterState = namespaces as Record<string, unknown>[];
  } finally {
    store.close();
  }
  return options;
}

/** Consecutive items of one source, with their listed units. */
function groupBySource(items: readonly ShardItem[]): { source: number; items: ShardItem[] }[] {
  const groups: { source: number; items: ShardItem[] }[] = [];
  for (const item of items) {
    const last = groups[groups.length - 1];
    if (last !== undefined && last.source === item.source) last.items.push(item);
    else groups.push({ source: item.source, items: [item] });
  }
  return groups;
}
