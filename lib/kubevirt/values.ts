/**
 * What rules see of a JSONPath value: an integer (integer rules and integer arguments) or a string (string, enum,
 * regex rules and `values` arguments). See spec/kubevirt-validator-behaviour.md, section 7.
 *
 * Integers follow the validator's `AsInt64` where it works: Go integers as they are, floats rounded half away from
 * zero, Quantities in bytes (or cores). Where the validator fails on a valid Quantity (`1.5Gi`, `100000Gi`, `500m`)
 * tollgate uses the exact value instead (a valid quantity is never an error), so integers are exact rationals here.
 *
 * Strings: a Go string is its text. The validator renders anything else as a reflection placeholder
 * (`<uint32 Value>`); tollgate uses the value's natural JSON text (`4`, `true`, `2Gi`) instead, so that a rule
 * compares what the VM's author wrote, not a Go artefact.
 */
import { goJson } from "../field/message.js";
import type { Val } from "./jsonpath/evaluate.js";
import { kindOf } from "./jsonpath/evaluate.js";
import { integer, isQuantityError, parseQuantity, type Rational } from "./quantity.js";
import { typeText } from "./vm-types.js";

/** A value that cannot be used as a rule needs it. */
export interface ConversionError {
  readonly error: string;
}

function fieldText(v: Val): string {
  return v.path === null ? "the value" : `the value of ${v.path.toString()}`;
}

/** Go's math.Round of a float64 (half away from zero), exactly. */
function roundFloat(f: number): bigint {
  return BigInt(Math.sign(f) * Math.round(Math.abs(f)));
}

/** A value as an exact number, or why it is not one. */
export function toRational(v: Val): Rational | ConversionError {
  const j = v.json;
  if (v.nil) {
    if (v.type.kind === "scalar" && v.type.scalar === "quantity") {
      // The real validator dereferences the nil *Quantity and its handler crashes: here a clear rule error.
      return { error: `${fieldText(v)} is not set` };
    }
    return { error: `mismatching type: ${fieldText(v)} is null (${typeText(v.type)}), not an integer or a quantity` };
  }
  const kind = kindOf(v);
  switch (kind) {
    case "int":
    case "float":
      if (j === undefined) return integer(0n);
      if (typeof j === "bigint") return integer(j);
      if (typeof j === "number") {
        if (!Number.isFinite(j)) return { error: `${fieldText(v)} is not a finite number` };
        return integer(Number.isInteger(j) ? BigInt(j) : roundFloat(j));
      }
      break;
    case "leaf": {
      if (j === undefined) return integer(0n);
      if (v.type.kind === "scalar" && v.type.scalar === "intOrString") {
        if (typeof j === "number" || typeof j === "bigint") return toRational({ ...v, type: { kind: "any" } });
        return { error: `mismatching type: ${fieldText(v)} is a string (int-or-string), not an integer or a quantity` };
      }
      const q = parseQuantity(j as string | number | bigint);
      if (isQuantityError(q)) return { error: `${fieldText(v)} is not a valid quantity: ${q.error}` };
      return q;
    }
  }
  return { error: `mismatching type: ${fieldText(v)} is ${describeKind(v)}, not an integer or a quantity` };
}

function describeKind(v: Val): string {
  const k = kindOf(v);
  switch (k) {
    case "string":
      return "a string";
    case "bool":
      return "a boolean";
    case "list":
      return "a list";
    case "map":
      return v.type.kind === "struct" ? `an object (${typeText(v.type)})` : "an object";
    case "struct":
      return `an object (${typeText(v.type)})`;
    case "nil":
      return "null";
    default:
      return typeText(v.type);
  }
}

/** The zero value of a value's type, as JSON. */
function zero(v: Val): unknown {
  switch (kindOf(v)) {
    case "nil":
      return null;
    case "string":
      return "";
    case "int":
    case "float":
    case "leaf":
      return 0;
    case "bool":
      return false;
    case "list":
      return [];
    default:
      return {};
  }
}

/** The value as JSON: what the object holds there, or the zero value the typed VM reads. */
export function jsonValue(v: Val): unknown {
  if (v.nil) return null;
  return v.json === undefined ? zero(v) : v.json;
}

/** The value as rules render it: a string's text, anything else its JSON text. */
export function toText(v: Val): string {
  const j = jsonValue(v);
  return typeof j === "string" ? j : goJson(j);
}

/** Length in characters (Unicode code points), not UTF-8 bytes as in the validator's `len()`. */
export function textLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
