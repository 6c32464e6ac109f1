/**
 * The Kubernetes CEL lists library, version 0 (k8s.io/apiserver/pkg/cel/library/lists.go):
 * `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`, and cel-go's lists extension
 * (cel-go v0.26 ext/lists.go: `slice`, `flatten`, `sort`, `sortBy`, `distinct`, `reverse`,
 * `lists.range`), over plain arrays. The element comparison and equality are parameters, so the
 * adapter passes the CEL semantics of the element type; comparators for the CEL primitive types
 * are exported here.
 *
 * Go details reproduced:
 *
 * - A comparison that fails (cel-go's `NaN values cannot be ordered`) is not an error here: the
 *   Go code only looks for a result of exactly 1 or -1, so `isSorted` treats an unorderable pair
 *   as in order and `min`/`max` keep their current candidate.
 * - `min`/`max` keep the first of equal elements; on an empty list they fail with
 *   `min called on empty list` / `max called on empty list`.
 * - `sum` starts from the type's zero (`[].sum() == 0`) and reports cel-go's overflow errors
 *   (`integer overflow`, `unsigned integer overflow`).
 * - `indexOf` / `lastIndexOf` use CEL equality and return -1 when absent.
 */

import { toGoBytes } from "../../go/bytes.js";
import { sortSlice } from "../../go/sort.js";
import { LibraryError } from "./error.js";

/**
 * A cel-go `Compare`: negative, zero or positive, or `undefined` when the two values cannot be
 * ordered (a NaN double).
 */
export type Compare<T> = (a: T, b: T) => number | undefined;

/** CEL `list.isSorted()`: no adjacent pair compares as greater. */
export function isSorted<T>(list: readonly T[], compare: Compare<T>): boolean {
  for (let i = 1; i < list.length; i++) {
    const c = compare(list[i - 1]!, list[i]!);
    if (c !== undefined && c > 0) return false;
  }
  return true;
}

function extreme<T>(list: readonly T[], compare: Compare<T>, op: "min" | "max"): T {
  if (list.length === 0) throw new LibraryError(`${op} called on empty list`);
  let result = list[0]!;
  for (let i = 1; i < list.length; i++) {
    const c = compare(result, list[i]!);
    if (c === undefined) continue;
    if (op === "min" ? c > 0 : c < 0) result = list[i]!;
  }
  return result;
}

/** CEL `list.min()`; throws `min called on empty list`. */
export function listMin<T>(list: readonly T[], compare: Compare<T>): T {
  return extreme(list, compare, "min");
}

/** CEL `list.max()`; throws `max called on empty list`. */
export function listMax<T>(list: readonly T[], compare: Compare<T>): T {
  return extreme(list, compare, "max");
}

/** CEL `list.sum()` with the element type's zero and addition (which may throw). */
export function listSum<T>(list: readonly T[], zero: T, add: (a: T, b: T) => T): T {
  let acc = zero;
  for (const x of list) acc = add(acc, x);
  return acc;
}

/** CEL `list.indexOf(x)`: the first index whose element equals `x`, or -1. */
export function listIndexOf<T>(list: readonly T[], item: T, equals: (a: T, b: T) => boolean): bigint {
  for (let i = 0; i < list.length; i++) if (equals(list[i]!, item)) return BigInt(i);
  return -1n;
}

/** CEL `list.lastIndexOf(x)`: the last index whose element equals `x`, or -1. */
export function listLastIndexOf<T>(list: readonly T[], item: T, equals: (a: T, b: T) => boolean): bigint {
  for (let i = list.length - 1; i >= 0; i--) if (equals(list[i]!, item)) return BigInt(i);
  return -1n;
}

// ---------------------------------------------------------------------------------------------
// cel-go's lists extension
// ---------------------------------------------------------------------------------------------

/** `list.slice(start, end)`: the elements from start up to end, with cel-go's error texts. */
export function listSlice<T>(list: readonly T[], start: bigint, end: bigint): T[] {
  if (start < 0n || end < 0n) throw new LibraryError(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end) {
    throw new LibraryError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  }
  if (BigInt(list.length) < end)
    throw new LibraryError(`cannot slice(${start}, ${end}), list is length ${list.length}`);
  return list.slice(Number(start), Number(end));
}

/**
 * `list.flatten()` (depth 1) and `list.flatten(depth)`: nested lists down to `depth` levels are spliced into the
 * result; other elements are kept. A negative depth fails with `level must be non-negative`.
 */
export function listFlatten(list: readonly unknown[], depth: bigint): unknown[] {
  if (depth < 0n) throw new LibraryError("level must be non-negative");
  const out: unknown[] = [];
  for (const x of list) {
    if (Array.isArray(x) && depth > 0n) out.push(...listFlatten(x, depth - 1n));
    else out.push(x);
  }
  return out;
}

/** `lists.range(n)`: 0 to n-1 (cel-go v0.26: no elements for n <= 0). */
export function listRange(n: bigint): bigint[] {
  const out: bigint[] = [];
  for (let i = 0n; i < n; i++) out.push(i);
  return out;
}

/** `list.reverse()`. */
export function listReverse<T>(list: readonly T[]): T[] {
  return [...list].reverse();
}

/** `list.distinct()`: the first of each group of equal elements, in order. */
export function listDistinct<T>(list: readonly T[], equals: (a: T, b: T) => boolean): T[] {
  const out: T[] = [];
  for (const x of list) if (!out.some((y) => equals(x, y))) out.push(x);
  return out;
}

/** How the sort functions see the keys: their order, their runtime type and whether they can be ordered at all. */
export interface KeyOrdering<K> {
  readonly compare: Compare<K>;
  readonly typeName: (k: K) => string;
  readonly comparable: (k: K) => boolean;
}

/**
 * cel-go `sortListByAssociatedKeys`, behind `list.sort()` (the keys are the list) and `list.sortBy(e, key)` (the
 * keys are the key expression's values): the list ordered by its keys with Go's `sort.Slice`, which is not stable,
 * so equal keys leave their elements in the order Go leaves them. A key whose type differs from the first key's
 * fails the sort once compared (`list elements must have the same type`); a first key that cannot be ordered fails
 * it (`list elements must be comparable`); a comparison that fails (NaN) answers "not less".
 */
export function sortByKeys<T, K>(list: readonly T[], keys: readonly K[], ordering: KeyOrdering<K>): T[] {
  if (list.length !== keys.length) {
    throw new LibraryError(
      `@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.length} and ${keys.length} elements respectively`,
    );
  }
  if (list.length === 0) return [...list];
  const first = keys[0]!;
  if (!ordering.comparable(first)) throw new LibraryError("list elements must be comparable");
  const firstType = ordering.typeName(first);
  const indices = keys.map((_, i) => i);
  let failed = false;
  sortSlice(indices, (i, j) => {
    const a = keys[i]!;
    const b = keys[j]!;
    if (ordering.typeName(a) !== firstType || ordering.typeName(b) !== firstType) {
      failed = true;
      return false;
    }
    return ordering.compare(a, b) === -1;
  });
  if (failed) throw new LibraryError("list elements must have the same type");
  return indices.map((i) => list[i]!);
}

// ---------------------------------------------------------------------------------------------
// CEL primitive comparisons and sums
// ---------------------------------------------------------------------------------------------

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

/** `int` / `uint` (bigint) ordering. */
export function compareBigint(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `double` ordering; `undefined` when either is NaN. */
export function compareDouble(a: number, b: number): number | undefined {
  if (Number.isNaN(a) || Number.isNaN(b)) return undefined;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `bool` ordering: `false < true`. */
export function compareBool(a: boolean, b: boolean): number {
  return a === b ? 0 : a ? 1 : -1;
}

/** `string` ordering: Go compares the UTF-8 bytes, which differs from UTF-16 order above U+FFFF. */
export function compareString(a: string, b: string): number {
  if (a === b) return 0;
  const x = toGoBytes(a);
  const y = toGoBytes(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `bytes` ordering: lexicographic by byte. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** cel-go `int + int` with its overflow error. */
export function addInt(a: bigint, b: bigint): bigint {
  const s = a + b;
  if (s < INT64_MIN || s > INT64_MAX) throw new LibraryError("integer overflow");
  return s;
}

/** cel-go `uint + uint` with its overflow error. */
export function addUint(a: bigint, b: bigint): bigint {
  const s = a + b;
  if (s > UINT64_MAX) throw new LibraryError("unsigned integer overflow");
  return s;
}

/** cel-go `duration + duration` on nanoseconds (int64), with its overflow error. */
export const addDurationNanos = addInt;

/** `double + double`. */
export function addDouble(a: number, b: number): number {
  return a + b;
}
