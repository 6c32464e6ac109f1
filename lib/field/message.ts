/**
 * API-server wording of field errors (apimachinery field/errors.go, 1.36 forms) and of the aggregate
 * `Status` message (apimachinery api/errors NewInvalid). See spec/k8s-cel-semantics.md sections 1 and 2.
 */
import { formatFloatShortestG, goQuote } from "../go/strconv.js";
import type { FieldErrorType } from "./error.js";

/** A marker for "print no value" (apimachinery's omitValue). */
export const OMIT_VALUE: unique symbol = Symbol("omit-value");

/** A redacted bad value (Secrets, credential fields): printed as a placeholder, never as the value. */
export const REDACTED: unique symbol = Symbol("redacted");

/** A Go float64 whose value happens to be integral (prints with %v float formatting: `1e+06`). */
export class GoFloat {
  constructor(readonly value: number) {}
}

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueInvalid: "Invalid value",
  FieldValueRequired: "Required value",
  FieldValueForbidden: "Forbidden",
  FieldValueDuplicate: "Duplicate value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  FieldValueTypeInvalid: "Invalid value",
  FieldValueTooShort: "Too short",
  FieldValueTooFew: "Too few",
  InternalError: "Internal error",
};

/** Whether errors of this type print their bad value (Required, Forbidden, TooLong, TooShort, Internal never do). */
export function showsValue(type: FieldErrorType): boolean {
  return (
    type !== "FieldValueRequired" &&
    type !== "FieldValueForbidden" &&
    type !== "FieldValueTooLong" &&
    type !== "FieldValueTooShort" &&
    type !== "InternalError"
  );
}

/** The text of an error type ("Invalid value", "Required value", ...). */
export function typeText(type: FieldErrorType): string {
  return TYPE_TEXT[type];
}

/**
 * `(*field.Error).ErrorBody()`: `<type text>[: <value>][: <detail>]`. Required, Forbidden, TooLong and
 * InternalError never show a value.
 */
export function renderBody(type: FieldErrorType, value: unknown, detail: string): string {
  let s = TYPE_TEXT[type];
  if (showsValue(type) && value !== OMIT_VALUE) s += `: ${formatValue(value)}`;
  if (detail.length > 0) s += `: ${detail}`;
  return s;
}

/**
 * A bad value as 1.34+ prints it: numbers and booleans with Go `%v` (a float as strconv.FormatFloat(f, 'g', -1,
 * 64): `2.5`, `1e+06`), strings with `%q` (strconv.Quote), null as `null`, everything else as JSON.
 */
export function formatValue(value: unknown): string {
  if (value === REDACTED) return `"<redacted>"`;
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "string":
      return goQuote(value);
    case "number":
      return Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? intText(value) : formatFloatShortestG(value);
    case "bigint":
      return value.toString();
    case "boolean":
      return value ? "true" : "false";
    default:
      if (value instanceof GoFloat) return formatFloatShortestG(value.value);
      return goJson(value);
  }
}

function intText(n: number): string {
  // Integers beyond 2^53 are bigint in decoded objects; here only ordinary integers arrive.
  return Object.is(n, -0) ? "0" : n.toFixed(0);
}

/**
 * Go's encoding/json of a decoded value: object keys sorted, HTML-sensitive characters escaped
 * (`<`, `>`, `&` as \u003c...), numbers as Go prints them.
 */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "string":
      return jsonString(value);
    case "number":
      return Number.isInteger(value) ? intText(value) : jsonFloat(value);
    case "bigint":
      return value.toString();
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (value instanceof GoFloat) return jsonFloat(value.value);
      if (Array.isArray(value)) return `[${value.map(goJson).join(",")}]`;
      const o = value as Record<string, unknown>;
      const keys = Object.keys(o).sort();
      return `{${keys.map((k) => `${jsonString(k)}:${goJson(o[k])}`).join(",")}}`;
    }
    default:
      return "null";
  }
}

/** encoding/json float formatting: like ES for most values, exponent form below 1e-6 or from 1e21. */
function jsonFloat(f: number): string {
  if (!Number.isFinite(f)) return "null";
  const abs = Math.abs(f);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    // Go: strconv 'e' then cleans e-07 -> e-7
    const s = f.toExponential();
    return s.replace(/e([+-])(\d)$/, "e$10$2").replace(/e([+-])0(\d)$/, "e$1$2");
  }
  return String(f);
}

function jsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i]!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (c < 0x20) {
      if (ch === "\n") out += "\\n";
      else if (ch === "\r") out += "\\r";
      else if (ch === "\t") out += "\\t";
      else out += `\\u${c.toString(16).padStart(4, "0")}`;
    } else if (ch === "<" || ch === ">" || ch === "&") out += `\\u00${c.toString(16)}`;
    else if (c === 0x2028 || c === 0x2029) out += `\\u${c.toString(16)}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * The aggregate message of a 422 Invalid Status (apimachinery errors.NewInvalid):
 * `<Kind>.<group> "<name>" is invalid: <e1>` or `... is invalid: [<e1>, <e2>]`, identical entries collapsed.
 * For the core group the qualified kind is the kind alone.
 */
export function aggregateMessage(
  kind: string,
  group: string,
  name: string,
  errors: readonly { field: string; message: string }[],
): string {
  const qualified = group === "" ? kind : `${kind}.${group}`;
  const seen = new Set<string>();
  const texts: string[] = [];
  for (const e of errors) {
    const t = `${e.field}: ${e.message}`;
    if (seen.has(t)) continue;
    seen.add(t);
    texts.push(t);
  }
  let body: string;
  if (texts.length === 0) body = "";
  else if (texts.length === 1) body = texts[0]!;
  else body = `[${texts.join(", ")}]`;
  return `${qualified} ${goQuote(name)} is invalid: ${body}`;
}
