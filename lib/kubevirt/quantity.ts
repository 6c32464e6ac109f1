/**
 * Quantity values as KubeVirt's rules compare them: exact rationals. A quantity's value is what apimachinery's
 * `ParseQuantity` keeps (lib/objects/quantity.ts, Go-exact: a non-zero magnitude rounded **up** to a multiple of
 * 10^-9, binary-SI values capped at 2^63 - 1), read as it is decoded from JSON (`strings.TrimSpace`, a JSON number
 * by its literal text).
 *
 * Why not the real template validator's conversion: it uses `Quantity.AsInt64()`, which only works for quantities
 * apimachinery keeps in its fast int64 form, and fails for valid ones such as `1.5Gi`: tollgate never reports an
 * error for a valid quantity.
 */
import { QuantityError as GoQuantityError, parseQuantity as parseGoQuantity } from "../objects/quantity.js";

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

/**
 * Parses a quantity as `ParseQuantity(strings.TrimSpace(text))` does when a quantity is decoded from JSON. A JSON
 * number is accepted too (apimachinery reads its literal text).
 */
export function parseQuantity(value: string | number | bigint): Rational | QuantityError {
  let text: string;
  if (typeof value === "bigint") text = value.toString();
  else if (typeof value === "number") text = Number.isFinite(value) ? String(value) : "";
  else text = value.trim();
  if (text.length > MAX_QUANTITY_LENGTH) return { error: `quantity longer than ${MAX_QUANTITY_LENGTH} characters` };
  try {
    const { num, den } = parseGoQuantity(text).exactValue();
    return normalize(num, den);
  } catch (e) {
    if (e instanceof GoQuantityError) return { error: e.message };
    throw e;
  }
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
