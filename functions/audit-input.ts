/**
 * The input of a scheduled audit, one shape for both ways it runs (serverless.yml): the plain auditor Lambda
 * (functions/audit.ts) and the sharded audit's state machine, whose plan step reads it (functions/audit-steps.ts):
 *
 *   { sources: string[], bundle: string, out: string, previous?: string, failOn?: "violation"|"warning"|"audit"|"never",
 *     podSecurity?: "<level>[:<version>]", waivers?: string, warnExpiry?: number, shard?: { size?, bytes?, concurrency?, toleratedFailurePercentage? } }
 *
 * and the audit configuration made from it: the input and the `TOLLGATE_*` environment, resolved by audit/config.ts
 * as `tollgate audit`'s flags are.
 */
import { ConfigError, TOLLGATE_VERSION } from "#lib";
import { type Env, type ResolvedAuditConfig, resolveAuditConfig } from "../audit/config.js";
import { FAIL_ON, type FailOn } from "../audit/model.js";

const INPUT_FIELDS = [
  "sources",
  "bundle",
  "out",
  "previous",
  "failOn",
  "podSecurity",
  "waivers",
  "warnExpiry",
  "shard",
] as const;
const SHARD_FIELDS = ["size", "bytes", "concurrency", "toleratedFailurePercentage"] as const;

/** The sharded audit's settings for one run (each over its TOLLGATE_SHARD_* default: functions/audit-steps.ts). */
export interface ShardSettings {
  /** Most units (files, objects, archives) in one shard. */
  size?: number;
  /** Bytes one shard should read, on average. */
  bytes?: number;
  /** Shards audited at once (the Distributed Map's MaxConcurrency). */
  concurrency?: number;
  /** Percentage of shards that may fail, their units reported as not audited (the Map's ToleratedFailurePercentage). */
  toleratedFailurePercentage?: number;
}

/** The validated input of one run. */
export interface AuditInput {
  sources: string[];
  bundle: string;
  out: string;
  previous?: string;
  failOn?: FailOn;
  /** `<level>[:<version>]`: the what-if Pod Security enforce level (`tollgate audit --pod-security`). */
  podSecurity?: string;
  /** Waivers beside the bundle's (`tollgate audit --waivers`): a file, a folder or an s3:// location. */
  waivers?: string;
  /** Days: waivers expiring within them are listed as expiring (`--warn-expiry`; default 14). */
  warnExpiry?: number;
  /** The sharded audit's settings (the state machine's input only). */
  shard?: ShardSettings;
}

/** Bounds of the shard settings. */
const SHARD_BOUNDS: Readonly<Record<keyof ShardSettings, { min: number; max: number }>> = {
  size: { min: 1, max: 10_000 },
  bytes: { min: 1, max: 2 ** 40 },
  concurrency: { min: 1, max: 10_000 },
  toleratedFailurePercentage: { min: 0, max: 100 },
};

/**
 * The run's input: `event.detail` when the event is an EventBridge event (it has `detail-type` and an object
 * `detail`), else the event itself (a schedule's constant `input`, or a state machine's execution input).
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
  const { sources, bundle, out, previous, failOn, podSecurity, waivers, warnExpiry } = input;
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
  if (failOn !== undefined) result.failOn = failOnOf(failOn, "audit input: failOn");
  if (podSecurity !== undefined) {
    if (typeof podSecurity !== "string")
      throw new Error("audit input: podSecurity must be a string: <level>[:<version>]");
    result.podSecurity = podSecurity;
  }
  if (waivers !== undefined) result.waivers = location(waivers, "waivers");
  if (warnExpiry !== undefined) result.warnExpiry = warnExpiryOf(warnExpiry, "audit input: warnExpiry");
  if (input.shard !== undefined) result.shard = parseShardSettings(input.shard);
  return result;
}

function parseShardSettings(v: unknown): ShardSettings {
  if (!isRecord(v)) throw new Error(`audit input: shard must be an object: { ${SHARD_FIELDS.join("?, ")}? }`);
  const unknown = Object.keys(v).filter((k) => !(SHARD_FIELDS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw new Error(
      `audit input: unknown field shard.${unknown.join(", shard.")} (allowed: ${SHARD_FIELDS.join(", ")})`,
    );
  }
  const shard: ShardSettings = {};
  for (const field of SHARD_FIELDS) {
    const value = v[field];
    if (value === undefined) continue;
    const { min, max } = SHARD_BOUNDS[field];
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      throw new Error(
        `audit input: shard.${field} must be an integer from ${min} to ${max}, not ${JSON.stringify(value)}`,
      );
    }
    shard[field] = value;
  }
  return shard;
}

/** `warnExpiry` checked: whole days (audit/config.ts bounds them). */
export function warnExpiryOf(v: unknown, what: string): number {
  if (typeof v !== "number" || !Number.isInteger(v)) {
    throw new Error(`${what} must be a whole number of days, not ${JSON.stringify(v)}`);
  }
  return v;
}

/** `failOn` checked. */
export function failOnOf(v: unknown, what: string): FailOn {
  if (typeof v !== "string" || !(FAIL_ON as readonly string[]).includes(v)) {
    throw new Error(`${what} must be one of ${FAIL_ON.join(", ")}, not ${JSON.stringify(v)}`);
  }
  return v as FailOn;
}

/**
 * A location field: a non-empty string, not starting with "-" (a location `tollgate audit` could not be given as an
 * argument, since it would read as a flag).
 */
export function location(v: unknown, field: string): string {
  if (v === undefined) throw new Error(`audit input: ${field} is required (a local path or s3:// URL)`);
  if (typeof v !== "string" || v.trim() === "") {
    throw new Error(`audit input: ${field} must be a non-empty string (a local path or s3:// URL)`);
  }
  if (v.startsWith("-")) throw new Error(`audit input: ${field} must not start with "-": ${JSON.stringify(v)}`);
  return v;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The audit configuration of a run's input, resolved as `tollgate audit` resolves its flags. */
export function resolveInputConfig(
  input: Pick<
    AuditInput,
    "sources" | "bundle" | "out" | "previous" | "failOn" | "podSecurity" | "waivers" | "warnExpiry"
  >,
  env: Env,
): Readonly<ResolvedAuditConfig> {
  const { sources, bundle, out, previous, failOn, podSecurity, waivers, warnExpiry } = input;
  const options = { sources, bundle, out, previous, failOn, podSecurity, waivers };
  try {
    return resolveAuditConfig(
      warnExpiry === undefined ? options : { ...options, warnExpiry: String(warnExpiry) },
      env,
      TOLLGATE_VERSION,
    );
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`audit input: ${err.message}`, { cause: err });
    throw err;
  }
}
