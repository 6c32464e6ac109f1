/**
 * What the steps of one sharded run share (plan.ts, shard.ts, merge.ts): the run's identity and input, the items a
 * plan lists, and where a run keeps its work under the report prefix until the merge has published it:
 *
 *   <out>/shards/<runId>/manifest.json                 the plan's items (a JSON array of {@link ShardItem}), in run order
 *   <out>/shards/<runId>/namespaces.json               the input's Namespaces, when the run needs them (see below)
 *   <out>/shards/<runId>/parts/<first>-<last>.json     one shard's partial run (report.json's format), items first..last
 *   <out>/shards/<runId>/...                           anything else the orchestrator keeps there (its result files)
 *
 * The merge deletes all of `<out>/shards/<runId>/` once the merged run is published.
 */
import type { FailOn } from "../model.js";
import type { ListedUnit } from "../sources/listing.js";

/** One sharded run as every step sees it: fixed by the plan, passed on unchanged. */
export interface ShardedRun {
  /** `20261122T021500Z`: the run folder's name, from {@link startedAt}. */
  runId: string;
  /** ISO 8601: the run's start (the orchestrator's start time, so a retried plan makes the same run). */
  startedAt: string;
  sources: string[];
  bundle: string;
  out: string;
  previous?: string;
  failOn: FailOn;
  /** `<level>:<version>`: the what-if Pod Security enforce level (`tollgate audit --pod-security`). */
  podSecurity?: string;
  /** Waivers beside the bundle's (`--waivers`); every step judges their expiry at {@link startedAt}. */
  waivers?: string;
  /** Days: waivers expiring within them are listed as expiring (when not the default). */
  warnExpiry?: number;
  /**
   * Whether the plan wrote {@link NAMESPACES}: the Namespaces of the whole input (name and labels), the cluster state
   * of the admission families. A shard reads only its units, and a Pod's Namespace may be in another shard's.
   */
  namespaces?: boolean;
}

/** One listed unit of one source, numbered in run order: what the orchestrator batches into shards. */
export interface ShardItem extends ListedUnit {
  /** The unit's position in the run, from 0. */
  index: number;
  /** Which of the run's sources it belongs to (an index into {@link ShardedRun.sources}). */
  source: number;
}

/** The folder of a run's work relative to the report prefix, ending in `/`. */
export function shardsKey(runId: string): string {
  return `shards/${runId}/`;
}

/** The folder of a run's work under the report prefix, ending in `/`. */
export function shardsFolder(out: string, runId: string): string {
  return `${out.replace(/\/+$/, "")}/${shardsKey(runId)}`;
}

export const MANIFEST = "manifest.json";
/** The input's Namespaces (a JSON array of v1 Namespaces), relative to {@link shardsFolder}. */
export const NAMESPACES = "namespaces.json";
/** The folder of the partial runs, relative to {@link shardsFolder}. */
export const PARTS = "parts/";

const WIDTH = 10;

/** A partial run's name in {@link PARTS}: `<first>-<last>.json`, zero-padded so names sort in run order. */
export function partName(first: number, last: number): string {
  return `${String(first).padStart(WIDTH, "0")}-${String(last).padStart(WIDTH, "0")}.json`;
}

/** The item range a partial run's name stands for; undefined for a name that is not one. */
export function parsePartName(name: string): { first: number; last: number } | undefined {
  const m = /^([0-9]{10})-([0-9]{10})\.json$/.exec(name);
  if (m === null) return undefined;
  const first = Number(m[1]);
  const last = Number(m[2]);
  return first <= last ? { first, last } : undefined;
}
