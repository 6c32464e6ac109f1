/**
 * `tollgate bundle build` and `tollgate webhook-config`: their flags, defaults and help, resolved into frozen
 * configurations. Registered by args.ts (the CLI's one argv parser); kept in their own file, as audit-args.ts is.
 *
 * Precedence, highest first: flag, then environment variable, then built-in default.
 *
 * | variable              | flag                     | default                                      |
 * |-----------------------|--------------------------|----------------------------------------------|
 * | TOLLGATE_BUNDLE       | --bundle (webhook-config)| (required)                                   |
 * | TOLLGATE_S3_ENDPOINT  | --s3-endpoint            | AWS S3 (path-style addressing when set)      |
 * | TOLLGATE_FAILURE_POLICY | --failure-policy       | the bundle's failurePolicy (tollgate.yaml), else Fail |
 */

import { type Command, Option } from "commander";
import type { BundleS3Options, FailurePolicy } from "#lib";
import { documentBytesOf } from "../config.js";
import { documentBytesOption } from "./document-bytes.js";

export interface ResolvedBundleBuildConfig {
  /** The bundle: a folder, a file, or s3://. */
  source: string;
  /** Where the artifact goes: a file path or `s3://bucket/key`; "-" is standard output. */
  output: string;
  s3: Readonly<BundleS3Options>;
  /** The per-document limit of the bundle's documents; absent: lib's default. */
  maxDocumentBytes?: number;
}

export type WebhookConfigFormat = "yaml" | "json";

export interface ResolvedWebhookConfigConfig {
  bundle: string;
  /** clientConfig.url: the https URL of the webhook's POST /validate. */
  url: string;
  /** The webhook's failurePolicy; absent = the bundle's failurePolicy. */
  failurePolicy?: FailurePolicy;
  /** 1 to 30 (the API server's bounds); default 10. */
  timeoutSeconds: number;
  /** metadata.name of the ValidatingWebhookConfiguration; default "tollgate". */
  name: string;
  /** Namespaces left out through a namespaceSelector; default ["kube-system"]; empty: no selector. */
  excludeNamespaces: readonly string[];
  format: WebhookConfigFormat;
  s3: Readonly<BundleS3Options>;
}

/** A usage problem of these commands; args.ts turns it into a usage error (exit 2). */
export class BundleUsageProblem extends Error {
  override readonly name = "BundleUsageProblem";
  constructor(
    message: string,
    readonly command: string,
  ) {
    super(message);
  }
}

const FAILURE_POLICIES: readonly FailurePolicy[] = ["Fail", "Ignore"];
const DEFAULT_TIMEOUT_SECONDS = 10;

const BUILD_HELP_FOOTER = `
The artifact is one JSON file (apiVersion tollgate.dev/v1alpha1, kind BundleArtifact) holding every policy document
already decoded, Go sources as they are, the bundle's digest, and the kinds and policy failures found by compiling
every rule now. loadBundle (and --bundle of every command, and TOLLGATE_BUNDLE of the webhook) recognises it by its
content and loads it without decoding YAML: ship it in the Lambda package, or put it in S3.

The artifact is written even when the bundle has policy failures; they are listed on standard error.

Exit codes: 0 written, no policy failure of severity error; 1 written, with policy failures of severity error;
2 usage or configuration error (missing bundle); 3 internal error.

Examples:
  tollgate bundle build examples/policies -o bundle.json
  tollgate bundle build s3://my-policies/prod/ -o s3://my-artifacts/prod/bundle.json
`;

const WEBHOOK_HELP_FOOTER = `
Prints a ValidatingWebhookConfiguration (admissionregistration.k8s.io/v1) whose rules match exactly the kinds the
bundle covers: one rule per API group, scope and set of resources, with the versions that share them; CREATE and
UPDATE of the resources, and UPDATE of the status subresource for kinds that validate it. admissionReviewVersions
["v1"], sideEffects None, matchPolicy Equivalent, and a namespaceSelector leaving out kube-system (--exclude-namespaces).
The bundle's digest is recorded in the tollgate.dev/bundle-digest annotation.

--url is the full https URL of the webhook's POST /validate (the API Gateway stage URL followed by /validate).
Kinds whose policy failed to compile and whose resource name is unknown are left out, with a warning.

Examples:
  tollgate webhook-config --bundle examples/policies --url https://abc123.execute-api.eu-west-1.amazonaws.com/prod/validate
  tollgate webhook-config --bundle bundle.json --url https://example.com/validate --failure-policy Ignore | kubectl apply -f -
`;

/** Registers `bundle build` and `webhook-config` on the program. */
export function defineBundleCommands(
  program: Command,
  env: Readonly<Record<string, string | undefined>>,
  onBuild: (config: Readonly<ResolvedBundleBuildConfig>) => void,
  onWebhookConfig: (config: Readonly<ResolvedWebhookConfigConfig>) => void,
): void {
  const s3Endpoint = () => {
    const o = new Option(
      "--s3-endpoint <url>",
      "S3-compatible endpoint for s3:// locations (env TOLLGATE_S3_ENDPOINT)",
    );
    const d = nonEmpty(env.TOLLGATE_S3_ENDPOINT);
    return d === undefined ? o : o.default(d, "$TOLLGATE_S3_ENDPOINT");
  };

  const bundle = program.command("bundle").summary("work with policy bundles").description("Work with policy bundles.");
  bundle
    .command("build")
    .summary("turn a bundle into one pre-decoded JSON artifact")
    .description("Decode and compile a policy bundle, and write it as one artifact that loads without YAML decoding.")
    .argument("<bundle>", "the bundle: a folder, a file, or s3://bucket/prefix/")
    .requiredOption(
      "-o, --output <file>",
      'where to write the artifact: a file, s3://bucket/key, or "-" for standard output',
    )
    .addOption(s3Endpoint())
    .addOption(documentBytesOption())
    .addHelpText("after", BUILD_HELP_FOOTER)
    .action((source: string, opts: Record<string, unknown>) => {
      const output = typeof opts.output === "string" ? opts.output : "";
      if (output === "") throw new BundleUsageProblem("-o/--output needs a file name", "bundle build");
      let maxDocumentBytes: number | undefined;
      try {
        maxDocumentBytes = documentBytesOf(
          typeof opts.maxDocumentBytes === "string" ? opts.maxDocumentBytes : undefined,
          env,
        );
      } catch (e) {
        throw new BundleUsageProblem(e instanceof Error ? e.message : String(e), "bundle build");
      }
      const config: ResolvedBundleBuildConfig = { source, output, s3: s3Options(opts) };
      if (maxDocumentBytes !== undefined) config.maxDocumentBytes = maxDocumentBytes;
      onBuild(Object.freeze(config));
    });

  const bundleOption = new Option(
    "-b, --bundle <path>",
    "policy bundle: a folder, a file, an artifact or s3:// (env TOLLGATE_BUNDLE)",
  );
  const defaultBundle = nonEmpty(env.TOLLGATE_BUNDLE);
  const failurePolicyOption = new Option(
    "--failure-policy <policy>",
    "what the API server does when the webhook cannot answer: Fail or Ignore (default: the bundle's failurePolicy; env TOLLGATE_FAILURE_POLICY)",
  );
  const defaultFailurePolicy = nonEmpty(env.TOLLGATE_FAILURE_POLICY);
  program
    .command("webhook-config")
    .summary("print the ValidatingWebhookConfiguration for a bundle")
    .description("Print a ValidatingWebhookConfiguration whose rules match exactly the kinds a bundle covers.")
    .addOption(defaultBundle === undefined ? bundleOption : bundleOption.default(defaultBundle, "$TOLLGATE_BUNDLE"))
    .option("--url <url>", "https URL of the webhook's POST /validate (required)")
    .addOption(
      defaultFailurePolicy === undefined
        ? failurePolicyOption
        : failurePolicyOption.default(defaultFailurePolicy, "$TOLLGATE_FAILURE_POLICY"),
    )
    .option(
      "--timeout-seconds <n>",
      `seconds the API server waits for an answer, 1 to 30 (default ${DEFAULT_TIMEOUT_SECONDS})`,
    )
    .option("--name <name>", "metadata.name of the ValidatingWebhookConfiguration", "tollgate")
    .option(
      "--exclude-namespaces <list>",
      'comma-separated namespaces the webhook never sees (namespaceSelector); "" for none',
      "kube-system",
    )
    .addOption(new Option("-o, --output <format>", "output format: yaml or json").default("yaml"))
    .addOption(s3Endpoint())
    .addHelpText("after", WEBHOOK_HELP_FOOTER)
    .action((opts: Record<string, unknown>) => onWebhookConfig(resolveWebhookConfig(opts)));
}

function resolveWebhookConfig(opts: Record<string, unknown>): Readonly<ResolvedWebhookConfigConfig> {
  const cmd = "webhook-config";
  const bundle = typeof opts.bundle === "string" ? opts.bundle : "";
  if (bundle === "") throw new BundleUsageProblem("--bundle <path> is required (or set TOLLGATE_BUNDLE)", cmd);
  if (typeof opts.url !== "string" || opts.url === "") throw new BundleUsageProblem("--url <url> is required", cmd);
  const url = checkWebhookUrl(opts.url);

  const config: ResolvedWebhookConfigConfig = {
    bundle,
    url,
    timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
    name: typeof opts.name === "string" ? opts.name : "tollgate",
    excludeNamespaces: Object.freeze(
      String(opts.excludeNamespaces ?? "")
        .split(",")
        .map((n) => n.trim())
        .filter((n) => n !== ""),
    ),
    format: "yaml",
    s3: s3Options(opts),
  };
  if (opts.failurePolicy !== undefined) {
    const p = String(opts.failurePolicy);
    if (!(FAILURE_POLICIES as readonly string[]).includes(p))
      throw new BundleUsageProblem(`--failure-policy must be Fail or Ignore, not ${JSON.stringify(p)}`, cmd);
    config.failurePolicy = p as FailurePolicy;
  }
  if (opts.timeoutSeconds !== undefined) {
    const t = String(opts.timeoutSeconds);
    if (!/^[0-9]+$/.test(t) || Number(t) < 1 || Number(t) > 30)
      throw new BundleUsageProblem(`--timeout-seconds must be an integer from 1 to 30, not ${JSON.stringify(t)}`, cmd);
    config.timeoutSeconds = Number(t);
  }
  if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(config.name))
    throw new BundleUsageProblem(`--name must be a DNS subdomain name, not ${JSON.stringify(config.name)}`, cmd);
  const format = String(opts.output);
  if (format !== "yaml" && format !== "json")
    throw new BundleUsageProblem(`-o/--output must be yaml or json, not ${JSON.stringify(format)}`, cmd);
  config.format = format;
  return Object.freeze(config);
}

/**
 * The API server's checks of a webhook clientConfig.url (admissionregistration validation): an absolute https URL
 * with a host, and no user info, query or fragment.
 */
function checkWebhookUrl(raw: string): string {
  const cmd = "webhook-config";
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new BundleUsageProblem(`--url ${JSON.stringify(raw)} is not an absolute URL`, cmd);
  }
  const problem =
    u.protocol !== "https:"
      ? `the scheme must be "https", not ${JSON.stringify(u.protocol.replace(/:$/, ""))}`
      : u.hostname === ""
        ? "a host is required"
        : u.username !== "" || u.password !== ""
          ? "user information is not permitted"
          : u.search !== "" || raw.includes("?")
            ? "query parameters are not permitted"
            : u.hash !== "" || raw.includes("#")
              ? "fragments are not permitted"
              : undefined;
  if (problem !== undefined) throw new BundleUsageProblem(`--url ${JSON.stringify(raw)}: ${problem}`, cmd);
  return raw;
}

function s3Options(opts: Record<string, unknown>): Readonly<BundleS3Options> {
  const endpoint = typeof opts.s3Endpoint === "string" && opts.s3Endpoint !== "" ? opts.s3Endpoint : undefined;
  return Object.freeze(endpoint === undefined ? {} : { endpoint, pathStyle: true });
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === "" ? undefined : v;
}
