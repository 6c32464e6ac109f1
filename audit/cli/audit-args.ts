/**
 * `tollgate audit [flags] <source>...`: its flags, defaults and help, resolved into a frozen
 * {@link ResolvedAuditConfig}. Registered by args.ts (the CLI's one argv parser); kept in its own file so the
 * auditor's flags grow without touching the other commands.
 *
 * Precedence, highest first: flag, then environment variable, then built-in default.
 *
 * | variable              | flag          | default    |
 * |-----------------------|---------------|------------|
 * | TOLLGATE_BUNDLE       | --bundle      | (required) |
 * | TOLLGATE_AUDIT_OUT    | --out         | ./reports  |
 * | TOLLGATE_FAIL_ON      | --fail-on     | violation  |
 * | TOLLGATE_CONCURRENCY  | --concurrency | 8          |
 * | TOLLGATE_OWNER_LABELS | --owner-labels| owner,team,app.kubernetes.io/owner,app.kubernetes.io/part-of |
 * | TOLLGATE_MAX_JSON_BYTES | --max-json-bytes | 512Mi (larger JSON files are streamed) |
 * | TOLLGATE_WORKERS      | --workers     | auto (worker threads for large inputs; 0 or 1: one thread) |
 * | TOLLGATE_S3_ENDPOINT  | --s3-endpoint | AWS S3     |
 * | TOLLGATE_S3_PATH_STYLE| --s3-path-style / --no-s3-path-style | on with an endpoint, off for AWS S3 |
 *
 * S3 credentials and region come from the AWS SDK's default chains (AWS_ACCESS_KEY_ID, AWS_REGION, profiles, roles).
 */
import { type Command, Option } from "commander";
import type { S3Options } from "#lib/storage";
import { DEFAULT_OWNER_LABELS, type FailOn } from "../model.js";
import { REPORT_FORMATS } from "../report/index.js";

const FAIL_ON: readonly FailOn[] = ["violation", "warning", "never"];
const DEFAULT_CONCURRENCY = 8;

export interface ResolvedAuditConfig {
  bundle: string;
  sources: readonly string[];
  /** Report prefix: a folder (default `./reports`). */
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
   * Worker threads that decode and validate: a number (0 or 1: everything on the main thread), or `auto` (the CLI's
   * default: `os.availableParallelism() - 1`, at most 8, when the input is large enough to pay for starting them;
   * see audit/workers/auto.ts). Absent (the Lambda functions): one thread.
   */
  workers?: number | "auto";
  /** How `s3://` sources, bundles and report prefixes are reached (endpoint, path style); empty for AWS S3. */
  s3: Readonly<S3Options>;
  toolVersion: string;
}

/** A usage problem of `tollgate audit`; args.ts turns it into a usage error (exit 2). */
export class AuditUsageProblem extends Error {
  override readonly name = "AuditUsageProblem";
}

export const AUDIT_HELP_FOOTER = `
Sources are files (multi-document YAML, JSON, "kind: List" exports from kubectl get -A -o yaml|json), folder
trees (a Git checkout: every *.yaml, *.yml and *.json; .git and node_modules left out; documents that are not
Kubernetes objects are counted as skipped), .tar/.tar.gz/.tgz archives (git archive output), and s3://bucket/prefix
(every *.yaml, *.yml, *.json and archive object under the prefix; s3://bucket/key for one object). Every document gives
exactly one result; objects of a kind no policy covers are counted as skipped, never as passed.

S3: --bundle, sources, --previous, --compare-with and --out all take s3:// locations. Credentials and region come
from the AWS SDK's default chains; --s3-endpoint (env TOLLGATE_S3_ENDPOINT) points at an S3-compatible server, with
path-style addressing unless --no-s3-path-style (env TOLLGATE_S3_PATH_STYLE=true|false). A report write that fails
leaves the run folder without index.json (readers ignore it) and latest.json unchanged, and exits 3.

Reports go to <out>/<UTC start time>/ (20261122T021500Z): report.json (its JSON Schema: audit/report/report.schema.json),
summary.json, report.sarif, junit.xml, policyreport.yaml, openreports.yaml, findings.csv, fielderrors.ndjson,
report.html; then index.json (files and digests), then <out>/latest.json. Findings are compared with the latest
run at <out> (or --compare-with): new, resolved, persisting; each keeps the time it was first seen.

Large inputs: YAML streams and JSON Lists over --max-json-bytes are read one document at a time, the run's records
and findings go to temporary files in $TMPDIR past 10,000 (removed at exit), and every report is written as a
stream, so memory does not grow with the input. On a terminal, a progress bar shows the share read and an ETA.

With --previous, each object is paired with its previous version (by uid, else apiVersion/kind/namespace/name) and
validated as an UPDATE: violations on values the change kept are "grandfathered" (an unchanged update would be
admitted), the others "blocking".

Exit codes:
  0  no finding reaches --fail-on
  1  a finding does (input errors and error-severity policy failures count as violations)
  2  usage or configuration error
  3  internal or storage error

Examples:
  tollgate audit --bundle examples/policies --fail-on never examples/export   (npm start)
  kubectl get -A -o json crd,widgets > export.json && tollgate audit --bundle ./policies export.json
  tollgate audit --bundle ./policies --policies-from-input --previous yesterday.json today.json
  tollgate audit --bundle ./policies --format sarif,junit --out ci-reports .
  tollgate audit --bundle s3://policies/prod/ --policies-from-input --out s3://reports/nightly s3://exports/cluster-a/
`;

/** Adds the audit command to the program; `onParsed` receives the resolved configuration. */
export function defineAuditCommand(
  program: Command,
  env: Readonly<Record<string, string | undefined>>,
  version: string,
  onParsed: (config: Readonly<ResolvedAuditConfig>) => void,
): void {
  const bundle = new Option(
    "-b, --bundle <path>",
    "policy bundle: a folder, a single file, or s3://bucket/prefix (env TOLLGATE_BUNDLE)",
  );
  if (nonEmpty(env.TOLLGATE_BUNDLE) !== undefined) bundle.default(env.TOLLGATE_BUNDLE, "$TOLLGATE_BUNDLE");
  program
    .command("audit")
    .summary("audit exports, Git snapshots and archives in bulk, and write reports")
    .description("Validate every object of the sources against a policy bundle and write reports for people and CI.")
    .argument("<sources...>", "files, folders, .tar/.tar.gz archives and s3://bucket/prefix")
    .addOption(bundle)
    .option(
      "--out <folder>",
      "where run folders are written: a folder or s3://bucket/prefix (env TOLLGATE_AUDIT_OUT)",
      env.TOLLGATE_AUDIT_OUT,
    )
    .option("--format <formats>", `report formats, comma-separated: ${REPORT_FORMATS.join(",")} (default: all)`)
    .option("--previous <source>", "the earlier snapshot: validate each object as an UPDATE of its previous version")
    .option("--compare-with <report.json>", "compare with this report (default: the latest run under --out)")
    .option("--policies-from-input", "also take CRDs and KubeVirt Templates from the sources (the bundle wins)")
    .option("--fail-on <level>", "violation, warning or never (env TOLLGATE_FAIL_ON; default violation)")
    .option("--concurrency <n>", "files read at once (env TOLLGATE_CONCURRENCY; default 8)")
    .option("--owner-labels <keys>", "label keys naming an object's owner, comma-separated, in order of preference")
    .option(
      "--max-json-bytes <size>",
      "JSON files up to this size (bytes, or with Ki/Mi/Gi) are parsed whole, larger Lists streamed (env TOLLGATE_MAX_JSON_BYTES; default 512Mi)",
    )
    .option(
      "--workers <n|auto>",
      "worker threads that decode and validate: auto (default: one per core but one, at most 8, for inputs of 4 MiB of YAML or 20 MiB of JSON and more), or a number (0 or 1: one thread); not with --previous (env TOLLGATE_WORKERS)",
    )
    .option("--s3-endpoint <url>", "S3-compatible endpoint for s3:// locations (env TOLLGATE_S3_ENDPOINT)")
    .option("--s3-path-style", "path-style S3 addressing (default with --s3-endpoint; env TOLLGATE_S3_PATH_STYLE)")
    .option("--no-s3-path-style", "virtual-hosted S3 addressing (bucket.endpoint), even with --s3-endpoint")
    .addHelpText("after", AUDIT_HELP_FOOTER)
    .action((sources: string[], opts: Record<string, unknown>) => {
      onParsed(resolveAudit(sources, opts, env, version));
    });
}

function resolveAudit(
  sources: readonly string[],
  opts: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
  version: string,
): Readonly<ResolvedAuditConfig> {
  const bundle = typeof opts.bundle === "string" && opts.bundle !== "" ? opts.bundle : undefined;
  if (bundle === undefined) throw new AuditUsageProblem("--bundle <path> is required (or set TOLLGATE_BUNDLE)");
  const failOnRaw = str(opts.failOn) ?? nonEmpty(env.TOLLGATE_FAIL_ON) ?? "violation";
  if (!(FAIL_ON as readonly string[]).includes(failOnRaw)) {
    throw new AuditUsageProblem(`--fail-on must be one of ${FAIL_ON.join(", ")}, not ${JSON.stringify(failOnRaw)}`);
  }
  const concurrencyRaw = str(opts.concurrency) ?? nonEmpty(env.TOLLGATE_CONCURRENCY);
  let concurrency = DEFAULT_CONCURRENCY;
  if (concurrencyRaw !== undefined) {
    if (!/^[1-9][0-9]{0,3}$/.test(concurrencyRaw)) {
      throw new AuditUsageProblem(
        `--concurrency must be an integer from 1 to 9999, not ${JSON.stringify(concurrencyRaw)}`,
      );
    }
    concurrency = Number(concurrencyRaw);
  }
  let formats: readonly string[] = REPORT_FORMATS;
  const formatRaw = str(opts.format);
  if (formatRaw !== undefined) {
    const list = formatRaw
      .split(",")
      .map((f) => f.trim())
      .filter((f) => f !== "");
    const unknown = list.filter((f) => !REPORT_FORMATS.includes(f));
    if (list.length === 0 || unknown.length > 0) {
      throw new AuditUsageProblem(
        `--format takes a comma-separated list of ${REPORT_FORMATS.join(", ")}; unknown: ${JSON.stringify(unknown.join(",") || formatRaw)}`,
      );
    }
    formats = REPORT_FORMATS.filter((f) => list.includes(f));
  }
  const ownerRaw = str(opts.ownerLabels) ?? nonEmpty(env.TOLLGATE_OWNER_LABELS);
  const ownerLabels =
    ownerRaw === undefined
      ? DEFAULT_OWNER_LABELS
      : ownerRaw
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== "");
  const config: ResolvedAuditConfig = {
    bundle,
    sources: Object.freeze([...sources]),
    out: str(opts.out) ?? "reports",
    formats: Object.freeze([...formats]),
    policiesFromInput: opts.policiesFromInput === true,
    failOn: failOnRaw as FailOn,
    concurrency,
    ownerLabels: Object.freeze([...ownerLabels]),
    s3: resolveS3(opts, env),
    toolVersion: version,
  };
  const maxJsonRaw = str(opts.maxJsonBytes) ?? nonEmpty(env.TOLLGATE_MAX_JSON_BYTES);
  if (maxJsonRaw !== undefined) config.maxJsonBytes = byteSize(maxJsonRaw, "--max-json-bytes");
  config.workers = workerCount(str(opts.workers) ?? nonEmpty(env.TOLLGATE_WORKERS) ?? "auto");
  const previous = str(opts.previous);
  if (previous !== undefined) config.previous = previous;
  const compareWith = str(opts.compareWith);
  if (compareWith !== undefined) config.compareWith = compareWith;
  return Object.freeze(config);
}

/** `--s3-endpoint` (an http or https URL) and path style, flag over environment. */
function resolveS3(
  opts: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): Readonly<S3Options> {
  const endpoint = str(opts.s3Endpoint) ?? nonEmpty(env.TOLLGATE_S3_ENDPOINT);
  const s3: S3Options = {};
  if (endpoint !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(endpoint);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
      throw new AuditUsageProblem(
        `--s3-endpoint must be an http:// or https:// URL, not ${JSON.stringify(endpoint)} (flag or TOLLGATE_S3_ENDPOINT)`,
      );
    }
    s3.endpoint = endpoint;
  }
  if (typeof opts.s3PathStyle === "boolean") {
    s3.pathStyle = opts.s3PathStyle;
  } else {
    const raw = nonEmpty(env.TOLLGATE_S3_PATH_STYLE)?.toLowerCase();
    if (raw !== undefined) {
      if (raw !== "true" && raw !== "false") {
        throw new AuditUsageProblem(`TOLLGATE_S3_PATH_STYLE must be true or false, not ${JSON.stringify(raw)}`);
      }
      s3.pathStyle = raw === "true";
    }
  }
  return Object.freeze(s3);
}

/** The most worker threads `--workers` takes. */
export const MAX_WORKERS = 64;

/** `auto`, or a whole number from 0 to {@link MAX_WORKERS}. */
function workerCount(raw: string): number | "auto" {
  const v = raw.trim().toLowerCase();
  if (v === "auto") return "auto";
  if (/^[0-9]{1,3}$/.test(v) && Number(v) <= MAX_WORKERS) return Number(v);
  throw new AuditUsageProblem(
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

/** `1048576`, `64Mi`, `1GiB`: a whole number of bytes from 1 to 2^53 - 1. */
function byteSize(raw: string, flag: string): number {
  const m = /^([0-9]{1,16})(|Ki|Mi|Gi|KiB|MiB|GiB)$/.exec(raw.trim());
  const n = m === null ? Number.NaN : Number(m[1]) * UNITS[m[2]!]!;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new AuditUsageProblem(
      `${flag} must be a size in bytes, optionally with Ki, Mi or Gi (64Mi), not ${JSON.stringify(raw)}`,
    );
  }
  return n;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === "" ? undefined : v;
}
