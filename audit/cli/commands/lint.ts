/**
 * `tollgate lint`: the policies of a bundle that cannot be used (compile failures and lint warnings), and the
 * kinds it covers.
 *
 * Text, one line per failure: `<severity> <file>[#<document>] <path>: <message>` (documents numbered from 1; the
 * bundle path stands in for a failure not tied to a file), then the covered kinds. JSON: the library's
 * `PolicyFailure[]` as is.
 */
import { loadBundle, type PolicyFailure, type PolicySet } from "../../../lib/index.js";
import type { ResolvedLintConfig } from "../args.js";
import { statOrThrow } from "../inputs.js";
import type { CommandIo, CommandOutcome } from "../io.js";

export async function runLint(config: Readonly<ResolvedLintConfig>, io: CommandIo): Promise<CommandOutcome> {
  await statOrThrow(config.bundle, "bundle");
  const policySet = await loadBundle(config.bundle);

  if (config.output === "json") io.stdout(`${JSON.stringify(policySet.failures, null, 2)}\n`);
  else io.stdout(lintText(policySet, config.bundle));

  return policySet.failures.some((f) => f.severity === "error") ? "violations" : "ok";
}

function lintText(policySet: PolicySet, bundle: string): string {
  let out = "";
  for (const f of policySet.failures) out += `${failureLine(f, bundle)}\n`;

  const errors = policySet.failures.filter((f) => f.severity === "error").length;
  const warnings = policySet.failures.length - errors;
  if (policySet.failures.length > 0) out += "\n";
  out += `${plural(errors, "error")}, ${plural(warnings, "warning")} in ${bundle}\n`;

  out += `${plural(policySet.kinds.length, "kind")} covered${policySet.kinds.length > 0 ? ":" : ""}\n`;
  for (const k of policySet.kinds) {
    const gv = k.group === "" ? k.version : `${k.group}/${k.version}`;
    out += `  ${gv} ${k.kind} (${k.family}, ${k.scope === "Cluster" ? "cluster-scoped" : "namespaced"}, ${plural(k.rules, "rule")})\n`;
  }
  return out;
}

/** `<severity> <file>[#<document>] <path>: <message>`, leaving out what the failure does not have. */
export function failureLine(f: PolicyFailure, bundle: string): string {
  let where = f.file ?? bundle;
  // PolicyFailure.document is 0-based; people count documents from 1.
  if (f.document !== undefined) where += `#${f.document + 1}`;
  if (f.path !== undefined && f.path !== "") where += ` ${f.path}`;
  if (f.rule !== undefined && f.rule !== "") where += ` (rule ${JSON.stringify(f.rule)})`;
  return `${f.severity} ${where}: ${f.message}`;
}

function plural(n: number, word: string): string {
  return `${n} ${n === 1 ? word : `${word}s`}`;
}
