/**
 * The sizes of CEL values at run time, as cel-go's runtime cost tracker measures them (interpreter/runtimecost.go
 * `actualSize`: the `Size()` of strings in code points, bytes, lists, maps and Kubernetes objects; an optional's
 * value; 1 for everything else), and Kubernetes' `traversalCost` (apiserver pkg/cel/library/cost.go). Computing a
 * size never costs more than the charge it decides: strings are scanned only as far as needed.
 */
import { Optional } from "../engine.js";
import { RAW, StructValue } from "../schema-types.js";
import { STRING_TRAVERSAL } from "./range.js";

const SURROGATE = /[\uD800-\uDFFF]/;
/** Strings up to this length are scanned by a loop for surrogates. */
const SHORT_STRING = 12;

/** The number of code points of a string (Go's `utf8.RuneCountInString` of the same text; a lone surrogate is one). */
export function runeCount(s: string): number {
  const n = s.length;
  if (n < 2) return n;
  if (n <= SHORT_STRING) {
    // A loop over a short string costs less than starting the regular expression.
    let i = 0;
    while (i < n && (s.charCodeAt(i) & 0xf800) !== 0xd800) i++;
    if (i === n) return n;
    return countPairs(s);
  }
  // The last long string counted (up to a bound, not to keep a large value alive): a rule's regular expression is
  // sized on each evaluation, the same string.
  if (s === lastLong) return lastLongCount;
  const count = SURROGATE.test(s) ? countPairs(s) : n;
  if (n <= MAX_REMEMBERED) {
    lastLong = s;
    lastLongCount = count;
  }
  return count;
}

const MAX_REMEMBERED = 4096;

let lastLong = "";
let lastLongCount = 0;

/** The code points of a string with surrogates: its length less its surrogate pairs. */
function countPairs(s: string): number {
  const n = s.length;
  let pairs = 0;
  for (let i = 0; i < n - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return n - pairs;
}

/** cel-go `actualSize`: the size of a sized value (string, bytes, list, map, object, present optional), else 1. */
export function actualSize(v: unknown): number {
  if (typeof v === "string") return runeCount(v);
  if (typeof v !== "object" || v === null) return 1;
  if (Array.isArray(v)) return v.length;
  if (v instanceof Uint8Array) return v.length;
  if (v instanceof StructValue) return Object.keys(v[RAW]).length;
  if (v instanceof Map) return v.size;
  if (v instanceof Optional) return v.hasValue() ? actualSize(v.value()) : 1;
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) return Object.keys(v).length;
  return 1;
}

/** `ceil(size × factor)` as Go computes it on float64 (cel-go's runtime charges of string traversals). */
export function ceilFactor(size: number, factor: number): number {
  return Math.ceil(size * factor);
}

/** `ceil(size(s) × 0.1)` of a string without counting code points when its length decides the answer. */
export function stringTraversal(s: string): number {
  const n = s.length;
  if (n === 0) return 0;
  if (n <= 10) return 1;
  return Math.ceil(runeCount(s) * STRING_TRAVERSAL);
}

/** `ceil(size(v) × 0.1)` (cel-go's traversal charge of a sized value): a string counted only when its length decides. */
export function sizeTraversal(v: unknown): number {
  return typeof v === "string" ? stringTraversal(v) : ceilFactor(actualSize(v), STRING_TRAVERSAL);
}

/** `ceil((size(a) + size(b)) × 0.1)` (cel-go's charge of a concatenation), counting strings only when needed. */
export function concatenationTraversal(a: unknown, b: unknown): number {
  if (typeof a === "string" && typeof b === "string") {
    const n = a.length + b.length;
    if (n === 0) return 0;
    // At most 10 code points: the charge is 1 without counting them.
    if (n <= 10) return 1;
  }
  return ceilFactor(actualSize(a) + actualSize(b), STRING_TRAVERSAL);
}

/** cel-go's charge of a size-based comparison: `ceil(min(size(a), size(b)) × 0.1)`. */
export function comparisonCharge(a: unknown, b: unknown): number {
  if (typeof a === "string" && typeof b === "string") {
    // A string of at most 10 code units has at most 10 code points: the charge is 1, or 0 for an empty one.
    if (a.length <= 10 || b.length <= 10) return a.length === 0 || b.length === 0 ? 0 : 1;
    // Count the shorter string first: the longer one needs counting only when it may have fewer code points.
    const [short, long] = a.length <= b.length ? [a, b] : [b, a];
    const s = runeCount(short);
    // The longer string has at least half its length in code points; count it only when that may be fewer than s
    // (then it is shorter than 2 × s, so counting it costs no more than counting the shorter one).
    if (long.length >= 2 * s) return Math.ceil(s * STRING_TRAVERSAL);
    return Math.ceil(Math.min(s, runeCount(long)) * STRING_TRAVERSAL);
  }
  return Math.ceil(Math.min(actualSize(a), actualSize(b)) * STRING_TRAVERSAL);
}

/** UTF-8 length of a string (Go's `len` of the same text; a lone surrogate is U+FFFD, three bytes). */
function utf8Length(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/**
 * Kubernetes' `traversalCost`: strings and bytes cost a tenth of their length (in bytes, rounded down), lists the
 * sum of their elements', maps and objects the sum of their keys' and values', anything else 1.
 */
export function traversalCost(v: unknown): number {
  if (typeof v === "string") return Math.floor(utf8Length(v) * STRING_TRAVERSAL);
  if (typeof v !== "object" || v === null) return 1;
  if (v instanceof Uint8Array) return Math.floor(v.length * STRING_TRAVERSAL);
  if (Array.isArray(v)) {
    let sum = 0;
    for (const x of v) sum += traversalCost(x);
    return sum;
  }
  if (v instanceof StructValue) return traverseEntries(Object.entries(v[RAW]));
  if (v instanceof Map) return traverseEntries(v.entries());
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) return traverseEntries(Object.entries(v));
  return 1;
}

function traverseEntries(entries: Iterable<[unknown, unknown]>): number {
  let sum = 0;
  for (const [k, x] of entries) sum += traversalCost(k) + traversalCost(x);
  return sum;
}
