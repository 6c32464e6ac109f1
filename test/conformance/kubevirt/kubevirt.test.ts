/**
 * Conformance: every case of `<corpus>/cases/kubevirt/cases.json`, read in place, one test per case. A case passes
 * when tollgate's verdict gives what its README says to compare: `allowed`, and as sets the names of the rules
 * violated (errors), warned about (`justWarning`), that could not be evaluated, and whether the annotation as a
 * whole failed. Also compared: the rules tollgate reports as ignored (warnings with `evaluationError`), which must
 * be none unless a case below says otherwise.
 *
 * TOLLGATE_RULE lists the cases whose `expect` is the real validator's behaviour in one of the issue's deliberate
 * improvements; they are graded by tollgate's rule, given here with the reason.
 *
 * Cases in known-failures.yaml must still fail (the list only shrinks); a listed key that names no case fails too.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadBundle } from "../../../lib/index.js";
import { VM_TYPES } from "../../../lib/kubevirt/vm-schema.generated.js";
import { resolveCorpusRoot } from "../corpus.js";
import { readKnownFailures } from "../crd/known-failures.js";
import {
  createTemplateBundles,
  differences,
  type Observed,
  observe,
  readKubevirtCases,
  runCase,
  summary,
} from "./cases.js";
import { buildVmTypes, type Swagger } from "./vm-schema-source.js";

const corpusRoot = resolveCorpusRoot();
const cases = readKubevirtCases(corpusRoot);
const KNOWN_FAILURES = fileURLToPath(new URL("./known-failures.yaml", import.meta.url));
const known = readKnownFailures(KNOWN_FAILURES);
const bundleFor = createTemplateBundles(corpusRoot);

const NONE: Omit<Observed, "allowed"> = {
  violations: [],
  warnings: [],
  errors: [],
  annotationError: false,
  ruleWarnings: [],
};

/** Cases graded by tollgate's rule (issue: "deliberate improvements"), with what tollgate gives and why. */
const TOLLGATE_RULE: Readonly<Record<string, { want: Observed; why: string }>> = {
  "rule-unknown-type-rejects": {
    want: { ...NONE, allowed: true, ruleWarnings: ["cores-between"] },
    why: "improvement 1: an unknown rule type ('range') is ignored, as the format text says, and reported as a warning; the real validator rejects",
  },
  "legacy-incorrect-rule-type-rejects": {
    want: { ...NONE, allowed: true, ruleWarnings: ["SupportedChipset"] },
    why: "improvement 1: 'value-set' is an unknown type, so SupportedChipset is ignored with a warning (its missing message does not matter); EnoughMemory passes",
  },
  "centos-stream9-memory-fractional-binary-1.5Gi-errors": {
    want: { ...NONE, allowed: true },
    why: "improvement 3: 1.5Gi is exactly 1610612736 bytes, the minimum; the real validator cannot convert a fractional binary quantity",
  },
  "rhel9-vm-without-own-annotation-linked-to-current-template": {
    want: { ...NONE, allowed: false, violations: ["minimal-required-memory"] },
    why: "improvement 6: the template has no template-level 'validations', so the rules of its VirtualMachine object (objects[0]) apply: 1Gi < 1.5Gi",
  },
};

const tally = { passed: 0, tollgateRule: 0, knownFailures: 0, failed: 0, nowPassing: 0 };

describe("kubevirt cases", () => {
  for (const c of cases) {
    const listed = known.get(c.name);
    const override = TOLLGATE_RULE[c.name];
    it(c.name, async () => {
      const want: Observed = override?.want ?? { ...c.expect, ruleWarnings: [] };
      const got = observe(await runCase(bundleFor, c));
      const diff = differences(want, got);
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
        expect.fail(`${c.name} (${c.basis}): ${diff.join("; ")}\n  want: ${summary(want)}\n  got:  ${summary(got)}`);
      }
      if (override !== undefined) tally.tollgateRule++;
      else tally.passed++;
    });
  }
});

describe("kubevirt suite", () => {
  it("known-failures.yaml lists only cases that exist", () => {
    const names = new Set(cases.map((c) => c.name));
    expect([...known.keys()].filter((k) => !names.has(k))).toEqual([]);
  });

  it("TOLLGATE_RULE lists only cases that exist", () => {
    const names = new Set(cases.map((c) => c.name));
    expect(Object.keys(TOLLGATE_RULE).filter((k) => !names.has(k))).toEqual([]);
  });

  it("lib/kubevirt/vm-schema.generated.ts is what the corpus swagger.json gives", () => {
    const swagger = JSON.parse(readFileSync(join(corpusRoot, "kubevirt", "schema", "swagger.json"), "utf8")) as Swagger;
    expect(VM_TYPES, "regenerate: npx tsx test/conformance/kubevirt/generate-vm-schema.ts").toEqual(
      buildVmTypes(swagger),
    );
  });

  it.each(["common-templates-v0.25.0", "common-templates-v0.35.0", "legacy-template-level"])(
    "the corpus templates in %s lint without errors",
    async (folder) => {
      const set = await loadBundle(join(corpusRoot, "kubevirt", "templates", folder));
      expect(set.failures.filter((f) => f.severity === "error")).toEqual([]);
      const warnings = set.failures.map((f) => `${f.rule}: ${f.message}`);
      // The one legacy template with an unknown rule type ('value-set') gets a warning; nothing else does.
      expect(warnings).toEqual(
        folder === "legacy-template-level"
          ? [
              'SupportedChipset: Template openshift/fedora-desktop-small-with-rules-incorrect: rule "SupportedChipset": unknown rule type "value-set": the rule is ignored (known types: integer, string, regex, enum)',
            ]
          : [],
      );
    },
  );
});

afterAll(() => {
  const ran = tally.passed + tally.tollgateRule + tally.knownFailures + tally.failed + tally.nowPassing;
  console.log(
    `conformance (KubeVirt cases): ${ran} of ${cases.length} cases — ${tally.passed} passed as the real validator, ` +
      `${tally.tollgateRule} passed by tollgate's rule (deliberate improvements), ${tally.knownFailures} known failures, ` +
      `${tally.failed} failed${tally.nowPassing > 0 ? `, ${tally.nowPassing} listed in known-failures.yaml now pass (failed)` : ""}`,
  );
});
