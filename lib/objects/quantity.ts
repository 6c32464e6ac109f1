/**
 * Kubernetes `resource.Quantity` (k8s.io/apimachinery/pkg/api/resource), with Go's exact semantics: what the CEL
 * quantity library (lib/cel/libraries/quantity.ts) and KubeVirt's rules compute with.
 *
 * A Go quantity holds its amount in one of two representations, and the difference is visible
 * from CEL:
 *
 * - an `int64Amount` (`value × 10^scale`, `value` an int64): what `ParseQuantity` produces on its
 *   fast path (at most 18 significant digits, a scale of nano or more, no overflow);
 * - an `inf.Dec` (`unscaled × 10^-scale`, arbitrary precision): the slow path (more digits, finer
 *   than nano, binary suffixes with a fraction, overflow) and any arithmetic that overflows int64.
 *
 * `isInteger()` / `asInteger()` only succeed on an `int64Amount` with a scale ≥ 0 whose value fits
 * in int64 (`AsInt64`). So `quantity('1.0').isInteger()` is false (value 10, scale -1),
 * `quantity('1000m').isInteger()` is false, `quantity('0.5Ki').isInteger()` is false (inf.Dec),
 * while `quantity('1.5k').isInteger()` is true (15 × 10^2). `asApproximateFloat()` multiplies the
 * float of the stored mantissa by Go's `math.Pow10`, so its rounding also depends on the
 * representation. This module keeps both representations and Go's transitions between them.
 *
 * Parsing follows `ParseQuantity`: the scanner `parseQuantityString`, suffix interpretation
 * (`n u m "" k M G T P E`, `Ki Mi Gi Ti Pi Ei`, `e<int>`/`E<int>`), values finer than 1n rounded
 * away from zero to 1n, binary-SI values capped at 2^63-1. Errors are Go's three texts.
 *
 * Deliberate differences from Go (documented, none reachable by ordinary values):
 *
 * - Go's CEL functions copy the `Quantity` struct but share its `*inf.Dec`, and `Cmp` converts its
 *   receiver to `inf.Dec` in place, so a quantity value used twice in one expression (through a
 *   comprehension variable) can observe an earlier `add`/`sub`/`compareTo` on it. Values here are
 *   immutable; these aliasing effects are not reproduced.
 * - Where Go would build a power of ten with more than {@link MAX_ALIGN_DIGITS} digits (aligning
 *   `1e2000000000` with `1`, or parsing a 19-digit mantissa with a huge exponent), Go runs out of
 *   memory or time; this module throws a {@link QuantityError} instead.
 */

/** A quantity that does not parse, or an operation Go cannot complete: `message` is Go's error text. */
export class QuantityError extends Error {
  override readonly name = "QuantityError";
}

/** The three formats of Go's `resource.Format`. */
export type QuantityFormat = "DecimalExponent" | "BinarySI" | "DecimalSI";

/** Largest power of ten this module materialises when aligning scales (see module comment). */
export const MAX_ALIGN_DIGITS = 100_000;

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
/** `maxInt64Factors`: significant digits the parse fast path accepts. */
const MAX_INT64_FACTORS = 18;
/** `Nano`: the finest scale a parsed quantity keeps. */
const NANO = -9;

const SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";
/** `ErrFormatWrong`. */
export const ERR_FORMAT_WRONG = `quantities must match the regular expression '${SPLIT_RE}'`;
/** `ErrNumeric`. */
export const ERR_NUMERIC = "unable to parse numeric part of quantity";
/** `ErrSuffix`. */
export const ERR_SUFFIX = "unable to parse quantity's suffix";

/** `int64Amount`: `value × 10^scale`, `value` within int64, `scale` an int32. */
interface IntAmount {
  readonly kind: "int";
  readonly value: bigint;
  readonly scale: number;
}

/** `inf.Dec`: `unscaled × 10^-scale` (`scale` counts digits after the point, as in inf). */
interface DecAmount {
  readonly kind: "dec";
  readonly unscaled: bigint;
  readonly scale: number;
}

type Amount = IntAmount | DecAmount;

function int32(n: number): number {
  return n | 0;
}

function fitsInt64(v: bigint): boolean {
  return v >= INT64_MIN && v <= INT64_MAX;
}

function pow10(n: number): bigint {
  if (n > MAX_ALIGN_DIGITS) {
    throw new QuantityError(`quantity exceeds the supported precision (10^${n})`);
  }
  return 10n ** BigInt(n);
}

function absBig(v: bigint): bigint {
  return v < 0n ? -v : v;
}

function decimalDigits(v: bigint): number {
  return v === 0n ? 0 : absBig(v).toString().length;
}

/** `positiveScaleInt64`: `base × 10^scale`, or undefined when that overflows int64. */
function positiveScaleInt64(base: bigint, scale: number): bigint | undefined {
  if (base === 0n || scale === 0) return base;
  // 10^19 already exceeds int64 for any non-zero base.
  if (scale >= 19) return undefined;
  const r = base * 10n ** BigInt(scale);
  return fitsInt64(r) ? r : undefined;
}

/**
 * `negativeScaleInt64`: `base / 10^scale` rounded away from zero, and whether that was exact.
 */
function negativeScaleInt64(base: bigint, scale: number): { value: bigint; exact: boolean } {
  if (scale === 0) return { value: base, exact: true };
  if (scale > 19) return base === 0n ? { value: 0n, exact: true } : { value: base > 0n ? 1n : -1n, exact: false };
  const d = 10n ** BigInt(scale);
  const q = base / d;
  const r = base % d;
  if (r === 0n) return { value: q, exact: true };
  if (q === 0n) return { value: base > 0n ? 1n : -1n, exact: false };
  return { value: base > 0n ? q + 1n : q - 1n, exact: false };
}

/** Exact comparison of `a × 10^ea` with `b × 10^eb`, without building huge powers of ten. */
function compareScaled(a: bigint, ea: number, b: bigint, eb: number): number {
  const sa = a === 0n ? 0 : a > 0n ? 1 : -1;
  const sb = b === 0n ? 0 : b > 0n ? 1 : -1;
  if (sa !== sb) return sa > sb ? 1 : -1;
  if (sa === 0) return 0;
  if (ea === eb) return a === b ? 0 : a > b ? 1 : -1;
  // Same sign, both non-zero: compare magnitudes by order first.
  const ma = decimalDigits(a) + ea;
  const mb = decimalDigits(b) + eb;
  if (ma !== mb) return (ma > mb ? 1 : -1) * sa;
  const lo = Math.min(ea, eb);
  const x = a * 10n ** BigInt(ea - lo);
  const y = b * 10n ** BigInt(eb - lo);
  return x === y ? 0 : x > y ? 1 : -1;
}

/** The base-10 exponent form of an amount: `mantissa × 10^exp`. */
function asScaled(a: Amount): { m: bigint; e: number } {
  return a.kind === "int" ? { m: a.value, e: a.scale } : { m: a.unscaled, e: -a.scale };
}

/** `int64Amount.AsDec`. */
function toDec(a: Amount): DecAmount {
  return a.kind === "dec" ? a : { kind: "dec", unscaled: a.value, scale: int32(-a.scale) };
}

/** `inf.Dec.Add` / `Sub`: the result has the larger of the two (inf) scales. */
function decAdd(x: DecAmount, y: DecAmount, negateY: boolean): DecAmount {
  const scale = Math.max(x.scale, y.scale);
  const xu = x.unscaled * pow10(scale - x.scale);
  const yu = y.unscaled * pow10(scale - y.scale);
  return { kind: "dec", unscaled: negateY ? xu - yu : xu + yu, scale };
}

/** `int64Amount.Add`: the sum on the int64 path, or undefined when it must fall back to inf.Dec. */
function intAdd(a: IntAmount, b: IntAmount): IntAmount | undefined {
  if (b.value === 0n) return a;
  if (a.value === 0n) return b;
  if (a.scale === b.scale) {
    const c = a.value + b.value;
    return fitsInt64(c) ? { kind: "int", value: c, scale: a.scale } : undefined;
  }
  if (a.scale > b.scale) {
    const c = positiveScaleInt64(a.value, a.scale - b.scale);
    if (c === undefined) return undefined;
    const s = c + b.value;
    return fitsInt64(s) ? { kind: "int", value: s, scale: b.scale } : undefined;
  }
  const c = positiveScaleInt64(b.value, b.scale - a.scale);
  if (c === undefined) return undefined;
  const s = a.value + c;
  return fitsInt64(s) ? { kind: "int", value: s, scale: a.scale } : undefined;
}

/** `inf.Dec.Round(x, 9, inf.RoundUp)` for a positive `x`: the result has scale exactly 9. */
function roundUpToNano(x: DecAmount): DecAmount {
  const target = -NANO;
  if (x.scale <= target) {
    return { kind: "dec", unscaled: x.unscaled * pow10(target - x.scale), scale: target };
  }
  const drop = x.scale - target;
  if (drop > decimalDigits(x.unscaled)) return { kind: "dec", unscaled: 1n, scale: target };
  const d = 10n ** BigInt(drop);
  const q = x.unscaled / d;
  return { kind: "dec", unscaled: x.unscaled % d === 0n ? q : q + 1n, scale: target };
}

/** `fastLookup.interpret` / `suffixHandler.interpret`. */
function interpretSuffix(s: string): { base: 2 | 10; exponent: number; format: QuantityFormat } | undefined {
  switch (s) {
    case "":
      return { base: 10, exponent: 0, format: "DecimalSI" };
    case "n":
      return { base: 10, exponent: -9, format: "DecimalSI" };
    case "u":
      return { base: 10, exponent: -6, format: "DecimalSI" };
    case "m":
      return { base: 10, exponent: -3, format: "DecimalSI" };
    case "k":
      return { base: 10, exponent: 3, format: "DecimalSI" };
    case "M":
      return { base: 10, exponent: 6, format: "DecimalSI" };
    case "G":
      return { base: 10, exponent: 9, format: "DecimalSI" };
    case "T":
      return { base: 10, exponent: 12, format: "DecimalSI" };
    case "P":
      return { base: 10, exponent: 15, format: "DecimalSI" };
    case "E":
      return { base: 10, exponent: 18, format: "DecimalSI" };
    case "Ki":
      return { base: 2, exponent: 10, format: "BinarySI" };
    case "Mi":
      return { base: 2, exponent: 20, format: "BinarySI" };
    case "Gi":
      return { base: 2, exponent: 30, format: "BinarySI" };
    case "Ti":
      return { base: 2, exponent: 40, format: "BinarySI" };
    case "Pi":
      return { base: 2, exponent: 50, format: "BinarySI" };
    case "Ei":
      return { base: 2, exponent: 60, format: "BinarySI" };
  }
  if (s.length > 1 && (s[0] === "e" || s[0] === "E")) {
    const parsed = parseGoInt64(s.slice(1));
    if (parsed === undefined) return undefined;
    // Go converts the int64 with int32(parsed), which wraps.
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: "DecimalExponent" };
  }
  return undefined;
}

/** `strconv.ParseInt(s, 10, 64)`: optional sign, ASCII digits, int64 range. */
function parseGoInt64(s: string): bigint | undefined {
  let i = 0;
  if (s[0] === "+" || s[0] === "-") i = 1;
  if (i >= s.length) return undefined;
  for (let j = i; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c < 0x30 || c > 0x39) return undefined;
  }
  const v = BigInt(s);
  return fitsInt64(v) ? v : undefined;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

const SUFFIX_CHARS = "eEinumkKMGTP";

interface Scanned {
  positive: boolean;
  /** The signed number as written (sign, leading zeros, point), for the slow path. */
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

/** `parseQuantityString`: the fast scanner that splits sign, digits, fraction and suffix. */
function scanQuantity(str: string): Scanned | undefined {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === "-") {
    positive = false;
    pos++;
  } else if (str[0] === "+") {
    pos++;
  }
  // Leading zeros.
  while (pos < end && str[pos] === "0") pos++;
  if (pos >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };
  // Numerator.
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: "", suffix: "" };
  let num = str.slice(pos, i);
  pos = i;
  if (num.length === 0) num = "0";
  let denom = "";
  if (str[pos] === ".") {
    pos++;
    let j = pos;
    while (j < end && isDigit(str[j])) j++;
    if (j >= end) return { positive, value: str, num, denom: str.slice(pos), suffix: "" };
    denom = str.slice(pos, j);
    pos = j;
  }
  const value = str.slice(0, pos);
  // Suffix: letters from the suffix set, an optional sign, digits.
  const suffixStart = pos;
  let k = pos;
  while (k < end && SUFFIX_CHARS.includes(str[k]!)) k++;
  if (k >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = k;
  if (str[pos] === "-" || str[pos] === "+") pos++;
  for (let m = pos; m < end; m++) {
    if (!isDigit(str[m])) return undefined;
  }
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

/** `inf.Dec.SetString` on the scanned number: undefined when it has no digit. */
function decFromString(value: string): DecAmount | undefined {
  let sign = 1n;
  let i = 0;
  if (value[0] === "-" || value[0] === "+") {
    if (value[0] === "-") sign = -1n;
    i = 1;
  }
  let digits = "";
  let scale = 0;
  let seenPoint = false;
  for (; i < value.length; i++) {
    const c = value[i]!;
    if (c === ".") {
      seenPoint = true;
      continue;
    }
    digits += c;
    if (seenPoint) scale++;
  }
  if (digits.length === 0) return undefined;
  return { kind: "dec", unscaled: sign * BigInt(digits), scale };
}

/**
 * A Kubernetes quantity (`resource.Quantity`), immutable. Create one with {@link parseQuantity}
 * (`quantity(string)` in CEL) or {@link Quantity.fromInt}.
 */
export class Quantity {
  readonly #amount: Amount;
  /** The format the quantity was written in (kept across arithmetic as Go keeps it). */
  readonly format: QuantityFormat;

  private constructor(amount: Amount, format: QuantityFormat) {
    this.#amount = amount;
    this.format = format;
  }

  /** `resource.NewQuantity(v, DecimalExponent)`: how Kubernetes turns a CEL int into a quantity. */
  static fromInt(value: bigint, format: QuantityFormat = "DecimalExponent"): Quantity {
    if (!fitsInt64(value)) throw new RangeError("quantity integer outside int64");
    return new Quantity({ kind: "int", value, scale: 0 }, format);
  }

  /** `resource.ParseQuantity`; throws a {@link QuantityError} with Go's error text. */
  static parse(str: string): Quantity {
    if (str.length === 0) throw new QuantityError(ERR_FORMAT_WRONG);
    if (str === "0") return new Quantity({ kind: "int", value: 0n, scale: 0 }, "DecimalSI");
    const scanned = scanQuantity(str);
    if (scanned === undefined) throw new QuantityError(ERR_FORMAT_WRONG);
    const { positive, value, num, denom, suffix } = scanned;
    const interpreted = interpretSuffix(suffix);
    if (interpreted === undefined) throw new QuantityError(ERR_SUFFIX);
    const { base, exponent } = interpreted;
    let format = interpreted.format;

    let precision = 0;
    let scale = 0;
    let mantissa = 1n;
    if (format === "BinarySI") {
      if (exponent >= 0 && denom.length === 0) {
        mantissa = 1n << BigInt(exponent);
        precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
      } else {
        precision = -1;
      }
    } else {
      scale = exponent;
      precision = MAX_INT64_FACTORS - (num.length + denom.length);
    }

    if (precision >= 0) {
      scale = int32(scale - denom.length);
      if (scale >= NANO) {
        const shifted = BigInt(num + denom);
        const result = shifted * mantissa;
        if (fitsInt64(shifted) && fitsInt64(result)) {
          return new Quantity({ kind: "int", value: positive ? result : -result, scale }, format);
        }
      }
    }

    const parsed = decFromString(value);
    if (parsed === undefined) throw new QuantityError(ERR_NUMERIC);
    let amount: DecAmount = parsed;
    if (base === 10) {
      amount = { kind: "dec", unscaled: amount.unscaled, scale: int32(amount.scale - exponent) };
    } else {
      amount = { kind: "dec", unscaled: amount.unscaled << BigInt(exponent), scale: amount.scale };
    }
    const negative = amount.unscaled < 0n;
    if (negative) amount = { kind: "dec", unscaled: -amount.unscaled, scale: amount.scale };
    if (amount.unscaled !== 0n) amount = roundUpToNano(amount);
    if (format === "BinarySI" && compareScaled(amount.unscaled, -amount.scale, INT64_MAX, 0) > 0) {
      amount = { kind: "dec", unscaled: INT64_MAX, scale: 0 };
    }
    if (format === "BinarySI" && compareScaled(amount.unscaled, -amount.scale, 1n, 0) < 0 && amount.unscaled !== 0n) {
      format = "DecimalSI";
    }
    if (negative) amount = { kind: "dec", unscaled: -amount.unscaled, scale: amount.scale };
    return new Quantity(amount, format);
  }

  /** Whether the amount is held as an `inf.Dec` (Go's slow path); exposed for tests and diagnostics. */
  get isDecimalRepresentation(): boolean {
    return this.#amount.kind === "dec";
  }

  /** `Quantity.Sign`: -1, 0 or 1 (the CEL global `sign(q)`). */
  sign(): bigint {
    const { m } = asScaled(this.#amount);
    return m === 0n ? 0n : m > 0n ? 1n : -1n;
  }

  /** `Quantity.IsZero`. */
  isZero(): boolean {
    return asScaled(this.#amount).m === 0n;
  }

  /** `Quantity.Cmp`: -1, 0 or 1. */
  cmp(other: Quantity): number {
    const a = asScaled(this.#amount);
    const b = asScaled(other.#amount);
    return compareScaled(a.m, a.e, b.m, b.e);
  }

  /** CEL `q.compareTo(other)`. */
  compareTo(other: Quantity): bigint {
    return BigInt(this.cmp(other));
  }

  /** CEL `q.isGreaterThan(other)`. */
  isGreaterThan(other: Quantity): boolean {
    return this.cmp(other) === 1;
  }

  /** CEL `q.isLessThan(other)`. */
  isLessThan(other: Quantity): boolean {
    return this.cmp(other) === -1;
  }

  /** CEL `==` on quantities (`Quantity.Equal`, numeric: `1Gi == 1024Mi`). */
  equals(other: Quantity): boolean {
    return this.cmp(other) === 0;
  }

  /** `Quantity.AsInt64`: the value when it is an int64Amount with an exact int64 value. */
  #asInt64(): bigint | undefined {
    const a = this.#amount;
    if (a.kind === "dec") return undefined;
    if (a.scale === 0) return a.value;
    if (a.scale < 0) return undefined;
    return positiveScaleInt64(a.value, a.scale);
  }

  /** CEL `q.isInteger()`: whether `asInteger()` succeeds. */
  isInteger(): boolean {
    return this.#asInt64() !== undefined;
  }

  /** CEL `q.asInteger()`; throws `cannot convert value to integer` as Kubernetes does. */
  asInteger(): bigint {
    const v = this.#asInt64();
    if (v === undefined) throw new QuantityError("cannot convert value to integer");
    return v;
  }

  /** CEL `q.asApproximateFloat()` (`AsApproximateFloat64`, with Go's `math.Pow10`). */
  asApproximateFloat(): number {
    const a = this.#amount;
    const base = Number(a.kind === "dec" ? a.unscaled : a.value);
    const exponent = a.kind === "dec" ? -a.scale : a.scale;
    if (exponent === 0) return base;
    return base * goPow10(exponent);
  }

  /** CEL `q.add(other)` with a quantity or an int (`NewQuantity(i, DecimalExponent)`). */
  add(other: Quantity | bigint): Quantity {
    const y = typeof other === "bigint" ? Quantity.fromInt(other) : other;
    return this.#combine(y, false);
  }

  /** CEL `q.sub(other)` with a quantity or an int. */
  sub(other: Quantity | bigint): Quantity {
    const y = typeof other === "bigint" ? Quantity.fromInt(other) : other;
    return this.#combine(y, true);
  }

  /** `Quantity.Add` / `Quantity.Sub` on a copy of the receiver. */
  #combine(y: Quantity, subtract: boolean): Quantity {
    const x = this.#amount;
    const yAmount = y.#amount;
    let format = this.format;
    if (!subtract && x.kind === "int" && yAmount.kind === "int") {
      if (x.value === 0n) format = y.format;
      const sum = intAdd(x, yAmount);
      if (sum !== undefined) return new Quantity(sum, format);
    } else if (this.isZero()) {
      format = y.format;
    }
    if (subtract && x.kind === "int" && yAmount.kind === "int" && yAmount.value !== INT64_MIN) {
      const diff = intAdd(x, { kind: "int", value: -yAmount.value, scale: yAmount.scale });
      if (diff !== undefined) return new Quantity(diff, format);
    }
    return new Quantity(decAdd(toDec(x), toDec(yAmount), subtract), format);
  }

  /** The exact value as a fraction `num / den` (`den` a power of ten, not reduced). */
  exactValue(): { num: bigint; den: bigint } {
    const { m, e } = asScaled(this.#amount);
    return e >= 0 ? { num: m * pow10(e), den: 1n } : { num: m, den: pow10(-e) };
  }

  /** `Quantity.String`: the canonical form (`1500m`, `1536Mi`, `12e6`). */
  toString(): string {
    if (this.isZero()) return "0";
    let format = this.format;
    let rounded: Amount | undefined;
    if (format === "BinarySI") {
      const small =
        compareScaled(asScaled(this.#amount).m, asScaled(this.#amount).e, -1024n, 0) > 0 &&
        compareScaled(asScaled(this.#amount).m, asScaled(this.#amount).e, 1024n, 0) < 0;
      if (small) format = "DecimalSI";
      else {
        const r = asScaleZero(this.#amount);
        if (r.exact) rounded = r.amount;
        else format = "DecimalSI";
      }
    }
    if (format === "BinarySI" && rounded !== undefined) {
      const { m, e } = asScaled(rounded);
      let amount = m * pow10(e);
      let exp = 0;
      while (absBig(amount) >= 1024n && amount % 1024n === 0n) {
        amount /= 1024n;
        exp++;
      }
      return `${amount}${BINARY_SUFFIX[exp] ?? ""}`;
    }
    const { m, e } = canonicalDecimal(this.#amount);
    const si = format === "DecimalSI" ? DECIMAL_SUFFIX.get(e) : undefined;
    if (si !== undefined) return `${m}${si}`;
    return e === 0 ? `${m}` : `${m}e${e}`;
  }
}

const BINARY_SUFFIX = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
const DECIMAL_SUFFIX = new Map<number, string>([
  [-9, "n"],
  [-6, "u"],
  [-3, "m"],
  [0, ""],
  [3, "k"],
  [6, "M"],
  [9, "G"],
  [12, "T"],
  [15, "P"],
  [18, "E"],
]);

/** `AsScale(0)`: rounded away from zero to an integer, and whether that was exact. */
function asScaleZero(a: Amount): { amount: Amount; exact: boolean } {
  const { m, e } = asScaled(a);
  if (e >= 0) return { amount: a, exact: true };
  const r = negativeScaleInt64(m, -e);
  return { amount: { kind: "dec", unscaled: r.value, scale: 0 }, exact: r.exact };
}

/** `AsCanonicalBytes`: factors of ten moved into an exponent that is a multiple of 3. */
function canonicalDecimal(a: Amount): { m: bigint; e: number } {
  let { m, e } = asScaled(a);
  while (m !== 0n && m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  const r = ((e % 3) + 3) % 3;
  if (r !== 0) {
    m *= 10n ** BigInt(r);
    e -= r;
  }
  return { m, e };
}

const POW10_TAB = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS_TAB32 = Array.from({ length: 10 }, (_, i) => Number(`1e${i * 32}`));
const POW10_NEG_TAB32 = Array.from({ length: 11 }, (_, i) => Number(`1e-${i * 32}`));

/** Go's `math.Pow10`, table-driven exactly as Go computes it. */
export function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return POW10_POS_TAB32[Math.trunc(n / 32)]! * POW10_TAB[n % 32]!;
  if (n >= -323 && n <= 0) return POW10_NEG_TAB32[Math.trunc(-n / 32)]! / POW10_TAB[-n % 32]!;
  return n > 0 ? Number.POSITIVE_INFINITY : 0;
}

/** `resource.ParseQuantity(s)` (CEL `quantity(s)`): throws a {@link QuantityError} with Go's text when invalid. */
export function parseQuantity(s: string): Quantity {
  return Quantity.parse(s);
}

/** Whether `resource.ParseQuantity(s)` succeeds (CEL `isQuantity(s)`). */
export function isQuantity(s: string): boolean {
  try {
    Quantity.parse(s);
    return true;
  } catch (e) {
    if (e instanceof QuantityError) return false;
    throw e;
  }
}

/** CEL `sign(q)` (a global function in Kubernetes; `q.sign()` does not compile). */
export function quantitySign(q: Quantity): bigint {
  return q.sign();
}
