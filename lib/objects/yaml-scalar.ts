/**
 * Scalar resolution as kubectl does it: sigs.k8s.io/yaml decodes YAML with go-yaml v2 into
 * `interface{}` (YAML 1.1-style implicit types, see go-yaml v2 resolve.go), then converts map
 * keys to strings (sigs.k8s.io/yaml yaml.go, convertToJSONableObject). Both steps are mirrored
 * here, so `yes`, `on` and `y` are booleans, `0o17` and `017` are octal, `1_000` is 1000,
 * timestamps stay strings, and `1: a` has the key "1".
 */
import { INT64_MAX, INT64_MIN, UINT64_MAX } from "./integer.js";

const TAG_PREFIX = "tag:yaml.org,2002:";
const STR = `${TAG_PREFIX}str`;
const BINARY = `${TAG_PREFIX}binary`;
const TIMESTAMP = `${TAG_PREFIX}timestamp`;
const FLOAT = `${TAG_PREFIX}float`;

/**
 * The result of resolving one scalar. `uint` is an integer above int64: go-yaml's uint64 for
 * 2^63 … 2^64−1, and a big.Int beyond (hexadecimal, octal and binary literals only, since
 * decimal ones resolve as floats first).
 */
export type ResolvedScalar =
  | { readonly tag: "null"; readonly value: null }
  | { readonly tag: "bool"; readonly value: boolean }
  | { readonly tag: "int" | "uint"; readonly value: bigint }
  | { readonly tag: "float"; readonly value: number }
  | { readonly tag: "str" | "timestamp" | "binary"; readonly value: string };

/** A scalar that cannot be decoded with its explicit tag, e.g. `!!int abc`. */
export interface ScalarError {
  readonly tag: "error";
  readonly message: string;
}

const NULL: ResolvedScalar = { tag: "null", value: null };
const TRUE: ResolvedScalar = { tag: "bool", value: true };
const FALSE: ResolvedScalar = { tag: "bool", value: false };

/** go-yaml v2's resolve map: exact spellings only, so `yEs` stays a string. */
const RESOLVE_MAP = new Map<string, ResolvedScalar>();
function resolveAs(words: readonly string[], resolved: ResolvedScalar): void {
  for (const word of words) RESOLVE_MAP.set(word, resolved);
}
resolveAs(["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"], TRUE);
resolveAs(["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"], FALSE);
resolveAs(["", "~", "null", "Null", "NULL"], NULL);
resolveAs([".nan", ".NaN", ".NAN"], { tag: "float", value: Number.NaN });
resolveAs([".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"], { tag: "float", value: Number.POSITIVE_INFINITY });
resolveAs(["-.inf", "-.Inf", "-.INF"], { tag: "float", value: Number.NEGATIVE_INFINITY });

/** go-yaml v2 looks only at scalars whose first character is in its resolve table. */
type Hint = "sign" | "digit" | "map" | "dot" | "none";

function hintOf(text: string): Hint {
  if (text === "") return "map";
  const c = text.charAt(0);
  if (c === "+" || c === "-") return "sign";
  if (c >= "0" && c <= "9") return "digit";
  if (c === ".") return "dot";
  return "yYnNtTfFoO~".includes(c) ? "map" : "none";
}

/**
 * Whether an untagged plain scalar resolves to the string it is, whatever it says: go-yaml v2 looks no further than
 * its first character (see hintOf). A shortcut past resolveScalar for readers that meet many plain scalars.
 */
export function isPlainString(text: string): boolean {
  return hintOf(text) === "none";
}

/** go-yaml v2's yamlStyleFloat. */
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** What Go's strconv.ParseFloat accepts after a leading dot. */
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;
/** The layouts go-yaml v2 tries (parseTimestamp): RFC 3339 with short fields, space separated, date only. */
const TIMESTAMP_FORMAT =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?))?$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const RESOLVABLE_TAGS = new Set(["str", "bool", "int", "float", "null", "timestamp"].map((t) => TAG_PREFIX + t));

/**
 * Resolves a scalar node. `tag` is the node's explicit tag (undefined when it has none, "!" for
 * the non-specific tag); `isPlain` is false for quoted and block scalars, which are strings
 * unless tagged.
 */
export function resolveScalar(text: string, tag: string | undefined, isPlain: boolean): ResolvedScalar | ScalarError {
  if (tag === undefined) return isPlain ? resolveImplicit("", text) : { tag: "str", value: text };
  if (tag === BINARY) return resolveBinary(text);
  // Custom tags, `!`, !!merge, !!map, !!seq and friends on a scalar: go-yaml keeps the text.
  if (!RESOLVABLE_TAGS.has(tag)) return { tag: "str", value: text };
  const resolved = resolveImplicit(tag, text);
  const wanted = tag.slice(TAG_PREFIX.length);
  if (tag === STR || resolved.tag === wanted || (wanted === "int" && resolved.tag === "uint")) return resolved;
  if (tag === FLOAT && (resolved.tag === "int" || resolved.tag === "uint")) {
    return { tag: "float", value: Number(resolved.value) };
  }
  const got = resolved.tag === "uint" ? "int" : resolved.tag;
  return { tag: "error", message: `cannot decode !!${got} \`${text}\` as a !!${wanted}` };
}

/** go-yaml v2 resolve() for an untagged plain scalar (`tag` "") or an explicit standard tag. */
function resolveImplicit(tag: string, text: string): ResolvedScalar {
  const hint = hintOf(text);
  if (hint === "none" || tag === STR) return { tag: "str", value: text };
  const mapped = RESOLVE_MAP.get(text);
  if (mapped !== undefined) return mapped;
  if (hint === "dot") {
    if (DOT_FLOAT.test(text)) {
      const value = Number(text);
      if (Number.isFinite(value)) return { tag: "float", value };
    }
  } else if (hint === "sign" || hint === "digit") {
    if ((tag === "" || tag === TIMESTAMP) && isTimestamp(text)) return { tag: "timestamp", value: text };
    const plain = text.includes("_") ? text.replaceAll("_", "") : text;
    const parsed = parseGoInteger(plain);
    if (parsed !== undefined) {
      if (parsed.value >= INT64_MIN && parsed.value <= INT64_MAX) return { tag: "int", value: parsed.value };
      if (!parsed.signed && parsed.value <= UINT64_MAX) return { tag: "uint", value: parsed.value };
    }
    if (YAML_STYLE_FLOAT.test(plain)) {
      // strconv.ParseFloat fails on overflow, and go-yaml then keeps the text.
      const value = Number(plain);
      if (Number.isFinite(value)) return { tag: "float", value };
    }
    // The sigs.k8s.io/yaml fork of go-yaml v2 keeps unsigned literals beyond uint64 as big.Int.
    if (parsed !== undefined && !parsed.signed) return { tag: "uint", value: parsed.value };
  }
  return { tag: "str", value: text };
}

/**
 * strconv.ParseInt(s, 0, 64)'s syntax: an optional sign, then `0b`, `0o`, `0x` or a leading `0`
 * (octal) prefix, then digits of that base. The range is checked by the caller.
 */
function parseGoInteger(text: string): { value: bigint; signed: boolean } | undefined {
  let rest = text;
  const sign = rest.charAt(0);
  const signed = sign === "+" || sign === "-";
  if (signed) rest = rest.slice(1);
  if (rest === "") return undefined;
  let literal: string;
  if (rest.charAt(0) === "0" && rest.length > 1) {
    const prefix = rest.charAt(1).toLowerCase();
    const digits = rest.slice(2);
    if (rest.length >= 3 && prefix === "b") {
      if (!/^[01]+$/.test(digits)) return undefined;
      literal = `0b${digits}`;
    } else if (rest.length >= 3 && prefix === "o") {
      if (!/^[0-7]+$/.test(digits)) return undefined;
      literal = `0o${digits}`;
    } else if (rest.length >= 3 && prefix === "x") {
      if (!/^[0-9a-fA-F]+$/.test(digits)) return undefined;
      literal = `0x${digits}`;
    } else {
      if (!/^[0-7]+$/.test(rest.slice(1))) return undefined;
      literal = `0o${rest.slice(1)}`;
    }
  } else {
    if (!/^[0-9]+$/.test(rest)) return undefined;
    literal = rest;
  }
  const magnitude = BigInt(literal);
  return { value: sign === "-" ? -magnitude : magnitude, signed };
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** go-yaml v2 parseTimestamp: one of its layouts, with Go's range checks on the fields. */
function isTimestamp(text: string): boolean {
  const match = TIMESTAMP_FORMAT.exec(text);
  if (match === null) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && !leap ? 28 : (DAYS_IN_MONTH[month - 1] ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > days) return false;
  const hour = Number(match[4] ?? match[7] ?? 0);
  const minute = Number(match[5] ?? match[8] ?? 0);
  const second = Number(match[6] ?? match[9] ?? 0);
  return hour < 24 && minute < 60 && second < 60;
}

/**
 * `!!binary`: go-yaml checks the base64 (standard alphabet, padded; line breaks ignored). The
 * value is kept as the base64 text, which is what Kubernetes fields such as Secret `data` hold.
 */
function resolveBinary(text: string): ResolvedScalar | ScalarError {
  const compact = text.replace(/[\r\n]/g, "");
  if (!BASE64.test(compact)) return { tag: "error", message: "!!binary value contains invalid base64 data" };
  return { tag: "binary", value: compact };
}

/**
 * A resolved key as sigs.k8s.io/yaml writes it into JSON: strings as they are, integers in
 * decimal, booleans as "true"/"false", floats with Go's FormatFloat(f, 'g', -1, 32). Returns an
 * error message for keys it rejects (null, and uint64 values).
 */
export function keyText(key: ResolvedScalar): string | ScalarError {
  switch (key.tag) {
    case "str":
    case "timestamp":
    case "binary":
      return key.value;
    case "int":
      return key.value.toString();
    case "bool":
      return key.value ? "true" : "false";
    case "float":
      return formatFloat32(key.value);
    case "uint":
      return { tag: "error", message: `unsupported map key ${key.value} (above int64)` };
    case "null":
      return { tag: "error", message: "unsupported map key null" };
  }
}

/** Go's strconv.FormatFloat(f, 'g', -1, 32), with go-yaml's names for infinities and NaN. */
export function formatFloat32(value: number): string {
  const single = Math.fround(value);
  if (Number.isNaN(single)) return ".nan";
  if (single === Number.POSITIVE_INFINITY) return ".inf";
  if (single === Number.NEGATIVE_INFINITY) return "-.inf";
  if (single === 0) return Object.is(single, -0) ? "-0" : "0";
  // The shortest decimal that reads back as the same float32.
  let precision = 1;
  while (precision < 9 && Math.fround(Number(single.toPrecision(precision))) !== single) precision++;
  const [mantissa = "", exponentText = "0"] = single.toExponential(precision - 1).split("e");
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace(/[-.]/g, "");
  let body: string;
  if (exponent < -4 || exponent >= 6) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const magnitude = String(Math.abs(exponent)).padStart(2, "0");
    body = `${digits.charAt(0)}${fraction}e${exponent < 0 ? "-" : "+"}${magnitude}`;
  } else if (exponent < 0) {
    body = `0.${"0".repeat(-exponent - 1)}${digits}`;
  } else if (digits.length > exponent + 1) {
    body = `${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
  } else {
    body = digits.padEnd(exponent + 1, "0");
  }
  return negative ? `-${body}` : body;
}
