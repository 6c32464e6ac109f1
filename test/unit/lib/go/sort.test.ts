/**
 * Go's sort.Slice (lib/go/sort.ts): a pattern-defeating quicksort. Whatever the input, the result is the input's
 * elements in order; lists of at most 12 elements are insertion-sorted (equal elements keep their order), longer
 * ones go through the pivot, partition, pattern-breaking and heapsort paths.
 */
import { describe, expect, it } from "vitest";
import { sortSlice } from "../../../../lib/go/sort.js";

/** A deterministic pseudo-random sequence (not Go's: only to make inputs). */
function numbers(n: number, seed: number, range: number): number[] {
  let s = seed;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out.push(s % range);
  }
  return out;
}

interface Item {
  key: number;
  at: number;
}

function sortedItems(keys: readonly number[]): Item[] {
  const items = keys.map((key, at) => ({ key, at }));
  sortSlice(items, (a, b) => a.key < b.key);
  return items;
}

describe("sortSlice", () => {
  const shapes: Record<string, (n: number) => number[]> = {
    random: (n) => numbers(n, n, 1000),
    "few distinct keys": (n) => numbers(n, n + 7, 3),
    ascending: (n) => Array.from({ length: n }, (_, i) => i),
    descending: (n) => Array.from({ length: n }, (_, i) => n - i),
    "all equal": (n) => Array.from({ length: n }, () => 5),
    "organ pipe": (n) => Array.from({ length: n }, (_, i) => Math.min(i, n - i)),
    "ascending with a few swaps": (n) => {
      const a = Array.from({ length: n }, (_, i) => i);
      for (const i of [3, n - 5, Math.trunc(n / 2)]) {
        if (i >= 0 && i + 1 < n) [a[i], a[i + 1]] = [a[i + 1]!, a[i]!];
      }
      return a;
    },
    sawtooth: (n) => Array.from({ length: n }, (_, i) => i % 17),
  };
  for (const [shape, make] of Object.entries(shapes)) {
    it.each([0, 1, 2, 12, 13, 49, 50, 51, 200, 1000, 5000])(`${shape}, %i elements: sorted, same elements`, (n) => {
      const keys = make(n);
      const items = sortedItems(keys);
      for (let i = 1; i < items.length; i++) expect(items[i - 1]!.key <= items[i]!.key).toBe(true);
      expect(items.map((x) => x.at).sort((a, b) => a - b)).toEqual(keys.map((_, i) => i));
    });
  }

  it("keeps equal elements in their order up to 12 elements (insertion sort)", () => {
    const items = sortedItems([2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1]);
    expect(items.map((x) => x.at)).toEqual([1, 3, 5, 7, 9, 11, 0, 2, 4, 6, 8, 10]);
  });

  it("is not stable above 12 elements, as Go's is not", () => {
    // the order among equal keys is whatever the partitions leave; it differs from the input order here
    const keys = Array.from({ length: 40 }, (_, i) => i % 2);
    const items = sortedItems(keys);
    const zeros = items.filter((x) => x.key === 0).map((x) => x.at);
    expect(zeros).not.toEqual([...zeros].sort((a, b) => a - b));
  });

  it("answers with a less that is not a strict order (NaN) without failing", () => {
    const values = [3, Number.NaN, 1, 2, Number.NaN, 0, ...numbers(30, 1, 10)];
    sortSlice(values, (a, b) => a < b);
    expect(values).toHaveLength(36);
  });
});
