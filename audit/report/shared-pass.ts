/**
 * What writers need from the whole run before they write (SARIF's rule index, JUnit's suite counts, the policy
 * reports' summaries, the HTML report's counts by kind and its waived findings), gathered for every writer in one
 * pass over the run's spools instead of one pass each: on a large run each pass re-reads and re-parses the spool
 * files. Each writer declares its fact once ({@link sharedFact}); the first writer that asks for a fact of a run
 * makes the pass for every fact declared, and the results are kept for that run while it is referenced.
 */
import type { AuditResult, Finding, ObjectRecord } from "../model.js";
import { objectsWithFindings, policyFailures } from "./stream.js";

/** Gathers one fact while the pass reads the run. */
export interface FactCollector<T> {
  /** Every finding, in the findings spool's order (the policy failures first). */
  finding?(f: Finding): void;
  /** Every document's record with its findings, in input order. */
  object?(record: ObjectRecord, findings: readonly Finding[]): void;
  result(): T;
}

type Collect<T> = (run: AuditResult) => FactCollector<T>;

const declared: Collect<unknown>[] = [];
const gathered = new WeakMap<AuditResult, Map<Collect<unknown>, unknown>>();

/** Declares a fact; the function returned gives the fact of a run (gathered with every other fact, once). */
export function sharedFact<T>(collect: Collect<T>): (run: AuditResult) => T {
  declared.push(collect as Collect<unknown>);
  return (run) => {
    let facts = gathered.get(run);
    if (facts === undefined || !facts.has(collect as Collect<unknown>)) {
      // The first ask for this run: every fact declared (one declared since, alone).
      const missing = facts === undefined ? declared : [collect as Collect<unknown>];
      facts ??= new Map();
      gathered.set(run, facts);
      gather(run, missing, facts);
    }
    return facts.get(collect as Collect<unknown>) as T;
  };
}

function gather(run: AuditResult, collects: readonly Collect<unknown>[], into: Map<Collect<unknown>, unknown>): void {
  const collectors = collects.map((c) => c(run));
  const onFinding = collectors.filter((c) => c.finding !== undefined);
  const onObject = collectors.filter((c) => c.object !== undefined);
  for (const f of policyFailures(run)) for (const c of onFinding) c.finding!(f);
  for (const { record, findings } of objectsWithFindings(run)) {
    for (const f of findings) for (const c of onFinding) c.finding!(f);
    for (const c of onObject) c.object!(record, findings);
  }
  collects.forEach((c, i) => {
    into.set(c, collectors[i]!.result());
  });
}
