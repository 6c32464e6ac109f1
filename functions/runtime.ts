/**
 * Cold-start state of the webhook Lambda: the process configuration resolved once from environment variables, the
 * logger, and the PolicySet, whose load starts when this module is imported and is awaited by the handler (the
 * load overlaps the init phase, yet a slow load never blows the init timeout). A loaded bundle is kept for the
 * container's life; a failed load is forgotten so the next invocation retries it (an S3 outage must not poison a
 * warm container), except for a configuration error, which no retry can fix.
 */
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type BundleOptions, ConfigError, type FailurePolicy, loadBundle, type PolicySet, readBundleFiles } from "#lib";
import { bundleLimitsOf, documentBytesOf } from "../audit/config.js";
import { boundedLogger, createLogger, errorName, type FunctionLogger } from "./logger.js";

/** The process configuration of the webhook, after defaults. Frozen. */
export interface ResolvedEnvConfig {
  /** A folder, a file, a bundle artifact or `s3://bucket/key` / `s3://bucket/prefix/`; local paths absolute. */
  readonly bundle: string;
  /** The bearer token `/validate` requires, and `/healthz` requires for its details; undefined = no auth. */
  readonly token: string | undefined;
  /** Over the bundle's tollgate.yaml; undefined = the bundle's (default Fail). */
  readonly failurePolicy: FailurePolicy | undefined;
  /**
   * Largest request body in bytes (after base64 decoding): a limit per request, as kube-apiserver's, not the
   * per-document limit of the bundle's documents (`maxDocumentBytes`).
   */
  readonly maxBodyBytes: number;
  /** The per-document limit of the bundle's documents (audit/sources/decode.ts); undefined = lib's default, 8 MiB. */
  readonly maxDocumentBytes: number | undefined;
  /** Deepest nesting of the request body's JSON. */
  readonly maxDepth: number;
  /** An S3-compatible endpoint for `s3://` bundles (s3rver, MinIO); undefined = AWS. */
  readonly s3Endpoint: string | undefined;
  /** Waiver files beside the bundle's own Waivers (a file, a folder or an s3:// location); undefined = none. */
  readonly waivers: string | undefined;
}

/** The bundle served when TOLLGATE_BUNDLE is not set: the examples shipped in the Lambda package. */
const DEFAULT_BUNDLE = "examples/policies";
/** kube-apiserver's request body limit (3 MiB). */
const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;
/** The decoder's default depth (lib/objects/limits.ts). */
const DEFAULT_MAX_DEPTH = 128;

/**
 * The folder holding functions/: the repository when run from source, the unpacked zip in Lambda, the esbuild
 * output folder under serverless offline (which copies `package.patterns` there). Not LAMBDA_TASK_ROOT, which
 * serverless offline sets to /var/task. In the CommonJS bundle, import.meta.url is defined from __filename
 * (serverless.yml, custom.esbuild.banner).
 */
const PACKAGE_ROOT = fileURLToPath(new URL("..", import.meta.url));

type Env = Readonly<Record<string, string | undefined>>;

function nonEmpty(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === "" ? undefined : v;
}

function positiveInteger(env: Env, name: string, fallback: number, max: number): number {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new ConfigError(`${name}=${JSON.stringify(raw)} is not a whole number between 1 and ${max}`);
  }
  return Number(raw);
}

/**
 * Resolves the webhook's configuration from environment variables, once, at cold start. Precedence: the
 * environment variable, then (for the failure policy) the bundle's tollgate.yaml, then the built-in default.
 *
 * - `TOLLGATE_BUNDLE`: default {@link DEFAULT_BUNDLE}; a relative path is resolved against the package root
 *   ({@link PACKAGE_ROOT}).
 * - `TOLLGATE_TOKEN`: default none (no auth).
 * - `TOLLGATE_FAILURE_POLICY`: `Fail` or `Ignore`; default the bundle's.
 * - `TOLLGATE_MAX_BODY_BYTES`: default 3 MiB. `TOLLGATE_MAX_DEPTH`: default 128.
 * - `TOLLGATE_MAX_DOCUMENT_BYTES`: the bundle's per-document limit, as the auditor's; default 8 MiB.
 * - `TOLLGATE_S3_ENDPOINT`: an http(s) URL; default none (AWS).
 * - `TOLLGATE_WAIVERS`: Waiver documents beside the bundle's (a file, a folder or an s3:// location; a relative path
 *   is resolved as the bundle's is); default none.
 *
 * @throws ConfigError naming the variable whose value is wrong
 */
export function resolveEnvConfig(env: Env): ResolvedEnvConfig {
  const bundle = locationOf("TOLLGATE_BUNDLE", nonEmpty(env, "TOLLGATE_BUNDLE") ?? DEFAULT_BUNDLE);
  const waiversRaw = nonEmpty(env, "TOLLGATE_WAIVERS");

  const policy = nonEmpty(env, "TOLLGATE_FAILURE_POLICY");
  if (policy !== undefined && policy !== "Fail" && policy !== "Ignore") {
    throw new ConfigError(`TOLLGATE_FAILURE_POLICY=${JSON.stringify(policy)} is not Fail or Ignore`);
  }

  const s3Endpoint = nonEmpty(env, "TOLLGATE_S3_ENDPOINT");
  if (s3Endpoint !== undefined) {
    let ok = false;
    try {
      const u = new URL(s3Endpoint);
      ok = u.protocol === "http:" || u.protocol === "https:";
    } catch {
      ok = false;
    }
    if (!ok) throw new ConfigError(`TOLLGATE_S3_ENDPOINT=${JSON.stringify(s3Endpoint)} is not an http(s) URL`);
  }

  return Object.freeze({
    bundle,
    token: nonEmpty(env, "TOLLGATE_TOKEN"),
    failurePolicy: policy,
    maxBodyBytes: positiveInteger(env, "TOLLGATE_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES, 64 * 1024 * 1024),
    maxDepth: positiveInteger(env, "TOLLGATE_MAX_DEPTH", DEFAULT_MAX_DEPTH, 10_000),
    maxDocumentBytes: documentBytesOf(undefined, env),
    s3Endpoint,
    waivers: waiversRaw === undefined ? undefined : locationOf("TOLLGATE_WAIVERS", waiversRaw),
  });
}

/** A local path (made absolute against the package root) or an s3:// URL, as a variable gives it. */
function locationOf(name: string, raw: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    if (!raw.startsWith("s3://") || raw.length <= "s3://".length) {
      throw new ConfigError(`${name}=${JSON.stringify(raw)}: only local paths and s3:// URLs are supported`);
    }
    return raw;
  }
  return isAbsolute(raw) ? raw : resolve(PACKAGE_ROOT, raw);
}

export interface Runtime {
  readonly config: ResolvedEnvConfig;
  readonly logger: FunctionLogger;
  /** The PolicySet, loading it (again, after a failed load) when needed. */
  policySet(): Promise<PolicySet>;
  /** The loaded PolicySet, or undefined while loading or after a failure. */
  loaded(): PolicySet | undefined;
  /** The clock waivers' expiry is judged by. */
  now(): Date;
}

export interface RuntimeOptions {
  logger?: FunctionLogger;
  /** Replaces loadBundle (tests). */
  load?: (source: string, options: BundleOptions) => Promise<PolicySet>;
  /** The clock waivers' expiry is judged by; default the system's (tests pass a fixed one). */
  now?: () => Date;
}

/** The options loadBundle gets: the failure-policy override and, for s3:// sources, the endpoint. */
function bundleOptions(config: ResolvedEnvConfig): BundleOptions {
  // `s3` is BundleOptions.s3 (lib/storage): path-style addressing and WHEN_REQUIRED checksums follow from endpoint.
  const options: BundleOptions & { s3?: { endpoint: string } } = { limits: bundleLimitsOf(config.maxDocumentBytes) };
  if (config.failurePolicy !== undefined) options.failurePolicy = config.failurePolicy;
  if (config.s3Endpoint !== undefined) options.s3 = { endpoint: config.s3Endpoint };
  return options;
}

/** The options with the waiver files of TOLLGATE_WAIVERS (read through lib/storage, like the bundle). */
async function withWaivers(config: ResolvedEnvConfig, options: BundleOptions): Promise<BundleOptions> {
  if (config.waivers === undefined) return options;
  const files = await readBundleFiles(config.waivers, options.s3);
  const base = config.waivers.replace(/\/+$/, "");
  const waivers = files.map((f) => ({
    path: base.endsWith(`/${f.path}`) ? base : `${base}/${f.path}`,
    content: f.content,
  }));
  return { ...options, waivers };
}

/** Resolves the configuration (throwing a ConfigError at cold start) and starts loading the bundle. */
export function createRuntime(env: Env, options: RuntimeOptions = {}): Runtime {
  const config = resolveEnvConfig(env);
  const logger = boundedLogger(options.logger ?? createLogger());
  const load = options.load ?? loadBundle;
  let pending: Promise<PolicySet> | undefined;
  let current: PolicySet | undefined;

  const start = (): Promise<PolicySet> => {
    const t0 = performance.now();
    const p = withWaivers(config, bundleOptions(config))
      .then((options) => load(config.bundle, options))
      .then(
        (set) => {
          current = set;
          logger.info("bundle loaded", {
            bundle: config.bundle,
            digest: set.digest,
            kinds: set.kinds.length,
            policyFailures: set.failures.filter((f) => f.severity === "error").length,
            loadMs: round(performance.now() - t0),
          });
          return set;
        },
        (error: unknown) => {
          // A configuration error stays (no retry can fix it); anything else is retried on the next invocation.
          if (!(error instanceof ConfigError)) pending = undefined;
          logger.error("bundle load failed", {
            bundle: config.bundle,
            error: errorName(error),
            reason: error instanceof Error ? error.message : String(error),
            loadMs: round(performance.now() - t0),
          });
          throw error;
        },
      );
    // The handler awaits it; until then a rejection must not count as unhandled.
    p.catch(() => {});
    return p;
  };
  pending = start();

  return {
    config,
    logger,
    policySet() {
      pending ??= start();
      return pending;
    },
    loaded: () => current,
    now: options.now ?? (() => new Date()),
  };
}

export function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

let defaultRuntime: Runtime | undefined;

/**
 * The runtime of the deployed function, from `process.env`: created (and its bundle load started) the first time
 * it is asked for, which functions/validate.ts does when it is imported.
 */
export function processRuntime(): Runtime {
  defaultRuntime ??= createRuntime(process.env);
  return defaultRuntime;
}
