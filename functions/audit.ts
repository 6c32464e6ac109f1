/**
 * The scheduled auditor Lambda (serverless.yml: `functions/audit.handler`, an EventBridge `schedule` event). Its
 * input, the event itself (EventBridge `input`) or `event.detail`:
 *
 *   { sources: string[], bundle: string, out: string, previous?: string, failOn?: "violation"|"warning"|"audit"|"never",
 *     podSecurity?: "<level>[:<version>]",
 *     shard?: { size?, concurrency? } }
 *
 * Locations are local paths or s3:// URLs. The input and the `TOLLGATE_*` environment (TOLLGATE_S3_ENDPOINT,
 * TOLLGATE_S3_PATH_STYLE, TOLLGATE_CONCURRENCY, TOLLGATE_OWNER_LABELS, ...) are resolved by audit/config.ts, as
 * `tollgate audit`'s flags are, and the run is audit/execute.ts's (or, with `shard`, audit/shards.ts's coordinator):
 * the same pipeline and the same defaults as the CLI.
 *
 * Outcomes: findings that reach `failOn` are not a Lambda error (the report is the product): the returned summary
 * says `status: "violations"`, `exitCode: 1`. A bad input, a configuration error, a storage or internal error throws,
 * so the invocation fails visibly (CloudWatch, the schedule's retry and failure metrics). One structured log line
 * per run: the totals, the run folder and the status; never object content or credentials.
 */
import type { Context } from "aws-lambda";
import { ConfigError } from "#lib";
import { silenceSdkNodeVersionWarning } from "../audit/aws-sdk-warning.js";
import { type Env, type ResolvedAuditConfig, resolveAuditConfig } from "../audit/config.js";
import { executeAudit } from "../audit/execute.js";
import { type AuditRunHeader, FAIL_ON, type FailOn, type Summary, summaryReachesFailOn } from "../audit/model.js";
import {
  coordinate,
  runShard,
  type ShardInput,
  type ShardInvoker,
  type ShardOptions,
  type ShardPart,
  type ShardResult,
} from "../audit/shards.js";
import { toolVersion } from "../audit/version.js";
import { lambdaInvoker } from "./audit-shards.js";
import { createLogger, errorName, type FunctionLogger } from "./logger.js";

const INPUT_FIELDS = ["sources", "bundle", "out", "previous", "failOn", "podSecurity", "shard"] as const;
const SHARD_FIELDS = ["size", "concurrency"] as const;

/** The validated input of one run. */
export interface AuditInput {
  sources: string[];
  bundle: string;
  out: string;
  previous?: string;
  failOn?: FailOn;
  /** `<level>[:<version>]`: the what-if Pod Security enforce level (`tollgate audit --pod-security`). */
  podSecurity?: string;
  /** Sharded mode (audit/shards.ts): this run coordinates one invocation of the function per shard. */
  shard?: ShardOptions;
}

/** What the handler returns and logs. */
export interface AuditSummary {
  runId: string;
  /** The run folder, ending in "/": `<out>/<run>/` or `s3://bucket/prefix/<run>/`. */
  folder: string;
  status: "ok" | "violations";
  /** The CLI's exit code for the same run: 0 or 1. */
  exitCode: 0 | 1;
  failOn: FailOn;
  sources: string[];
  bundle: string;
  out: string;
  totals: Summary;
  /** Sharded mode: how many shard invocations the run was made of. */
  shards?: number;
}

/** What the handler logs through (the Lambdas' logger, functions/logger.ts; a recorder in tests). */
export type AuditLogger = Pick<FunctionLogger, "info" | "error" | "addContext">;

export interface AuditHandlerOptions {
  /** Where TOLLGATE_* variables are read; default `process.env`. */
  env?: Env;
  logger?: AuditLogger;
  /** Sharded mode: how a shard is invoked; default the Lambda API ({@link lambdaInvoker}). */
  invoke?: ShardInvoker;
}

/** A shard invocation (from a coordinator) returns where its partial run is; any other input runs an audit. */
export interface AuditHandler {
  (event: ShardInput, context?: Context): Promise<ShardResult>;
  (event: unknown, context?: Context): Promise<AuditSummary>;
}

/**
 * The run's input: `event.detail` when the event is an EventBridge event (it has `detail-type` and an object
 * `detail`), else the event itself (a schedule's constant `input`).
 *
 * @throws Error naming the field that is missing or wrong
 */
export function parseAuditInput(event: unknown): AuditInput {
  let input: unknown = event;
  if (isRecord(event) && "detail-type" in event && isRecord(event.detail)) input = event.detail;
  if (!isRecord(input)) throw new Error("audit input: the event must be a JSON object");
  const unknown = Object.keys(input).filter((k) => !(INPUT_FIELDS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw new Error(
      `audit input: unknown field ${unknown.map((k) => JSON.stringify(k)).join(", ")} (allowed: ${INPUT_FIELDS.join(", ")})`,
    );
  }
  const { sources, bundle, out, previous, failOn, podSecurity } = input;
  if (sources === undefined) throw new Error("audit input: sources is required (a non-empty array of locations)");
  if (!Array.isArray(sources) || sources.length === 0) {
    throw new Error("audit input: sources must be a non-empty array of locations");
  }
  sources.forEach((s, i) => {
    location(s, `sources[${i}]`);
  });
  const result: AuditInput = {
    sources: [...(sources as string[])],
    bundle: location(bundle, "bundle"),
    out: location(out, "out"),
  };
  if (previous !== undefined) result.previous = location(previous, "previous");
  if (failOn !== undefined) {
    if (typeof failOn !== "string" || !(FAIL_ON as readonly string[]).includes(failOn)) {
      throw new Error(`audit input: failOn must be one of ${FAIL_ON.join(", ")}, not ${JSON.stringify(failOn)}`);
    }
    result.failOn = failOn as FailOn;
  }
  if (podSecurity !== undefined) {
    if (typeof podSecurity !== "string")
      throw new Error("audit input: podSecurity must be a string: <level>[:<version>]");
    result.podSecurity = podSecurity;
  }
  if (input.shard !== undefined) result.shard = parseShardOptions(input.shard);
  return result;
}

function parseShardOptions(v: unknown): ShardOptions {
  if (!isRecord(v)) throw new Error("audit input: shard must be an object: { size?, concurrency? }");
  const unknown = Object.keys(v).filter((k) => !(SHARD_FIELDS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw new Error(
      `audit input: unknown field shard.${unknown.join(", shard.")} (allowed: ${SHARD_FIELDS.join(", ")})`,
    );
  }
  const shard: ShardOptions = {};
  if (v.size !== undefined) shard.size = positiveInt(v.size, "shard.size", 100_000);
  if (v.concurrency !== undefined) shard.concurrency = positiveInt(v.concurrency, "shard.concurrency", 1000);
  return shard;
}

function positiveInt(v: unknown, field: string, max: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > max) {
    throw new Error(`audit input: ${field} must be an integer from 1 to ${max}, not ${JSON.stringify(v)}`);
  }
  return v;
}

/** A shard invocation's input (sent by a coordinator, so checked for shape, not for friendly messages). */
function parseShardInput(event: Record<string, unknown>): ShardInput {
  const { shardOf, parts, bundle, out, previous, failOn, podSecurity, namespaces } = event;
  const ok =
    isRecord(shardOf) &&
    typeof shardOf.runId === "string" &&
    Number.isInteger(shardOf.index) &&
    Number.isInteger(shardOf.of) &&
    Array.isArray(parts) &&
    parts.length > 0 &&
    parts.every(
      (p) =>
        isRecord(p) &&
        typeof p.source === "string" &&
        (p.units === undefined || (Array.isArray(p.units) && p.units.every((u) => typeof u === "string"))),
    );
  if (!ok) throw new Error("shard input: expected { shardOf: { runId, index, of }, parts: [{ source, units? }], ... }");
  const input: ShardInput = {
    shardOf: shardOf as ShardInput["shardOf"],
    parts: parts as ShardPart[],
    bundle: location(bundle, "bundle"),
    out: location(out, "out"),
  };
  input.parts.forEach((p, i) => {
    location(p.source, `parts[${i}].source`);
  });
  if (previous !== undefined) input.previous = location(previous, "previous");
  if (failOn !== undefined) {
    if (typeof failOn !== "string" || !(FAIL_ON as readonly string[]).includes(failOn)) {
      throw new Error(`shard input: failOn must be one of ${FAIL_ON.join(", ")}`);
    }
    input.failOn = failOn as FailOn;
  }
  if (podSecurity !== undefined) {
    if (typeof podSecurity !== "string") throw new Error("shard input: podSecurity must be a string");
    input.podSecurity = podSecurity;
  }
  if (namespaces !== undefined) {
    if (!Array.isArray(namespaces) || !namespaces.every(isRecord)) {
      throw new Error("shard input: namespaces must be an array of Namespace objects");
    }
    input.namespaces = namespaces;
  }
  return input;
}

/**
 * A location field: a non-empty string, not starting with "-" (a location `tollgate audit` could not be given as an
 * argument, since it would read as a flag).
 */
function location(v: unknown, field: string): string {
  if (v === undefined) throw new Error(`audit input: ${field} is required (a local path or s3:// URL)`);
  if (typeof v !== "string" || v.trim() === "") {
    throw new Error(`audit input: ${field} must be a non-empty string (a local path or s3:// URL)`);
  }
  if (v.startsWith("-")) throw new Error(`audit input: ${field} must not start with "-": ${JSON.stringify(v)}`);
  return v;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** package.json beside functions/: the repository's when run from source; a Lambda package has none (0.0.0). */
const PACKAGE_JSON = new URL("../package.json", import.meta.url);

/** The audit configuration of a run's input, resolved as `tollgate audit` resolves its flags. */
function resolveConfig(
  input: Pick<AuditInput, "sources" | "bundle" | "out" | "previous" | "failOn" | "podSecurity">,
  env: Env,
): Readonly<ResolvedAuditConfig> {
  const { sources, bundle, out, previous, failOn, podSecurity } = input;
  try {
    return resolveAuditConfig({ sources, bundle, out, previous, failOn, podSecurity }, env, toolVersion(PACKAGE_JSON));
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`audit input: ${err.message}`, { cause: err });
    throw err;
  }
}

export function createAuditHandler(options: AuditHandlerOptions = {}): AuditHandler {
  const env = options.env ?? process.env;
  const logger = options.logger ?? createLogger();

  /** A shard invocation of a coordinator: audit the shard's parts, write its partial run. */
  async function shard(event: Record<string, unknown>): Promise<ShardResult> {
    const input = parseShardInput(event);
    try {
      const config = resolveConfig({ ...input, sources: input.parts.map((p) => p.source) }, env);
      // The coordinator resolved the what-if level already (resolveConfig checked it again).
      const result = await runShard(input, config);
      logger.info("audit shard finished", { ...input.shardOf, parts: input.parts.length });
      return result;
    } catch (err) {
      logger.error("audit shard failed", { ...input.shardOf, error: errorName(err), reason: reasonOf(err) });
      throw err;
    }
  }

  /** A run: the whole audit here, or (with `shard`) coordinated over shard invocations. */
  async function audit(event: unknown): Promise<AuditSummary> {
    let input: AuditInput | undefined;
    try {
      input = parseAuditInput(event);
      const config = resolveConfig(input, env);
      let run: AuditRunHeader;
      let folder: string;
      let shards: number | undefined;
      if (input.shard === undefined) {
        ({
          run,
          written: { folder },
        } = await executeAudit(config));
      } else {
        ({ run, folder, shards } = await coordinate(config, {
          shard: input.shard,
          invoke: options.invoke ?? lambdaInvoker(env),
        }));
      }
      const summary = summaryOf(config, run, folder, shards);
      logger.info("audit finished", logFields(summary));
      return summary;
    } catch (err) {
      logger.error("audit failed", {
        error: errorName(err),
        reason: reasonOf(err),
        ...(input !== undefined && { out: input.out, sources: input.sources.length }),
      });
      throw err;
    }
  }

  const handler = async (event: unknown, context?: Context): Promise<AuditSummary | ShardResult> => {
    if (context !== undefined) logger.addContext(context);
    return isRecord(event) && "shardOf" in event ? shard(event) : audit(event);
  };
  return handler as AuditHandler;
}

function summaryOf(
  config: Readonly<ResolvedAuditConfig>,
  run: AuditRunHeader,
  written: string,
  shards: number | undefined,
): AuditSummary {
  const outcome = summaryReachesFailOn(run.summary, config.failOn) ? "violations" : "ok";
  return {
    runId: run.runId,
    folder: written.endsWith("/") ? written : `${written}/`,
    status: outcome,
    exitCode: outcome === "ok" ? 0 : 1,
    failOn: config.failOn,
    sources: [...config.sources],
    bundle: config.bundle,
    out: config.out,
    totals: run.summary,
    ...(shards !== undefined && { shards }),
  };
}

/** The run's log line: counts and places, never object content. */
function logFields(summary: AuditSummary): Record<string, unknown> {
  const t = summary.totals;
  return {
    runId: summary.runId,
    folder: summary.folder,
    status: summary.status,
    exitCode: summary.exitCode,
    failOn: summary.failOn,
    sources: summary.sources.length,
    documents: t.documents,
    objects: t.objects,
    valid: t.valid,
    invalid: t.invalid,
    skippedUncovered: t.skippedUncovered,
    skippedNotKubernetes: t.skippedNotKubernetes,
    inputErrors: t.inputErrors,
    findings: t.findings,
    durationMs: t.durationMs,
    ...(summary.shards !== undefined && { shards: summary.shards }),
  };
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The scheduled run: input from the event, configuration from `process.env`. */
silenceSdkNodeVersionWarning();
export const handler: AuditHandler = createAuditHandler();
