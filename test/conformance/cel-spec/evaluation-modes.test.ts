/**
 * The direct evaluation of lib/cel/evaluation.ts (each node's own work done by tollgate's closures, with shorter
 * paths for field selection, indexing, has() and literal membership) against the engine's own work on the same
 * tree, over every in-scope CEL conformance test, passing or known to fail: the value or error and the runtime
 * cost must be the same.
 */
import { describe, expect, it } from "vitest";
import { resolveCorpusRoot } from "../corpus.js";
import { evaluationModeOutcomes, readSpecFiles } from "./run-spec.js";
import { skipReason } from "./skip-rules.js";

const isInScope = (c: { file: string; section: string; test: Parameters<typeof skipReason>[2] }) =>
  skipReason(c.file, c.section, c.test) === undefined;

const files = readSpecFiles(resolveCorpusRoot());

for (const { file, cases } of files) {
  const inScope = cases.filter((c) => isInScope(c));
  if (inScope.length === 0) continue;
  describe(file, () => {
    it(`evaluates ${inScope.length} tests the same directly and in the engine`, () => {
      const differ: string[] = [];
      for (const c of inScope) {
        const o = evaluationModeOutcomes(c);
        if (o.direct !== o.engine)
          differ.push(`${c.key}\n  expr: ${c.test.expr}\n  direct: ${o.direct}\n  engine: ${o.engine}`);
      }
      expect(differ).toEqual([]);
    });
  });
}
