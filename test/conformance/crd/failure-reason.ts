/**
 * Turns a failing case's differences into a known-failures entry: a category (what differs, and whether the
 * CRD version used has x-kubernetes-validations rules), a detail (the first differing cause), and short want/got.
 */
import type { CaseOutcome, Difference } from "./case-check.js";
import { causeText, valueText } from "./case-check.js";
import type { CrdVersionFacts } from "./crd-facts.js";
import { isCelMessage } from "./crd-facts.js";
import type { KnownFailure } from "./known-failures.js";

export const NEEDS_CEL = "needs CEL (x-kubernetes-validations, CEL issue)";

export interface FailureClass {
  /** Groups failures: "needs CEL (...): expected CEL cause missing", "extra cause (CRD has no CEL rules)", ... */
  category: string;
  /** The first difference of that category. */
  detail: string;
  want: string;
  got: string;
}

const MAX_TEXT = 240;

export function classifyFailure(outcome: CaseOutcome, facts: CrdVersionFacts): FailureClass {
  const d = outcome.differences;
  const cel = facts.hasCelRules ? "CRD has CEL rules" : "CRD has no CEL rules";
  const missing = d.filter((x): x is Extract<Difference, { kind: "missing-cause" }> => x.kind === "missing-cause");
  const extra = d.filter((x): x is Extract<Difference, { kind: "extra-cause" }> => x.kind === "extra-cause");
  const firstExtra = extra[0] !== undefined ? causeText(extra[0].cause) : undefined;
  const verdictText = (allowed: boolean | undefined) =>
    allowed === undefined ? "(no verdict)" : allowed ? "allowed" : "rejected";

  const load = d.find((x) => x.kind === "load-error");
  if (load !== undefined) return make(`loadBundle failed (${cel})`, load.text, "a PolicySet", load.text);
  const threw = d.find((x) => x.kind === "threw");
  if (threw !== undefined) return make(`validate threw (${cel})`, threw.text, "a Verdict", threw.text);

  if (facts.hasCelRules) {
    const celMissing = missing.find((m) => isCelMessage(m.cause.message, facts));
    if (celMissing !== undefined) {
      const text = `${celMissing.cause.field}: ${celMissing.cause.message}`;
      return make(
        `${NEEDS_CEL}: expected CEL cause missing`,
        text,
        causeText(celMissing.cause),
        firstExtra ?? "(absent)",
      );
    }
  }
  const policyFailure = outcome.policyFailures[0];
  const notCovered = d.find((x) => x.kind === "not-covered");
  if (notCovered !== undefined) {
    const why = policyFailure !== undefined ? `; policy failure: ${policyFailure.message}` : "";
    return make(`kind not covered (${cel})`, `${notCovered.text}${why}`, "covered", "not covered");
  }
  if (policyFailure !== undefined && (missing.length > 0 || extra.length > 0)) {
    const text = `${policyFailure.path ?? ""} ${policyFailure.message}`.trim();
    return make(`policy failure at load (${cel})`, text, first(missing) ?? "(absent)", firstExtra ?? "(absent)");
  }
  if (missing[0] !== undefined) {
    const m = missing[0].cause;
    return make(`expected cause missing (${cel})`, `${m.field}: ${m.message}`, causeText(m), firstExtra ?? "(absent)");
  }
  if (extra[0] !== undefined) {
    const e = extra[0].cause;
    return make(`extra cause (${cel})`, `${e.field}: ${e.message}`, "(absent)", causeText(e));
  }
  const allowed = d.find((x) => x.kind === "allowed");
  if (allowed !== undefined) {
    return make(
      `verdict differs, causes equal (${cel})`,
      `allowed=${allowed.got}`,
      verdictText(allowed.want),
      verdictText(allowed.got),
    );
  }
  const missingWarning = d.find((x) => x.kind === "missing-warning");
  const extraWarning = d.find((x) => x.kind === "extra-warning");
  if (missingWarning !== undefined && facts.hasCelRules && isCelMessage(missingWarning.text, facts)) {
    return make(
      `${NEEDS_CEL}: expected CEL warning missing`,
      missingWarning.text,
      missingWarning.text,
      extraWarning?.text ?? "(absent)",
    );
  }
  if (missingWarning !== undefined || extraWarning !== undefined) {
    const detail =
      missingWarning !== undefined ? `missing ${missingWarning.text}` : `extra ${extraWarning?.text ?? ""}`;
    return make(
      `warnings differ (${cel})`,
      detail,
      missingWarning?.text ?? "(absent)",
      extraWarning?.text ?? "(absent)",
    );
  }
  const defaulted = d.find((x) => x.kind === "defaulted");
  if (defaulted !== undefined) {
    return make(
      `defaulted object differs (${cel})`,
      `at ${defaulted.path}`,
      valueText(defaulted.want),
      valueText(defaulted.got),
    );
  }
  return make(`unclassified (${cel})`, d.map((x) => x.kind).join(", "), "", "");
}

function first(missing: Extract<Difference, { kind: "missing-cause" }>[]): string | undefined {
  return missing[0] !== undefined ? causeText(missing[0].cause) : undefined;
}

function make(category: string, detail: string, want: string, got: string): FailureClass {
  return { category, detail: shorten(detail), want: shorten(want), got: shorten(got) };
}

export function toKnownFailure(f: FailureClass): KnownFailure {
  return { reason: `${f.category}: ${f.detail}`, want: f.want, got: f.got };
}

export function shorten(text: string, max = MAX_TEXT): string {
  const oneLine = text.replace(/\s*\n\s*/g, " ");
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}
