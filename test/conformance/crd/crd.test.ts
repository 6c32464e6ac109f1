/**
 * Conformance: every case of `<corpus>/cases/{gateway-api,network-policy-api,openshift-api}/*.json`, read in
 * place, against `expect.real` (Kubernetes 1.36.3). One test per case; see case-check.ts for what "passes" means.
 *
 * Cases listed in known-failures.yaml must still fail (the list only shrinks); a listed key that names no case
 * fails too. Regenerate the list with `npx tsx test/conformance/crd/update-known-failures.ts`, and look for bugs
 * with `npx tsx test/conformance/crd/report.ts`.
 */
import { afterAll, describe, expect, it } from "vitest";
import { caseKey, readCrdCaseFiles, resolveCorpusRoot } from "../corpus.js";
import { describeDifferences, runCase } from "./case-check.js";
import { createCrdLoader } from "./crd-loader.js";
import { readKnownFailures } from "./known-failures.js";

const corpusRoot = resolveCorpusRoot();
const caseFiles = readCrdCaseFiles(corpusRoot);
const known = readKnownFailures();
const loader = createCrdLoader(corpusRoot);

const tally = { passed: 0, knownFailures: 0, failed: 0, nowPassing: 0 };
const REGENERATE = "npx tsx test/conformance/crd/update-known-failures.ts";
const startedAt = performance.now();

for (const { file, cases } of caseFiles) {
  describe(file, () => {
    for (const c of cases) {
      const key = caseKey(file, c.name);
      const listed = known.get(key);
      it(c.name, async () => {
        const outcome = await runCase(loader, c);
        if (listed !== undefined) {
          if (outcome.passed) {
            tally.nowPassing++;
            expect.fail(`listed in known-failures.yaml (${listed.reason}) but now passes: remove it (${REGENERATE})`);
          }
          tally.knownFailures++;
          return;
        }
        if (!outcome.passed) {
          tally.failed++;
          expect.fail(`${key}\n${describeDifferences(outcome)}`);
        }
        tally.passed++;
      });
    }
  });
}

describe("known-failures.yaml", () => {
  it("lists only cases that exist", () => {
    const keys = new Set(caseFiles.flatMap(({ file, cases }) => cases.map((c) => caseKey(file, c.name))));
    const stale = [...known.keys()].filter((k) => !keys.has(k));
    expect(stale, `known-failures.yaml lists cases that do not exist; regenerate it (${REGENERATE})`).toEqual([]);
  });
});

afterAll(() => {
  const total = caseFiles.reduce((n, f) => n + f.cases.length, 0);
  const ran = tally.passed + tally.knownFailures + tally.failed + tally.nowPassing;
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
  console.log(
    `conformance (CRD cases): ${ran === total ? `${total} cases` : `${ran} of ${total} cases`} in ${caseFiles.length} files — ${tally.passed} passed, ` +
      `${tally.knownFailures} known failures, ${tally.failed} failed` +
      (tally.nowPassing > 0 ? `, ${tally.nowPassing} listed in known-failures.yaml now pass (failed)` : "") +
      ` (${seconds} s)`,
  );
});
