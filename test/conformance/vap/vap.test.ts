/**
 * Conformance: every case of `<corpus>/cases/vap/cases.json` (kube-apiserver 1.36.3's ValidatingAdmissionPolicy
 * plugin), read in place, one test per case, through the real bundle loader and PolicySet.validate: `allowed`, and
 * when denied the Status `code`, `reason` and `message` (or one of `messageOneOf`), the warning texts in order (or
 * one of `warningsOneOf`) and the audit annotations (or one of `auditAnnotationsOneOf`).
 *
 * Cases in known-failures.yaml must still fail (the list only shrinks); a listed key that names no case fails too.
 */
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { resolveCorpusRoot } from "../corpus.js";
import { readKnownFailures } from "../crd/known-failures.js";
import { differences, loadCaseBundle, observe, readVapCases, validateRequest } from "./cases.js";

const corpusRoot = resolveCorpusRoot();
const cases = readVapCases(corpusRoot);
const known = readKnownFailures(fileURLToPath(new URL("./known-failures.yaml", import.meta.url)));

const tally = { passed: 0, knownFailures: 0, failed: 0, nowPassing: 0 };

describe("ValidatingAdmissionPolicy cases", () => {
  for (const c of cases) {
    const listed = known.get(c.name);
    it(c.name, async () => {
      const set = await loadCaseBundle(c);
      const got = observe(set.validate(validateRequest(c.request)));
      const diff = differences(c.expect, got);
      if (listed !== undefined) {
        if (diff.length === 0) {
          tally.nowPassing++;
          expect.fail(`listed in known-failures.yaml (${listed.reason}) but now passes: remove it`);
        }
        tally.knownFailures++;
        return;
      }
      if (diff.length > 0) {
        tally.failed++;
        const failures = set.failures.filter((f) => f.severity === "error").map((f) => `${f.path}: ${f.message}`);
        expect.fail(
          `${c.name} [${c.area}]: ${diff.join("; ")}${failures.length > 0 ? `\n  load: ${failures.join("\n        ")}` : ""}`,
        );
      }
      tally.passed++;
    });
  }
});

describe("ValidatingAdmissionPolicy suite", () => {
  it("known-failures.yaml lists only cases that exist", () => {
    const names = new Set(cases.map((c) => c.name));
    expect([...known.keys()].filter((k) => !names.has(k))).toEqual([]);
  });
});

afterAll(() => {
  const ran = tally.passed + tally.knownFailures + tally.failed + tally.nowPassing;
  console.log(
    `conformance (ValidatingAdmissionPolicy cases): ${ran} of ${cases.length} cases — ${tally.passed} passed, ` +
      `${tally.knownFailures} known failures, ${tally.failed} failed` +
      `${tally.nowPassing > 0 ? `, ${tally.nowPassing} listed in known-failures.yaml now pass (failed)` : ""}`,
  );
});
