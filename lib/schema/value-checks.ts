/**
 * kube-openapi's validators of one value against one schema node's value validations: strings (maxLength,
 * minLength, pattern: the first failure only), numbers (range, multipleOf, maximum, minimum, with Go's int64 and
 * float64 arithmetic) and enums (a value matches when Go's conversion to the enum value's type makes them equal).
 * Errors are worded as k8s.io/kube-openapi pkg/validation/errors words them.
 */

import { MAX_TEXT_CHARS } from "../field/bounds.js";
import { goJson } from "../field/message.js";
import { formatFloatShortestG } from "../go/strconv.js";
import { deepEqualJson } from "./equality.js";
import { asBigInt, asFloat, isFloat64AJSONInteger, type Kind, kindOf, rangeError, toInt64 } from "./numbers.js";
import { type Acc, inBody, type RawError } from "./result.js";
import type { SchemaNode } from "./structural.js";

function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/**
 * Whether a string's length in code points is surely within the bounds without counting them: it has at most its
 * length in code units, and at least half of it (a code point takes one or two).
 */
function lengthWithin(s: string, min: number | undefined, max: number | undefined): boolean {
  return (max === undefined || s.length <= max) && (min === undefined || Math.ceil(s.length / 2) >= min);
}

export function stringChecks(vv: NonNullable<SchemaNode["vv"]>, data: string, path: string, acc: Acc): void {
  if ((vv.maxLength !== undefined || vv.minLength !== undefined) && !lengthWithin(data, vv.minLength, vv.maxLength)) {
    const len = runeCount(data);
    if (vv.maxLength !== undefined && len > vv.maxLength) {
      acc.add({
        plain: false,
        code: "tooLong",
        name: path,
        value: data,
        valid: vv.maxLength,
        message: inBody(path, `should be at most ${vv.maxLength} chars long`),
      });
      return;
    }
    if (vv.minLength !== undefined && len < vv.minLength) {
      acc.add({
        plain: false,
        code: "other",
        name: path,
        value: data,
        message: inBody(path, `should be at least ${vv.minLength} chars long`),
      });
      return;
    }
  }
  if (vv.pattern !== undefined && !vv.pattern.test(data)) {
    acc.add({
      plain: false,
      code: "other",
      name: path,
      value: data,
      message: inBody(path, `should match '${vv.patternSource}'`),
    });
  }
}

export function numberChecks(
  node: SchemaNode,
  types: readonly string[],
  format: string,
  data: unknown,
  kind: Kind,
  path: string,
  acc: Acc,
): void {
  const vv = node.vv;
  const typeName = types.length === 1 ? types[0]! : "";
  const checked = rangeError(data, kind, typeName, format, "Checked", path);
  if (checked !== undefined) acc.add({ plain: true, code: "other", name: path, value: "", message: checked });
  if (vv === null) {
    acc.count++;
    return;
  }
  const f = asFloat(data);
  if (vv.multipleOf !== undefined) {
    const factor = vv.multipleOf;
    const factorErr = rangeError(factor, kindOf(factor), typeName, format, "MultipleOf", path);
    if (factorErr !== undefined) acc.add({ plain: true, code: "other", name: path, value: "", message: factorErr });
    const native = factorErr === undefined;
    const err =
      native && kind === "int" ? multipleOfInt(path, data, factor) : multipleOfFloat(path, f, factor, data, kind);
    if (err !== undefined) acc.add(err);
  }
  if (vv.maximum !== undefined)
    boundCheck(vv.maximum, true, vv.exclusiveMaximum, data, f, kind, typeName, format, path, acc);
  if (vv.minimum !== undefined)
    boundCheck(vv.minimum, false, vv.exclusiveMinimum, data, f, kind, typeName, format, path, acc);
  acc.count++;
}

function boundCheck(
  b: number,
  isMax: boolean,
  exclusive: boolean,
  data: unknown,
  f: number,
  kind: Kind,
  typeName: string,
  format: string,
  path: string,
  acc: Acc,
): void {
  const boundErr = rangeError(b, kindOf(b), typeName, format, isMax ? "Maximum boundary" : "Minimum boundary", path);
  if (boundErr !== undefined) acc.add({ plain: true, code: "other", name: path, value: "", message: boundErr });
  if (boundErr === undefined && kind === "int") {
    if (typeof data === "number" && Number.isSafeInteger(data) && Math.abs(b) <= Number.MAX_SAFE_INTEGER) {
      // Both exact as numbers: int64(b) is Math.trunc(b).
      const l = Math.trunc(b);
      const fails = isMax ? (exclusive ? data >= l : data > l) : exclusive ? data <= l : data < l;
      if (fails) acc.add(boundError(path, data, String(l), isMax, exclusive));
      return;
    }
    const lim = toInt64(b);
    // Compare as numbers when exact, as bigints otherwise.
    const v = typeof data === "number" ? data : asBigInt(data);
    const l = typeof data === "number" && Number.isSafeInteger(Number(lim)) ? Number(lim) : lim;
    const vv = typeof l === "bigint" ? asBigInt(v) : v;
    const fails = isMax ? (exclusive ? vv >= l : vv > l) : exclusive ? vv <= l : vv < l;
    if (fails) acc.add(boundError(path, data, lim.toString(), isMax, exclusive));
  } else {
    const fails = isMax ? (exclusive ? f >= b : f > b) : exclusive ? f <= b : f < b;
    if (fails) acc.add(boundError(path, data, formatFloatShortestG(b), isMax, exclusive));
  }
}

function boundError(path: string, value: unknown, limit: string, isMax: boolean, exclusive: boolean): RawError {
  const phrase = isMax
    ? exclusive
      ? `should be less than ${limit}`
      : `should be less than or equal to ${limit}`
    : exclusive
      ? `should be greater than ${limit}`
      : `should be greater than or equal to ${limit}`;
  return { plain: false, code: "other", name: path, value, message: inBody(path, phrase) };
}

function multipleOfInt(path: string, data: unknown, factor: number): RawError | undefined {
  const fi = toInt64(factor);
  if (fi < 0n) {
    return {
      plain: false,
      code: "other",
      name: path,
      value: fi,
      message: `factor MultipleOf declared for ${path} must be positive: ${fi}`,
    };
  }
  if (fi === 0n) {
    // Go panics on integer division by zero; kube-openapi reaches this only for fractional factors below 1,
    // which 1.36 reports as "must be positive: 0" (see spec/k8s-cel-semantics.md section 3).
    return {
      plain: false,
      code: "other",
      name: path,
      value: 0,
      message: `factor MultipleOf declared for ${path} must be positive: 0`,
    };
  }
  const d = asBigInt(data);
  if ((d / fi) * fi !== d) {
    return {
      plain: false,
      code: "other",
      name: path,
      value: data,
      message: inBody(path, `should be a multiple of ${fi}`),
    };
  }
  return undefined;
}

function multipleOfFloat(path: string, data: number, factor: number, raw: unknown, kind: Kind): RawError | undefined {
  if (factor < 0) {
    return {
      plain: false,
      code: "other",
      name: path,
      value: factor,
      message: `factor MultipleOf declared for ${path} must be positive: ${formatFloatShortestG(factor)}`,
    };
  }
  const mult = factor < 1 ? (1 / factor) * data : data / factor;
  if (!isFloat64AJSONInteger(mult)) {
    void kind;
    return {
      plain: false,
      code: "other",
      name: path,
      value: raw,
      message: inBody(path, `should be a multiple of ${formatFloatShortestG(factor)}`),
    };
  }
  return undefined;
}

/**
 * basicCommonValidator: the datum matches an enum value when it is convertible to the value's Go type and equal
 * after the conversion (so 1.5 matches 1, and an integer matches the string of its code point, as Go converts).
 */
function enumEquals(data: unknown, e: unknown): boolean {
  if (e === null || e === undefined) return false;
  if (deepEqualJson(data, e)) return true;
  const dk = kindOf(data);
  const ek = kindOf(e);
  if ((dk === "int" || dk === "float") && (ek === "int" || ek === "float")) {
    const d = asFloat(data);
    return ek === "int" ? Math.trunc(d) === asFloat(e) : d === asFloat(e);
  }
  if (dk === "int" && ek === "string") {
    const n = asFloat(data);
    const ch = n >= 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff) ? String.fromCodePoint(n) : "\ufffd";
    return ch === e;
  }
  return false;
}

export function enumCheck(values: unknown[], data: unknown, path: string, acc: Acc): void {
  if (data !== null && data !== undefined) {
    for (const e of values) if (enumEquals(data, e)) return;
  }
  acc.add({
    plain: false,
    code: "enum",
    name: path,
    value: data,
    values,
    message: inBody(path, `should be one of ${goEnumList(values)}`),
  });
}

/** Go's `%v` of the enum values, cut at the message bound (the values are listed whole in `values`). */
function goEnumList(values: unknown[]): string {
  let out = "";
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    out += (i === 0 ? "" : " ") + (typeof v === "string" ? v : goJson(v));
    if (out.length > MAX_TEXT_CHARS && i < values.length - 1)
      return `[${out}... (${values.length - i - 1} more values)]`;
  }
  return `[${out}]`;
}
