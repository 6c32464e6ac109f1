/**
 * Cost and size ranges (cel-go `checker.CostEstimate` / `SizeEstimate`) and their arithmetic. Costs are float64
 * numbers saturating at 2^64 (Go's `math.MaxUint64` as a float): exact below 2^53, which covers every value near
 * the limits.
 */

/** A cost or size range (cel-go CostEstimate / SizeEstimate). */
export interface CostEstimate {
  min: number;
  max: number;
}

export type Range = CostEstimate;

/** Go's math.MaxUint64 as a float64. */
export const U64 = 2 ** 64;
/** cel-go common.StringTraversalCostFactor. */
export const STRING_TRAVERSAL = 0.1;
/** cel-go common.RegexStringLengthCostFactor. */
export const REGEX_LENGTH = 0.25;

export const ZERO: Range = { min: 0, max: 0 };
export const ONE: Range = { min: 1, max: 1 };
export const UNKNOWN: Range = { min: 0, max: U64 };

/** Saturating addition. */
export function addU(a: number, b: number): number {
  const s = a + b;
  return s >= U64 ? U64 : s;
}

/** Saturating multiplication. */
export function mulU(a: number, b: number): number {
  if (a === 0 || b === 0) return 0;
  const p = a * b;
  return p >= U64 ? U64 : p;
}

/** cel-go multiplyByCostFactor: the product rounded up, saturating. */
function factorU(x: number, f: number): number {
  if (x > 0 && f > 0 && x > U64 / f) return U64;
  const c = Math.ceil(x * f);
  return c >= U64 ? U64 : c;
}

export function add(a: Range, b: Range): Range {
  return { min: addU(a.min, b.min), max: addU(a.max, b.max) };
}

export function mul(a: Range, b: Range): Range {
  return { min: mulU(a.min, b.min), max: mulU(a.max, b.max) };
}

export function byFactor(a: Range, f: number): Range {
  return { min: factorU(a.min, f), max: factorU(a.max, f) };
}

export function union(a: Range, b: Range): Range {
  return { min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) };
}

export function fixed(n: number): Range {
  return { min: n, max: n };
}
