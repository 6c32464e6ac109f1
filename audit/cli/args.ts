/**
 * argv (and the environment) → a resolved, frozen command configuration, or a usage error. Pure: nothing is read
 * from disk and nothing is printed here; commander's output is captured and handed back to `main.ts`.
 *
 * This is the one place the CLI reads `TOLLGATE_*` environment variables. Precedence, highest first:
 * command-line flag, then environment variable, then the built-in default.
 *
 * | variable                  | flag        | default                  |
 * |---------------------------|-------------|--------------------------|
 * | TOLLGATE_BUNDLE           | --bundle    | (none: the flag is required) |
 * | TOLLGATE_OUTPUT           | -o/--output | text                     |
 * | TOLLGATE_MAX_INPUT_BYTES  | (none)      | 64Mi per input file (a size: 200Mi, 1GiB, 67108864) |
 * | TOLLGATE_MAX_DOCUMENT_BYTES | --max-document-bytes | 8Mi per document (validate, lint; audit/config.ts for audit) |
 * | TOLLGATE_CPUPROFILE_FILE  | (none)      | (off) write a V8 CPU profile of the run to this file |
 */
import { Command, type CommanderError, Option } from "commander";
import type { Operation } from "#lib";
import { ConfigError } from "#lib/errors.js";
import { byteSize, documentBytesOf, type ResolvedAuditConfig } from "../config.js";
import { defineAuditCommand } from "./audit-args.js";
import {
  BundleUsageProblem,
  defineBundleCommands,
  type ResolvedBundleBuildConfig,
  type ResolvedWebhookConfigConfig,
} from "./bundle-args.js";
import { documentBytesOption } from "./document-bytes.js";
import { defineVerifyCommand, type ResolvedVerifyConfig } from "./verify-args.js";

export type OutputFormat = "text" | "json";

const OUTPUT_FORMATS: readonly OutputFormat[] = ["text", "json"];
const OPERATIONS: readonly Operation[] = ["CREATE", "UPDATE", "DELETE"];
const SUBRESOURCES: readonly string[] = ["status", "scale"];
const DEFAULT_MAX_INPUT_BYTES = 64 * 1024 * 1024;

/** Settings of the process itself, shared by every command. */
export interface ResolvedProcessConfig {
  /** Write a V8 CPU profile of the whole run here (`TOLLGATE_CPUPROFILE_FILE`); open it in Chrome DevTools. */
  cpuProfileFile?: string;
}

export interface ResolvedValidateConfig {
  /** Policy bundle: a folder or a single file. */
  bundle: string;
  operation: Operation;
  /** File holding the stored objects an UPDATE replaces. */
  old?: string;
  /** "status" or "scale"; absent for the main resource. */
  subresource?: string;
  output: OutputFormat;
  /** Input files and folders in the order given; "-" is standard input. */
  inputs: readonly string[];
  /** The run succeeds (exit 0) even when objects are invalid: for showing the bundled examples. */
  demo: boolean;
  /** Print a closing count of valid, invalid, skipped and unreadable objects (text output; on with --demo). */
  summary: boolean;
  /** Largest input file read, in bytes; larger files are reported as input errors. */
  maxInputBytes: number;
  /** The per-document limit (audit/sources/decode.ts), of the inputs and the bundle; absent: lib's default. */
  maxDocumentBytes?: number;
}

export interface ResolvedLintConfig {
  bundle: string;
  output: OutputFormat;
  /** Waiver files beside the bundle's own Waivers, checked with them. */
  waivers?: string;
  /** The per-document limit of the bundle's documents; absent: lib's default. */
  maxDocumentBytes?: number;
}

export type ParsedArgs =
  | { kind: "validate"; config: Readonly<ResolvedValidateConfig>; process: Readonly<ResolvedProcessConfig> }
  | { kind: "lint"; config: Readonly<ResolvedLintConfig>; process: Readonly<ResolvedProcessConfig> }
  | { kind: "bundle-build"; config: Readonly<ResolvedBundleBuildConfig>; process: Readonly<ResolvedProcessConfig> }
  | { kind: "webhook-config"; config: Readonly<ResolvedWebhookConfigConfig>; process: Readonly<ResolvedProcessConfig> }
  | { kind: "audit"; config: Readonly<ResolvedAuditConfig>; process: Readonly<ResolvedProcessConfig> }
  | { kind: "verify"; config: Readonly<ResolvedVerifyConfig>; process: Readonly<ResolvedProcessConfig> }
  /** --help or --version: print `text` to standard output, exit 0. */
  | { kind: "help"; text: string }
  /** Print `message` to standard error, exit 2. */
  | { kind: "usage-error"; message: string };

/** Raised inside the parser for a usage problem commander does not detect itself. */
class UsageProblem extends Error {
  override readonly name = "UsageProblem";
  constructor(
    message: string,
    readonly command: string,
  ) {
    super(message);
  }
}

const ROOT_HELP_FOOTER = `
Exit codes:
  0  validate: every object valid or skipped (or --demo ran); lint, bundle build: no policy failure of severity
     error; audit: no finding reaches --fail-on; webhook-config: printed; verify: every file and link matches
  1  validate: an object is invalid, a document could not be read, or the bundle has a policy failure of severity
     error; lint, bundle build: a policy failure of severity error; audit: a finding reaches --fail-on (input errors
     and error-severity policy failures count as violations); verify: a report file or a link of the chain is
     broken
  2  usage or configuration error (unknown flag, missing bundle or input path, a wrong setting)
  3  internal error; for audit and verify also a storage error (S3, the report folder)

Examples:
  tollgate validate --bundle examples/policies examples/objects/widget-valid.yaml
  kubectl get widgets -A -o yaml | tollgate validate --bundle ./policies -
  tollgate lint --bundle examples/policies
`;

const VALIDATE_HELP_FOOTER = `
Inputs are files (multi-document YAML or JSON; every item of a "kind: List" is an object), folders (searched
recursively for *.yaml, *.yml and *.json, as tollgate audit reads them: .git, node_modules and hidden folders left
out, symbolic links inside the folder followed), .tar/.tar.gz/.tgz archives and "-" for standard input. Every
document is validated; a document that cannot be decoded, or is not a Kubernetes object, is reported with its
file, document number and line, and the run goes on.

Text output (standard output), one block per object:
  an invalid object      as kubectl prints the API server's 422 answer:
                           The Widget "w" is invalid: spec.replicas: Invalid value: 11: ...
                         or, with several causes, one "* <field>: <message>" line each
  a valid object         widget.demo.tollgate.dev/w valid
  an uncovered kind      pod/p skipped (no policy for v1/Pod)
  a warning              Warning: <text>  (before the object's line, as kubectl prints them)
  an unreadable document <file>: document 1 (line 14): <error>   (documents count from 0)

JSON output (-o json) is an array with one entry per object or undecodable document:
  {file, document, line, item?, apiVersion?, kind?, namespace?, name?,
   outcome: "valid"|"invalid"|"skipped"|"error", status: <metav1.Status>, warnings: [<text>...]}

With --old (which implies --operation UPDATE), each object is paired with the stored object of the same
apiVersion, kind, namespace and name in that file (a single old object pairs with a single new one).

Limits: an input file is read up to TOLLGATE_MAX_INPUT_BYTES (default 64Mi per file); each document in it (a YAML
document, a JSON object, an item of a "kind: List") up to --max-document-bytes (default 8Mi per document), as
tollgate audit and the bundle's documents.

Environment: TOLLGATE_BUNDLE (for --bundle), TOLLGATE_OUTPUT (for -o), TOLLGATE_MAX_INPUT_BYTES,
TOLLGATE_MAX_DOCUMENT_BYTES (for --max-document-bytes), TOLLGATE_CPUPROFILE_FILE.

Examples:
  tollgate validate --bundle examples/policies examples/objects
  tollgate validate --bundle ./policies --old live.yaml changed.yaml
  tollgate validate --bundle ./policies --old live.yaml --subresource status -o json new-status.yaml
  tollgate validate --bundle examples/policies --demo examples/objects   (the README's second demo)
`;

const LINT_HELP_FOOTER = `
Lists every policy that could not be used (a CRD schema that does not compile, an unknown format, a bad
tollgate.yaml, a document that cannot be decoded or recognised), one line each: "<severity> <file>[#<document>]
<path>: <message>", then one "note ..." line per document or file the loader ignored (an object no family reads as
a policy; never a failure), then the kinds the bundle covers. Documents are numbered from 0 and files named under
the bundle folder. With -o json, prints the PolicyFailure array of the library as is (file paths relative to the
bundle; notes are not failures and are left out) and no summary.

Waivers (the bundle's, and those of --waivers <file|folder|s3://...>) are checked too: a waiver that cannot be read
is an error naming the field at fault; one that has expired, and selectors that can never match (kinds no covered
kind matches, namespaces on cluster-scoped kinds) are warnings.

Exits 1 when any failure has severity "error", 0 otherwise.

Examples:
  tollgate lint --bundle examples/policies
  tollgate lint --bundle ./policies -o json | jq '.[] | select(.severity == "error")'
`;

/**
 * Parses the arguments after `node tollgate` (`process.argv.slice(2)`).
 *
 * @param env the environment to read `TOLLGATE_*` variables from; defaults to `process.env`
 * @param version printed by `--version`
 */
export function parseArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  version = "0.0.0",
): ParsedArgs {
  let out = "";
  let err = "";
  let parsed: ParsedArgs | undefined;

  const program = new Command("tollgate")
    .description(
      "Validate Kubernetes objects the way kube-apiserver does, against a bundle of policies (CRD schemas, " +
        "KubeVirt templates, Go types with declarative +k8s: tags), outside of a cluster.",
    )
    .version(version, "-v, --version", "print the version")
    .helpOption("-h, --help", "print help")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => {
        out += s;
      },
      writeErr: (s) => {
        err += s;
      },
    })
    .showSuggestionAfterError(true)
    .addHelpText("after", ROOT_HELP_FOOTER);
  program.helpCommand("help [command]", "print help for a command");

  const processConfig = (): Readonly<ResolvedProcessConfig> => {
    const cpuProfileFile = nonEmpty(env.TOLLGATE_CPUPROFILE_FILE);
    return Object.freeze(cpuProfileFile === undefined ? {} : { cpuProfileFile });
  };
  defineValidateCommands(
    program,
    env,
    (config) => {
      parsed = { kind: "validate", config, process: processConfig() };
    },
    (config) => {
      parsed = { kind: "lint", config, process: processConfig() };
    },
  );
  defineAuditCommand(program, env, version, (config) => {
    parsed = { kind: "audit", config, process: processConfig() };
  });

  defineVerifyCommand(program, env, (config) => {
    parsed = { kind: "verify", config, process: processConfig() };
  });

  defineBundleCommands(
    program,
    env,
    (config) => {
      parsed = { kind: "bundle-build", config, process: processConfig() };
    },
    (config) => {
      parsed = { kind: "webhook-config", config, process: processConfig() };
    },
  );

  if (argv.length === 0) {
    return { kind: "usage-error", message: `error: no command given\n\n${program.helpInformation()}` };
  }

  try {
    program.parse([...argv], { from: "user" });
  } catch (e) {
    if (e instanceof UsageProblem || e instanceof BundleUsageProblem) {
      return { kind: "usage-error", message: `error: ${e.message}\n${hint(e.command)}` };
    }
    // audit/config.ts resolves the audit command's flags.
    if (e instanceof ConfigError) return { kind: "usage-error", message: `error: ${e.message}\n${hint("audit")}` };
    if (!isCommanderError(e)) throw e;
    if (e.code === "commander.helpDisplayed" || e.code === "commander.version") return { kind: "help", text: out };
    if (e.code === "commander.help") {
      // "tollgate help <unknown>" or a bare group: commander printed help as an error.
      return { kind: "usage-error", message: err || out };
    }
    const command = argv.find((a) => a === "validate" || a === "lint" || a === "audit");
    const text = err.length > 0 ? err.trimEnd() : `error: ${e.message}`;
    return { kind: "usage-error", message: `${text}\n${hint(command)}` };
  }
  if (parsed === undefined) {
    // "tollgate help" prints help and reaches here without an action.
    return out.length > 0 ? { kind: "help", text: out } : { kind: "usage-error", message: program.helpInformation() };
  }
  return parsed;
}

/** Adds `validate` and `lint` to the program; the callbacks receive the command's resolved configuration. */
function defineValidateCommands(
  program: Command,
  env: Readonly<Record<string, string | undefined>>,
  onValidate: (config: Readonly<ResolvedValidateConfig>) => void,
  onLint: (config: Readonly<ResolvedLintConfig>) => void,
): void {
  const defaultBundle = nonEmpty(env.TOLLGATE_BUNDLE);
  const defaultOutput = nonEmpty(env.TOLLGATE_OUTPUT);

  program
    .command("validate")
    .summary("validate objects against a policy bundle")
    .description(
      "Validate every object in the given files as the API server would on admission, and print the result " +
        "as kubectl does.",
    )
    .argument("[inputs...]", 'files or folders to validate; "-" reads standard input')
    .addOption(bundleOption(defaultBundle))
    .addOption(
      new Option(
        "--operation <op>",
        "admission operation: CREATE, UPDATE or DELETE (default: CREATE, or UPDATE with --old)",
      ),
    )
    .option("--old <file>", "stored objects an UPDATE replaces (implies --operation UPDATE)")
    .option("--subresource <name>", 'validate an update of a subresource ("status" or "scale"); needs --old')
    .addOption(outputOption(defaultOutput))
    .option("--demo", "show the bundled examples: print every result and exit 0 even when objects are invalid")
    .option("--summary", "print a closing count of the results (always on with --demo)")
    .addOption(documentBytesOption())
    .addHelpText("after", VALIDATE_HELP_FOOTER)
    .action((inputs: string[], opts: Record<string, unknown>) => {
      onValidate(resolveValidate(inputs, opts, env));
    });

  program
    .command("lint")
    .summary("list the policies of a bundle that cannot be used")
    .description("Load a policy bundle and list its policy failures and the kinds it covers.")
    .addOption(bundleOption(defaultBundle))
    .addOption(outputOption(defaultOutput))
    .option("--waivers <location>", "Waiver documents beside the bundle's: a file, a folder or s3://bucket/prefix")
    .addOption(documentBytesOption())
    .addHelpText("after", LINT_HELP_FOOTER)
    .action((opts: Record<string, unknown>) => {
      const config: ResolvedLintConfig = { bundle: requireBundle(opts, "lint"), output: outputOf(opts, "lint") };
      if (typeof opts.waivers === "string" && opts.waivers !== "") config.waivers = opts.waivers;
      const maxDocumentBytes = documentBytes(opts, env, "lint");
      if (maxDocumentBytes !== undefined) config.maxDocumentBytes = maxDocumentBytes;
      onLint(Object.freeze(config));
    });
}

/** --max-document-bytes, else TOLLGATE_MAX_DOCUMENT_BYTES (audit/config.ts reads them for every command alike). */
function documentBytes(
  opts: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
  command: string,
): number | undefined {
  try {
    return documentBytesOf(typeof opts.maxDocumentBytes === "string" ? opts.maxDocumentBytes : undefined, env);
  } catch (e) {
    throw new UsageProblem(e instanceof Error ? e.message : String(e), command);
  }
}

function bundleOption(defaultBundle: string | undefined): Option {
  const o = new Option("-b, --bundle <path>", "policy bundle: a folder or a single file (env TOLLGATE_BUNDLE)");
  return defaultBundle === undefined ? o : o.default(defaultBundle, "$TOLLGATE_BUNDLE");
}

function outputOption(defaultOutput: string | undefined): Option {
  const o = new Option("-o, --output <format>", "output format: text or json (env TOLLGATE_OUTPUT)");
  return defaultOutput === undefined ? o.default("text") : o.default(defaultOutput, "$TOLLGATE_OUTPUT");
}

function resolveValidate(
  inputs: readonly string[],
  opts: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): Readonly<ResolvedValidateConfig> {
  const bundle = requireBundle(opts, "validate");
  const output = outputOf(opts, "validate");
  const old = typeof opts.old === "string" ? opts.old : undefined;
  if (old === "") throw new UsageProblem("--old needs a file name", "validate");

  let operation: Operation;
  if (typeof opts.operation === "string") {
    const op = opts.operation.toUpperCase();
    if (!(OPERATIONS as readonly string[]).includes(op)) {
      throw new UsageProblem(
        `--operation must be one of ${OPERATIONS.join(", ")}, not ${JSON.stringify(opts.operation)}`,
        "validate",
      );
    }
    operation = op as Operation;
  } else {
    operation = old === undefined ? "CREATE" : "UPDATE";
  }
  if (operation === "UPDATE" && old === undefined) {
    throw new UsageProblem("--operation UPDATE needs --old <file> with the stored objects", "validate");
  }
  if (operation !== "UPDATE" && old !== undefined) {
    throw new UsageProblem(`--old only applies to --operation UPDATE, not ${operation}`, "validate");
  }

  let subresource: string | undefined;
  if (typeof opts.subresource === "string") {
    subresource = opts.subresource.replace(/^\//, "");
    if (!SUBRESOURCES.includes(subresource)) {
      throw new UsageProblem(
        `--subresource must be one of ${SUBRESOURCES.join(", ")}, not ${JSON.stringify(opts.subresource)}`,
        "validate",
      );
    }
  }

  if (subresource !== undefined && operation !== "UPDATE") {
    // The API server serves subresource writes as updates only: the status strategy copies everything but
    // .status from the stored object, so there is nothing to check without it.
    throw new UsageProblem(
      `--subresource ${subresource} is an UPDATE: give the stored objects with --old <file>`,
      "validate",
    );
  }
  if (inputs.length === 0) {
    throw new UsageProblem('no input files: give files, folders, or "-" for standard input', "validate");
  }
  if (inputs.filter((i) => i === "-").length > 1) {
    throw new UsageProblem('standard input ("-") can be read only once', "validate");
  }

  const demo = opts.demo === true;
  const config: ResolvedValidateConfig = {
    bundle,
    operation,
    output,
    inputs: Object.freeze([...inputs]),
    demo,
    summary: demo || opts.summary === true,
    maxInputBytes: inputBytes(env.TOLLGATE_MAX_INPUT_BYTES),
  };
  if (old !== undefined) config.old = old;
  if (subresource !== undefined) config.subresource = subresource;
  const maxDocumentBytes = documentBytes(opts, env, "validate");
  if (maxDocumentBytes !== undefined) config.maxDocumentBytes = maxDocumentBytes;
  return Object.freeze(config);
}

function requireBundle(opts: Record<string, unknown>, command: string): string {
  const bundle = opts.bundle;
  if (typeof bundle !== "string" || bundle === "") {
    throw new UsageProblem("--bundle <path> is required (or set TOLLGATE_BUNDLE)", command);
  }
  return bundle;
}

function outputOf(opts: Record<string, unknown>, command: string): OutputFormat {
  const o = opts.output;
  if (typeof o === "string" && (OUTPUT_FORMATS as readonly string[]).includes(o)) return o as OutputFormat;
  throw new UsageProblem(
    `-o/--output must be one of ${OUTPUT_FORMATS.join(", ")}, not ${JSON.stringify(String(o))}`,
    command,
  );
}

/** TOLLGATE_MAX_INPUT_BYTES: a size as --max-json-bytes takes it (`200Mi`, `1GiB`, `67108864`). */
function inputBytes(raw: string | undefined): number {
  const v = nonEmpty(raw);
  if (v === undefined) return DEFAULT_MAX_INPUT_BYTES;
  try {
    return byteSize(v, "TOLLGATE_MAX_INPUT_BYTES");
  } catch (e) {
    // Configuration from the environment is a usage error too: it names the variable.
    throw new UsageProblem(e instanceof Error ? e.message : String(e), "validate");
  }
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === "" ? undefined : v;
}

function hint(command: string | undefined): string {
  return command === undefined ? "Run 'tollgate --help' for usage." : `Run 'tollgate ${command} --help' for usage.`;
}

function isCommanderError(e: unknown): e is CommanderError {
  return e instanceof Error && typeof (e as { code?: unknown }).code === "string" && "exitCode" in e;
}
