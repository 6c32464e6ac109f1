/**
 * JSON values seen as the Go values generated validation code works on (spec/declarative-validation-behaviour.md
 * section 2): an absent or null value field is its zero value, an absent or null pointer is nil (represented by
 * `undefined`), a nil slice or map is the same as an empty one, a missing struct is the zero struct. Unknown keys
 * play no part. Equality is equality.Semantic.DeepEqual over those Go values, so it is type-directed.
 */
import { isMapping } from "../objects/mapping.js";
import type { GoType, StructField } from "./go-types.js";

const EMPTY_LIST: readonly unknown[] = Object.freeze([]);
const EMPTY_OBJECT: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null));

/** The Go view of a JSON value of type `t`: `undefined` only for a nil pointer (or an absent opaque value). */
export function view(t: GoType, raw: unknown): unknown {
  switch (t.t) {
    case "basic":
      switch (t.kind) {
        case "string":
        case "bytes":
          return typeof raw === "string" ? raw : "";
        case "bool":
          return typeof raw === "boolean" ? raw : false;
        case "int":
        case "float":
          return typeof raw === "number" || typeof raw === "bigint" ? raw : 0;
      }
      return raw;
    case "named":
      return view(t.named.underlying(), raw);
    case "pointer":
      return raw === null || raw === undefined ? undefined : view(t.elem, raw);
    case "slice":
      return Array.isArray(raw) ? raw : EMPTY_LIST;
    case "map":
    case "struct":
      return isMapping(raw) ? raw : EMPTY_OBJECT;
    default:
      return raw === null ? undefined : raw;
  }
}

/** The raw JSON of a struct field: the parent object itself for an inline field, nothing for `json:"-"`. */
export function fieldRaw(f: StructField, structView: Record<string, unknown>): unknown {
  if (f.omitted) return undefined;
  if (f.inline) return structView;
  return Object.hasOwn(structView, f.jsonName) ? structView[f.jsonName] : undefined;
}

/** Go `len()` of a slice or map view. */
export function lengthOf(v: unknown): number {
  if (Array.isArray(v)) return v.length;
  if (isMapping(v)) return Object.keys(v).length;
  return 0;
}

/** Numeric comparison of JSON numbers that may be bigint. */
export function compareNumbers(a: number | bigint, b: number | bigint): number {
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  const x = typeof a === "bigint" ? a : BigInt(Math.trunc(a));
  const y = typeof b === "bigint" ? b : BigInt(Math.trunc(b));
  if (x === y) {
    // Fractions only matter between numbers of which one is not integral (invalid for integer fields anyway).
    const fa = typeof a === "number" ? a - Math.trunc(a) : 0;
    const fb = typeof b === "number" ? b - Math.trunc(b) : 0;
    return fa < fb ? -1 : fa > fb ? 1 : 0;
  }
  return x < y ? -1 : 1;
}

function scalarEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((typeof a === "number" || typeof a === "bigint") && (typeof b === "number" || typeof b === "bigint"))
    return compareNumbers(a, b) === 0;
  return false;
}

/** Whether a Go view is the zero value of its type (reflect's IsZero). */
export function isZero(t: GoType, v: unknown): boolean {
  switch (t.t) {
    case "basic":
      return v === "" || v === false || v === 0 || v === 0n;
    case "named":
      return isZero(t.named.underlying(), v);
    case "pointer":
      return v === undefined;
    case "slice":
    case "map":
      return lengthOf(v) === 0;
    case "struct": {
      if (!isMapping(v)) return true;
      for (const f of t.struct.fields) if (!isZero(f.type, view(f.type, fieldRaw(f, v)))) return false;
      return true;
    }
    default:
      return v === undefined || v === null;
  }
}

/**
 * "Set" as requiredness, unions and update constraints mean it: a value kind is set when not zero, a pointer when
 * not nil, a slice or map when not empty; a non-pointer struct is always set.
 */
export function isSet(t: GoType, v: unknown): boolean {
  switch (t.t) {
    case "basic":
      return !(v === "" || v === false || v === 0 || v === 0n);
    case "named":
      return isSet(t.named.underlying(), v);
    case "pointer":
      return v !== undefined;
    case "slice":
    case "map":
      return lengthOf(v) > 0;
    case "struct":
      return true;
    default:
      return v !== undefined && v !== null;
  }
}

/** equality.Semantic.DeepEqual of two Go views of type `t`. */
export function goEqual(t: GoType, a: unknown, b: unknown): boolean {
  if (a === b) return true;
  switch (t.t) {
    case "basic":
      return scalarEqual(a, b);
    case "named":
      return goEqual(t.named.underlying(), a, b);
    case "pointer":
      if (a === undefined || b === undefined) return false;
      return goEqual(t.elem, a, b);
    case "slice": {
      const x = a as unknown[];
      const y = b as unknown[];
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (!goEqual(t.elem, view(t.elem, x[i]), view(t.elem, y[i]))) return false;
      return true;
    }
    case "map": {
      const x = a as Record<string, unknown>;
      const y = b as Record<string, unknown>;
      const kx = Object.keys(x);
      if (kx.length !== Object.keys(y).length) return false;
      for (const k of kx) {
        if (!Object.hasOwn(y, k)) return false;
        if (!goEqual(t.elem, view(t.elem, x[k]), view(t.elem, y[k]))) return false;
      }
      return true;
    }
    case "struct": {
      const x = a as Record<string, unknown>;
      const y = b as Record<string, unknown>;
      for (const f of t.struct.fields) {
        if (f.omitted) continue;
        if (!goEqual(f.type, view(f.type, fieldRaw(f, x)), view(f.type, fieldRaw(f, y)))) return false;
      }
      return true;
    }
    default:
      return jsonEqual(a, b);
  }
}

/** Deep equality of opaque JSON (null and absent are the same). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (isMapping(a)) {
    if (!isMapping(b)) return false;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!jsonEqual(a[k], b[k])) return false;
    return true;
  }
  return scalarEqual(a, b);
}

/** Whether a raw JSON value can decode into type `t` (json.Unmarshal would not fail). Null always can. */
export function decodes(t: GoType, raw: unknown): boolean {
  if (raw === null || raw === undefined) return true;
  switch (t.t) {
    case "basic":
      switch (t.kind) {
        case "string":
        case "bytes":
          return typeof raw === "string";
        case "bool":
          return typeof raw === "boolean";
        case "float":
          return typeof raw === "number" || typeof raw === "bigint";
        case "int":
          return fitsInt(raw, t.bits, t.unsigned);
      }
      return true;
    case "named":
      return decodes(t.named.underlying(), raw);
    case "pointer":
      return decodes(t.elem, raw);
    case "slice":
      return Array.isArray(raw);
    case "map":
    case "struct":
      return isMapping(raw);
    default:
      return true;
  }
}

function fitsInt(raw: unknown, bits: number, unsigned: boolean): boolean {
  if (typeof raw === "number") {
    if (!Number.isInteger(raw)) return false;
    // Powers of two are exact doubles, so the bounds compare exactly.
    const max = 2 ** (unsigned ? bits : bits - 1);
    return unsigned ? raw >= 0 && raw < max : raw >= -max && raw < max;
  }
  if (typeof raw !== "bigint") return false;
  const b = BigInt(bits);
  if (unsigned) return raw >= 0n && raw < 1n << b;
  return raw >= -(1n << (b - 1n)) && raw < 1n << (b - 1n);
}

/** Whether a whole JSON value decodes into type `t` (decodes(), recursively); allocation-free. */
export function decodesDeep(t: GoType, raw: unknown): boolean {
  if (raw === null || raw === undefined) return true;
  if (!decodes(t, raw)) return false;
  switch (t.t) {
    case "named":
      return decodesDeep(t.named.underlying(), raw);
    case "pointer":
      return decodesDeep(t.elem, raw);
    case "slice": {
      const list = raw as unknown[];
      for (let i = 0; i < list.length; i++) if (!decodesDeep(t.elem, list[i])) return false;
      return true;
    }
    case "map": {
      const m = raw as Record<string, unknown>;
      for (const k in m) if (Object.hasOwn(m, k) && !decodesDeep(t.elem, m[k])) return false;
      return true;
    }
    case "struct": {
      const o = raw as Record<string, unknown>;
      for (const f of t.struct.fields) if (!f.omitted && !decodesDeep(f.type, fieldRaw(f, o))) return false;
      return true;
    }
    default:
      return true;
  }
}
