/**
 * Conformance: `<corpus>/realworld/` (see its README.md), read in place. One test per check (see checks.ts):
 * every CRD file lints clean, every sample gets its expected verdict, every Crossplane update case its verdict,
 * and every kubectl-validate document about a custom resource gives the Status that project's test expects.
 * kubectl-validate documents about built-in kinds need built-in schemas: they are counted as not applicable.
 *
 * Checks listed in known-failures.yaml must still fail (the list only shrinks); a listed key that names no check
 * fails too. Some checks: `npx vitest run --project conformance test/conformance/realworld -t "<pattern>"`.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadBundle, type PolicySet } from "#lib";
import {
  type CheckOutcome,
  checkKubectlValidateDocument,
  checkLintClean,
  checkSample,
  checkUpdate,
  createProjectBundles,
  subjectOf,
} from "./checks.js";
import { readKnownFailures } from "./known-failures.js";
import { readKubectlValidateDocuments } from "./kubectl-validate.js";
import { readCrdFiles, readProjects, readSamples, readUpdateCases, resolveRealworldRoot } from "./realworld-corpus.js";

const root = resolveRealworldRoot();
const projects = readProjects(root);
const crdFiles = readCrdFiles(root, projects);
const samples = readSamples(root);
const updates = readUpdateCases(root);
const testcases = join(root, "kubectl-validate", "testcases");
const kubectlValidate = readKubectlValidateDocuments(testcases).map((doc) => ({ doc, subject: subjectOf(doc) }));
const known = readKnownFailures();
const bundleOf = createProjectBundles(root);
let kubectlValidateBundle: Promise<PolicySet> | undefined;
const kubectlValidateCrds = () => {
  kubectlValidateBundle ??= loadBundle(join(testcases, "crds"));
  return kubectlValidateBundle;
};

type Group = "crd files" | "samples" | "updates" | "kubectl-validate";
const tally = new Map<Group, { passed: number; knownFailures: number; failed: number; nowPassing: number }>();
const checkKeys = new Set<string>();

/** One test per check, graded against known-failures.yaml. */
function check(group: Group, key: string, run: () => Promise<CheckOutcome>): void {
  checkKeys.add(key);
  const listed = known.get(key);
  it(key, async () => {
    const counts = tally.get(group) ?? { passed: 0, knownFailures: 0, failed: 0, nowPassing: 0 };
    tally.set(group, counts);
    const outcome = await run();
    if (listed !== undefined) {
      if (outcome.passed) {
        counts.nowPassing++;
        expect.fail(`listed in known-failures.yaml (${listed.reason}) but now passes: remove it`);
      }
      counts.knownFailures++;
      return;
    }
    if (!outcome.passed) {
      counts.failed++;
      expect.fail(`${key}\n  want: ${outcome.want}\n  got:  ${outcome.got}`);
    }
    counts.passed++;
  });
}

describe("crd files lint clean", () => {
  for (const { project, file } of crdFiles) {
    check("crd files", `crds/${project}/${file}`, async () => checkLintClean(await bundleOf(project), file));
  }
  it.each(projects)("crds/%s: every policy failure names one of the project's files", async (project) => {
    const files = new Set(crdFiles.filter((f) => f.project === project).map((f) => f.file));
    const outcome = checkLintClean(await bundleOf(project), (f) => f === undefined || !files.has(f));
    expect(outcome.got).toBe(outcome.want);
  });
});

describe("samples", () => {
  for (const sample of samples) {
    check("samples", `samples/${sample.file}`, async () => checkSample(root, await bundleOf(sample.project), sample));
  }
});

describe("updates", () => {
  for (const update of updates) {
    check("updates", `updates/${update.test}`, async () => checkUpdate(root, await bundleOf(update.project), update));
  }
});

describe("kubectl-validate", () => {
  for (const { doc, subject } of kubectlValidate) {
    if (subject === "built-in") continue;
    check("kubectl-validate", `kubectl-validate/${doc.file}#${doc.index}`, async () =>
      checkKubectlValidateDocument(doc, subject, await kubectlValidateCrds()),
    );
  }
  it("the crds/ bundle loads without an error-severity policy failure", async () => {
    const set = await kubectlValidateCrds();
    expect(set.failures.filter((f) => f.severity === "error")).toEqual([]);
  });
});

describe("known-failures.yaml", () => {
  it("lists only checks that exist", () => {
    expect([...known.keys()].filter((k) => !checkKeys.has(k))).toEqual([]);
  });
});

afterAll(() => {
  const lines: string[] = [];
  let checks = 0;
  let passed = 0;
  for (const [group, c] of tally) {
    const ran = c.passed + c.knownFailures + c.failed + c.nowPassing;
    checks += ran;
    passed += c.passed;
    lines.push(
      `  ${group}: ${c.passed} of ${ran} passed, ${c.knownFailures} known failures, ${c.failed} failed` +
        (c.nowPassing > 0 ? `, ${c.nowPassing} listed in known-failures.yaml now pass (failed)` : ""),
    );
  }
  const bySubject = (s: string) => kubectlValidate.filter((k) => k.subject === s).length;
  lines.push(
    `  kubectl-validate documents: ${kubectlValidate.length} in ${new Set(kubectlValidate.map((k) => k.doc.file)).size} files; ` +
      `checked ${bySubject("custom-resource")} about custom resources, ${bySubject("empty")} empty, ${bySubject("crd")} CRD (lint); ` +
      `${bySubject("built-in")} about built-in kinds: not applicable`,
  );
  console.log(`conformance (realworld): ${passed} of ${checks} checks passed\n${lines.join("\n")}`);
});
