/**
 * `tollgate lint`: the policies of a bundle that cannot be used (compile failures and lint warnings), and the
 * kinds it covers; and the waivers in force (lib/waivers/lint.ts: expired ones, selectors that can never match), with
 * the waiver files of `--waivers`.
 *
 * Text, one line per failure: `<severity> <file>[#<document>] <path>: <message>` (the file as a path the user can
 * open, the bundle folder joined to the library's relative path; documents numbered from 0 as the library numbers
 * them; the bundle path stands in for a failure not tied to a file), then one `note ...` line per document or file
 * the loader ignored (never a failure), then the covered kinds. JSON: the library's `PolicyFailure[]` as is (notes
 * are not failures and are left out).
 */
import { join } from "node:path";
import { lintWaivers, loadBundle, type PolicyFailure, type PolicySet } from "#lib";
import { bundleLimitsOf } from "../../config.js";
import { readWaiverFiles } from "../../policies.js";
import { statPath } from "../../sources/index.js";
import type { ResolvedLintConfig } from "../args.js";
import type { CommandIo, CommandOutcome } from "../io.js";

export async function runLint(config: Readonly<ResolvedLintConfig>, io: CommandIo): Promise<CommandOutcome> {
  const info = await statPath(config.bundle, "bundle path");
  const waivers = config.waivers === undefined ? [] : await readWaiverFiles(config.waivers);
  const policySet = await loadBundle(config.bundle, { waivers, limits: bundleLimitsOf(config.maxDocumentBytes) });
  // The waivers' expiry is judged now (lint is run by people and CI, at the time that matters to them).
  const failures = [...policySet.failures, ...lintWaivers(policySet, new Date())];

  if (config.output === "json") {
    io.stdout(`${JSON.stringify(failures, null, 2)}\n`);
  } else {
    // The library names files relative to a bundle folder; a single-file bundle is the file itself; waiver files
    // beside the bundle are named as given.
    const waiverFiles = new Set(waivers.map((f) => f.path));
    const fileName = (file: string | undefined) =>
      file === undefined
        ? config.bundle
        : waiverFiles.has(file)
          ? file
          : info.isDirectory()
            ? join(config.bundle, file)
            : config.bundle;
    io.stdout(lintText(policySet, failures, config.bundle, fileName));
  }

  return failures.some((f) => f.severity === "error") ? "violations" : "ok";
}

function lintText(
  policySet: PolicySet,
  failures: readonly PolicyFailure[],
  bundle: string,
  fileName: (file: string | undefined) => string,
): string {
  let out = "";
  for (const f of failures) out += `${failureLine(f, fileName(f.file))}\n`;
  for (const n of policySet.notes) out += `${failureLine({ ...n, severity: "note" }, fileName(n.file))}\n`;

  const errors = failures.filter((f) => f.severity === "error").length;
  const warnings = failures.length - errors;
  const notes = policySet.notes.length;
  if (failures.length + notes > 0) out += "\n";
  out += `${plural(errors, "error")}, ${plural(warnings, "warning")}${notes > 0 ? ` (${plural(notes, "note")})` : ""} in ${bundle}\n`;

  if (policySet.waivers.length > 0) out += `${plural(policySet.waivers.length, "waiver")} read\n`;
  out += `${plural(policySet.kinds.length, "kind")} covered${policySet.kinds.length > 0 ? ":" : ""}\n`;
  for (const k of policySet.kinds) {
    const gv = k.group === "" ? k.version : `${k.group}/${k.version}`;
    out += `  ${gv} ${k.kind} (${k.family}, ${k.scope === "Cluster" ? "cluster-scoped" : "namespaced"}, ${plural(k.rules, "rule")})\n`;
  }
  return out;
}

/**
 * `<severity> <file>[#<document>] <path>: <message>`, leaving out what the failure does not have. The library's
 * CRD messages are whole field errors (`<path>: <body>`, as the API server words a rejected CRD), so the path is
 * not printed twice. `rule` and `kinds` are left to `-o json`.
 */
export function failureLine(
  f: Pick<PolicyFailure, "document" | "path" | "message"> & { severity: PolicyFailure["severity"] | "note" },
  file: string,
): string {
  let where = file;
  if (f.document !== undefined) where += `#${f.document}`;
  let message = f.message;
  if (f.path !== undefined && f.path !== "") {
    where += ` ${f.path}`;
    if (message.startsWith(`${f.path}: `)) message = message.slice(f.path.length + 2);
  }
  return `${f.severity} ${where}: ${message}`;
}

function plural(n: number, word: string): string {
  return `${n} ${n === 1 ? word : `${word}s`}`;
}
