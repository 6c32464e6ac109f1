/**
 * OpenAPI value validation with kube-openapi's semantics (k8s.io/kube-openapi pkg/validation/validate, as pinned by
 * Kubernetes 1.36), and the conversion of its results into field errors done by apiextensions-apiserver
 * (pkg/apiserver/validation/validation.go). On UPDATE, errors of nodes that are correlated with an old value and
 * unchanged are ratcheted (apiextensions-apiserver pkg/apiserver/validation/ratcheting.go).
 *
 * Per schema node, validators run in kube-openapi's order and each applies by the datum's kind: type, junctors
 * (allOf/anyOf/oneOf/not), string (maxLength, minLength, pattern: the first failure only), format, number
 * (range check, multipleOf, maximum, minimum), array (items, minItems, maxItems), enum, object
 * (min/maxProperties, which stop the object's other checks, then properties, additionalProperties, required).
 * A match count is kept as kube-openapi does, because anyOf/oneOf report the failures of the branch with the
 * most passed checks.
 */

import { MAX_CAUSES, MAX_TEXT_CHARS } from "../field/bounds.js";
import {
  type ErrorContext,
  type FieldError,
  type FieldErrorType,
  invalid,
  notSupported,
  omittedErrors,
  required,
  tooLong,
  tooMany,
  typeInvalid,
} from "../field/error.js";
import { GoFloat, goJson } from "../field/message.js";
import { formatFloatShortestG, goQuote } from "../go/strconv.js";
import { checkStringFormat } from "./formats.js";
import type { SchemaNode } from "./structural.js";

/** kube-openapi error codes that apiextensions maps to distinct field error types. */
type Code = "required" | "enum" | "tooLong" | "maxItems" | "maxProperties" | "invalidType" | "other";

interface RawError {
  /** A kube-openapi *Validation error (name, value) or a plain Go error (rendered at the field path prefix). */
  plain: boolean;
  code: Code;
  /** The kube-openapi path of the error (may start with "." for required errors at the root). */
  name: string;
  value: unknown;
  /** max length / max items / max properties */
  valid?: number;
  /** enum values */
  values?: unknown[];
  message: string;
}

/** A kube-openapi Result: errors (kept unique by text), ratcheted errors, and the match count. */
class Acc {
  errors: RawError[] = [];
  private texts: Set<string> | null = null;
  ratcheted: RawError[] = [];
  count = 0;

  add(e: RawError): void {
    if (this.errors.length > 0) {
      if (this.texts === null) {
        this.texts = new Set();
        for (const x of this.errors) this.texts.add(x.message);
      }
      if (this.texts.has(e.message)) return;
      this.texts.add(e.message);
    }
    this.errors.push(e);
  }

  merge(o: Acc): void {
    for (const e of o.errors) this.add(e);
    for (const e of o.ratcheted) this.ratcheted.push(e);
    this.count += o.count;
  }

  mergeAsRatcheted(o: Acc): void {
    for (const e of o.errors) this.ratcheted.push(e);
    for (const e of o.ratcheted) this.ratcheted.push(e);
    this.count += o.count;
  }
}

/** The old value correlated with a node on UPDATE, or NO_OLD. */
const NO_OLD: unique symbol = Symbol("no-old");
type Old = unknown | typeof NO_OLD;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

type Kind = "nil" | "string" | "bool" | "int" | "float" | "slice" | "map";

function kindOf(v: unknown): Kind {
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

function asFloat(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof GoFloat) return v.value;
  return Number.NaN;
}

const EPSILON = 1e-9;

/** swag.IsFloat64AJSONInteger */
function isFloat64AJSONInteger(f: number): boolean {
  if (!Number.isFinite(f) || f < -(2 ** 53) || f > 2 ** 53) return false;
  if (Number.isInteger(f)) return true;
  const g = Math.trunc(f);
  const diff = Math.abs(f - g);
  if (f === 0 || g === 0 || diff < Number.MIN_VALUE) return diff < EPSILON * Number.MIN_VALUE;
  return diff / Math.min(Math.abs(f) + Math.abs(g), Number.MAX_VALUE) < EPSILON;
}

/** Go's int64(f) truncation for a float64 bound. */
function toInt64(f: number): bigint {
  if (!Number.isFinite(f)) return f > 0 ? 2n ** 63n - 1n : -(2n ** 63n);
  return BigInt(Math.trunc(f));
}

function asBigInt(v: unknown): bigint {
  return typeof v === "bigint" ? v : BigInt(v as number);
}

function inBody(name: string, phrase: string): string {
  return `${name} in body ${phrase}`;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * kube-openapi IsValueValidAgainstRange: whether a numeric value fits the type/format of the schema. Returns the
 * plain error text, or undefined.
 */
function rangeError(
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
      const n = typeof val === "bigint" ? val : BigInt(val as number);
      return n < BigInt(INT32_MIN) || n > BigInt(INT32_MAX);
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

/** Options of one validation run. */
export interface ValidateOptions {
  /** Ratcheting: the old object correlated with the root. */
  old?: unknown;
  hasOld?: boolean;
}

/** Validation output: field errors and the errors that ratcheting suppressed. */
export interface SchemaValidationResult {
  errors: FieldError[];
  ratcheted: FieldError[];
}

/**
 * Validates `data` against the schema rooted at `node`, as apiextensions ValidateCustomResource does with a
 * kube-openapi SchemaValidator rooted at path "" (field errors are children of `fieldPrefix`, which is null at
 * the resource root and "status" for the status subresource).
 */
export function validateValue(
  node: SchemaNode,
  data: unknown,
  fieldPrefix: string | null,
  ctx: ErrorContext,
  opts: ValidateOptions = {},
): SchemaValidationResult {
  const acc = new Acc();
  validateNode(node, data, "", acc, opts.hasOld === true ? opts.old : NO_OLD, false);
  return {
    errors: toFieldErrors(acc.errors, fieldPrefix, ctx),
    ratcheted: toFieldErrors(acc.ratcheted, fieldPrefix, { ...ctx, severity: "warning" }),
  };
}

/**
 * Field errors of the first {@link MAX_CAUSES} raw errors, and one standing for the rest (the verdict keeps no
 * more: lib/field/bounds.ts), typed as the first of them that blocks CEL does, so the blocking gate is unchanged.
 */
function toFieldErrors(raw: RawError[], prefix: string | null, ctx: ErrorContext): FieldError[] {
  if (raw.length <= MAX_CAUSES) return raw.map((e) => toFieldError(e, prefix, ctx));
  const out: FieldError[] = [];
  for (let i = 0; i < MAX_CAUSES; i++) out.push(toFieldError(raw[i]!, prefix, ctx));
  let type: FieldErrorType = "FieldValueInvalid";
  for (let i = MAX_CAUSES; i < raw.length; i++) {
    const t = BLOCKING_TYPE[raw[i]!.code];
    if (t !== undefined && !raw[i]!.plain) {
      type = t;
      break;
    }
  }
  out.push(omittedErrors(raw.length - MAX_CAUSES, MAX_CAUSES, ctx, type));
  return out;
}

/** The field error types of the codes that keep CEL from running (lib/crd/request.ts BLOCKING). */
const BLOCKING_TYPE: Partial<Record<Code, FieldErrorType>> = {
  required: "FieldValueRequired",
  enum: "FieldValueNotSupported",
  tooLong: "FieldValueTooLong",
  maxItems: "FieldValueTooMany",
  maxProperties: "FieldValueTooMany",
  invalidType: "FieldValueTypeInvalid",
};

/** Deep equality of decoded JSON values (reflect.DeepEqual on unstructured data). */
export function deepEqualJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b) {
    return false;
  }
  if (typeof a !== "object" || a === null || b === null) {
    return false;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqualJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  if (a instanceof GoFloat || b instanceof GoFloat) {
    return a instanceof GoFloat && b instanceof GoFloat && a.value === b.value;
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  const bo = b as Record<string, unknown>;
  for (const k of ka) {
    if (!Object.hasOwn(bo, k)) return false;
    if (!deepEqualJson((a as Record<string, unknown>)[k], bo[k])) return false;
  }
  return true;
}

/**
 * CorrelatedObject.CachedDeepEqual: equality that only holds through correlatable parts. An object is equal to its
 * old value only when every key is a declared property (or the node has an additionalProperties schema) and every
 * value is equal; list-type map items are matched by key; other lists compare as a whole.
 */
export function correlatedEqual(node: SchemaNode | null, a: unknown, b: unknown): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) {
      if (!Object.hasOwn(b, k)) return false;
      const sub = node?.properties?.get(k) ?? node?.additionalProperties ?? null;
      if (sub === null) return false;
      if (!correlatedEqual(sub, a[k], b[k])) return false;
    }
    return true;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    if (node !== null && node.listType === "map" && node.items !== null) {
      for (const item of a) {
        const o = correlateListMapItem(node, item, b);
        if (o === NO_OLD || !correlatedEqual(node.items, item, o)) return false;
      }
      return true;
    }
    return deepEqualJson(a, b);
  }
  return deepEqualJson(a, b);
}

/** Finds the old item of a list-type map with the same key fields. */
function correlateListMapItem(node: SchemaNode, item: unknown, oldList: unknown): Old {
  if (!Array.isArray(oldList) || !isRecord(item)) return NO_OLD;
  const keys = node.listMapKeys ?? [];
  for (const o of oldList) {
    if (!isRecord(o)) continue;
    let same = true;
    for (const k of keys) {
      if (!deepEqualJson(item[k], o[k])) {
        same = false;
        break;
      }
    }
    if (same) return o;
  }
  return NO_OLD;
}

/**
 * One SchemaValidator.Validate at `path`. With an old value: a node that is deep-equal to its correlated old value
 * has all its errors (and its descendants') ratcheted.
 */
function validateNode(node: SchemaNode, data: unknown, path: string, acc: Acc, old: Old, ratcheting: boolean): void {
  if (old !== NO_OLD && !ratcheting && correlatedEqual(node, data, old)) {
    const sub = new Acc();
    validateNodeInner(node, data, path, sub, old, true);
    acc.mergeAsRatcheted(sub);
    return;
  }
  validateNodeInner(node, data, path, acc, old, ratcheting);
}

const INT_OR_STRING: readonly string[] = Object.freeze(["integer", "string"]);
const NO_TYPES: readonly string[] = Object.freeze([]);
const TYPE_LISTS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  object: Object.freeze(["object"]),
  array: Object.freeze(["array"]),
  string: Object.freeze(["string"]),
  integer: Object.freeze(["integer"]),
  number: Object.freeze(["number"]),
  boolean: Object.freeze(["boolean"]),
});

/** The type list kube-openapi sees (apiextensions makes int-or-string `["integer","string"]`). */
function schemaTypes(node: SchemaNode): readonly string[] {
  if (node.intOrString) return INT_OR_STRING;
  return node.type === "" ? NO_TYPES : (TYPE_LISTS[node.type] ?? NO_TYPES);
}

function validateNodeInner(
  node: SchemaNode,
  data: unknown,
  path: string,
  acc: Acc,
  old: Old,
  ratcheting: boolean,
): void {
  const types = schemaTypes(node);
  const vv = node.vv;
  const format = vv?.keptFormat ?? "";
  const kind = kindOf(data);

  if (kind === "nil") {
    // Only the type and enum validators run on null.
    typeCheckNull(node, types, path, acc);
    if (vv?.enum !== undefined && vv.enum.length > 0) enumCheck(vv.enum, data, path, acc);
    return;
  }

  // 1. type
  if (types.length > 0 || format !== "") {
    typeCheck(types, format, data, kind, path, acc);
    acc.count++;
  }
  // 2. junctors (the schemaProps validator always applies)
  if (
    vv !== null &&
    (vv.allOf !== undefined || vv.anyOf !== undefined || vv.oneOf !== undefined || vv.not !== undefined)
  ) {
    junctors(vv.allOf, vv.anyOf, vv.oneOf, vv.not, data, path, acc, old, ratcheting);
  } else {
    acc.count++; // schemaProps Validate: mainResult.Inc()
  }
  acc.count++;
  // 3. string
  if (kind === "string") {
    if (vv !== null) stringChecks(vv, data as string, path, acc);
    acc.count++;
    // 4. format
    if (vv?.format !== undefined) {
      if (!checkStringFormat(vv.format, data as string)) {
        acc.add({
          plain: false,
          code: "invalidType",
          name: path,
          value: data,
          message: inBody(path, `must be of type ${vv.rawFormat}: ${goQuote(data as string)}`),
        });
      }
      acc.count++;
    }
  }
  // 5. number
  if (kind === "int" || kind === "float") {
    numberChecks(node, types, format, data, kind, path, acc);
    acc.count++;
  }
  // 6. slice
  if (kind === "slice") {
    sliceChecks(node, data as unknown[], path, acc, old, ratcheting);
    acc.count++;
  }
  // 7. enum (common validator)
  if (vv?.enum !== undefined && vv.enum.length > 0) enumCheck(vv.enum, data, path, acc);
  acc.count++;
  // 8. object
  if (kind === "map") {
    objectChecks(node, data as Record<string, unknown>, path, acc, old, ratcheting);
    acc.count++;
  }
  acc.count++;
}

function typeCheckNull(node: SchemaNode, types: readonly string[], path: string, acc: Acc): void {
  if (types.length > 0 && !node.nullable) {
    acc.add({
      plain: false,
      code: "invalidType",
      name: path,
      value: "null",
      message: inBody(path, `must be of type ${types.join(",")}: "null"`),
    });
  } else {
    acc.count++;
  }
}

function schemaInfo(kind: Kind): [string, string] {
  switch (kind) {
    case "bool":
      return ["boolean", ""];
    case "string":
      return ["string", ""];
    case "int":
      return ["integer", "int64"];
    case "float":
      return ["number", "float64"];
    case "slice":
      return ["array", ""];
    case "map":
      return ["object", ""];
    default:
      return ["", ""];
  }
}

function typeCheck(types: readonly string[], format: string, data: unknown, kind: Kind, path: string, acc: Acc): void {
  const [schType, dataFormat] = schemaInfo(kind);
  const isLowerInt = format === "int64" && dataFormat === "int32";
  const isLowerFloat = format === "float64" && dataFormat === "float32";
  const isFloatInt = schType === "number" && isFloat64AJSONInteger(asFloat(data)) && types.includes("integer");
  const isIntFloat = schType === "integer" && types.includes("number");
  if (
    kind !== "string" &&
    kind !== "slice" &&
    format !== "" &&
    !(types.includes(schType) || dataFormat === format || isFloatInt || isIntFloat || isLowerInt || isLowerFloat)
  ) {
    acc.add({
      plain: false,
      code: "invalidType",
      name: path,
      value: dataFormat,
      message: inBody(path, `must be of type ${format}: ${goQuote(dataFormat)}`),
    });
    return;
  }
  if (
    !(types.includes("number") || types.includes("integer")) &&
    format !== "" &&
    (kind === "string" || kind === "slice")
  ) {
    acc.count++;
    return;
  }
  if (!(types.includes(schType) || isFloatInt || isIntFloat)) {
    acc.add({
      plain: false,
      code: "invalidType",
      name: path,
      value: schType,
      message: inBody(path, `must be of type ${types.join(",")}: ${goQuote(schType)}`),
    });
    return;
  }
  acc.count++;
}

function junctors(
  allOf: SchemaNode[] | undefined,
  anyOf: SchemaNode[] | undefined,
  oneOf: SchemaNode[] | undefined,
  not: SchemaNode | undefined,
  data: unknown,
  path: string,
  acc: Acc,
  old: Old,
  ratcheting: boolean,
): void {
  const main = new Acc();
  if (anyOf !== undefined && anyOf.length > 0) {
    let best: Acc | null = null;
    let firstSuccess: Acc | null = null;
    let succeeded = false;
    for (const s of anyOf) {
      const r = new Acc();
      validateBranch(s, data, path, r, old, ratcheting);
      if (r.errors.length === 0) {
        best = null;
        succeeded = true;
        firstSuccess ??= r;
        break;
      }
      if (best === null || r.count > best.count) best = r;
    }
    if (!succeeded) {
      main.add({
        plain: true,
        code: "other",
        name: path,
        value: "",
        message: `${goQuote(path)} must validate at least one schema (anyOf)`,
      });
    }
    if (best !== null) main.merge(best);
    else if (firstSuccess !== null) main.merge(firstSuccess);
  }
  if (oneOf !== undefined && oneOf.length > 0) {
    let best: Acc | null = null;
    let firstSuccess: Acc | null = null;
    let validated = 0;
    for (const s of oneOf) {
      const r = new Acc();
      validateBranch(s, data, path, r, old, ratcheting);
      if (r.errors.length === 0) {
        validated++;
        best = null;
        firstSuccess ??= r;
        continue;
      }
      if (validated === 0 && (best === null || r.count > best.count)) best = r;
    }
    if (validated !== 1) {
      const more = validated === 0 ? "Found none valid" : `Found ${validated} valid alternatives`;
      main.add({
        plain: true,
        code: "other",
        name: path,
        value: "",
        message: `${goQuote(path)} must validate one and only one schema (oneOf). ${more}`,
      });
      if (best !== null) main.merge(best);
    } else if (firstSuccess !== null) {
      main.merge(firstSuccess);
    }
  }
  if (allOf !== undefined && allOf.length > 0) {
    let validated = 0;
    for (const s of allOf) {
      const r = new Acc();
      validateBranch(s, data, path, r, old, ratcheting);
      if (r.errors.length === 0) validated++;
      main.merge(r);
    }
    if (validated !== allOf.length) {
      const more = validated === 0 ? ". None validated" : "";
      main.add({
        plain: true,
        code: "other",
        name: path,
        value: "",
        message: `${goQuote(path)} must validate all the schemas (allOf)${more}`,
      });
    }
  }
  if (not !== undefined) {
    const r = new Acc();
    validateBranch(not, data, path, r, old, ratcheting);
    if (r.errors.length === 0) {
      main.add({
        plain: true,
        code: "other",
        name: path,
        value: "",
        message: `${goQuote(path)} must not validate the schema (not)`,
      });
    }
  }
  main.count++;
  acc.merge(main);
}

/** A junctor branch is a plain SchemaValidator at the same path (not itself ratcheted; its children are). */
function validateBranch(s: SchemaNode, data: unknown, path: string, acc: Acc, old: Old, ratcheting: boolean): void {
  validateNodeInner(s, data, path, acc, old, ratcheting);
}

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

function stringChecks(vv: NonNullable<SchemaNode["vv"]>, data: string, path: string, acc: Acc): void {
  if (vv.maxLength !== undefined || vv.minLength !== undefined) {
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

function numberChecks(
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

function sliceChecks(node: SchemaNode, arr: unknown[], path: string, acc: Acc, old: Old, ratcheting: boolean): void {
  const items = node.items;
  if (items !== null) {
    for (let i = 0; i < arr.length; i++) {
      let itemOld: Old = NO_OLD;
      if (old !== NO_OLD && node.listType === "map") itemOld = correlateListMapItem(node, arr[i], old);
      validateNode(items, arr[i], `${path}[${i}]`, acc, itemOld, ratcheting);
    }
  }
  const vv = node.vv;
  if (vv !== null) {
    if (vv.minItems !== undefined && arr.length < vv.minItems) {
      acc.add({
        plain: false,
        code: "other",
        name: path,
        value: arr.length,
        message: inBody(path, `should have at least ${vv.minItems} items`),
      });
    }
    if (vv.maxItems !== undefined && arr.length > vv.maxItems) {
      acc.add({
        plain: false,
        code: "maxItems",
        name: path,
        value: arr.length,
        valid: vv.maxItems,
        message: inBody(path, `should have at most ${vv.maxItems} items`),
      });
    }
    if (vv.uniqueItems) {
      outer: for (let i = 0; i < arr.length; i++) {
        for (let j = 0; j < i; j++) {
          if (deepEqualJson(arr[i], arr[j])) {
            acc.add({
              plain: false,
              code: "other",
              name: path,
              value: "",
              message: inBody(path, "shouldn't contain duplicates"),
            });
            break outer;
          }
        }
      }
    }
  }
  acc.count++;
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

function enumCheck(values: unknown[], data: unknown, path: string, acc: Acc): void {
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

function objectChecks(
  node: SchemaNode,
  obj: Record<string, unknown>,
  path: string,
  acc: Acc,
  old: Old,
  ratcheting: boolean,
): void {
  const vv = node.vv;
  if (vv !== null && (vv.minProperties !== undefined || vv.maxProperties !== undefined)) {
    const n = Object.keys(obj).length;
    if (vv.minProperties !== undefined && n < vv.minProperties) {
      acc.add({
        plain: false,
        code: "other",
        name: path,
        value: n,
        message: inBody(path, `should have at least ${vv.minProperties} properties`),
      });
    }
    if (vv.maxProperties !== undefined && n > vv.maxProperties) {
      acc.add({
        plain: false,
        code: "maxProperties",
        name: path,
        value: n,
        valid: vv.maxProperties,
        message: inBody(path, `should have at most ${vv.maxProperties} properties`),
      });
    }
  }
  const props = node.properties;
  const oldObj = old !== NO_OLD && isRecord(old) ? old : null;
  if (node.additionalPropertiesFalse) {
    for (const k of Object.keys(obj)) {
      if (props === null || !props.has(k)) {
        acc.add({
          plain: false,
          code: "other",
          name: path,
          value: k,
          message: `${path}.${k} in body is a forbidden property`,
        });
      }
    }
  } else if (node.additionalProperties !== null) {
    const ap = node.additionalProperties;
    for (const k of Object.keys(obj)) {
      if (props?.has(k)) continue;
      const childOld: Old = oldObj !== null && Object.hasOwn(oldObj, k) ? oldObj[k] : NO_OLD;
      validateNode(ap, obj[k], `${path}.${k}`, acc, childOld, ratcheting);
    }
  }
  if (props !== null) {
    for (const [name, sub] of props) {
      if (!Object.hasOwn(obj, name)) continue;
      const childOld: Old = oldObj !== null && Object.hasOwn(oldObj, name) ? oldObj[name] : NO_OLD;
      validateNode(sub, obj[name], path === "" ? name : `${path}.${name}`, acc, childOld, ratcheting);
    }
  }
  if (vv?.required !== undefined) {
    for (const k of vv.required) {
      if (!Object.hasOwn(obj, k)) {
        acc.add({
          plain: false,
          code: "required",
          name: `${path}.${k}`,
          value: undefined,
          message: inBody(`${path}.${k}`, "is required"),
        });
      }
    }
  }
}

/** apiextensions kubeOpenAPIResultToFieldErrors for one error. */
/**
 * The enum values as NotSupported lists them. Past the message bound they are left empty: notSupported cuts its
 * list there anyway, so a 100,000-value enum is not printed in full to be cut.
 */
function enumTexts(values: unknown[]): string[] {
  const out: string[] = [];
  let length = 0;
  for (const v of values) {
    if (length > MAX_TEXT_CHARS) {
      out.push("");
      continue;
    }
    const t = typeof v === "string" ? v : goJson(v);
    length += t.length + 2;
    out.push(t);
  }
  return out;
}

function toFieldError(e: RawError, prefix: string | null, ctx: ErrorContext): FieldError {
  if (e.plain) return invalid(prefix, "", e.message, ctx);
  let field: string | null = prefix;
  if (e.name.length > 0 && e.name !== ".") {
    const n = e.name.startsWith(".") ? e.name.slice(1) : e.name;
    field = prefix === null ? n : `${prefix}.${n}`;
  }
  const c = { ...ctx, origin: ctx.origin };
  switch (e.code) {
    case "required":
      return required(field, "", c);
    case "enum":
      return notSupported(field, e.value, enumTexts(e.values ?? []), c);
    case "tooLong":
      return tooLong(field, e.valid ?? -1, c);
    case "maxItems":
    case "maxProperties":
      return tooMany(field, typeof e.value === "number" ? e.value : -1, e.valid ?? -1, c);
    case "invalidType":
      return typeInvalid(field, e.value ?? "", e.message, c);
    default:
      return invalid(field, e.value ?? "", e.message, c);
  }
}
