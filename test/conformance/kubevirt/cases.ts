/**
 * The KubeVirt template-validation cases (`<corpus>/cases/kubevirt/cases.json`, format in the README beside it) and
 * how tollgate runs one: a bundle holding the case's Template (a file of `<corpus>/kubevirt/templates/`, an inline
 * object, or none), then `PolicySet.validate` of the VM as an admission request.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BundleFile, FieldError, PolicySet, Verdict } from "../../../lib/index.js";
import { loadBundle } from "../../../lib/index.js";

/** `expect` of a case: what the real validator decides, by rule name. */
export interface KubevirtExpect {
  allowed: boolean;
  violations: string[];
  warnings: string[];
  errors: string[];
  annotationError: boolean;
}

export interface KubevirtCase {
  name: string;
  basis: "spec" | "impl" | "impl-over-spec" | "go-quirk";
  template: string | Record<string, unknown> | null;
  rulesFrom: string;
  operation?: "CREATE" | "UPDATE";
  vm: Record<string, unknown>;
  oldVm?: Record<string, unknown>;
  expect: KubevirtExpect;
  specExpect?: KubevirtExpect;
  why: string;
  note?: string;
}

/** What tollgate decided, in the terms of `expect`, plus the names of rules it reported as ignored or unusable. */
export interface Observed extends KubevirtExpect {
  /** Rules with a warning-severity evaluation problem (unknown rule types, improvement 1). */
  ruleWarnings: string[];
}

export function readKubevirtCases(corpusRoot: string): KubevirtCase[] {
  const file = join(corpusRoot, "cases", "kubevirt", "cases.json");
  const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
  if (!Array.isArray(parsed) || parsed.length === 0) throw new Error(`Conformance corpus: ${file} has no cases`);
  for (const [i, c] of parsed.entries()) {
    const k = c as Partial<KubevirtCase> | null;
    const ok =
      k !== null &&
      typeof k === "object" &&
      typeof k.name === "string" &&
      typeof k.vm === "object" &&
      typeof k.expect?.allowed === "boolean" &&
      Array.isArray(k.expect.violations);
    if (!ok) throw new Error(`Conformance corpus: ${file}[${i}] is not a KubeVirt case`);
  }
  return parsed as KubevirtCase[];
}

/** Loads each distinct case template once. */
export function createTemplateBundles(corpusRoot: string): (c: KubevirtCase) => Promise<PolicySet> {
  const cache = new Map<string, Promise<PolicySet>>();
  return (c) => {
    let files: BundleFile[];
    let key: string;
    if (c.template === null) {
      key = "<none>";
      files = [];
    } else if (typeof c.template === "string") {
      key = c.template;
      const content = readFileSync(join(corpusRoot, "kubevirt", "templates", c.template), "utf8");
      files = [{ path: c.template, content }];
    } else {
      key = JSON.stringify(c.template);
      files = [{ path: `${c.name}.template.json`, content: key }];
    }
    let set = cache.get(key);
    if (set === undefined) {
      set = loadBundle(files);
      cache.set(key, set);
    }
    return set;
  };
}

function names(errors: FieldError[], evaluation: boolean): string[] {
  return errors
    .filter(
      (e) => e.source.kind === "kubevirt" && e.source.rule !== undefined && (e.evaluationError === true) === evaluation,
    )
    .map((e) => e.source.rule!);
}

/** The verdict in the case's terms. */
export function observe(v: Verdict): Observed {
  return {
    allowed: v.allowed,
    violations: names(v.errors, false),
    errors: names(v.errors, true),
    annotationError: v.errors.some(
      (e) => e.source.kind === "kubevirt" && e.evaluationError === true && e.source.rule === undefined,
    ),
    warnings: names(v.warnings, false),
    ruleWarnings: names(v.warnings, true),
  };
}

export async function runCase(bundleFor: (c: KubevirtCase) => Promise<PolicySet>, c: KubevirtCase): Promise<Verdict> {
  const set = await bundleFor(c);
  const req: Parameters<PolicySet["validate"]>[0] = { operation: c.operation ?? "CREATE", object: c.vm };
  if (c.oldVm !== undefined) req.oldObject = c.oldVm;
  return set.validate(req);
}

function sortedSet(xs: string[]): string[] {
  return [...new Set(xs)].sort();
}

/** The differences between what is wanted and what was observed; empty when the case passes. */
export function differences(want: Observed, got: Observed): string[] {
  const out: string[] = [];
  if (want.allowed !== got.allowed) out.push(`allowed: want ${want.allowed}, got ${got.allowed}`);
  if (want.annotationError !== got.annotationError) {
    out.push(`annotationError: want ${want.annotationError}, got ${got.annotationError}`);
  }
  for (const k of ["violations", "warnings", "errors", "ruleWarnings"] as const) {
    const w = sortedSet(want[k]);
    const g = sortedSet(got[k]);
    if (JSON.stringify(w) !== JSON.stringify(g)) out.push(`${k}: want [${w.join(", ")}], got [${g.join(", ")}]`);
  }
  return out;
}

/** A one-line summary of an outcome, for known-failures.yaml. */
export function summary(o: Observed): string {
  const parts = [`allowed=${o.allowed}`];
  for (const k of ["violations", "warnings", "errors", "ruleWarnings"] as const) {
    if (o[k].length > 0) parts.push(`${k}=[${sortedSet(o[k]).join(",")}]`);
  }
  if (o.annotationError) parts.push("annotationError");
  return parts.join(" ");
}
