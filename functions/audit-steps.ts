/**
 * The sharded audit's steps, each a Lambda the state machine calls (serverless.yml `stepFunctions`; its definition is
 * infra/audit-state-machine.yml): nothing here waits for another step or invokes one.
 *
 *   plan   { input, startedAt }            → PlanState: the run, the manifest in S3, batch and Map settings
 *   shard  { BatchInput: { run }, Items }  → ShardResult: one shard's partial run, written to S3
 *   merge  PlanState + the Map's result    → AuditSummary: the merged run published, the work folder deleted
 *
 * `input` is the schedule's input (functions/audit-input.ts, the plain auditor's, with `shard` settings) and
 * `startedAt` the execution's start time, so a retried plan plans the same run. Each step is idempotent (audit/shards/):
 * a retried shard rewrites its own partial run, a retried merge never writes `latest.json` twice for one run.
 *
 * Settings: `shard` in the input, over these variables of the plan function, over the defaults:
 *
 * | variable                                     | input field                      | default |
 * |----------------------------------------------|----------------------------------|---------|
 * | TOLLGATE_SHARD_SIZE                          | shard.size                       | 500 units per shard at most |
 * | TOLLGATE_SHARD_BYTES                         | shard.bytes                      | 128Mi read per shard, on average |
 * | TOLLGATE_SHARD_CONCURRENCY                   | shard.concurrency                | 100 shards at once |
 * | TOLLGATE_SHARD_TOLERATED_FAILURE_PERCENTAGE  | shard.toleratedFailurePercentage | 0 (any failed shard fails the run) |
 *
 * Errors: a step throws, and the state machine retries what is worth retrying (its Retry fields). A storage failure
 * that may pass (S3 throttling, a 5xx, a timeout: StorageError `unavailable`) is thrown as `StorageUnavailable`, the
 * error name the definition retries with backoff; anything else keeps its name and fails the step at once.
 */
import type { Context } from "aws-lambda";
import { ConfigError, StorageError } from "#lib";
import { formatS3Url, isS3Url, parseS3Url } from "#lib/storage";
import { silenceSdkNodeVersionWarning } from "../audit/aws-sdk-warning.js";
import { byteSize, type Env } from "../audit/config.js";
import type { ShardedRun, ShardItem } from "../audit/shards/layout.js";
import { mergeShards } from "../audit/shards/merge.js";
import { DEFAULT_SHARD_BYTES, DEFAULT_SHARD_SIZE, planRun } from "../audit/shards/plan.js";
import { runShard, type ShardResult } from "../audit/shards/shard.js";
import type { AuditLogger } from "./audit.js";
import {
  failOnOf,
  isRecord,
  location,
  parseAuditInput,
  resolveInputConfig,
  type ShardSettings,
  warnExpiryOf,
} from "./audit-input.js";
import { type AuditSummary, logFields, summaryOf } from "./audit-summary.js";
import { createLogger, errorName, errorReason } from "./logger.js";

/** What the plan step returns: the state the Map and the merge read. */
export interface PlanState {
  run: ShardedRun;
  /** The manifest object (the Map's ItemReader) and what it holds. */
  manifest: { bucket: string; key: string; items: number; bytes: number; largest: number };
  /** The Map's ItemBatcher: items and input bytes per shard. */
  batch: { maxItems: number; maxInputBytes: number };
  /** The Map's MaxConcurrency and ToleratedFailurePercentage. */
  map: { maxConcurrency: number; toleratedFailurePercentage: number };
  /** Where the Map's ResultWriter writes (inside the run's work folder, deleted by the merge). */
  results: { bucket: string; prefix: string };
}

export const DEFAULT_SHARD_CONCURRENCY = 100;

/** The error name the state machine retries with backoff (infra/audit-state-machine.yml). */
export const STORAGE_UNAVAILABLE = "StorageUnavailable";

export interface AuditStepOptions {
  /** Where TOLLGATE_* variables are read; default `process.env`. */
  env?: Env;
  logger?: AuditLogger;
  /** The clock of the merge (tests pass a fixed one). */
  now?: () => Date;
}

export interface AuditSteps {
  plan(event: unknown, context?: Context): Promise<PlanState>;
  shard(event: unknown, context?: Context): Promise<ShardResult>;
  merge(event: unknown, context?: Context): Promise<AuditSummary>;
}

export function createAuditSteps(options: AuditStepOptions = {}): AuditSteps {
  const env = options.env ?? process.env;
  const logger = options.logger ?? createLogger();

  /** Runs a step: its log line on failure, and transient storage failures renamed for the Retry fields. */
  async function step<T>(name: string, context: Context | undefined, f: () => Promise<T>): Promise<T> {
    if (context !== undefined) logger.addContext(context);
    try {
      return await f();
    } catch (err) {
      const retryable = err instanceof StorageError && err.failure === "unavailable";
      logger.error(`audit ${name} failed`, { error: errorName(err), reason: errorReason(err), retryable });
      if (!retryable) throw err;
      const renamed = new StorageError(err.message, { cause: err, failure: err.failure });
      renamed.name = STORAGE_UNAVAILABLE;
      throw renamed;
    }
  }

  return {
    plan: (event, context) =>
      step("plan", context, async () => {
        const { input, startedAt } = parsePlanEvent(event);
        if (!isS3Url(input.out)) {
          throw new ConfigError(
            "audit input: out must be an s3:// location for a sharded audit (the state machine reads the manifest from it and writes its results there)",
          );
        }
        const settings = shardSettings(input.shard ?? {}, env);
        const config = resolveInputConfig(input, env);
        const plan = await planRun(config, startedAt, settings);
        const manifest = parseS3Url(plan.manifest.location);
        const state: PlanState = {
          run: plan.run,
          manifest: { bucket: manifest.bucket, key: manifest.key, ...countsOf(plan.manifest) },
          batch: plan.batch,
          map: {
            maxConcurrency: settings.concurrency,
            toleratedFailurePercentage: settings.toleratedFailurePercentage,
          },
          results: { bucket: manifest.bucket, prefix: manifest.key.replace(/[^/]*$/, "results") },
        };
        logger.info("audit plan finished", {
          runId: plan.run.runId,
          items: plan.manifest.items,
          bytes: plan.manifest.bytes,
          maxItems: plan.batch.maxItems,
          manifest: formatS3Url(manifest.bucket, manifest.key),
        });
        return state;
      }),

    shard: (event, context) =>
      step("shard", context, async () => {
        const { run, items } = parseShardEvent(event);
        const result = await runShard({ run, items }, resolveInputConfig(run, env));
        logger.info("audit shard finished", { runId: run.runId, first: result.first, last: result.last });
        return result;
      }),

    merge: (event, context) =>
      step("merge", context, async () => {
        const { run, items, tolerate } = parseMergeEvent(event);
        const config = resolveInputConfig(run, env);
        const merged = await mergeShards(run, config, {
          items,
          tolerateMissing: tolerate,
          ...(options.now !== undefined && { now: options.now }),
        });
        const summary = summaryOf(config, merged, merged.folder, merged.shards);
        logger.info("audit finished", {
          ...logFields(summary),
          missing: merged.missing,
          publishedBefore: merged.publishedBefore,
        });
        return summary;
      }),
  };
}

function countsOf(m: { items: number; bytes: number; largest: number }) {
  return { items: m.items, bytes: m.bytes, largest: m.largest };
}

/** The settings of a run: the input's, over the TOLLGATE_SHARD_* variables, over the defaults. */
function shardSettings(input: ShardSettings, env: Env): Required<ShardSettings> {
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === "") return fallback;
    const n = /^[0-9]{1,6}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
    if (!(n >= min && n <= max)) {
      throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
    }
    return n;
  };
  const bytes = env.TOLLGATE_SHARD_BYTES;
  return {
    size: input.size ?? int("TOLLGATE_SHARD_SIZE", DEFAULT_SHARD_SIZE, 1, 10_000),
    bytes:
      input.bytes ??
      (bytes === undefined || bytes.trim() === "" ? DEFAULT_SHARD_BYTES : byteSize(bytes, "TOLLGATE_SHARD_BYTES")),
    concurrency: input.concurrency ?? int("TOLLGATE_SHARD_CONCURRENCY", DEFAULT_SHARD_CONCURRENCY, 1, 10_000),
    toleratedFailurePercentage:
      input.toleratedFailurePercentage ?? int("TOLLGATE_SHARD_TOLERATED_FAILURE_PERCENTAGE", 0, 0, 100),
  };
}

/** The plan step's event: `{ input, startedAt }`. */
function parsePlanEvent(event: unknown): { input: ReturnType<typeof parseAuditInput>; startedAt: Date } {
  if (!isRecord(event) || !("input" in event)) {
    throw new Error("plan input: expected { input: <the audit input>, startedAt: <the execution's start time> }");
  }
  const startedAt = typeof event.startedAt === "string" ? new Date(event.startedAt) : new Date(Number.NaN);
  if (Number.isNaN(startedAt.getTime())) throw new Error("plan input: startedAt must be an ISO 8601 time");
  return { input: parseAuditInput(event.input), startedAt };
}

/** A run as a step gets it back from the plan (checked for shape: the state machine passes it on). */
function parseRun(v: unknown, what: string): ShardedRun {
  if (!isRecord(v) || typeof v.runId !== "string" || typeof v.startedAt !== "string") {
    throw new Error(`${what}: expected the plan's run { runId, startedAt, sources, bundle, out, failOn, previous? }`);
  }
  const sources = Array.isArray(v.sources) ? v.sources : [];
  if (sources.length === 0) throw new Error(`${what}: run.sources must be a non-empty array`);
  if (!/^[0-9]{8}T[0-9]{6}Z$/.test(v.runId)) throw new Error(`${what}: run.runId is not a run id`);
  const run: ShardedRun = {
    runId: v.runId,
    startedAt: v.startedAt,
    sources: sources.map((s, i) => location(s, `run.sources[${i}]`)),
    bundle: location(v.bundle, "run.bundle"),
    out: location(v.out, "run.out"),
    failOn: failOnOf(v.failOn, `${what}: run.failOn`),
  };
  if (v.previous !== undefined) run.previous = location(v.previous, "run.previous");
  if (v.podSecurity !== undefined) {
    if (typeof v.podSecurity !== "string") throw new Error(`${what}: run.podSecurity must be a string`);
    run.podSecurity = v.podSecurity;
  }
  if (v.waivers !== undefined) run.waivers = location(v.waivers, "run.waivers");
  if (v.warnExpiry !== undefined) run.warnExpiry = warnExpiryOf(v.warnExpiry, `${what}: run.warnExpiry`);
  if (v.namespaces !== undefined) {
    if (typeof v.namespaces !== "boolean") throw new Error(`${what}: run.namespaces must be a boolean`);
    run.namespaces = v.namespaces;
  }
  return run;
}

/** The shard step's event: the Map's batch `{ BatchInput: { run }, Items }`. */
function parseShardEvent(event: unknown): { run: ShardedRun; items: ShardItem[] } {
  if (!isRecord(event) || !isRecord(event.BatchInput) || !Array.isArray(event.Items)) {
    throw new Error("shard input: expected the Map's batch { BatchInput: { run }, Items: [...] }");
  }
  const run = parseRun(event.BatchInput.run, "shard input");
  const items = event.Items.map((item: unknown): ShardItem => {
    const ok =
      isRecord(item) &&
      Number.isSafeInteger(item.index) &&
      Number.isSafeInteger(item.source) &&
      Number.isSafeInteger(item.bytes) &&
      (item.name === undefined || typeof item.name === "string") &&
      (item.unreadable === undefined || item.unreadable === true);
    if (!ok) throw new Error("shard input: an item is not { index, source, name?, bytes, unreadable? }");
    const r = item as Record<string, unknown>;
    const out: ShardItem = { index: r.index as number, source: r.source as number, bytes: r.bytes as number };
    if (r.name !== undefined) out.name = r.name as string;
    if (r.unreadable === true) out.unreadable = true;
    return out;
  });
  return { run, items };
}

/** The merge step's event: the plan's state (and the Map's result, not needed). */
function parseMergeEvent(event: unknown): { run: ShardedRun; items: number; tolerate: boolean } {
  if (!isRecord(event) || !isRecord(event.manifest) || !Number.isSafeInteger(event.manifest.items)) {
    throw new Error("merge input: expected the plan's state { run, manifest: { items }, map, ... }");
  }
  const map = isRecord(event.map) ? event.map : {};
  const tolerated = map.toleratedFailurePercentage;
  return {
    run: parseRun(event.run, "merge input"),
    items: event.manifest.items as number,
    tolerate: typeof tolerated === "number" && tolerated > 0,
  };
}

silenceSdkNodeVersionWarning();
const steps = createAuditSteps();
/** The state machine's Plan task. */
export const plan = steps.plan;
/** The state machine's AuditShard task (one per batch of the Distributed Map). */
export const shard = steps.shard;
/** The state machine's Merge task. */
export const merge = steps.merge;
