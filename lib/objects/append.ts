/**
 * Appending one array to another without a spread: `a.push(...b)` passes every element as an argument and
 * overflows the stack from about 120,000 elements (V8), which an object within the request limits reaches.
 */

/** Appends every element of `items` to `target`; returns `target`. */
export function appendAll<T>(target: T[], items: readonly T[]): T[] {
  for (let i = 0; i < items.length; i++) target.push(items[i]!);
  return target;
}

/** The largest of the numbers (`-Infinity` for none), without `Math.max(...values)`. */
export function maxOf(values: Iterable<number>): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) if (v > max) max = v;
  return max;
}

/** The smallest of the numbers (`Infinity` for none), without `Math.min(...values)`. */
export function minOf(values: Iterable<number>): number {
  let min = Number.POSITIVE_INFINITY;
  for (const v of values) if (v < min) min = v;
  return min;
}
