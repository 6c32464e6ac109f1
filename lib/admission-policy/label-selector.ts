/**
 * Label selectors as the API server parses and matches them (k8s.io/apimachinery pkg/apis/meta/v1
 * LabelSelectorAsSelector and pkg/labels Requirement): `matchLabels` are Equals requirements, `matchExpressions`
 * In / NotIn / Exists / DoesNotExist; an empty selector matches everything. A selector that does not parse is an
 * error with apimachinery's text (the matchers turn it into a configuration error).
 */
import { renderBody } from "../field/message.js";
import { goQuote } from "../go/strconv.js";
import { isMapping } from "../objects/mapping.js";
import { isQualifiedName, isValidLabelValue } from "../objects/names.js";
import type { LabelSelectorSpec } from "./documents.js";

type Operator = "in" | "notin" | "exists" | "!";

interface Requirement {
  key: string;
  operator: Operator;
  values: readonly string[];
}

/** A parsed selector. */
export interface LabelSelector {
  /** Whether it selects everything (no requirement). */
  readonly empty: boolean;
  matches(labels: Readonly<Record<string, string>>): boolean;
}

export type SelectorResult = { kind: "selector"; selector: LabelSelector } | { kind: "error"; message: string };

const OPERATORS: Readonly<Record<string, Operator>> = { In: "in", NotIn: "notin", Exists: "exists", DoesNotExist: "!" };

const EVERYTHING: LabelSelector = Object.freeze({ empty: true, matches: () => true });

function invalidText(field: string, value: unknown, detail: string): string {
  return `${field}: ${renderBody("FieldValueInvalid", value, detail)}`;
}

/** labels.NewRequirement's validation: the aggregate of its field errors, or undefined. */
function requirementError(key: string, op: Operator | "=", values: readonly string[]): string | undefined {
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) errs.push(invalidText("key", key, keyErrs.join("; ")));
  if ((op === "in" || op === "notin") && values.length === 0) {
    errs.push(invalidText("values", values, "for 'in', 'notin' operators, values set can't be empty"));
  }
  if (op === "=" && values.length !== 1) {
    errs.push(invalidText("values", values, "exact-match compatibility requires one single value"));
  }
  if ((op === "exists" || op === "!") && values.length !== 0) {
    errs.push(invalidText("values", values, "values set must be empty for exists and does not exist"));
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length > 0) errs.push(invalidText(`values[${i}][${key}]`, v, valueErrs.join("; ")));
  });
  if (errs.length === 0) return undefined;
  return errs.length === 1 ? errs[0] : `[${errs.join(", ")}]`;
}

function matchesRequirement(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case "in":
      return has && r.values.includes(labels[r.key]!);
    case "notin":
      return !has || !r.values.includes(labels[r.key]!);
    case "exists":
      return has;
    case "!":
      return !has;
  }
}

/** metav1.LabelSelectorAsSelector. */
export function parseLabelSelector(spec: LabelSelectorSpec): SelectorResult {
  const requirements: Requirement[] = [];
  for (const [key, value] of Object.entries(spec.matchLabels)) {
    const err = requirementError(key, "=", [value]);
    if (err !== undefined) return { kind: "error", message: err };
    requirements.push({ key, operator: "in", values: [value] });
  }
  for (const e of spec.matchExpressions) {
    const op = OPERATORS[e.operator];
    if (op === undefined) {
      return { kind: "error", message: `${goQuote(e.operator)} is not a valid label selector operator` };
    }
    const err = requirementError(e.key, op, e.values);
    if (err !== undefined) return { kind: "error", message: err };
    requirements.push({ key: e.key, operator: op, values: e.values });
  }
  if (requirements.length === 0) return { kind: "selector", selector: EVERYTHING };
  const selector: LabelSelector = {
    empty: false,
    matches: (labels) => requirements.every((r) => matchesRequirement(r, labels)),
  };
  return { kind: "selector", selector };
}

/**
 * An object's `metadata.labels`, as the unstructured accessor reads them (GetLabels): no labels when the field is
 * not a map of strings.
 */
export function labelsOf(obj: unknown): Record<string, string> {
  if (!isMapping(obj) || !isMapping(obj.metadata) || !isMapping(obj.metadata.labels)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj.metadata.labels)) {
    if (typeof v !== "string") return {};
    out[k] = v;
  }
  return out;
}
