/**
 * Conformance: every fixture of the Pod Security fixture suite (`<corpus>/pod-security/testdata`, read in place),
 * one test per file, through the admission logic as the library's own fixture test runs them: in a namespace
 * labelled `enforce` and `warn` at the fixture's level and version, a Pod is created (a pass/ file must be allowed
 * with no warning; a fail/ file denied with 403 `Forbidden` and the library's message, the check the file names
 * among the failing checks) and a Deployment with the fixture as its template (allowed; a fail/ file gets the
 * `would violate PodSecurity` warning naming the check). At the restricted level a baseline check can be replaced by
 * the restricted check that overrides it at that version (`hostPathVolumes` by `restrictedVolumes`), as in the
 * library's expectations.
 *
 * The evaluator is the library's whole check table (up to the newest version the fixtures cover), as the library's
 * test runs it without an emulated version; tollgate's family evaluates as kube-apiserver 1.36 (unit tests).
 *
 * Fixtures in known-failures.yaml must still fail (the list only shrinks); a listed key that names no fixture fails.
 */
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createAdmission, type PodSecurityResponse } from "../../../lib/pod-security/admission.js";
import { defaultConfig } from "../../../lib/pod-security/config.js";
import { LABELS, parseVersion } from "../../../lib/pod-security/levels.js";
import { createEvaluator, DEFAULT_CHECKS } from "../../../lib/pod-security/registry.js";
import { resolveCorpusRoot } from "../corpus.js";
import { readKnownFailureFile } from "../known-failures-file.js";
import { type PodFixture, readPodFixtures } from "./fixtures.js";

const fixtures = readPodFixtures(resolveCorpusRoot());
const known = readKnownFailureFile(fileURLToPath(new URL("./known-failures.yaml", import.meta.url)), ["want", "got"]);
const evaluator = createEvaluator();

function admissionFor(f: PodFixture) {
  const labels = {
    [LABELS.enforce]: f.level,
    [LABELS.enforceVersion]: f.version,
    [LABELS.warn]: f.level,
    [LABELS.warnVersion]: f.version,
  };
  return createAdmission({ config: defaultConfig(), evaluator, namespace: () => ({ labels }), pods: () => [] });
}

/** The lower-cased ids that satisfy a fail/ fixture: its check, and restricted checks that replace it there. */
function acceptedIds(f: PodFixture): Set<string> {
  const minor = parseVersion(f.version).value.minor;
  const ids = new Set([f.check!]);
  if (f.level !== "restricted") return ids;
  for (const c of DEFAULT_CHECKS) {
    if (c.level !== "restricted") continue;
    const revision = c.versions.filter((v) => v.minimumMinor <= minor).at(-1);
    if (revision?.overrides?.some((o) => o.toLowerCase() === f.check)) ids.add(c.id.toLowerCase());
  }
  return ids;
}

function failingIds(r: PodSecurityResponse, mode: "enforce" | "warn"): string[] {
  return r.evaluations.filter((e) => e.mode === mode).flatMap((e) => e.violations.map((v) => v.id.toLowerCase()));
}

/** What differs from the fixture's expectation (empty when it passes). */
function differences(f: PodFixture): string[] {
  const admission = admissionFor(f);
  const base = { operation: "CREATE" as const, subresource: "", namespace: "ns", name: "test", username: "user" };
  const pod = admission.validate({ ...base, group: "", resource: "pods", kind: "Pod", object: f.pod });
  const template = { metadata: f.pod.metadata, spec: f.pod.spec };
  const deployment = admission.validate({
    ...base,
    group: "apps",
    resource: "deployments",
    kind: "Deployment",
    object: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "test" }, spec: { template } },
  });
  const out: string[] = [];
  const policy = `"${f.level}:${f.version}"`;
  if (!deployment.allowed) out.push("the Deployment was denied");
  if (f.expect === "pass") {
    if (!pod.allowed) out.push(`the Pod was denied: ${pod.status?.message}`);
    if (pod.warnings.length + deployment.warnings.length > 0) {
      out.push(`warnings: ${[...pod.warnings, ...deployment.warnings].join("; ")}`);
    }
    return out;
  }
  const accepted = acceptedIds(f);
  if (pod.allowed) out.push("the Pod was allowed");
  else {
    const prefix = `pods "test" is forbidden: violates PodSecurity ${policy}: `;
    if (pod.status?.code !== 403 || pod.status.reason !== "Forbidden" || !pod.status.message.startsWith(prefix)) {
      out.push(`status ${JSON.stringify(pod.status)}`);
    }
    const ids = failingIds(pod, "enforce");
    if (!ids.some((id) => accepted.has(id))) out.push(`the Pod failed ${ids.join(", ")}, not ${f.check}`);
  }
  const warnIds = failingIds(deployment, "warn");
  if (
    deployment.warnings.length !== 1 ||
    !deployment.warnings[0]!.startsWith(`would violate PodSecurity ${policy}: `)
  ) {
    out.push(`Deployment warnings: ${JSON.stringify(deployment.warnings)}`);
  }
  if (!warnIds.some((id) => accepted.has(id)))
    out.push(`the Deployment's template failed ${warnIds.join(", ")}, not ${f.check}`);
  return out;
}

const tally = { passed: 0, knownFailures: 0, failed: 0, nowPassing: 0 };

describe("pod-security fixtures", () => {
  for (const f of fixtures) {
    it(f.key, () => {
      const diff = differences(f);
      const listed = known.get(f.key);
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
        expect.fail(diff.join("; "));
      }
      tally.passed++;
    });
  }
});

describe("pod-security suite", () => {
  it("known-failures.yaml lists only fixtures that exist", () => {
    const keys = new Set(fixtures.map((f) => f.key));
    expect([...known.keys()].filter((k) => !keys.has(k))).toEqual([]);
  });

  it("covers every level and version from v1.0 to the newest check revision", () => {
    const newest = Math.max(...DEFAULT_CHECKS.flatMap((c) => c.versions.map((v) => v.minimumMinor)));
    for (const level of ["baseline", "restricted"]) {
      const versions = new Set(fixtures.filter((f) => f.level === level).map((f) => f.version));
      expect(versions.size).toBe(newest + 1);
    }
  });
});

afterAll(() => {
  const ran = tally.passed + tally.knownFailures + tally.failed + tally.nowPassing;
  console.log(
    `conformance (Pod Security fixtures): ${ran} of ${fixtures.length} fixtures — ${tally.passed} passed, ` +
      `${tally.knownFailures} known failures, ${tally.failed} failed` +
      (tally.nowPassing > 0 ? `, ${tally.nowPassing} listed in known-failures.yaml now pass (failed)` : ""),
  );
});
