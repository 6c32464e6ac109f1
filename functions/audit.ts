/**
 * The scheduled auditor Lambda (serverless.yml: `functions/audit.handler`, an EventBridge `schedule` event). Its
 * input, the event itself (EventBridge `input`) or `event.detail`:
 *
 *   { sources: string[], bundle: string, out: string, previous?: string, failOn?: "violation"|"warning"|"never" }
 *
 * Locations are local paths or s3:// URLs. The input becomes the argv of `tollgate audit` and goes through the CLI's
 * own parser and command (audit/cli/args.ts parseArgs, audit/cli/commands/audit.ts executeAudit): the same
 * pipeline, the same defaults and the same TOLLGATE_* environment (TOLLGATE_S3_ENDPOINT, TOLLGATE_S3_PATH_STYLE,
 * TOLLGATE_CONCURRENCY, TOLLGATE_OWNER_LABELS).
 *
 * Outcomes: findings that reach `failOn` are not a Lambda error (the report is the product): the returned summary
 * says `status: "violations"`, `exitCode: 1`. A bad input, a configuration error, a storage or internal error throws,
 * so the invocation fails visibly (CloudWatch, the schedule's retry and failure metrics). One structured log line
 * per run: the totals, the run folder and the status; never object content or credentials.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Logger } from "@aws-lambda-powertools/logger";
import type { LogAttributes } from "@aws-lambda-powertools/logger/types";
import type { Context } from "aws-lambda";
import { parseArgs } from "../audit/cli/args.js";
import type { ResolvedAuditConfig } from "../audit/cli/audit-args.js";
import { executeAudit } from "../audit/cli/commands/audit.js";
import { type AuditRunHeader, type FailOn, type Summary, summaryReachesFailOn } from "../audit/model.js";
import {
  coordinate,
  lambdaInvoker,
  runShard,
  type ShardInput,
  type ShardInvoker,
  type ShardOptions,
  type ShardPart,
  type ShardResult,
} from "./audit-shards.js";

const FAIL_ON: readonly FailOn[] = ["violation", "warning", "never"];
const INPUT_FIELDS = ["sources", "bundle", "out", "previous", "failOn", "shard"] as const;
const SHARD_FIELDS = ["size", "concurrency"] as const;

/** The validated input of one run. */
export interface AuditInput {
  sources: string[];
  bundle: string;
  out: string;
  previous?: string;
  failOn?: FailOn;
  /** Sharded mode (functions/audit-shards.ts): this run coordinates one invocation of the function per shard. */
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

export interface AuditLogger {
  info(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
  addContext(context: Context): void;
}

export interface AuditHandlerOptions {
  /** Where TOLLGATE_* variables are read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
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
  const { sources, bundle, out, previous, failOn } = input;
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
export function parseShardInput(event: Record<string, unknown>): ShardInput {
  const { shardOf, parts, bundle, out, previous, failOn } = event;
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
  return input;
}

/** A location field: a non-empty string, not starting with "-" (it becomes an argument of `tollgate audit`). */
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

/** The argv of the equivalent `tollgate audit` command. */
export function auditArgv(input: AuditInput): string[] {
  const argv = ["audit", "--bundle", input.bundle, "--out", input.out];
  if (input.failOn !== undefined) argv.push("--fail-on", input.failOn);
  if (input.previous !== undefined) argv.push("--previous", input.previous);
  argv.push("--", ...input.sources);
  return argv;
}

function resolveConfig(input: AuditInput, env: Readonly<Record<string, string | undefined>>): ResolvedAuditConfig {
  const args = parseArgs(auditArgv(input), env, toolVersion());
  if (args.kind === "usage-error") throw new Error(`audit input: ${args.message.trim()}`);
  if (args.kind !== "audit") throw new Error(`internal error: parsed as ${args.kind}, not audit`);
  return args.config;
}

export function createAuditHandler(options: AuditHandlerOptions = {}): AuditHandler {
  const env = options.env ?? process.env;
  const logger = options.logger ?? powertoolsLogger();
  const handler = async (event: unknown, context?: Context): Promise<AuditSummary | ShardResult> => {
    if (context !== undefined) logger.addContext(context);
    if (isRecord(event) && "shardOf" in event) {
      const shard = parseShardInput(event);
      try {
        const config = resolveConfig({ ...shard, sources: shard.parts.map((p) => p.source) }, env);
        const result = await runShard(shard, config);
        logger.info("audit shard finished", { ...shard.shardOf, parts: shard.parts.length });
        return result;
      } catch (err) {
        logger.error("audit shard failed", {
          ...shard.shardOf,
          error: err instanceof Error ? err.name : typeof err,
          reason: err instanceof Error ? err.message : String(err),
        });
        throw err;
      }
    }
    let input: AuditInput | undefined;
    try {
      input = parseAuditInput(event);
      const config = resolveConfig(input, env);

      let outcome: "ok" | "violations";
      let run: AuditRunHeader;
      let written: string;
      let shards: number | undefined;
      if (input.shard !== undefined) {
        const invoke = options.invoke ?? lambdaInvoker(env);
        const done = await coordinate(config, { shard: input.shard, invoke });
        run = done.run;
        written = done.folder;
        shards = done.shards;
        outcome = summaryReachesFailOn(run.summary, config.failOn) ? "violations" : "ok";
      } else {
        ({
          outcome,
          run,
          folder: written,
        } = await executeAudit(config, {
          stdout: () => {},
          stderr: () => {},
          stdin: process.stdin,
          isTty: false,
        }));
      }
      const folder = written.endsWith("/") ? written : `${written}/`;
      const summary: AuditSummary = {
        runId: run.runId,
        folder,
        status: outcome,
        exitCode: outcome === "ok" ? 0 : 1,
        failOn: config.failOn,
        sources: [...config.sources],
        bundle: config.bundle,
        out: config.out,
        totals: run.summary,
        ...(shards !== undefined && { shards }),
      };
      const t = summary.totals;
      logger.info("audit finished", {
        runId: summary.runId,
        folder,
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
        ...(shards !== undefined && { shards }),
      });
      return summary;
    } catch (err) {
      logger.error("audit failed", {
        error: err instanceof Error ? err.name : typeof err,
        reason: err instanceof Error ? err.message : String(err),
        ...(input !== undefined && { out: input.out, sources: input.sources.length }),
      });
      throw err;
    }
  };
  return handler as AuditHandler;
}

let version: string | undefined;

/** package.json's version when it is next to functions/ (the repository), else 0.0.0 (the Lambda zip). */
function toolVersion(): string {
  if (version !== undefined) return version;
  version = "0.0.0";
  try {
    const pkg: unknown = JSON.parse(
      readFileSync(join(new URL("..", import.meta.url).pathname, "package.json"), "utf8"),
    );
    const v = (pkg as { version?: unknown }).version;
    if (typeof v === "string") version = v;
  } catch {
    // not shipped in the package
  }
  return version;
}

function powertoolsLogger(): AuditLogger {
  const logger = new Logger({ serviceName: "tollgate" });
  return {
    info: (message, attributes = {}) => logger.info(message, attributes as LogAttributes),
    error: (message, attributes = {}) => logger.error(message, attributes as LogAttributes),
    addContext: (context) => logger.addContext(context),
  };
}

/** The scheduled run: input from the event, configuration from `process.env`. */
export const handler: AuditHandler = createAuditHandler();
