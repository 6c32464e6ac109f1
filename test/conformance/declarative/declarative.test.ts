/**
 * Conformance: every case of `<corpus>/cases/declarative/cases.json`, read in place, against the Go packages of
 * `<corpus>/declarative/types/` loaded as a bundle (go.mod included). A case's `options` become the bundle's
 * feature gates; each distinct set of gates is one bundle load. See case-check.ts for what "passes" means.
 *
 * Cases listed in known-failures.yaml (keyed by case name) must still fail (the list only shrinks); a listed name
 * that is no case fails too. The run ends with the totals and the time to parse and compile the Go packages.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type BundleFile, loadBundle, type PolicySet } from "#lib";
import { resolveBundleConfig } from "../../../lib/bundle/config.js";
import { compileDeclarative } from "../../../lib/declarative/family.js";
import { resolveCorpusRoot } from "../corpus.js";
import { readKnownFailures } from "../crd/known-failures.js";
import { type DeclarativeCase, featureGatesOf, readDeclarativeCases, runCase, summarize } from "./case-check.js";

const KNOWN_FAILURES = new URL("./known-failures.yaml", import.meta.url).pathname;

const corpusRoot = resolveCorpusRoot();
const typesRoot = join(corpusRoot, "declarative", "types");
const cases = readDeclarativeCases(corpusRoot);
const known = readKnownFailures(KNOWN_FAILURES);

const bundles = new Map<string, Promise<PolicySet>>();
function bundleFor(c: DeclarativeCase): Promise<PolicySet> {
  const gates = featureGatesOf(c);
  const key = JSON.stringify(Object.entries(gates).sort());
  let p = bundles.get(key);
  if (p === undefined) {
    p = loadBundle(typesRoot, { featureGates: gates });
    bundles.set(key, p);
  }
  return p;
}

const tally = { passed: 0, knownFailures: 0, failed: 0, nowPassing: 0 };
const startedAt = performance.now();

describe("cases/declarative/cases.json", () => {
  it("loads the corpus Go packages without policy failures", async () => {
    const set = await bundleFor({ name: "", types: "", kind: "", operation: "CREATE", object: {}, expect: {} });
    const problems = set.failures.filter((f) => f.family === "declarative" || f.severity === "error");
    expect(problems).toEqual([]);
    expect(
      set.kinds
        .filter((k) => k.family === "declarative")
        .map((k) => `${k.group}/${k.version}/${k.kind}`)
        .sort(),
    ).toEqual([
      "backup.example.com/v1/Backup",
      "fleet.example.com/v1/Fleet",
      "gadgets.example.com/v1/Gadget",
      "gizmos.example.com/v1/Gizmo",
      "shipping.example.com/v1/Shipment",
      "storage.example.com/v1/Volume",
      "widgets.example.com/v1/Widget",
      "widgets.example.com/v1/WidgetScale",
    ]);
  });

  for (const c of cases) {
    const listed = known.get(c.name);
    it(c.name, async () => {
      expect(c.object.kind, "the object's kind is the case's kind").toBe(c.kind);
      const outcome = runCase(await bundleFor(c), c);
      if (listed !== undefined) {
        if (outcome.passed) {
          tally.nowPassing++;
          expect.fail(`listed in known-failures.yaml (${listed.reason}) but now passes: remove it`);
        }
        tally.knownFailures++;
        return;
      }
      if (!outcome.passed) {
        tally.failed++;
        const { want, got } = summarize(outcome);
        expect.fail(`${c.name}\n  want: ${want}\n  got:  ${got}`);
      }
      tally.passed++;
    });
  }
});

describe("known-failures.yaml", () => {
  it("lists only cases that exist", () => {
    const names = new Set(cases.map((c) => c.name));
    expect([...known.keys()].filter((k) => !names.has(k))).toEqual([]);
  });
});

/** Every file of the corpus Go module, as a bundle would read it. */
function corpusFiles(dir: string): BundleFile[] {
  const out: BundleFile[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...corpusFiles(p));
    else if (name.endsWith(".go") || name === "go.mod")
      out.push({ path: relative(typesRoot, p), content: readFileSync(p, "utf8") });
  }
  return out;
}

afterAll(async () => {
  const ran = tally.passed + tally.knownFailures + tally.failed + tally.nowPassing;
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
  // Parse and compile timings of the corpus packages (the WebAssembly parser is already initialised here).
  const files = corpusFiles(typesRoot);
  const { stats } = await compileDeclarative(files, resolveBundleConfig({}));
  console.log(
    `conformance (declarative cases): ${ran === cases.length ? `${cases.length} cases` : `${ran} of ${cases.length} cases`} — ` +
      `${tally.passed} passed, ${tally.knownFailures} known failures, ${tally.failed} failed` +
      (tally.nowPassing > 0 ? `, ${tally.nowPassing} listed in known-failures.yaml now pass (failed)` : "") +
      ` (${seconds} s); corpus Go packages: ${stats.files} files, ${stats.packages} packages, ${stats.kinds} kinds, ` +
      `parse ${stats.parseMs.toFixed(1)} ms, resolve and compile ${stats.compileMs.toFixed(1)} ms`,
  );
});
