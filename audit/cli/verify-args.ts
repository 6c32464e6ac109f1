/**
 * `tollgate verify <prefix|run>`: its flags and help. Registered by args.ts; the S3 flags resolve as the audit's do
 * (audit/config.ts resolveS3).
 */
import type { Command } from "commander";
import type { S3Options } from "#lib/storage";
import { type Env, resolveS3 } from "../config.js";

export interface ResolvedVerifyConfig {
  /** A report prefix (with latest.json) or one run folder (with index.json): a folder or an s3:// URL. */
  location: string;
  s3: Readonly<S3Options>;
}

const VERIFY_HELP_FOOTER = `
Given a run folder (it holds index.json), re-hashes every file index.json lists and compares sizes and sha256
digests; a listed file that is gone or a file index.json does not list is reported too. Given a report prefix (the
--out of tollgate audit, with latest.json), does that for every run of the chain from latest.json back to the first
run, and checks each link: each index.json records the sha256 of the previous run's index.json, latest.json the
newest one's, history.json each run's; run folders the chain does not reach are reported.

Prints one line per broken file or link, then a closing line with the runs and files verified and the sha256 of
the newest index.json (keep it elsewhere: nothing links to the newest run, see the README's "Evidence").

Exit codes: 0 everything matches; 1 a file or link is broken; 2 the location holds no run or prefix; 3 a storage
error.

Examples:
  tollgate verify reports
  tollgate verify reports/20261122T021500Z
  tollgate verify s3://reports/nightly
`;

/** Adds the verify command to the program; `onParsed` receives the resolved configuration. */
export function defineVerifyCommand(
  program: Command,
  env: Env,
  onParsed: (config: Readonly<ResolvedVerifyConfig>) => void,
): void {
  program
    .command("verify")
    .summary("check that the reports of a run, or of every run of a prefix, are as they were written")
    .description("Re-hash a run's files, or the whole chain of runs at a report prefix, against their index.json.")
    .argument("<location>", "a report prefix (--out of tollgate audit) or one run folder; a folder or s3:// URL")
    .option("--s3-endpoint <url>", "S3-compatible endpoint for s3:// locations (env TOLLGATE_S3_ENDPOINT)")
    .option("--s3-path-style", "path-style S3 addressing (default with --s3-endpoint; env TOLLGATE_S3_PATH_STYLE)")
    .option("--no-s3-path-style", "virtual-hosted S3 addressing (bucket.endpoint), even with --s3-endpoint")
    .addHelpText("after", VERIFY_HELP_FOOTER)
    .action((location: string, opts: Record<string, unknown>) => {
      const s3 = resolveS3(
        {
          ...(typeof opts.s3Endpoint === "string" && { s3Endpoint: opts.s3Endpoint }),
          ...(typeof opts.s3PathStyle === "boolean" && { s3PathStyle: opts.s3PathStyle }),
        },
        env,
      );
      onParsed(Object.freeze({ location, s3 }));
    });
}
