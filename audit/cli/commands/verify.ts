/**
 * `tollgate verify`: prints each broken file or link (audit/evidence.ts), then what was verified; `violations`
 * (exit 1) when anything is broken.
 */
import { verifyEvidence } from "../../evidence.js";
import type { CommandIo, CommandOutcome } from "../io.js";
import type { ResolvedVerifyConfig } from "../verify-args.js";

export async function runVerify(config: Readonly<ResolvedVerifyConfig>, io: CommandIo): Promise<CommandOutcome> {
  const r = await verifyEvidence(config.location, config.s3);
  for (const p of r.problems) io.stdout(`BROKEN ${p}\n`);
  const what = `${r.runs.length} run(s), ${r.files} file(s)`;
  const head = r.head === undefined ? "" : `; newest index.json sha256 ${r.head}`;
  if (r.problems.length > 0) {
    io.stdout(`verify failed: ${r.problems.length} problem(s) in ${config.location} (${what} checked)${head}\n`);
    return "violations";
  }
  io.stdout(`verified ${config.location}: ${what} as written${head}\n`);
  return "ok";
}
