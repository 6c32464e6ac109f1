/**
 * The audit configuration: what a caller asked for (flags, or the scheduled Lambda's input) and the `TOLLGATE_*`
 * environment → a frozen {@link ResolvedAuditConfig}. Pure: nothing is read but the arguments. Used by
 * `tollgate audit` (audit/cli/audit-args.ts) and the scheduled Lambda (functions/audit.ts).
 *
 * Precedence, highest first: the option, then the environment variable, then the built-in default.
 *
 * | variable                | option           | default    |
 * |-------------------------|------------------|------------|
 * | TOLLGATE_BUNDLE         | bundle           | (required) |
 * | TOLLGATE_AUDIT_OUT      | out              | reports    |
 * | TOLLGATE_FAIL_ON        | failOn           | violation  |
 * | TOLLGATE_CONCURRENCY    | concurrency      | 8          |
 * | TOLLGATE_TEAM_KEYS (or TOLLGATE_OWNER_LABELS) | ownerLabels (--team-keys, --owner-labels) | app.kubernetes.io/part-of,team,owner (label, else annotation, keys naming the team) |
 * | TOLLGATE_MAX_JSON_BYTES | maxJsonBytes     | 512Mi (larger JSON files are streamed) |
 * | TOLLGATE_MAX_DOCUMENT_BYTES | maxDocumentBytes | 8Mi: the per-document limit of every input path and policy document |
 * | TOLLGATE_WORKERS        | workers          | auto (auditing threads, the main one included, for large inputs; 0 or 1: one thread) |
 * | TOLLGATE_S3_ENDPOINT    | s3Endpoint       | AWS S3     |
 * | TOLLGATE_S3_PATH_STYLE  | s3PathStyle      | on with an endpoint, off for AWS S3 |
 * | TOLLGATE_AS             | as               | tollgate-audit (the user of each object's synthetic request) |
 * | TOLLGATE_AS_GROUPS      | asGroups         | system:authenticated (its groups, comma-separated) |
 * | TOLLGATE_S3_TIMEOUT     | (none)           | 30s: how long one S3 request may stay silent before it is retried (3 attempts) |
 * | TOLLGATE_POD_SECURITY   | podSecurity      | none (each namespace's own Pod Security levels) |
 * | TOLLGATE_WAIVERS        | waivers          | none (only the bundle's own Waivers) |
 * | TOLLGATE_WARN_EXPIRY    | warnExpiry       | 14 (days: waivers expiring sooner are listed) |
 *
 * S3 credentials and region come from the AWS SDK's default chains (AWS_ACCESS_KEY_ID, AWS_REGION, profiles, roles).
 */
import { type BundleOptions, parsePodSecurityLevel, type UserInfo } from "#lib";
import { ConfigError } from "#lib/errors.js";
import type { S3Options } from "#lib/storage";
import { FAIL_ON, type FailOn } from "./model.js";
import { REPORT_FORMATS } from "./report/index.js";
import { DOCUMENT_LIMIT_SETTING } from "./sources/decode.js";

export type Env = Readonly<Record<string, string | undefined>>;

/** What a caller asks for, as typed: every value is checked and defaulted by {@link resolveAuditConfig}. */
export interface AuditOptions {
  /** A folder, a single file, or `s3://bucket/prefix`. */
  bundle?: string;
  /** Files, folders, archives and `s3://` locations, in order. */
  sources: readonly string[];
  out?: string;
  /** Report formats, comma-separated. Default: all. */
  format?: string;
  previous?: string;
  compareWith?: string;
  policiesFromInput?: boolean;
  failOn?: string;
  concurrency?: string;
  /** Label (else annotation) keys naming the team, comma-separated. */
  ownerLabels?: string;
  /** Bytes, or with Ki, Mi or Gi. */
  maxJsonBytes?: string;
  /** Bytes, or with Ki, Mi or Gi: the per-document limit. */
  maxDocumentBytes?: string;
  /** `auto` or a whole number. */
  workers?: string;
  s3Endpoint?: string;
  s3PathStyle?: boolean;
  /** The user the synthetic admission request of each object is made as (admission policies' request.userInfo). */
  as?: string;
  /** Its groups. */
  asGroups?: readonly string[];
  /** `<level>[:<version>]`: the what-if Pod Security enforce level. */
  podSecurity?: string;
  /** Waivers beside the bundle's: a file, a folder or `s3://bucket/prefix`. */
  waivers?: string;
  /** Days: waivers expiring within them are listed as expiring. */
  warnExpiry?: string;
}

export interface ResolvedAuditConfig {
  bundle: string;
  sources: readonly string[];
  /** Report prefix: a folder or `s3://bucket/prefix`. */
  out: string;
  /** Report formats to write (all by default); see audit/report/index.ts. */
  formats: readonly string[];
  previous?: string;
  /** A report.json to compare with; default: the latest run at `out`. */
  compareWith?: string;
  policiesFromInput: boolean;
  failOn: FailOn;
  concurrency: number;
  ownerLabels: readonly string[];
  /** JSON files up to this size are parsed whole; larger `kind: List` files are streamed item by item. */
  maxJsonBytes?: number;
  /**
   * The per-document limit (audit/sources/decode.ts): the largest YAML document, JSON text that is not a List, List
   * item and policy document. Default lib's DEFAULT_MAX_DOCUMENT_BYTES (8 MiB).
   */
  maxDocumentBytes?: number;
  /**
   * Threads that decode and validate, the main thread included (n - 1 worker threads beside it): a number (0 or 1:
   * everything on the main thread), or `auto` (the default: `os.availableParallelism()`, at most 8, when the local
   * input is large enough to pay for starting workers; see audit/workers/auto.ts).
   */
  workers: number | "auto";
  /** How `s3://` sources, bundles and report prefixes are reached (endpoint, path style); empty for AWS S3. */
  s3: Readonly<S3Options>;
  /**
   * The user each object's synthetic admission request is made as (`--as`, `--as-group`): what admission policies
   * see as `request.userInfo` and ask their authorizer about.
   */
  user: Readonly<UserInfo>;
  /**
   * `<level>:<version>` (`restricted:latest`): every Pod and workload is evaluated as if its namespace enforced this
   * Pod Security level ("what would break"); lib's BundleOptions.podSecurity.enforce. Absent: the namespaces' own.
   */
  podSecurity?: string;
  /**
   * Waiver files beside the bundle's own Waivers (a file, a folder or `s3://bucket/prefix`): every document there
   * must be a `tollgate.dev/v1alpha1` `Waiver`. Absent: the bundle's alone.
   */
  waivers?: string;
  /** Waivers expiring within this many days are listed as expiring (0 to 3650). */
  warnExpiryDays: number;
  toolVersion: string;
}

const DEFAULT_CONCURRENCY = 8;

/**
 * The keys that name an object's team when no others are configured, in order of preference: each is looked up as a
 * label, then as an annotation (audit/findings.ts teamOf).
 */
export const DEFAULT_OWNER_LABELS: readonly string[] = ["app.kubernetes.io/part-of", "team", "owner"];

/** The user of an audit's synthetic requests when none is given: an authenticated user of no special standing. */
export const DEFAULT_AUDIT_USER = "tollgate-audit";
export const DEFAULT_AUDIT_GROUPS: readonly string[] = ["system:authenticated"];

/** The most auditing threads `workers` takes. */
const MAX_WORKERS = 64;

/**
 * Resolves an audit's configuration; see the table at the top of this file for the precedence and defaults.
 *
 * @param toolVersion recorded in the reports
 * @throws ConfigError naming the flag (or variable) whose value is wrong, or the missing bundle
 */
export function resolveAuditConfig(
  options: AuditOptions,
  env: Env,
  toolVersion: string,
): Readonly<ResolvedAuditConfig> {
  const bundle = text(options.bundle) ?? text(env.TOLLGATE_BUNDLE);
  if (bundle === undefined) throw new ConfigError("--bundle <path> is required (or set TOLLGATE_BUNDLE)");
  const failOn = text(options.failOn) ?? text(env.TOLLGATE_FAIL_ON) ?? "violation";
  if (!(FAIL_ON as readonly string[]).includes(failOn)) {
    throw new ConfigError(`--fail-on must be one of ${FAIL_ON.join(", ")}, not ${JSON.stringify(failOn)}`);
  }
  const ownerRaw = text(options.ownerLabels) ?? text(env.TOLLGATE_TEAM_KEYS) ?? text(env.TOLLGATE_OWNER_LABELS);
  const config: ResolvedAuditConfig = {
    bundle,
    sources: Object.freeze([...options.sources]),
    out: text(options.out) ?? text(env.TOLLGATE_AUDIT_OUT) ?? "reports",
    formats: Object.freeze(formatList(text(options.format))),
    policiesFromInput: options.policiesFromInput === true,
    failOn: failOn as FailOn,
    concurrency: concurrencyOf(text(options.concurrency) ?? text(env.TOLLGATE_CONCURRENCY)),
    ownerLabels: Object.freeze(ownerRaw === undefined ? [...DEFAULT_OWNER_LABELS] : commaList(ownerRaw)),
    workers: workerCount(text(options.workers) ?? text(env.TOLLGATE_WORKERS) ?? "auto"),
    s3: resolveS3(options, env),
    user: auditUser(options, env),
    warnExpiryDays: warnExpiryDays(text(options.warnExpiry) ?? text(env.TOLLGATE_WARN_EXPIRY)),
    toolVersion,
  };
  const maxJsonRaw = text(options.maxJsonBytes) ?? text(env.TOLLGATE_MAX_JSON_BYTES);
  if (maxJsonRaw !== undefined) config.maxJsonBytes = byteSize(maxJsonRaw, "--max-json-bytes");
  const maxDocumentBytes = documentBytesOf(options.maxDocumentBytes, env);
  if (maxDocumentBytes !== undefined) config.maxDocumentBytes = maxDocumentBytes;
  const previous = text(options.previous);
  if (previous !== undefined) config.previous = previous;
  const compareWith = text(options.compareWith);
  if (compareWith !== undefined) config.compareWith = compareWith;
  const podSecurity = text(options.podSecurity) ?? text(env.TOLLGATE_POD_SECURITY);
  if (podSecurity !== undefined) config.podSecurity = podSecurityLevel(podSecurity);
  const waivers = text(options.waivers) ?? text(env.TOLLGATE_WAIVERS);
  if (waivers !== undefined) config.waivers = waivers;
  return Object.freeze(config);
}

/** Waivers expiring within this many days are listed as expiring, when no other number is given. */
export const DEFAULT_WARN_EXPIRY_DAYS = 14;

/** Whole days from 0 to 3650 (`14`, or `14d`). */
function warnExpiryDays(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_WARN_EXPIRY_DAYS;
  const m = /^([0-9]{1,4})d?$/.exec(raw.trim());
  const n = m === null ? Number.NaN : Number(m[1]);
  if (!(n >= 0 && n <= 3650)) {
    throw new ConfigError(
      `--warn-expiry must be whole days from 0 to 3650 (14), not ${JSON.stringify(raw)} (flag or TOLLGATE_WARN_EXPIRY)`,
    );
  }
  return n;
}

function auditUser(options: AuditOptions, env: Env): Readonly<UserInfo> {
  const username = text(options.as) ?? text(env.TOLLGATE_AS) ?? DEFAULT_AUDIT_USER;
  const fromEnv = text(env.TOLLGATE_AS_GROUPS);
  const groups =
    options.asGroups !== undefined && options.asGroups.length > 0
      ? [...options.asGroups]
      : fromEnv !== undefined
        ? commaList(fromEnv)
        : [...DEFAULT_AUDIT_GROUPS];
  return Object.freeze({ username, groups: Object.freeze(groups) as string[] });
}

/** `<level>[:<version>]` as `<level>:<version>` (the version `latest` when left out). */
function podSecurityLevel(raw: string): string {
  const parsed = parsePodSecurityLevel(raw);
  if (typeof parsed === "string") {
    throw new ConfigError(
      `--pod-security must be <level>[:<version>] (privileged, baseline or restricted; latest or v1.x): ${parsed}`,
    );
  }
  return `${parsed.level}:${parsed.version.text}`;
}

function concurrencyOf(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_CONCURRENCY;
  if (!/^[1-9][0-9]{0,3}$/.test(raw)) {
    throw new ConfigError(`--concurrency must be an integer from 1 to 9999, not ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

/** The selected formats in the registry's order; all when none is named. */
function formatList(raw: string | undefined): string[] {
  if (raw === undefined) return [...REPORT_FORMATS];
  const list = commaList(raw);
  const unknown = list.filter((f) => !REPORT_FORMATS.includes(f));
  if (list.length === 0 || unknown.length > 0) {
    throw new ConfigError(
      `--format takes a comma-separated list of ${REPORT_FORMATS.join(", ")}; unknown: ${JSON.stringify(unknown.join(",") || raw)}`,
    );
  }
  return REPORT_FORMATS.filter((f) => list.includes(f));
}

function commaList(raw: string): string[] {
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** The S3 endpoint (an http or https URL) and path style, option over environment. */
/** The S3 settings of `--s3-endpoint`, `--[no-]s3-path-style` and their environment (audit and verify). */
export function resolveS3(options: Pick<AuditOptions, "s3Endpoint" | "s3PathStyle">, env: Env): Readonly<S3Options> {
  const endpoint = text(options.s3Endpoint) ?? text(env.TOLLGATE_S3_ENDPOINT);
  const s3: S3Options = {};
  if (endpoint !== undefined) {
    if (!isHttpUrl(endpoint)) {
      throw new ConfigError(
        `--s3-endpoint must be an http:// or https:// URL, not ${JSON.stringify(endpoint)} (flag or TOLLGATE_S3_ENDPOINT)`,
      );
    }
    s3.endpoint = endpoint;
  }
  if (typeof options.s3PathStyle === "boolean") {
    s3.pathStyle = options.s3PathStyle;
  } else {
    const raw = text(env.TOLLGATE_S3_PATH_STYLE)?.toLowerCase();
    if (raw !== undefined) {
      if (raw !== "true" && raw !== "false") {
        throw new ConfigError(`TOLLGATE_S3_PATH_STYLE must be true or false, not ${JSON.stringify(raw)}`);
      }
      s3.pathStyle = raw === "true";
    }
  }
  const timeout = text(env.TOLLGATE_S3_TIMEOUT);
  if (timeout !== undefined) s3.requestTimeoutMs = seconds(timeout, "TOLLGATE_S3_TIMEOUT") * 1000;
  return Object.freeze(s3);
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** `auto`, or a whole number from 0 to {@link MAX_WORKERS}. */
function workerCount(raw: string): number | "auto" {
  const v = raw.trim().toLowerCase();
  if (v === "auto") return "auto";
  if (/^[0-9]{1,3}$/.test(v) && Number(v) <= MAX_WORKERS) return Number(v);
  throw new ConfigError(
    `--workers must be auto or a whole number from 0 to ${MAX_WORKERS}, not ${JSON.stringify(raw)} (flag or TOLLGATE_WORKERS)`,
  );
}

const UNITS: Readonly<Record<string, number>> = {
  "": 1,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
};

/**
 * The per-document limit of `--max-document-bytes` (the flag's value, `raw`), else TOLLGATE_MAX_DOCUMENT_BYTES; undefined
 * when neither is set (lib's default then).
 *
 * @throws ConfigError naming the flag or the variable whose value is wrong
 */
export function documentBytesOf(raw: string | undefined, env: Env): number | undefined {
  const flag = text(raw);
  if (flag !== undefined) return byteSize(flag, "--max-document-bytes");
  const fromEnv = text(env.TOLLGATE_MAX_DOCUMENT_BYTES);
  return fromEnv === undefined ? undefined : byteSize(fromEnv, "TOLLGATE_MAX_DOCUMENT_BYTES");
}

/** The bundle's document bounds for a configured per-document limit: its error texts name the setting. */
export function bundleLimitsOf(maxDocumentBytes: number | undefined): NonNullable<BundleOptions["limits"]> {
  return {
    ...(maxDocumentBytes !== undefined && { documentBytes: maxDocumentBytes }),
    documentBytesSetting: DOCUMENT_LIMIT_SETTING,
  };
}

/** `1048576`, `64Mi`, `1GiB`: a whole number of bytes from 1 to 2^53 - 1 (flags and TOLLGATE_MAX_INPUT_BYTES). */
export function byteSize(raw: string, flag: string): number {
  const m = /^([0-9]{1,16})(|Ki|Mi|Gi|KiB|MiB|GiB)$/.exec(raw.trim());
  const n = m === null ? Number.NaN : Number(m[1]) * UNITS[m[2]!]!;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new ConfigError(
      `${flag} must be a size in bytes, optionally with Ki, Mi or Gi (64Mi), not ${JSON.stringify(raw)}`,
    );
  }
  return n;
}

/** Whole seconds, `30` or `30s`, from 1 to 3600. */
function seconds(raw: string, name: string): number {
  const m = /^([0-9]{1,4})s?$/.exec(raw.trim());
  const n = m === null ? Number.NaN : Number(m[1]);
  if (!(n >= 1 && n <= 3600))
    throw new ConfigError(`${name} must be whole seconds from 1 to 3600 (30s), not ${JSON.stringify(raw)}`);
  return n;
}

/** A non-empty string, else undefined (an empty flag or variable counts as not given). */
function text(v: string | undefined): string | undefined {
  return v === undefined || v === "" ? undefined : v;
}
