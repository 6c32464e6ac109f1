/**
 * Sharded audits: for exports too large for one run (the scheduled Lambda's input field `shard`, functions/audit.ts).
 * The run that gets `shard` is the coordinator ({@link coordinate}):
 *
 * 1. it lists the sources: a folder tree or an `s3://` prefix becomes its document files/objects (the same listing
 *    the auditor uses, audit/sources), a single file or an archive stays one indivisible part;
 * 2. it groups them, in order, into shards of at most `shard.size` files/objects (default 50);
 * 3. it invokes one shard run per shard through a {@link ShardInvoker} (the Lambda function invoking itself:
 *    functions/audit-shards.ts), at most `shard.concurrency` at once (default 8);
 * 4. each shard run ({@link runShard}) audits its part and writes its partial AuditRun to
 *    `<out>/shards/<runId>/<index>.json` (never through the 6 MB Lambda response), returning that location;
 * 5. the coordinator reads the partial runs, merges them into one AuditRun (objects and findings concatenated in
 *    source order, policy failures once, finding ids made unique and `firstSeen` set as one run would, the summary
 *    counted again, compared with `latest.json` like `tollgate audit`: {@link mergeRuns}, through the same
 *    RunRecorder as a plain run), renders the reports and writes them through the same sink (index.json last, then
 *    latest.json).
 *
 * A shard invocation's input is `{ shardOf: { runId, index, of }, parts: [{ source, units? }], bundle, out,
 * previous?, failOn? }`: `units` are the names of the listed files/objects of `source` this shard audits (absent: the
 * whole source). A shard re-opens its source and keeps only its units, so a folder's or prefix's files are read
 * exactly as in an unsharded run (documents that are not Kubernetes objects skipped, not errors).
 *
 * A shard that fails (a Lambda function error, an invocation error, a missing partial run) fails the whole run with
 * an error naming the shard and its first unit; no report and no index.json are written.
 *
 * Costs: each shard lists its S3 prefix again to find its units, and indexes the whole `previous` snapshot.
 */

import { Readable } from "node:stream";
import pLimit from "p-limit";
import { ConfigError } from "#lib";
import { type BlobStore, openLocation, type S3Options } from "#lib/storage";
import { namespacesOf } from "./cluster-state.js";
import type { PreviousReport } from "./compare.js";
import type { ResolvedAuditConfig } from "./config.js";
import { publishRun, sourceOptionsOf, withSources } from "./execute.js";
import type { AuditResult, AuditRun, AuditRunHeader, FailOn, Finding } from "./model.js";
import { loadPolicies, loadPolicySource, type PolicySourceOptions } from "./policies.js";
import { disposeResult, RunRecorder, runIdOf } from "./recorder.js";
import { reportJson } from "./report/json.js";
import { runAudit } from "./run.js";
import { readLatestReport } from "./sink.js";
import { DEFAULT_SOURCE_OPTIONS, openSource, type Source } from "./sources/index.js";

/** The coordinator's `shard` input field. */
export interface ShardOptions {
  /** Most files/objects per shard. Default 50. */
  size?: number;
  /** Shard invocations in flight at once. Default 8. */
  concurrency?: number;
}

const DEFAULT_SHARD_SIZE = 50;
const DEFAULT_SHARD_CONCURRENCY = 8;

/** One source's share of a shard. */
export interface ShardPart {
  source: string;
  /** Listed unit names (files, S3 object URLs) of `source`; absent: the whole source. */
  units?: string[];
}

/** The input of one shard invocation. */
export interface ShardInput {
  shardOf: { runId: string; index: number; of: number };
  parts: ShardPart[];
  bundle: string;
  out: string;
  previous?: string;
  failOn?: FailOn;
  /** `<level>:<version>`: the what-if Pod Security enforce level. */
  podSecurity?: string;
  /**
   * The Namespaces of the whole input (their name and labels), when an admission family needs them: a shard reads
   * only its parts, and a pod's namespace may be in another shard's.
   */
  namespaces?: Record<string, unknown>[];
}

/** What a shard invocation returns. */
export interface ShardResult {
  shardOf: { runId: string; index: number };
  /** Where its partial AuditRun was written. */
  partial: string;
}

/** Calls one shard run: the Lambda API in production (functions/audit-shards.ts), the handler in-process in tests. */
export type ShardInvoker = (input: ShardInput) => Promise<unknown>;

/** Lists the sources into shards of at most `size` units, in source order. */
async function planShards(
  sources: readonly string[],
  size: number,
  open: (spec: string) => Promise<Source>,
): Promise<ShardPart[][]> {
  const shards: ShardPart[][] = [];
  let current: ShardPart[] = [];
  let count = 0;
  const flush = () => {
    if (current.length > 0) shards.push(current);
    current = [];
    count = 0;
  };
  for (const spec of sources) {
    const source = await open(spec);
    try {
      if (source.kind !== "folder" && source.kind !== "s3") {
        if (count + 1 > size) flush();
        current.push({ source: spec });
        count++;
        continue;
      }
      let part: ShardPart | undefined;
      for await (const unit of source.units()) {
        if (count + 1 > size) flush();
        if (part === undefined || current[current.length - 1] !== part) {
          part = { source: spec, units: [] };
          current.push(part);
        }
        part.units!.push(unit.name);
        count++;
      }
    } finally {
      await source.close?.();
    }
  }
  flush();
  return shards;
}

/** A source narrowed to some of its units (by name), in the source's own order. */
function onlyUnits(source: Source, names: readonly string[]): Source {
  const wanted = new Set(names);
  const narrowed: Source = {
    spec: source.spec,
    kind: source.kind,
    async *units() {
      let found = 0;
      for await (const unit of source.units()) {
        if (!wanted.has(unit.name)) continue;
        found++;
        yield unit;
      }
      // A unit listed by the coordinator and gone since: the shard's report would silently miss it.
      if (found < wanted.size) {
        throw new ConfigError(
          `source ${JSON.stringify(source.spec)}: ${wanted.size - found} listed file(s) no longer exist`,
        );
      }
    },
  };
  if (source.close !== undefined) narrowed.close = () => source.close!();
  return narrowed;
}

/** The location of a shard's partial run: `<out>/shards/<runId>/<index>.json`. */
function partialLocation(out: string, runId: string, index: number): string {
  return `${out.replace(/\/+$/, "")}/shards/${runId}/${String(index).padStart(5, "0")}.json`;
}

/** Writes or reads a whole object at a local path or s3:// URL. */
async function withStore<T>(
  location: string,
  s3: Readonly<S3Options>,
  f: (store: BlobStore, key: string) => Promise<T>,
): Promise<T> {
  const { store, key } = await openLocation(location, "object", s3);
  try {
    return await f(store, key);
  } finally {
    store.close();
  }
}

/**
 * The Namespaces the shards need (name and labels only, to keep the invocations small), when the bundle enables an
 * admission family or the what-if level is given; undefined otherwise.
 */
async function shardNamespaces(config: Readonly<ResolvedAuditConfig>): Promise<Record<string, unknown>[] | undefined> {
  if (config.podSecurity === undefined) {
    const loaded = await loadPolicies(config.bundle, undefined, config.s3);
    if (!loaded.policySet.families.some((f) => f.stage === "admission")) return undefined;
  }
  const open = config.sources.map((s) => () => openSource(s, sourceOptionsOf(config), { s3: config.s3 }));
  const all = await withSources(open, (sources) => namespacesOf(sources));
  return all.map((ns) => {
    const meta = (typeof ns.metadata === "object" && ns.metadata !== null ? ns.metadata : {}) as Record<
      string,
      unknown
    >;
    const metadata: Record<string, unknown> = { name: meta.name };
    if (meta.labels !== undefined) metadata.labels = meta.labels;
    return { apiVersion: "v1", kind: "Namespace", metadata };
  });
}

/** Runs one shard: audits its parts (no comparison, no reports) and writes the partial run. */
export async function runShard(input: ShardInput, config: Readonly<ResolvedAuditConfig>): Promise<ShardResult> {
  const options = sourceOptionsOf(config);
  const open = input.parts.map((p) => async () => {
    const source = await openSource(p.source, options, { s3: config.s3 });
    return p.units === undefined ? source : onlyUnits(source, p.units);
  });
  if (input.previous !== undefined) open.push(() => openSource(input.previous!, options, { s3: config.s3 }));
  const run = await withSources(open, async (all) => {
    const sources = all.slice(0, input.parts.length);
    const previous = all[input.parts.length];
    const options: PolicySourceOptions = {};
    if (input.namespaces !== undefined) options.clusterState = input.namespaces;
    if (input.podSecurity !== undefined) options.podSecurity = { enforce: input.podSecurity };
    const loaded = await loadPolicies(config.bundle, undefined, config.s3);
    const policySet =
      Object.keys(options).length === 0 ? loaded.policySet : await loadPolicySource({ ...loaded.source, options });
    return runAudit(
      {
        sources,
        bundle: config.bundle,
        concurrency: config.concurrency,
        failOn: config.failOn,
        ownerLabels: config.ownerLabels,
        user: config.user,
        toolVersion: config.toolVersion,
        ...(previous !== undefined && { previous }),
      },
      policySet,
    );
  });
  const partial = partialLocation(input.out, input.shardOf.runId, input.shardOf.index);
  try {
    await withStore(partial, config.s3, (store, key) =>
      store.write(key, Readable.from(reportJson(run), { objectMode: false }), { contentType: "application/json" }),
    );
  } finally {
    disposeResult(run);
  }
  return { shardOf: { runId: input.shardOf.runId, index: input.shardOf.index }, partial };
}

/** The part of the unique-id suffix runAudit adds (`<16 hex>-<n>`), removed before ids are made unique again. */
const ID_SUFFIX = /^([0-9a-f]{16})-\d+$/;

/**
 * Merges partial runs (read one at a time, in shard order) into the run one unsharded audit would have produced,
 * compared with `compareWith` when given. Memory holds one partial run at a time; the merged objects and findings
 * go to the recorder's spools.
 *
 * @param run the coordinator's start, and what the merged run's header says of its input
 * @throws Error when the shards audited against different bundles
 */
async function mergeRuns(
  count: number,
  readPart: (index: number) => Promise<AuditRun>,
  run: { start: Date; finishedAt: string; sources: string[]; previous?: string; failOn: FailOn },
  durationMs: number,
  compareWith?: PreviousReport,
): Promise<AuditResult> {
  if (count === 0) throw new Error("internal error: no shard results to merge");
  const recorder = new RunRecorder(run.start, compareWith === undefined ? {} : { compareWith });
  try {
    // Each shard made its ids unique within its part: the suffix goes, and the recorder makes them unique again.
    const record = (f: Finding): void => {
      const m = ID_SUFFIX.exec(f.id);
      recorder.finding({ ...f, id: m === null ? f.id : m[1]!, firstSeen: recorder.startedAt });
    };
    let first: AuditRun | undefined;
    for (let i = 0; i < count; i++) {
      const part = await readPart(i);
      if (first === undefined) {
        first = part;
        // Every shard loads the same bundle and reports its policy failures: they are the run's, once.
        for (const f of part.findings) if (f.severity === "policy-failure") record(f);
      } else if (part.bundle.digest !== first.bundle.digest) {
        throw new Error("shards audited against different bundles (the bundle changed during the run)");
      }
      for (const o of part.objects) recorder.object(o);
      for (const f of part.findings) if (f.severity !== "policy-failure") record(f);
    }
    const head = first as AuditRun;
    return await recorder.finish(
      {
        finishedAt: run.finishedAt,
        tool: head.tool,
        bundle: head.bundle,
        sources: run.sources,
        failOn: run.failOn,
        ...(run.previous !== undefined && { previous: run.previous }),
      },
      durationMs,
    );
  } catch (err) {
    recorder.dispose();
    throw err;
  }
}

/** What the coordinator needs besides the resolved configuration. */
export interface CoordinatorOptions {
  shard: ShardOptions;
  invoke: ShardInvoker;
  /** The clock (tests pass a fixed one). */
  now?: () => Date;
}

/**
 * The coordinator: plan, invoke every shard, merge, compare, write the reports.
 *
 * @throws Error naming the shard when one fails; nothing is written then
 */
export async function coordinate(
  config: Readonly<ResolvedAuditConfig>,
  options: CoordinatorOptions,
): Promise<{ run: AuditRunHeader; folder: string; shards: number }> {
  const now = options.now ?? (() => new Date());
  const start = now();
  const clockStart = performance.now();
  const size = options.shard.size ?? DEFAULT_SHARD_SIZE;
  const plan = await planShards(config.sources, size, (spec) =>
    openSource(spec, DEFAULT_SOURCE_OPTIONS, { s3: config.s3 }),
  );
  if (plan.length === 0) throw new ConfigError("sharded audit: the sources have no document files or objects");
  const namespaces = await shardNamespaces(config);
  const partials = await invokeShards(plan, runIdOf(start), config, { ...options, namespaces });

  const compareWith = await readLatestReport(config.out, { s3: config.s3 });
  const result = await mergeRuns(
    partials.length,
    async (i) => {
      const text = await withStore(partials[i]!, config.s3, (store, key) => store.readText(key));
      return JSON.parse(text) as AuditRun;
    },
    {
      start,
      finishedAt: now().toISOString(),
      sources: [...config.sources],
      failOn: config.failOn,
      ...(config.previous !== undefined && { previous: config.previous }),
    },
    performance.now() - clockStart,
    compareWith,
  );
  const { run, written } = await publishRun(result, config);
  return { run, folder: written.folder, shards: plan.length };
}

/**
 * Invokes one shard run per planned shard, at most `shard.concurrency` at once; the partial runs' locations, in
 * shard order.
 *
 * @throws Error naming the first shard that failed (and how many others did)
 */
async function invokeShards(
  plan: readonly ShardPart[][],
  runId: string,
  config: Readonly<ResolvedAuditConfig>,
  options: CoordinatorOptions & { namespaces: Record<string, unknown>[] | undefined },
): Promise<string[]> {
  const limit = pLimit(options.shard.concurrency ?? DEFAULT_SHARD_CONCURRENCY);
  const results = await Promise.allSettled(
    plan.map((parts, index) =>
      limit(async () => {
        const input: ShardInput = {
          shardOf: { runId, index, of: plan.length },
          parts,
          bundle: config.bundle,
          out: config.out,
          failOn: config.failOn,
          ...(config.previous !== undefined && { previous: config.previous }),
          ...(config.podSecurity !== undefined && { podSecurity: config.podSecurity }),
          ...(options.namespaces !== undefined && { namespaces: options.namespaces }),
        };
        const result = await options.invoke(input);
        const partial = (result as Partial<ShardResult> | null)?.partial;
        if (typeof partial !== "string") throw new Error("it returned no partial run location");
        return partial;
      }),
    ),
  );
  const failed = results.findIndex((r) => r.status === "rejected");
  if (failed >= 0) {
    const reason = (results[failed] as PromiseRejectedResult).reason;
    const others = results.filter((r) => r.status === "rejected").length - 1;
    const p = plan[failed]![0]!;
    const more = plan[failed]!.length > 1 || (p.units?.length ?? 1) > 1 ? ", ..." : "";
    throw new Error(
      `sharded audit failed: shard ${failed + 1} of ${plan.length} (${p.units?.[0] ?? p.source}${more}): ${reason instanceof Error ? reason.message : String(reason)}${others > 0 ? ` (and ${others} more shard(s) failed)` : ""}; no report written`,
      { cause: reason },
    );
  }
  return results.map((r) => (r as PromiseFulfilledResult<string>).value);
}
