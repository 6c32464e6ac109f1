/**
 * Regenerates known-failures.yaml from the current results: runs every cel-spec test and lists each failing one
 * with the reason classification.ts gives. Prints the totals per file, how many a Kubernetes rule can reach, and the
 * most common reasons.
 *
 *   npx tsx test/conformance/cel-spec/update-known-failures.ts
 */
import { relative } from "node:path";
import { REPO_ROOT, resolveCorpusRoot } from "../corpus.js";
import { KNOWN_FAILURES_PATH, type KnownFailure, readKnownFailures, writeKnownFailures } from "./known-failures.js";
import { readSpecFiles, runSpecCase } from "./run-spec.js";

function main(): void {
  const started = performance.now();
  const files = readSpecFiles(resolveCorpusRoot());
  const before = readKnownFailures();
  const entries = new Map<string, KnownFailure>();
  const totals = { passed: 0, failing: 0, skipped: 0 };
  const categories = new Map<string, number>();
  for (const { file, cases } of files) {
    const t = { passed: 0, failing: 0, skipped: 0 };
    for (const c of cases) {
      const o = runSpecCase(c);
      if (o.kind === "passed") t.passed++;
      else if (o.kind === "skipped") t.skipped++;
      else {
        t.failing++;
        entries.set(c.key, o.failure);
        const category = o.failure.reason.replace(/("[^"]*"|'[^']*'|\d+)/g, "…").slice(0, 90);
        categories.set(category, (categories.get(category) ?? 0) + 1);
      }
    }
    totals.passed += t.passed;
    totals.failing += t.failing;
    totals.skipped += t.skipped;
    console.log(`${file.padEnd(26)} ${t.passed} passed, ${t.failing} known failures, ${t.skipped} skipped`);
  }
  writeKnownFailures(entries);

  const fixed = [...before.keys()].filter((k) => !entries.has(k)).length;
  const added = [...entries.keys()].filter((k) => !before.has(k)).length;
  console.log(
    `total: ${totals.passed} passed, ${totals.failing} known failures, ${totals.skipped} skipped` +
      ` → ${relative(REPO_ROOT, KNOWN_FAILURES_PATH)} (${fixed} removed, ${added} added; was ${before.size})` +
      ` in ${Math.round(performance.now() - started)} ms`,
  );
  const reachable = [...entries.values()].filter((e) => /^(reachable|unclassified)/.test(e.reason)).length;
  console.log(`${reachable} of the known failures are reachable by a Kubernetes rule (classification.ts)`);
  console.log("most common reasons:");
  for (const [reason, n] of [...categories.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
    console.log(`${String(n).padStart(5)}  ${reason}`);
  }
}

main();
