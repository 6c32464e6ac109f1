/**
 * The direct evaluation of lib/cel/evaluation.ts against the engine's own work on the same trees, over every CEL
 * rule of the corpus CRDs and every case object (and old object) of the CRD cases, taken as they are (not pruned
 * or defaulted, so values of the wrong type reach the rules too): the field errors and warnings, with their
 * messages (which show the runtime errors and the cost-limit outcomes), must be the same.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocuments } from "#lib";
import { type CelVersionProgram, compileCelRules } from "../../../lib/cel/crd/compile.js";
import { evaluateCelRules } from "../../../lib/cel/crd/evaluate.js";
import type { EvaluationMode } from "../../../lib/cel/evaluation.js";
import { type CompiledCrdVersion, compileCrd } from "../../../lib/crd/compile.js";
import { type CrdCase, readCrdCaseFiles, resolveCorpusRoot } from "../corpus.js";

const corpusRoot = resolveCorpusRoot();
const byCrd = new Map<string, CrdCase[]>();
for (const { cases } of readCrdCaseFiles(corpusRoot)) {
  for (const c of cases) byCrd.set(c.crd, [...(byCrd.get(c.crd) ?? []), c]);
}

interface Versions {
  versions: Map<string, CompiledCrdVersion>;
  programs: Record<EvaluationMode, Map<string, CelVersionProgram>>;
}

/** Every version of the CRD file with CEL rules, compiled in both modes. */
function compileVersions(crdFile: string): Versions {
  const versions = new Map<string, CompiledCrdVersion>();
  const programs: Versions["programs"] = { direct: new Map(), engine: new Map() };
  for (const doc of parseDocuments(readFileSync(join(corpusRoot, "crds", crdFile), "utf8"))) {
    const crd = compileCrd(doc.object as Record<string, unknown>).crd;
    for (const [name, v] of crd?.versions ?? []) {
      if (v.schema === null || v.celRuleCount === 0) continue;
      versions.set(name, v);
      for (const mode of ["direct", "engine"] as const)
        programs[mode].set(name, compileCelRules(v.schema, [], { evaluation: mode }));
    }
  }
  return { versions, programs };
}

const ctx = { source: { kind: "crd" as const, policy: "modes" } };

function outcome(v: Versions, mode: EvaluationMode, version: string, c: CrdCase): string {
  const schema = v.versions.get(version)!.schema!;
  const program = v.programs[mode].get(version)!;
  const r = evaluateCelRules(
    program,
    schema,
    c.object as Record<string, unknown>,
    c.oldObject as Record<string, unknown> | undefined,
    ctx,
  );
  const show = (e: { type: string; field: string | null; message: string }) => `${e.type} ${e.field}: ${e.message}`;
  return [...r.errors.map(show), ...r.warnings.map((w) => `warning ${show(w)}`)].join("\n");
}

const isObject = (o: unknown) => typeof o === "object" && o !== null && !Array.isArray(o);

describe("CRD rules evaluate the same directly and in the engine", () => {
  for (const [crdFile, cases] of byCrd) {
    it(crdFile, () => {
      const v = compileVersions(crdFile);
      const differ: string[] = [];
      let compared = 0;
      for (const c of cases) {
        const version =
          String((c.object as { apiVersion?: unknown }).apiVersion ?? "")
            .split("/")
            .pop() ?? "";
        if (!v.versions.has(version) || !isObject(c.object) || (c.oldObject !== undefined && !isObject(c.oldObject)))
          continue;
        compared++;
        const direct = outcome(v, "direct", version, c);
        const engine = outcome(v, "engine", version, c);
        if (direct !== engine) differ.push(`${c.name}\n  direct: ${direct}\n  engine: ${engine}`);
      }
      expect(differ).toEqual([]);
      if (v.versions.size > 0) expect(compared).toBeGreaterThan(0);
    });
  }
});
