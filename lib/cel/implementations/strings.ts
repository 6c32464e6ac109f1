/**
 * cel-go's strings extension (`ext.Strings`) at the version Kubernetes 1.36 enables (version 2):
 * `charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`, `upperAscii`, `replace`, `split`,
 * `substring`, `trim`, `join`, `strings.quote` and `format`, with cel-go's semantics and error
 * texts (`index out of range: 30`, `invalid substring range. start: 4, end: 3`, ...).
 *
 * Strings are indexed by code point (Go's `[]rune`), not by UTF-16 unit. `replace` and `split`
 * follow Go's `strings.Replace` / `strings.SplitN` (an empty separator splits or inserts between
 * code points). `trim` removes Go's `unicode.IsSpace` set (which excludes the zero-width spaces
 * U+200B, U+180E and U+FEFF). `indexOf` / `lastIndexOf` return -1 when the offset is past the end
 * and fail only on a negative offset (cel-go 0.2x behaviour).
 *
 * `format` is cel-go's version-1 formatter (the one `StringsVersion(2)` uses), with the `en_US`
 * locale: `%s %d %f %e %b %x %X %o` and `%%`, an optional `.N` precision (used by `%f`; `%e`
 * receives it as a width, a cel-go bug, so its precision stays 6). `%f` and `%e` go through
 * golang.org/x/text's number printer: `%f` groups thousands (`1,234.500000`), prints `∞`/`-∞`
 * for infinities, and `%e` prints `2.718280 × 10⁰⁰` (narrow no-break spaces, superscript
 * exponent of at least two digits). Arguments are {@link FormatArg} values, a small tagged union
 * the CEL adapter builds from its runtime values.
 */

import { fromGoBytes, toGoBytes, utf8Length } from "../../go/bytes.js";
import { exponentDigits, formatFloatFixed, formatFloatShortestG, goQuote } from "../../go/strconv.js";
import { stringFromDuration, stringFromTime } from "./conversions.js";
import { LibraryError } from "./error.js";

/**
 * A CEL value handed to `format`, as the adapter converts it:
 *
 * | kind | CEL type | payload |
 * |---|---|---|
 * | `int` / `uint` | `int` / `uint` | `value: bigint` |
 * | `double` | `double` | `value: number` |
 * | `bool` | `bool` | `value: boolean` |
 * | `string` | `string` | `value: string` |
 * | `bytes` | `bytes` | `value: Uint8Array` |
 * | `null` | `null_type` | — |
 * | `timestamp` | `google.protobuf.Timestamp` | `seconds: bigint` since the epoch, `nanos` 0–999,999,999, the zone's `offset` (seconds east of UTC, default 0) |
 * | `duration` | `google.protobuf.Duration` | `nanos: bigint` (total, may be negative) |
 * | `type` | `type` | `name`: the type's name (`int`, `string`, `google.protobuf.Timestamp`, ...) |
 * | `list` | `list` | `items` |
 * | `map` | `map` | `entries` as key/value pairs |
 * | `other` | anything else (objects, `kubernetes.Quantity`, `net.IP`, optionals, ...) | `typeName` for messages |
 */
export type FormatArg =
  | { readonly kind: "int" | "uint"; readonly value: bigint }
  | { readonly kind: "double"; readonly value: number }
  | { readonly kind: "bool"; readonly value: boolean }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "bytes"; readonly value: Uint8Array }
  | { readonly kind: "null" }
  | { readonly kind: "timestamp"; readonly seconds: bigint; readonly nanos: number; readonly offset?: number }
  | { readonly kind: "duration"; readonly nanos: bigint }
  | { readonly kind: "type"; readonly name: string }
  | { readonly kind: "list"; readonly items: readonly FormatArg[] }
  | { readonly kind: "map"; readonly entries: ReadonlyArray<readonly [FormatArg, FormatArg]> }
  | { readonly kind: "other"; readonly typeName: string };

// ---------------------------------------------------------------------------------------------
// Simple functions
// ---------------------------------------------------------------------------------------------

function outOfRange(i: bigint): LibraryError {
  return new LibraryError(`index out of range: ${i}`);
}

/** Code points of a string (Go `[]rune`). */
function runes(s: string): string[] {
  return Array.from(s);
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * A string's code points as something indexable: the string itself when every code point is one UTF-16 unit (no
 * copy, the common case), else its code points.
 */
function codePointView(s: string): string | string[] {
  return SURROGATE.test(s) ? runes(s) : s;
}

function sliceView(r: string | string[], start: number, end?: number): string {
  return typeof r === "string" ? r.slice(start, end) : r.slice(start, end).join("");
}

/** `s.charAt(i)`: the code point at `i`, `''` at the end, an error outside `[0, size]`. */
export function charAt(s: string, i: bigint): string {
  const r = codePointView(s);
  if (i < 0n || i > BigInt(r.length)) throw outOfRange(i);
  return i === BigInt(r.length) ? "" : r[Number(i)]!;
}

/** The code points of a string (a lone surrogate is one), as numbers. */
function codePoints(s: string): Uint32Array {
  const out = new Uint32Array(s.length);
  let n = 0;
  for (const c of s) out[n++] = c.codePointAt(0)!;
  return out.subarray(0, n);
}

/**
 * The first index at or after `from` where `pat` occurs in `text` (Knuth–Morris–Pratt: linear in both sizes, where
 * cel-go's comparison at every position is quadratic in the worst case; the answer is the same), or -1.
 */
function findCodePoints(text: Uint32Array, pat: Uint32Array, from: number): number {
  const m = pat.length;
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && pat[i] !== pat[k]) k = fail[k - 1]!;
    if (pat[i] === pat[k]) k++;
    fail[i] = k;
  }
  for (let i = from, k = 0; i < text.length; i++) {
    while (k > 0 && text[i] !== pat[k]) k = fail[k - 1]!;
    if (text[i] === pat[k]) k++;
    if (k === m) return i - m + 1;
  }
  return -1;
}

/** `s.indexOf(sub[, offset])` in code points; `-1` when absent or when `offset` is past the end. */
export function indexOf(s: string, sub: string, offset = 0n): bigint {
  if (sub === "") return offset;
  if (offset < 0n) throw outOfRange(offset);
  if (!SURROGATE.test(s) && !SURROGATE.test(sub)) {
    // Code points are UTF-16 units: the engine's search (linear) gives the same index.
    return offset >= BigInt(s.length) ? -1n : BigInt(s.indexOf(sub, Number(offset)));
  }
  const r = codePoints(s);
  if (offset >= BigInt(r.length)) return -1n;
  return BigInt(findCodePoints(r, codePoints(sub), Number(offset)));
}

/**
 * `s.lastIndexOf(sub[, offset])` in code points: the last match starting at or before `offset`
 * (default: the last code point; `size(s)` for an empty `sub`). Searched forward in the reversed
 * strings, in linear time.
 */
export function lastIndexOf(s: string, sub: string, offset?: bigint): bigint {
  const r = codePoints(s);
  if (offset === undefined) {
    if (sub === "") return BigInt(r.length);
    // cel-go v0.26: a string shorter (in bytes) than what it looks for has no match, before any offset check
    if (utf8Length(s) < utf8Length(sub)) return -1n;
    offset = BigInt(r.length - 1);
  }
  if (sub === "") return offset;
  if (offset < 0n) throw outOfRange(offset);
  if (offset >= BigInt(r.length)) return -1n;
  const subr = codePoints(sub);
  let off = Number(offset);
  if (off > r.length - subr.length) off = r.length - subr.length;
  if (off < 0) return -1n;
  const p = findCodePoints(r.slice().reverse(), subr.slice().reverse(), r.length - subr.length - off);
  return p < 0 ? -1n : BigInt(r.length - subr.length - p);
}

/** `s.lowerAscii()`: only A–Z change. */
export function lowerAscii(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** `s.upperAscii()`: only a–z change. */
export function upperAscii(s: string): string {
  return s.replace(/[a-z]/g, (c) => c.toUpperCase());
}

/** Go `strings.Replace(s, old, new, n)`; a negative `n` (the default) replaces all. */
export function replace(s: string, oldStr: string, newStr: string, n = -1n): string {
  if (oldStr === newStr || n === 0n) return s;
  if (oldStr === "") {
    const r = runes(s);
    const m = BigInt(r.length + 1);
    const count = Number(n < 0n || m < n ? m : n);
    // `newStr` before each of the first `count` code points (and after the last one when count is size + 1).
    if (count > r.length) return r.length === 0 ? newStr : newStr + r.join(newStr) + newStr;
    return newStr + r.slice(0, count).join(newStr) + r.slice(count).join("");
  }
  let out = "";
  let start = 0;
  let done = 0n;
  while (n < 0n || done < n) {
    const j = s.indexOf(oldStr, start);
    if (j < 0) break;
    out += s.slice(start, j) + newStr;
    start = j + oldStr.length;
    done++;
  }
  return out + s.slice(start);
}

/**
 * Go `strings.SplitN(s, sep, n)` (`strings.Split` for a negative `n`, the default): `n == 0`
 * gives `[]`, `n > 0` at most `n` parts with the rest in the last (`'a,b,c'.split(',', 2)` is
 * `['a', 'b,c']`); an empty separator splits into code points.
 */
export function split(s: string, sep: string, n = -1n): string[] {
  if (n === 0n) return [];
  if (sep === "") {
    const r = runes(s);
    const l = BigInt(r.length);
    const count = n < 0n || n > l ? l : n;
    const out = r.slice(0, Number(count));
    if (count > 0n && count < l) out[out.length - 1] = r.slice(Number(count) - 1).join("");
    return out;
  }
  const out: string[] = [];
  let rest = s;
  while (n < 0n || BigInt(out.length) < n - 1n) {
    const m = rest.indexOf(sep);
    if (m < 0) break;
    out.push(rest.slice(0, m));
    rest = rest.slice(m + sep.length);
  }
  out.push(rest);
  return out;
}

/** `s.substring(start[, end])` in code points, with cel-go's range errors. */
export function substring(s: string, start: bigint, end?: bigint): string {
  const r = codePointView(s);
  const l = BigInt(r.length);
  if (end === undefined) {
    if (start < 0n || start > l) throw outOfRange(start);
    return sliceView(r, Number(start));
  }
  if (start > end) throw new LibraryError(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > l) throw outOfRange(start);
  if (end < 0n || end > l) throw outOfRange(end);
  return sliceView(r, Number(start), Number(end));
}

/** Go `unicode.IsSpace`. */
function isGoSpace(cp: number): boolean {
  switch (cp) {
    case 0x09:
    case 0x0a:
    case 0x0b:
    case 0x0c:
    case 0x0d:
    case 0x20:
    case 0x85:
    case 0xa0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202f:
    case 0x205f:
    case 0x3000:
      return true;
  }
  return cp >= 0x2000 && cp <= 0x200a;
}

/** `s.trim()`: Go `strings.TrimSpace`. */
export function trim(s: string): string {
  const r = runes(s);
  let i = 0;
  let j = r.length;
  while (i < j && isGoSpace(r[i]!.codePointAt(0)!)) i++;
  while (j > i && isGoSpace(r[j - 1]!.codePointAt(0)!)) j--;
  return r.slice(i, j).join("");
}

/** `list.join([sep])`. */
export function join(list: readonly string[], sep = ""): string {
  return list.join(sep);
}

/**
 * `strings.quote(s)`: `"…"` with `\a \b \f \n \r \t \v \\ \"` escaped and everything else kept as
 * is (other control characters included); a lone surrogate becomes U+FFFD.
 */
export function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (cp) {
      case 0x07:
        out += "\\a";
        break;
      case 0x08:
        out += "\\b";
        break;
      case 0x0c:
        out += "\\f";
        break;
      case 0x0a:
        out += "\\n";
        break;
      case 0x0d:
        out += "\\r";
        break;
      case 0x09:
        out += "\\t";
        break;
      case 0x0b:
        out += "\\v";
        break;
      case 0x5c:
        out += "\\\\";
        break;
      case 0x22:
        out += '\\"';
        break;
      default:
        out += cp >= 0xd800 && cp <= 0xdfff ? "\ufffd" : ch;
    }
  }
  return `${out}"`;
}

// ---------------------------------------------------------------------------------------------
// format
// ---------------------------------------------------------------------------------------------

const DEFAULT_PRECISION = 6;

/** cel-go `TypeName()` of a value, for messages. */
function typeName(v: FormatArg): string {
  switch (v.kind) {
    case "null":
      return "null_type";
    case "timestamp":
      return "google.protobuf.Timestamp";
    case "duration":
      return "google.protobuf.Duration";
    case "other":
      return v.typeName;
    default:
      return v.kind;
  }
}

/** A formatting failure; the message is completed by the caller's wrapping. */
class FormatFailure extends Error {}

function hexBytes(bytes: Uint8Array, upper: boolean): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return upper ? s.toUpperCase() : s;
}

/** `ConvertToType(StringType)` for the scalar kinds `%s` accepts. */
function convertToString(v: FormatArg): string {
  switch (v.kind) {
    case "int":
    case "uint":
      return v.value.toString();
    case "double":
      return formatFloatShortestG(v.value);
    case "bool":
      return v.value ? "true" : "false";
    case "string":
      return v.value;
    case "bytes": {
      try {
        return new TextDecoder("utf-8", { fatal: true }).decode(v.value);
      } catch {
        throw new FormatFailure(
          `could not convert argument ${goQuote("invalid UTF-8 in bytes, cannot convert to string")} to string`,
        );
      }
    }
    case "timestamp":
      return stringFromTime({ seconds: v.seconds, nanos: v.nanos, offset: v.offset ?? 0 });
    case "duration":
      return stringFromDuration(v.nanos);
    case "type":
      return v.name;
    default:
      throw new FormatFailure(`unexpected ${v.kind}`);
  }
}

/** `FormatString`: the `%s` clause. */
function formatString(v: FormatArg): string {
  switch (v.kind) {
    case "list":
      return formatList(v.items);
    case "map":
      return formatMap(v.entries);
    case "null":
      return "null";
    case "other":
      throw new FormatFailure(
        `string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${v.typeName}`,
      );
    default:
      return convertToString(v);
  }
}

function formatDecimal(v: FormatArg): string {
  if (v.kind === "int" || v.kind === "uint") return v.value.toString();
  throw new FormatFailure(`decimal clause can only be used on integers, was given ${typeName(v)}`);
}

/** `clauseForType`: how list elements and map values are printed inside `%s`. */
function formatMember(v: FormatArg): string {
  switch (v.kind) {
    case "int":
    case "uint":
      return formatDecimal(v);
    case "string":
    case "bytes":
    case "bool":
    case "null":
    case "type":
      return formatString(v);
    case "timestamp":
      return `timestamp(${goQuote(convertToString(v))})`;
    case "duration":
      return `duration(${goQuote(convertToString(v))})`;
    case "list":
      return formatList(v.items);
    case "map":
      return formatMap(v.entries);
    case "double":
      return formatFloatFixed(v.value, DEFAULT_PRECISION);
    case "other":
      throw new FormatFailure(`no formatting function for ${v.typeName}`);
  }
}

/** `quoteForCEL`: strings and bytes (and non-finite doubles) are quoted as CEL literals. */
function quoteForCEL(v: FormatArg, s: string): string {
  if (v.kind === "string") return goQuote(s);
  if (v.kind === "bytes") return `b${goQuote(s)}`;
  if (v.kind === "double" && !Number.isFinite(v.value)) return goQuote(s);
  return s;
}

function formatList(items: readonly FormatArg[]): string {
  return `[${items.map((m) => quoteForCEL(m, formatMember(m))).join(", ")}]`;
}

function compareGoStrings(a: string, b: string): number {
  const x = toGoBytes(a);
  const y = toGoBytes(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function formatMap(entries: ReadonlyArray<readonly [FormatArg, FormatArg]>): string {
  const pairs = entries.map(([k, v]) => {
    let key: string;
    if (k.kind === "string" || k.kind === "bool") key = formatString(k);
    else if (k.kind === "int" || k.kind === "uint") key = formatDecimal(k);
    else throw new FormatFailure(`no formatting function for map key of type ${typeName(k)}`);
    return { key: quoteForCEL(k, key), value: quoteForCEL(v, formatMember(v)) };
  });
  pairs.sort((a, b) => compareGoStrings(a.key, b.key));
  return `{${pairs.map((p) => `${p.key}:${p.value}`).join(", ")}}`;
}

/** The double a `%f` / `%e` clause accepts: a double, or the strings NaN / Infinity / -Infinity. */
function floatArg(v: FormatArg, clause: "fixed-point" | "scientific"): number {
  if (v.kind === "double") return v.value;
  if (v.kind === "string" && (v.value === "NaN" || v.value === "Infinity" || v.value === "-Infinity")) {
    return Number(v.value);
  }
  throw new FormatFailure(`${clause} clause can only be used on doubles, was given ${typeName(v)}`);
}

/** x/text `Printf("%.Nf")` in en_US; `N` above 255 wraps the minimum as x/text's `uint8` does. */
function formatFixedEnUS(x: number, precision: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "∞" : "-∞";
  if (precision > 32767) throw new FormatFailure(`precision ${precision} is not supported`);
  const min = precision % 256;
  let s = formatFloatFixed(x, precision);
  if (min < precision && s.includes(".")) {
    const dot = s.indexOf(".");
    let end = s.length;
    while (end > dot + 1 + min && s[end - 1] === "0") end--;
    if (end === dot + 1) end = dot;
    s = s.slice(0, end);
  }
  return groupThousands(s);
}

const SUPERSCRIPT = ["⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"];

/** x/text `Printf("%6e")` in en_US: `2.718280 × 10⁰⁰`. */
function formatScientificEnUS(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "∞" : "-∞";
  const { negative, digits, exp } = exponentDigits(x, DEFAULT_PRECISION);
  const e = String(Math.abs(exp)).padStart(2, "0");
  const sup = Array.from(e, (d) => SUPERSCRIPT[Number(d)]).join("");
  return `${negative ? "-" : ""}${digits[0]}.${digits.slice(1)}\u202f×\u202f10${exp < 0 ? "⁻" : ""}${sup}`;
}

function formatRadix(v: FormatArg, radix: 2 | 8 | 16, upper: boolean): string {
  const s = (v as { value: bigint }).value.toString(radix);
  return upper ? s.toUpperCase() : s;
}

type Clause = (v: FormatArg) => string;

/** `parseFormattingClause` on the text after `%` (a byte string): consumed length and clause. */
function parseClause(f: string): { read: number; clause: Clause } {
  let i = 0;
  let precision: number | undefined;
  if (f[0] === ".") {
    i = 1;
    let digits = "";
    for (;;) {
      if (i >= f.length)
        throw new FormatFailure("error while parsing precision: could not find end of precision specifier");
      const c = f.charCodeAt(i);
      if (c < 0x30 || c > 0x39) break;
      digits += f[i];
      i++;
    }
    if (digits === "") {
      throw new FormatFailure(
        'error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax',
      );
    }
    if (BigInt(digits) > 9223372036854775807n) {
      throw new FormatFailure(
        `error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing ${goQuote(digits)}: value out of range`,
      );
    }
    precision = Number(digits);
  }
  const r = f[i]!;
  i++;
  switch (r) {
    case "s":
      return { read: i, clause: formatString };
    case "d":
      return { read: i, clause: formatDecimal };
    case "f": {
      const p = precision ?? DEFAULT_PRECISION;
      return { read: i, clause: (v) => formatFixedEnUS(floatArg(v, "fixed-point"), p) };
    }
    case "e":
      return { read: i, clause: (v) => formatScientificEnUS(floatArg(v, "scientific")) };
    case "b":
      return {
        read: i,
        clause: (v) => {
          if (v.kind === "bool") return v.value ? "1" : "0";
          if (v.kind === "int" || v.kind === "uint") return formatRadix(v, 2, false);
          throw new FormatFailure(`only integers and bools can be formatted as binary, was given ${typeName(v)}`);
        },
      };
    case "x":
    case "X": {
      const upper = r === "X";
      return {
        read: i,
        clause: (v) => {
          if (v.kind === "string") return hexBytes(new TextEncoder().encode(v.value), upper);
          if (v.kind === "bytes") return hexBytes(v.value, upper);
          if (v.kind === "int" || v.kind === "uint") return formatRadix(v, 16, upper);
          throw new FormatFailure(
            `only integers, byte buffers, and strings can be formatted as hex, was given ${typeName(v)}`,
          );
        },
      };
    }
    case "o":
      return {
        read: i,
        clause: (v) => {
          if (v.kind === "int" || v.kind === "uint") return formatRadix(v, 8, false);
          throw new FormatFailure(`octal clause can only be used on integers, was given ${typeName(v)}`);
        },
      };
    default:
      // Go reads one byte and prints it with %c: a byte of a multi-byte character shows as the
      // Latin-1 character of that byte.
      throw new FormatFailure(`unrecognized formatting clause "${r}"`);
  }
}

/**
 * `fmt.format(args)`: cel-go's string formatting (see the module comment). Throws a
 * {@link LibraryError} with cel-go's message, e.g. `index 2 out of range`,
 * `could not parse formatting clause: unrecognized formatting clause "a"`,
 * `error during formatting: decimal clause can only be used on integers, was given double`.
 */
export function format(fmt: string, args: readonly FormatArg[]): string {
  const f = toGoBytes(fmt);
  let out = "";
  let argIndex = 0;
  let i = 0;
  while (i < f.length) {
    if (f[i] !== "%") {
      out += f[i];
      i++;
      continue;
    }
    if (i + 1 < f.length && f[i + 1] === "%") {
      out += "%";
      i += 2;
      continue;
    }
    if (argIndex >= args.length) throw new LibraryError(`index ${argIndex} out of range`);
    if (i + 1 >= f.length) throw new LibraryError("unexpected end of string");
    let parsed: { read: number; clause: Clause };
    try {
      parsed = parseClause(f.slice(i + 1));
    } catch (e) {
      if (e instanceof FormatFailure) throw new LibraryError(`could not parse formatting clause: ${e.message}`);
      throw e;
    }
    let text: string;
    try {
      text = parsed.clause(args[argIndex]!);
    } catch (e) {
      if (e instanceof FormatFailure) throw new LibraryError(`error during formatting: ${e.message}`);
      throw e;
    }
    out += toGoBytes(text);
    i += 1 + parsed.read;
    argIndex++;
  }
  return fromGoBytes(out);
}

/** Inserts `,` every three digits in the integer part of a plain decimal number (`1234.5` → `1,234.5`). */
export function groupThousands(s: string): string {
  const neg = s.startsWith("-");
  const body = neg ? s.slice(1) : s;
  const dot = body.indexOf(".");
  const int = dot < 0 ? body : body.slice(0, dot);
  const frac = dot < 0 ? "" : body.slice(dot);
  let grouped = "";
  for (let i = 0; i < int.length; i++) {
    if (i > 0 && (int.length - i) % 3 === 0) grouped += ",";
    grouped += int[i];
  }
  return (neg ? "-" : "") + grouped + frac;
}
