/**
 * `tollgate` entry point: parse the arguments, run the command, set the exit code. This file is the only place
 * that decides exit codes (STYLE.md, "Edges translate, in one table each"):
 *
 * | outcome                                                        | exit |
 * |----------------------------------------------------------------|------|
 * | every object valid or skipped; lint found no error; --demo ran | 0    |
 * | an object invalid, a document undecodable; lint found an error | 1    |
 * | verify: a report file or a link of the evidence chain is broken | 1    |
 * | usage or configuration error (flags, env, missing paths)       | 2    |
 * | internal error                                                 | 3    |
 *
 * Run through `audit/cli/bin.js` (`npx tollgate`, `npm start`: the build in dist/cli when current, else these sources
 * through tsx) or directly with `tsx audit/cli/main.ts`. Commands
 * and the library are imported lazily, so `--help` and usage errors never load the engine.
 */
import { TOLLGATE_VERSION } from "#lib/version.js";
import { silenceSdkNodeVersionWarning } from "../aws-sdk-warning.js";
import { parseArgs, type ResolvedProcessConfig } from "./args.js";
import type { CommandIo, CommandOutcome } from "./io.js";

const EXIT_CODES = {
  ok: 0,
  violations: 1,
  usage: 2,
  internal: 3,
} as const;

async function main(argv: readonly string[]): Promise<number> {
  const io: CommandIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: process.stdin,
  };

  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(argv, process.env, TOLLGATE_VERSION);
  } catch (err) {
    io.stderr(`internal error: ${describe(err)}\n`);
    return EXIT_CODES.internal;
  }

  switch (args.kind) {
    case "help":
      io.stdout(args.text);
      return EXIT_CODES.ok;
    case "usage-error":
      io.stderr(args.message.endsWith("\n") ? args.message : `${args.message}\n`);
      return EXIT_CODES.usage;
  }

  const stopProfile = await startCpuProfile(args.process);
  try {
    let outcome: CommandOutcome;
    if (args.kind === "audit") {
      const { runAuditCommand } = await import("./commands/audit.js");
      outcome = await runAuditCommand(args.config, {
        ...io,
        isTty: process.stderr.isTTY === true,
        ...(process.stderr.columns !== undefined && { columns: process.stderr.columns }),
      });
    } else if (args.kind === "verify") {
      const { runVerify } = await import("./commands/verify.js");
      outcome = await runVerify(args.config, io);
    } else if (args.kind === "bundle-build") {
      const { runBundleBuild } = await import("./commands/bundle-build.js");
      outcome = await runBundleBuild(args.config, io);
    } else if (args.kind === "webhook-config") {
      const { runWebhookConfig } = await import("./commands/webhook-config.js");
      outcome = await runWebhookConfig(args.config, io);
    } else if (args.kind === "validate") {
      const { runValidate } = await import("./commands/validate.js");
      outcome = await runValidate(args.config, io);
    } else {
      const { runLint } = await import("./commands/lint.js");
      outcome = await runLint(args.config, io);
    }
    return EXIT_CODES[outcome];
  } catch (err) {
    if ((args.kind === "audit" || args.kind === "verify") && errorName(err) === "StorageError") {
      // The auditor's (and verify's) row of the table: S3 and report folders are its surroundings, so a storage failure is exit 3.
      io.stderr(`storage error: ${describe(err)}\n`);
      return EXIT_CODES.internal;
    }
    if (errorName(err) === "ConfigError" || errorName(err) === "StorageError") {
      io.stderr(`error: ${describe(err)}\n`);
      return EXIT_CODES.usage;
    }
    io.stderr(`internal error: ${describe(err)}\n`);
    if (err instanceof Error && err.stack !== undefined) io.stderr(`${err.stack}\n`);
    return EXIT_CODES.internal;
  } finally {
    await stopProfile().catch((err: unknown) => io.stderr(`warning: CPU profile not written: ${describe(err)}\n`));
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * lib's exception classes, told apart by their stable `name` (never by message text): a ConfigError (bad flags,
 * environment, a missing path) and, outside the auditor, a StorageError (an unreadable bundle) are usage errors.
 */
function errorName(err: unknown): string | undefined {
  return err instanceof Error ? err.name : undefined;
}

/**
 * `TOLLGATE_CPUPROFILE_FILE=run.cpuprofile tollgate ...` records a V8 CPU profile of the command (kubeconform's
 * KUBECONFORM_CPUPROFILE_FILE); open the file in Chrome DevTools or speedscope.
 */
async function startCpuProfile(config: Readonly<ResolvedProcessConfig>): Promise<() => Promise<void>> {
  const file = config.cpuProfileFile;
  if (file === undefined) return async () => {};
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return async () => {
    const { profile } = await session.post("Profiler.stop");
    session.disconnect();
    const { writeFile } = await import("node:fs/promises");
    await writeFile(file, JSON.stringify(profile));
    process.stderr.write(`CPU profile written to ${file}\n`);
  };
}

// A reader that goes away (`tollgate validate ... | head`) ends the run quietly instead of crashing on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? EXIT_CODES.ok);
    throw err;
  });
}

silenceSdkNodeVersionWarning();
process.exitCode = await main(process.argv.slice(2));
