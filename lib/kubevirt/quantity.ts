/**
 * Kubernetes `resource.Quantity` values, exactly (k8s.io/apimachinery/pkg/api/resource).
 *
 * A quantity is `<sign><digits>[.<digits>]<suffix>` with a binary (`Ki`..`Ei`), decimal SI (`n`, `u`, `m`, ``, `k`,
 * `M`, `G`, `T`, `P`, `E`) or decimal exponent (`e3`, `E-2`) suffix. Its value is what apimachinery's
 * `ParseQuantity` keeps: the exact number, with a non-zero magnitude rounded **up** to a multiple of 10^-9 (its
 * smallest representable unit) and capped at 2^63 - 1. So every valid quantity has an exact value of the form
 * n / 10^9 or coarser, which this module returns as a fraction of two bigints.
 *
 * Why not the real template validator's conversion: it uses `Quantity.AsInt64()`, which only works for quantities
 * apimachinery keeps in its fast int64 form, and fails for valid ones such as `1.5Gi`: tollgate never reports an error for a valid quantity.
 * Nothing here is generic to KubeVirt; the module is self-contained so it can move to lib/objects if another family
 * needs it.
 */

/** An exact rational value: `num / den`, `den > 0`. */
export interface Rational {
  readonly num: bigint;
  readonly den: bigint;
}

/** A quantity that does not parse, with apimachinery's reason. */
export interface QuantityError {
  readonly error: string;
}

/** Longest quantity text accepted (apimachinery has no limit; ours keeps the arithmetic cheap). */
export const MAX_QUANTITY_LENGTH = 256;

const NANO = 10n ** 9n;
const MAX_ALLOWED = 2n ** 63n - 1n;

const DECIMAL_SI: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  "": 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SI: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

// apimachinery's messages (resource.ErrFormatWrong, ErrSuffix, ErrNumeric).
const FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX = "unable to parse quantity's suffix";

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/**
 * Parses a quantity as `ParseQuantity(strings.TrimSpace(text))` does when a quantity is decoded from JSON. A JSON
 * number is accepted too (apimachinery reads its literal text).
 */
export function parseQuantity(value: string | number | bigint): Rational | QuantityError {
  let text: string;
  if (typeof value === "bigint") text = value.toString();
  else if (typeof value === "number") {
    if (!Number.isFinite(value)) return { error: FORMAT_WRONG };
    text = String(value);
  } else text = value.trim();
  if (text.length === 0) return { error: FORMAT_WRONG };
  if (text.length > MAX_QUANTITY_LENGTH) return { error: `quantity longer than ${MAX_QUANTITY_LENGTH} characters` };

  // parseQuantityString: sign, numerator (leading zeros dropped), optional denominator, suffix.
  let pos = 0;
  let positive = true;
  if (text[0] === "-") {
    positive = false;
    pos++;
  } else if (text[0] === "+") pos++;
  while (text[pos] === "0") pos++;
  if (pos >= text.length) return { num: 0n, den: 1n };
  let start = pos;
  while (isDigit(text[pos])) pos++;
  const num = text.slice(start, pos) || "0";
  let denom = "";
  if (text[pos] === ".") {
    pos++;
    start = pos;
    while (isDigit(text[pos])) pos++;
    denom = text.slice(start, pos);
  }
  const suffixStart = pos;
  while (pos < text.length && "eEinumkKMGTP".includes(text[pos]!)) pos++;
  if (text[pos] === "-" || text[pos] === "+") pos++;
  while (isDigit(text[pos])) pos++;
  if (pos < text.length) return { error: FORMAT_WRONG };
  const suffix = text.slice(suffixStart);

  // suffixHandler.interpret: decimal SI, binary SI, then a decimal exponent.
  let base10Exponent = 0;
  let base2Exponent = 0;
  const dec = DECIMAL_SI[suffix];
  const bin = BINARY_SI[suffix];
  if (dec !== undefined) base10Exponent = dec;
  else if (bin !== undefined) base2Exponent = bin;
  else if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E")) {
    const exp = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(exp)) return { error: SUFFIX };
    // Beyond ±400 the value is capped or rounded to 1e-9 whatever the digits (at most 256 of them).
    const e = Number(exp);
    base10Exponent = Math.max(-400, Math.min(400, e));
  } else return { error: SUFFIX };

  // value = (num.denom) × 10^base10Exponent × 2^base2Exponent
  let n = BigInt(num + denom) * 2n ** BigInt(base2Exponent);
  let d = 10n ** BigInt(denom.length);
  if (base10Exponent >= 0) n *= 10n ** BigInt(base10Exponent);
  else d *= 10n ** BigInt(-base10Exponent);

  // Round a non-zero magnitude up to a multiple of 1e-9, then cap at 2^63 - 1.
  if (n !== 0n) {
    const scaled = n * NANO;
    let nanos = scaled / d;
    if (nanos * d !== scaled) nanos += 1n;
    n = nanos;
    d = NANO;
    if (n > MAX_ALLOWED * NANO) n = MAX_ALLOWED * NANO;
  }
  return normalize(positive ? n : -n, d);
}

/** Whether `parseQuantity` refused the text. */
export function isQuantityError(v: Rational | QuantityError): v is QuantityError {
  return "error" in v;
}

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** The fraction in lowest terms. */
export function normalize(num: bigint, den: bigint): Rational {
  if (num === 0n) return { num: 0n, den: 1n };
  const g = gcd(num, den);
  return { num: num / g, den: den / g };
}

/** An integer as a Rational. */
export function integer(n: bigint): Rational {
  return { num: n, den: 1n };
}

/** -1, 0 or 1 as `a` is below, equal to or above `b`. */
export function compare(a: Rational, b: Rational): number {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** Decimal text of a rational: an integer, or an exact decimal fraction (quantities are decimal fractions). */
export function rationalText(r: Rational): string {
  if (r.den === 1n) return r.num.toString();
  let digits = 1;
  while (10n ** BigInt(digits) % r.den !== 0n) {
    if (digits >= 64) return `${r.num}/${r.den}`;
    digits++;
  }
  const num = r.num * (10n ** BigInt(digits) / r.den);
  const neg = num < 0n;
  const abs = (neg ? -num : num).toString().padStart(digits + 1, "0");
  const text = `${abs.slice(0, abs.length - digits)}.${abs.slice(abs.length - digits)}`.replace(/0+$/, "");
  return neg ? `-${text}` : text;
}
