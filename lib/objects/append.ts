/**
 * Appending one array to another without a spread: `a.push(...b)` (like `Math.max(...values)`) passes every element
 * as an argument and overflows the stack from about 120,000 elements (V8), which an object within the request limits
 * reaches.
 */

/** Appends every element of `items` to `target`; returns `target`. */
export function appendAll<T>(target: T[], items: readonly T[]): T[] {
  for (let i = 0; i < items.length; i++) target.push(items[i]!);
  return target;
}
