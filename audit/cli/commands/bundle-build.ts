/**
 * `tollgate bundle build <bundle> -o <artifact>`: decode and compile a bundle, write it as one pre-decoded JSON
 * artifact (lib/bundle/artifact.ts) to a file, S3 or standard output, and list its policy failures on standard
 * error (as `tollgate lint` prints them), then a one-line summary.
 */

import { join } from "node:path";
import { buildBundleArtifact } from "#lib";
import { isS3Url, openLocation } from "#lib/storage";
import { bundleLimitsOf } from "../../config.js";
import { statPath } from "../../sources/index.js";
import type { ResolvedBundleBuildConfig } from "../bundle-args.js";
import type { CommandIo, CommandOutcome } from "../io.js";
import { failureLine } from "./lint.js";

export async function runBundleBuild(
  config: Readonly<ResolvedBundleBuildConfig>,
  io: CommandIo,
): Promise<CommandOutcome> {
  const isFolder = isS3Url(config.source)
    ? config.source.endsWith("/")
    : (await statPath(config.source, "bundle path")).isDirectory();
  const { text, policySet } = await buildBundleArtifact(config.source, {
    s3: config.s3,
    limits: bundleLimitsOf(config.maxDocumentBytes),
  });

  if (config.output === "-") {
    io.stdout(`${text}\n`);
  } else {
    const { store, key } = await openLocation(config.output, "object", config.s3);
    try {
      await store.write(key, text, { contentType: "application/json" });
    } finally {
      store.close();
    }
  }

  const fileName = (file: string | undefined) =>
    file === undefined ? config.source : isFolder ? join(config.source, file) : config.source;
  let report = "";
  for (const f of policySet.failures) report += `${failureLine(f, fileName(f.file))}\n`;
  const errors = policySet.failures.filter((f) => f.severity === "error").length;
  const warnings = policySet.failures.length - errors;
  const where = config.output === "-" ? "standard output" : config.output;
  report += `wrote ${where}: ${plural(policySet.kinds.length, "kind")}, ${plural(errors, "error")}, ${plural(warnings, "warning")}, ${kib(Buffer.byteLength(text))} (${policySet.digest})\n`;
  io.stderr(report);
  return errors > 0 ? "violations" : "ok";
}

function plural(n: number, word: string): string {
  return `${n} ${n === 1 ? word : `${word}s`}`;
}

function kib(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}
