/**
 * Decoded JSON values as kube-openapi's validators see them: the Go kind of a value (a decoded integer is an int64,
 * a number with a fraction or a GoFloat a float64), the conversions its numeric checks make, and whether a number
 * fits the schema's type and format (IsValueValidAgainstRange).
 */

import { GoFloat } from "../field/message.js";

export type Kind = "nil" | "string" | "bool" | "int" | "float" | "slice" | "map";

export function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return "nil";
  switch (typeof v) {
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "number":
      return Number.isInteger(v) ? "int" : "float";
    case "bigint":
      return "int";
    default:
      if (v instanceof GoFloat) return "float";
      return Array.isArray(v) ? "slice" : "map";
  }
}

export function asFloat(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof GoFloat) return v.value;
  return Number.NaN;
}

const EPSILON = 1e-9;

/** swag.IsFloat64AJSONInteger */
export function isFloat64AJSONInteger(f: number): boolean {
  if (!Number.isFinite(f) || f < -(2 ** 53) || f > 2 ** 53) return false;
  if (Number.isInteger(f)) return true;
  const g = Math.trunc(f);
  const diff = Math.abs(f - g);
  if (f === 0 || g === 0 || diff < Number.MIN_VALUE) return diff < EPSILON * Number.MIN_VALUE;
  return diff / Math.min(Math.abs(f) + Math.abs(g), Number.MAX_VALUE) < EPSILON;
}

/** Go's int64(f) truncation for a float64 bound. */
export function toInt64(f: number): bigint {
  if (!Number.isFinite(f)) return f > 0 ? 2n ** 63n - 1n : -(2n ** 63n);
  return BigInt(Math.trunc(f));
}

export function asBigInt(v: unknown): bigint {
  return typeof v === "bigint" ? v : BigInt(v as number);
}

const INT32_MIN = -(2 ** 31);

const INT32_MAX = 2 ** 31 - 1;

const INT32_MIN_BIG = BigInt(INT32_MIN);

const INT32_MAX_BIG = BigInt(INT32_MAX);

const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * kube-openapi IsValueValidAgainstRange: whether a numeric value fits the type/format of the schema. Returns the
 * plain error text, or undefined.
 */
export function rangeError(
  val: unknown,
  kind: Kind,
  typeName: string,
  format: string,
  prefix: string,
  path: string,
): string | undefined {
  if (!isOutOfRange(val, kind, typeName, format)) return undefined;
  return format !== ""
    ? `${prefix} value must be of type ${typeName} with format ${format} in ${path}`
    : `${prefix} value must be of type ${typeName} (default format) in ${path}`;
}

/** The range test of IsValueValidAgainstRange, without building strings for the common cases. */
function isOutOfRange(val: unknown, kind: Kind, typeName: string, format: string): boolean {
  if (typeName === "integer") {
    if (kind === "int") {
      // Decoded integers always fit int64; only int32 needs a check.
      if (format !== "int32") return false;
      if (typeof val === "number") return val < INT32_MIN || val > INT32_MAX;
      return (val as bigint) < INT32_MIN_BIG || (val as bigint) > INT32_MAX_BIG;
    }
    const f = asFloat(val);
    if (!Number.isInteger(f)) return true; // "1.5" does not parse as an integer
    if (format === "int32") return f < INT32_MIN || f > INT32_MAX;
    return f < -(2 ** 63) || f >= 2 ** 63;
  }
  if (format === "float" || format === "float32") {
    const f = asFloat(val);
    return Number.isFinite(f) && Math.abs(f) > FLOAT32_MAX;
  }
  return false;
}

const NIL_INFO = Object.freeze(["", ""] as const);
const BOOL_INFO = Object.freeze(["boolean", ""] as const);
const STRING_INFO = Object.freeze(["string", ""] as const);
const INT_INFO = Object.freeze(["integer", "int64"] as const);
const FLOAT_INFO = Object.freeze(["number", "float64"] as const);
const SLICE_INFO = Object.freeze(["array", ""] as const);
const MAP_INFO = Object.freeze(["object", ""] as const);

export function schemaInfo(kind: Kind): readonly [string, string] {
  switch (kind) {
    case "bool":
      return BOOL_INFO;
    case "string":
      return STRING_INFO;
    case "int":
      return INT_INFO;
    case "float":
      return FLOAT_INFO;
    case "slice":
      return SLICE_INFO;
    case "map":
      return MAP_INFO;
    default:
      return NIL_INFO;
  }
}
