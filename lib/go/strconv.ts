/**
 * Go's `strconv`: `Quote` (and therefore `fmt`'s `%q` on strings), `FormatFloat`, and the parsers CEL's conversions
 * use (`ParseInt`, `ParseUint`, `ParseFloat`, `ParseBool`).
 *
 * `Quote`, which Kubernetes uses in many messages (a field error's `Invalid value: "x"`, CEL library
 * errors such as `parse "../relative": ...`):
 * Go quotes the UTF-8 bytes of a string: printable runes (`unicode.IsPrint`: letters, marks,
 * numbers, punctuation, symbols and the ASCII space) are kept, `"` and `\` are backslash-escaped,
 * `\a \b \f \n \r \t \v` use their short escapes, other runes below U+0080 and bytes that are not
 * valid UTF-8 use `\xhh`, other non-printable runes `\uhhhh` or `\Uhhhhhhhh` (lower-case hex).
 *
 * Two entry points: {@link goQuote} for a JavaScript string (lone surrogates count as U+FFFD, as
 * Go's JSON decoder would have made them), and {@link goQuoteBytes} for a Go byte string held as a
 * "binary string" (one char per byte, see bytes.ts), which may hold invalid UTF-8.
 *
 * `FormatFloat` for the layouts Kubernetes prints with: `'g'` and `'f'` with the shortest
 * round-tripping digits (precision -1), `'f'` with a fixed number of decimals, rounded half to even
 * on the exact binary value as Go does (`0.125` with two decimals is `0.12`, where JavaScript's
 * `toFixed` gives `0.13`), and the parts of `'e'`. Non-finite values print as Go prints them: `NaN`,
 * `+Inf`, `-Inf`.
 */

import { decodeRune, toGoBytes } from "./bytes.js";

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** `unicode.IsPrint` for one code point. */
export function isGoPrint(cp: number): boolean {
  if (cp === 0x20) return true;
  if (cp < 0x20 || cp === 0x7f) return false;
  if (cp < 0x7f) return true;
  return PRINTABLE.test(String.fromCodePoint(cp));
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

/** Printable ASCII other than `"` and `\`: the bytes `strconv.Quote` keeps as they are. */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** `strconv.Quote` of a Go byte string held as a binary string. */
export function goQuoteBytes(b: string): string {
  // The common case in one step: building the quote character by character makes a rope of one node per character,
  // which for a long input (a hostile URL of 100,000 characters) costs more in garbage collection than the scan.
  if (PLAIN_ASCII.test(b)) return `"${b}"`;
  let out = '"';
  for (let i = 0; i < b.length; ) {
    const { cp, width } = decodeRune(b, i);
    if (cp < 0) out += `\\x${hex(b.charCodeAt(i), 2)}`;
    else if (cp === 0x22) out += '\\"';
    else if (cp === 0x5c) out += "\\\\";
    else if (isGoPrint(cp)) out += String.fromCodePoint(cp);
    else if (cp === 0x07) out += "\\a";
    else if (cp === 0x08) out += "\\b";
    else if (cp === 0x0c) out += "\\f";
    else if (cp === 0x0a) out += "\\n";
    else if (cp === 0x0d) out += "\\r";
    else if (cp === 0x09) out += "\\t";
    else if (cp === 0x0b) out += "\\v";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
    i += width;
  }
  return `${out}"`;
}

/** `strconv.Quote(s)` of a JavaScript string. */
export function goQuote(s: string): string {
  return goQuoteBytes(toGoBytes(s));
}

/** The shortest digits of a finite non-zero `|x|` and its decimal point position: `x = 0.d1d2… × 10^dp`. */
function shortestDigits(x: number): { digits: string; dp: number } {
  const [mant, exp] = Math.abs(x).toExponential().split("e") as [string, string];
  const digits = mant.replace(".", "");
  return { digits, dp: Number(exp) + 1 };
}

function nonFinite(x: number): string | undefined {
  if (Number.isNaN(x)) return "NaN";
  if (x === Number.POSITIVE_INFINITY) return "+Inf";
  if (x === Number.NEGATIVE_INFINITY) return "-Inf";
  return undefined;
}

function sign(x: number): string {
  return x < 0 || Object.is(x, -0) ? "-" : "";
}

/** Digits `d` with the decimal point at `dp`, in `%f` layout (no exponent). */
function fixedLayout(digits: string, dp: number): string {
  if (dp <= 0) return `0.${"0".repeat(-dp)}${digits}`;
  if (dp >= digits.length) return digits + "0".repeat(dp - digits.length);
  return `${digits.slice(0, dp)}.${digits.slice(dp)}`;
}

/** `strconv.FormatFloat(x, 'f', -1, 64)`. */
export function formatFloatShortestF(x: number): string {
  const nf = nonFinite(x);
  if (nf !== undefined) return nf;
  if (x === 0) return `${sign(x)}0`;
  const { digits, dp } = shortestDigits(x);
  return sign(x) + fixedLayout(digits, dp);
}

/**
 * `strconv.FormatFloat(x, 'g', -1, 64)`: the `%e` layout (`1.234567e+06`) when the decimal
 * exponent is below -4 or at least 6 (Go's fixed threshold for shortest formatting), else `%f`.
 */
export function formatFloatShortestG(x: number): string {
  const nf = nonFinite(x);
  if (nf !== undefined) return nf;
  if (x === 0) return `${sign(x)}0`;
  const { digits, dp } = shortestDigits(x);
  const exp = dp - 1;
  if (exp < -4 || exp >= 6) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    return `${sign(x)}${mant}e${exp < 0 ? "-" : "+"}${e < 10 ? `0${e}` : e}`;
  }
  return sign(x) + fixedLayout(digits, dp);
}

/** The exact value of a finite double as `num / 2^shift` (`shift ≥ 0`). */
function exactBinary(x: number): { num: bigint; shift: bigint } {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(x));
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const exp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (exp === 0) {
    e = -1074;
  } else {
    mant |= 1n << 52n;
    e = exp - 1075;
  }
  return e >= 0 ? { num: mant << BigInt(e), shift: 0n } : { num: mant, shift: BigInt(-e) };
}

/** `strconv.FormatFloat(x, 'f', prec, 64)`: exact value rounded half to even to `prec` decimals. */
export function formatFloatFixed(x: number, prec: number): string {
  const nf = nonFinite(x);
  if (nf !== undefined) return nf;
  const { num, shift } = exactBinary(x);
  // round(num × 10^prec / 2^shift), ties to even
  const scaled = num * 10n ** BigInt(prec);
  const den = 1n << shift;
  let q = scaled / den;
  const r = scaled % den;
  const twice = r * 2n;
  if (twice > den || (twice === den && q % 2n === 1n)) q += 1n;
  let digits = q.toString();
  if (prec > 0) {
    digits = digits.padStart(prec + 1, "0");
    digits = `${digits.slice(0, -prec)}.${digits.slice(-prec)}`;
  }
  return sign(x) + digits;
}

/**
 * `strconv.FormatFloat(x, 'e', prec, 64)` split into its parts for a finite `x`: the mantissa
 * digits (`prec + 1` of them, rounded half to even on the exact value) and the decimal exponent.
 */
export function exponentDigits(x: number, prec: number): { negative: boolean; digits: string; exp: number } {
  const negative = x < 0 || Object.is(x, -0);
  if (x === 0) return { negative, digits: "0".repeat(prec + 1), exp: 0 };
  const { num, shift } = exactBinary(x);
  let exp = shortestDigits(x).dp - 1;
  // round(num / 2^shift / 10^(exp - prec)), ties to even
  const round = (e: number): bigint => {
    const k = prec - e;
    let n = num;
    let d = 1n << shift;
    if (k >= 0) n *= 10n ** BigInt(k);
    else d *= 10n ** BigInt(-k);
    let q = n / d;
    const twice = (n % d) * 2n;
    if (twice > d || (twice === d && q % 2n === 1n)) q += 1n;
    return q;
  };
  let q = round(exp);
  if (q >= 10n ** BigInt(prec + 1)) {
    exp += 1;
    q = round(exp);
  }
  return { negative, digits: q.toString(), exp };
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing: ParseInt, ParseUint (base 10, 64 bits), ParseBool, ParseFloat (64 bits)

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;
const DECIMAL_DIGITS = /^[0-9]+$/;

/**
 * `strconv.ParseInt(s, 10, 64)`: an optional sign and decimal digits (no base prefix, no underscores: those need
 * base 0), within the int64 range. Undefined where Go returns an error (syntax or range).
 */
export function parseInt64(s: string): bigint | undefined {
  const sign = s[0] === "+" || s[0] === "-" ? s[0] : "";
  const digits = s.slice(sign.length);
  if (!DECIMAL_DIGITS.test(digits)) return undefined;
  const v = BigInt(sign === "-" ? `-${digits}` : digits);
  return v < INT64_MIN || v > INT64_MAX ? undefined : v;
}

/** `strconv.ParseUint(s, 10, 64)`: decimal digits only (no sign), within the uint64 range. */
export function parseUint64(s: string): bigint | undefined {
  if (!DECIMAL_DIGITS.test(s)) return undefined;
  const v = BigInt(s);
  return v > UINT64_MAX ? undefined : v;
}

const BOOL_SPELLINGS: ReadonlyMap<string, boolean> = new Map([
  ["1", true],
  ["t", true],
  ["T", true],
  ["TRUE", true],
  ["true", true],
  ["True", true],
  ["0", false],
  ["f", false],
  ["F", false],
  ["FALSE", false],
  ["false", false],
  ["False", false],
]);

/** `strconv.ParseBool`: 1, t, T, TRUE, true, True and their false counterparts; undefined otherwise. */
export function parseBool(s: string): boolean | undefined {
  return BOOL_SPELLINGS.get(s);
}

/** The length of the common prefix of `s` and the lower-case `prefix`, ignoring the case of `s` (ASCII). */
function prefixLengthIgnoreCase(s: string, prefix: string): number {
  const n = Math.min(s.length, prefix.length);
  for (let i = 0; i < n; i++) if (s[i]!.toLowerCase() !== prefix[i]) return i;
  return n;
}

/** Go's `special`: `[+-]inf`, `[+-]infinity` (any case) and `nan` (any case, no sign), as the whole string. */
function specialFloat(s: string): number | undefined {
  let sign = 1;
  let rest = s;
  if (s[0] === "+" || s[0] === "-") {
    sign = s[0] === "-" ? -1 : 1;
    rest = s.slice(1);
  } else if (prefixLengthIgnoreCase(s, "nan") === 3 && s.length === 3) {
    return Number.NaN;
  }
  const n = prefixLengthIgnoreCase(rest, "infinity");
  if ((n === 3 && rest.length === 3) || (n === 8 && rest.length === 8)) return sign * Number.POSITIVE_INFINITY;
  return undefined;
}

/**
 * Go's `underscoreOK`: underscores only between digits, or between a base prefix and a digit (the decimal
 * point and the exponent break a run of digits).
 */
function underscoresOK(s: string): boolean {
  let saw = "^";
  let i = 0;
  let t = s;
  if (t[0] === "+" || t[0] === "-") t = t.slice(1);
  let hex = false;
  if (t.length >= 2 && t[0] === "0" && "boxBOX".includes(t[1]!)) {
    i = 2;
    saw = "0";
    hex = t[1] === "x" || t[1] === "X";
  }
  for (; i < t.length; i++) {
    const c = t[i]!;
    if ((c >= "0" && c <= "9") || (hex && /[a-fA-F]/.test(c))) {
      saw = "0";
    } else if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
    } else {
      if (saw === "_") return false;
      saw = "!";
    }
  }
  return saw !== "_";
}

/** A decimal float literal as Go's `readFloat` reads it (underscores checked separately). */
const DECIMAL_FLOAT = /^[+-]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9][0-9_]*)?$/;
/** A hexadecimal float literal: the `p` exponent is required. */
const HEX_FLOAT = /^([+-]?)0[xX]((?:[0-9a-fA-F_]+\.?[0-9a-fA-F_]*|\.[0-9a-fA-F_]+))[pP]([+-]?[0-9][0-9_]*)$/;

/** `strconv.ParseFloat(s, 64)`; undefined on a syntax error and, as Go, on overflow (ErrRange). */
export function parseFloat64(s: string): number | undefined {
  const special = specialFloat(s);
  if (special !== undefined) return special;
  if (s.includes("_") && !underscoresOK(s)) return undefined;
  const hex = HEX_FLOAT.exec(s);
  if (hex !== null) return parseHexFloat(hex[1] === "-", hex[2]!.replaceAll("_", ""), hex[3]!.replaceAll("_", ""));
  if (!DECIMAL_FLOAT.test(s) || !/[0-9]/.test(s.replace(/[eE].*$/, ""))) return undefined;
  // JavaScript's Number() rounds a decimal literal to nearest, ties to even, as Go does.
  const v = Number(s.replaceAll("_", ""));
  return Number.isFinite(v) ? v : undefined;
}

/**
 * A hexadecimal mantissa times 2^exponent, rounded to nearest even as Go's `atofHex` rounds it; undefined when
 * it overflows float64.
 */
function parseHexFloat(negative: boolean, mantissaText: string, exponentText: string): number | undefined {
  const dot = mantissaText.indexOf(".");
  const digits = mantissaText.replace(".", "");
  if (!/[0-9a-fA-F]/.test(digits)) return undefined;
  const fractionDigits = dot === -1 ? 0 : mantissaText.length - dot - 1;
  let mantissa = BigInt(`0x${digits}`);
  // Go stops reading the exponent's value beyond 10000; any larger exponent over- or underflows anyway.
  let exp = Math.min(Number.parseInt(exponentText, 10), 100_000);
  exp = Math.max(exp, -100_000) - 4 * fractionDigits;
  if (mantissa === 0n) return negative ? -0 : 0;
  // Normalise to 55 bits (53 of precision plus a round bit and a sticky bit), then round half to even.
  const bits = mantissa.toString(2).length;
  if (bits > 55) {
    const shift = BigInt(bits - 55);
    const sticky = mantissa & ((1n << shift) - 1n) ? 1n : 0n;
    mantissa = (mantissa >> shift) | sticky;
    exp += bits - 55;
  } else {
    mantissa <<= BigInt(55 - bits);
    exp -= 55 - bits;
  }
  // The value is mantissa × 2^exp with mantissa in [2^54, 2^55). Denormalise below the smallest normal exponent.
  const minExp = -1074 - 2; // two extra bits for rounding
  while (exp < minExp && mantissa > 1n) {
    mantissa = (mantissa >> 1n) | (mantissa & 1n);
    exp++;
  }
  let round = mantissa & 3n;
  mantissa >>= 2n;
  exp += 2;
  round |= mantissa & 1n;
  if (round === 3n) {
    mantissa++;
    if (mantissa === 1n << 53n) {
      mantissa >>= 1n;
      exp++;
    }
  }
  // mantissa ≤ 2^53 and its lowest bit at or above 2^-1074: mantissa × 2^exp is exact unless it overflows.
  if (mantissa !== 0n && exp + mantissa.toString(2).length - 1 > 1023) return undefined;
  const v = mantissa === 0n ? 0 : Number(mantissa) * 2 ** exp;
  return negative ? -v : v;
}
