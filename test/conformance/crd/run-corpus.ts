/**
 * Runs every CRD case of the corpus outside vitest (for update-known-failures.ts and report.ts) and classifies
 * each failure. The test suite runs the same `runCase` per case.
 */
import type { CaseFile, CrdCase } from "../corpus.js";
import { caseKey, readCrdCaseFiles } from "../corpus.js";
import type { CaseOutcome } from "./case-check.js";
import { runCase } from "./case-check.js";
import { createCrdFactsReader } from "./crd-facts.js";
import type { CrdLoader } from "./crd-loader.js";
import { createCrdLoader } from "./crd-loader.js";
import type { FailureClass } from "./failure-reason.js";
import { classifyFailure } from "./failure-reason.js";

export interface CaseResult {
  key: string;
  file: string;
  case: CrdCase;
  outcome: CaseOutcome;
  /** Present for failing cases. */
  failure?: FailureClass;
}

export interface CorpusRun {
  results: CaseResult[];
  caseFiles: CaseFile[];
  crdFiles: number;
  ms: { load: number; validate: number; classify: number; total: number };
}

export interface RunCorpusOptions {
  /** Only cases whose key contains this text. Default: every case. */
  filter?: string;
  /** Default: `createCrdLoader(corpusRoot)` (loadBundle per CRD file). */
  loader?: CrdLoader;
}

/** Runs every case of the corpus (or those `options.filter` selects) and classifies each failure. */
export async function runCorpus(corpusRoot: string, options: RunCorpusOptions = {}): Promise<CorpusRun> {
  const { filter, loader = createCrdLoader(corpusRoot) } = options;
  const t0 = performance.now();
  const caseFiles = readCrdCaseFiles(corpusRoot);
  const facts = createCrdFactsReader(corpusRoot);
  const results: CaseResult[] = [];
  const crds = new Set<string>();
  for (const f of caseFiles) {
    for (const c of f.cases) {
      const key = caseKey(f.file, c.name);
      if (filter !== undefined && !key.includes(filter)) continue;
      crds.add(c.crd);
      results.push({ key, file: f.file, case: c, outcome: { passed: false, differences: [], policyFailures: [] } });
    }
  }
  const t1 = performance.now();
  await Promise.allSettled([...crds].map((crd) => loader.load(crd)));
  const t2 = performance.now();
  for (const r of results) r.outcome = await runCase(loader, r.case);
  const t3 = performance.now();
  for (const r of results) {
    if (!r.outcome.passed) r.failure = classifyFailure(r.outcome, facts.factsFor(r.case.crd, r.case.object));
  }
  const t4 = performance.now();
  return {
    results,
    caseFiles,
    crdFiles: crds.size,
    ms: { load: t2 - t1, validate: t3 - t2, classify: t4 - t3, total: t4 - t0 },
  };
}
