/**
 * `tollgate audit [flags] <source>...`: its flags and help. Registered by args.ts (the CLI's one argv parser); the
 * flags are resolved into a frozen configuration by audit/config.ts (precedence and defaults are listed there),
 * which the scheduled Lambda uses too.
 */

import { type Command, Option } from "commander";
import { type Env, type ResolvedAuditConfig, resolveAuditConfig } from "../config.js";
import { REPORT_FORMATS } from "../report/index.js";
import { documentBytesOption } from "./document-bytes.js";

const AUDIT_HELP_FOOTER = `
Sources are files (multi-document YAML, JSON, "kind: List" exports from kubectl get -A -o yaml|json), folder
trees (a Git checkout: every *.yaml, *.yml and *.json; .git, node_modules, hidden folders and tollgate's own
reports, the local --out folder and any folder with a latest.json or index.json tollgate wrote, left out; symbolic
links inside the folder followed, so a mounted ConfigMap reads; documents that are not Kubernetes objects are
counted as skipped), .tar/.tar.gz/.tgz archives (git archive output), and s3://bucket/prefix (every *.yaml, *.yml,
*.json and archive object under the prefix; s3://bucket/key for one object). Every document gives exactly one
result; objects of a kind no policy covers are counted as skipped, never as passed.

S3: --bundle, sources, --previous, --compare-with and --out all take s3:// locations. Credentials and region come
from the AWS SDK's default chains (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, a role); --s3-endpoint
(env TOLLGATE_S3_ENDPOINT) points at an S3-compatible server, with path-style addressing unless --no-s3-path-style
(env TOLLGATE_S3_PATH_STYLE=true|false); such a server takes its own keys (npm run dev's s3rver: S3RVER and S3RVER).
An S3 request whose connection is silent for 30 s (env TOLLGATE_S3_TIMEOUT, seconds) is retried, 3 attempts in all.
A report write that fails leaves the run folder without index.json (readers ignore it) and latest.json unchanged,
and exits 3.

Reports go to <out>/<UTC start time>/ (20261122T021500Z): report.json (its JSON Schema: audit/report/report.schema.json),
summary.json, report.sarif, junit.xml, policyreport.yaml, openreports.yaml, findings.csv, fielderrors.ndjson,
report.html; then index.json (files and digests), then <out>/latest.json. Findings are compared with the latest
run at <out> (or --compare-with): new, resolved, persisting; each keeps the time it was first seen.

Large inputs: YAML streams and JSON Lists over --max-json-bytes are read one document at a time, the run's records
and findings go to temporary files in $TMPDIR past 10,000 (removed at exit), and every report is written as a
stream, so memory does not grow with the input. On a terminal, a progress bar shows the share read and an ETA.

Waivers (tollgate.dev/v1alpha1 Waiver: policy, optional rule, kinds/namespaces/names globs and field, reason,
owner, expires, optional ticket) come from the bundle and from --waivers (a file, a folder or s3://bucket/prefix of
Waiver documents; env TOLLGATE_WAIVERS), never from the audited objects. A finding an active waiver covers is
reported with severity "waived", its waiver's name, owner and expiry, and fails nothing; an expired waiver waives
nothing, and each finding it covered says so. Waivers expiring within --warn-expiry days (default 14; env
TOLLGATE_WARN_EXPIRY), expired ones and unused ones are listed after the run.

With --previous, each object is paired with its previous version (by uid, else apiVersion/kind/namespace/name) and
validated as an UPDATE: violations on values the change kept are "grandfathered" (an unchanged update would be
admitted), the others "blocking".

Exit codes:
  0  no finding reaches --fail-on
  1  a finding does (input errors and error-severity policy failures count as violations)
  2  usage or configuration error
  3  internal or storage error

Examples:
  tollgate audit --bundle examples/policies --policies-from-input --fail-on never examples/export   (npm start)
  kubectl get -A -o json crd,widgets > export.json && tollgate audit --bundle ./policies export.json
  tollgate audit --bundle ./policies --policies-from-input --previous yesterday.json today.json
  tollgate audit --bundle ./policies --format sarif,junit --out ci-reports .
  tollgate audit --bundle s3://policies/prod/ --policies-from-input --out s3://reports/nightly s3://exports/cluster-a/
`;

/** Adds the audit command to the program; `onParsed` receives the resolved configuration. */
export function defineAuditCommand(
  program: Command,
  env: Env,
  version: string,
  onParsed: (config: Readonly<ResolvedAuditConfig>) => void,
): void {
  const bundle = new Option(
    "-b, --bundle <path>",
    "policy bundle: a folder, a single file, or s3://bucket/prefix (env TOLLGATE_BUNDLE)",
  );
  if (env.TOLLGATE_BUNDLE !== undefined && env.TOLLGATE_BUNDLE !== "") {
    bundle.default(env.TOLLGATE_BUNDLE, "$TOLLGATE_BUNDLE");
  }
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
    .option(
      "--policies-from-input",
      "also take CRDs, KubeVirt Templates, ValidatingAdmissionPolicies and bindings from the sources (the bundle wins), and the params and RBAC objects the policies consult",
    )
    .option(
      "--fail-on <level>",
      "violation, warning, audit (also audit findings: results the API server only records) or never (env TOLLGATE_FAIL_ON; default violation)",
    )
    .option("--concurrency <n>", "files read at once (env TOLLGATE_CONCURRENCY; default 8)")
    .option(
      "--team-keys <keys>",
      "label keys (else annotation keys) naming an object's team, comma-separated, in order of preference (env TOLLGATE_TEAM_KEYS; default app.kubernetes.io/part-of,team,owner)",
    )
    .addOption(new Option("--owner-labels <keys>", "the former name of --team-keys").hideHelp())
    .option(
      "--as <user>",
      "the user each object's admission request is made as, for admission policies (env TOLLGATE_AS; default tollgate-audit)",
    )
    .option(
      "--as-group <group>",
      "a group of that user, repeatable (env TOLLGATE_AS_GROUPS, comma-separated; default system:authenticated)",
      (g: string, all: string[] = []) => [...all, g],
    )
    .option(
      "--max-json-bytes <size>",
      "JSON files up to this size (bytes, or with Ki/Mi/Gi) are parsed whole, larger Lists streamed (env TOLLGATE_MAX_JSON_BYTES; default 512Mi)",
    )
    .addOption(documentBytesOption())
    .option(
      "--workers <n|auto>",
      "threads that decode and validate, the main thread included (n - 1 worker threads beside it): auto (default: one per core but one, at most 8, and one on two cores or fewer, for inputs of 4 MiB of YAML or 20 MiB of JSON and more), or a number (0 or 1: one thread); not with --previous (env TOLLGATE_WORKERS)",
    )
    .option(
      "--pod-security <level[:version]>",
      "what would break: evaluate every Pod and workload as if its namespace enforced this Pod Security level (restricted, baseline:v1.30; env TOLLGATE_POD_SECURITY)",
    )
    .option(
      "--waivers <location>",
      "Waiver documents beside the bundle's: a file, a folder or s3://bucket/prefix (env TOLLGATE_WAIVERS)",
    )
    .option(
      "--warn-expiry <days>",
      "list waivers expiring within this many days (env TOLLGATE_WARN_EXPIRY; default 14)",
    )
    .option("--s3-endpoint <url>", "S3-compatible endpoint for s3:// locations (env TOLLGATE_S3_ENDPOINT)")
    .option("--s3-path-style", "path-style S3 addressing (default with --s3-endpoint; env TOLLGATE_S3_PATH_STYLE)")
    .option("--no-s3-path-style", "virtual-hosted S3 addressing (bucket.endpoint), even with --s3-endpoint")
    .addHelpText("after", AUDIT_HELP_FOOTER)
    .action((sources: string[], opts: Record<string, unknown>) => {
      const str = (v: unknown) => (typeof v === "string" ? v : undefined);
      const options = {
        sources,
        bundle: str(opts.bundle),
        out: str(opts.out),
        format: str(opts.format),
        previous: str(opts.previous),
        compareWith: str(opts.compareWith),
        policiesFromInput: opts.policiesFromInput === true,
        failOn: str(opts.failOn),
        concurrency: str(opts.concurrency),
        ownerLabels: str(opts.teamKeys) ?? str(opts.ownerLabels),
        as: str(opts.as),
        asGroups: Array.isArray(opts.asGroup)
          ? opts.asGroup.filter((g): g is string => typeof g === "string")
          : undefined,
        maxJsonBytes: str(opts.maxJsonBytes),
        maxDocumentBytes: str(opts.maxDocumentBytes),
        workers: str(opts.workers),
        s3Endpoint: str(opts.s3Endpoint),
        s3PathStyle: typeof opts.s3PathStyle === "boolean" ? opts.s3PathStyle : undefined,
        podSecurity: str(opts.podSecurity),
        waivers: str(opts.waivers),
        warnExpiry: str(opts.warnExpiry),
      };
      onParsed(resolveAuditConfig(options, env, version));
    });
}
