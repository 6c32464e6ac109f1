/**
 * Regenerates known-failures.yaml from the current results: runs every corpus case and lists each failing one
 * with a reason derived from what differs.
 *
 *   npx tsx test/conformance/crd/update-known-failures.ts
 */
import { relative } from "node:path";
import { REPO_ROOT, resolveCorpusRoot } from "../corpus.js";
import { toKnownFailure } from "./failure-reason.js";
import type { KnownFailure } from "./known-failures.js";
import { KNOWN_FAILURES_PATH, readKnownFailures, writeKnownFailures } from "./known-failures.js";
import { runCorpus } from "./run-corpus.js";

async function main(): Promise<void> {
  const corpus = resolveCorpusRoot();
  const before = readKnownFailures();
  const run = await runCorpus(corpus);
  const entries = new Map<string, KnownFailure>();
  for (const r of run.results) {
    if (r.failure !== undefined) entries.set(r.key, toKnownFailure(r.failure));
  }
  writeKnownFailures(entries);

  const fixed = [...before.keys()].filter((k) => !entries.has(k)).length;
  const added = [...entries.keys()].filter((k) => !before.has(k)).length;
  const passed = run.results.length - entries.size;
  console.log(
    `${run.results.length} cases, ${passed} passed, ${entries.size} failing → ${relative(REPO_ROOT, KNOWN_FAILURES_PATH)}` +
      ` (${fixed} removed, ${added} added; was ${before.size})`,
  );
  console.log(
    `time: load ${Math.round(run.ms.load)} ms (${run.crdFiles} CRD files), validate ${Math.round(run.ms.validate)} ms, ` +
      `classify ${Math.round(run.ms.classify)} ms, total ${Math.round(run.ms.total)} ms`,
  );
}

await main();
