import { describe, expect, it } from "vitest";
import { LibraryError } from "../../../../../lib/cel/implementations/error.js";
import {
  addDouble,
  addInt,
  addUint,
  compareBigint,
  compareBool,
  compareBytes,
  compareDouble,
  compareString,
  isSorted,
  type KeyOrdering,
  listDistinct,
  listFlatten,
  listIndexOf,
  listLastIndexOf,
  listMax,
  listMin,
  listRange,
  listReverse,
  listSlice,
  listSum,
  sortByKeys,
} from "../../../../../lib/cel/implementations/lists.js";

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof LibraryError) return e.message;
    throw e;
  }
  throw new Error("expected a LibraryError");
}

describe("isSorted", () => {
  it.each([
    { name: "ints", list: [1n, 2n, 3n], want: true },
    { name: "ints unsorted", list: [1n, 3n, 2n], want: false },
    { name: "equal neighbours", list: [1n, 1n, 2n], want: true },
    { name: "empty", list: [], want: true },
  ])("$name", ({ list, want }) => {
    expect(isSorted(list, compareBigint)).toBe(want);
  });

  it.each([
    { name: "lexicographic (doc example)", list: ["v1", "v10", "v2"], want: true },
    { name: "unsorted strings", list: ["b", "a"], want: false },
    { name: "UTF-8 byte order", list: ["\uff61", "😀"], want: true },
  ])("$name", ({ list, want }) => {
    expect(isSorted(list, compareString)).toBe(want);
  });

  it.each([
    { name: "doubles", list: [1.5, 2.5], want: true },
    { name: "NaN pairs count as ordered", list: [3, Number.NaN, 1], want: true },
    { name: "descending doubles", list: [2, 1], want: false },
  ])("$name", ({ list, want }) => {
    expect(isSorted(list, compareDouble)).toBe(want);
  });

  it("bools and bytes", () => {
    expect(isSorted([false, true, true], compareBool)).toBe(true);
    expect(isSorted([true, false], compareBool)).toBe(false);
    expect(isSorted([new Uint8Array([1]), new Uint8Array([1, 0]), new Uint8Array([2])], compareBytes)).toBe(true);
  });
});

describe("min / max", () => {
  it.each([
    { list: [3n, 1n, 2n], min: 1n, max: 3n },
    { list: [5n], min: 5n, max: 5n },
    { list: [-1n, -1n], min: -1n, max: -1n },
  ])("$list", ({ list, min, max }) => {
    expect(listMin(list, compareBigint)).toBe(min);
    expect(listMax(list, compareBigint)).toBe(max);
  });

  it("keeps the current candidate when a NaN is involved", () => {
    expect(listMin([Number.NaN, 1], compareDouble)).toBeNaN();
    expect(listMin([1, Number.NaN, 0.5], compareDouble)).toBe(0.5);
    expect(listMax([1, Number.NaN], compareDouble)).toBe(1);
  });

  it.each([
    { op: "min", fn: () => listMin([], compareBigint), error: "min called on empty list" },
    { op: "max", fn: () => listMax([], compareBigint), error: "max called on empty list" },
  ])("$op on an empty list", ({ fn, error }) => {
    expect(errorOf(fn)).toBe(error);
  });
});

describe("sum", () => {
  it.each([
    { name: "ints", got: () => listSum([1n, 2n, 3n], 0n, addInt), want: 6n },
    { name: "empty ints", got: () => listSum([], 0n, addInt), want: 0n },
    { name: "uints", got: () => listSum([1n, 2n], 0n, addUint), want: 3n },
  ])("$name", ({ got, want }) => {
    expect(got()).toBe(want);
  });

  it("doubles", () => {
    expect(listSum([0.5, 1.25], 0, addDouble)).toBe(1.75);
    expect(listSum([], 0, addDouble)).toBe(0);
  });

  it.each([
    { name: "int overflow", fn: () => listSum([9223372036854775807n, 1n], 0n, addInt), error: "integer overflow" },
    {
      name: "int underflow",
      fn: () => listSum([-9223372036854775808n, -1n], 0n, addInt),
      error: "integer overflow",
    },
    {
      name: "uint overflow",
      fn: () => listSum([18446744073709551615n, 1n], 0n, addUint),
      error: "unsigned integer overflow",
    },
  ])("$name", ({ fn, error }) => {
    expect(errorOf(fn)).toBe(error);
  });
});

describe("indexOf / lastIndexOf (doc examples)", () => {
  const eq = (a: unknown, b: unknown): boolean => a === b;
  it.each([
    { list: [1n, 2n, 2n, 3n], item: 2n, first: 1n, last: 2n },
    { list: ["a", "b", "b", "c"], item: "b", first: 1n, last: 2n },
    { list: [1.0], item: 1.1, first: -1n, last: -1n },
    { list: [], item: "string", first: -1n, last: -1n },
  ])("$list / $item", ({ list, item, first, last }) => {
    expect(listIndexOf<unknown>(list, item, eq)).toBe(first);
    expect(listLastIndexOf<unknown>(list, item, eq)).toBe(last);
  });
});

describe("lists extension: slice, flatten, range, reverse, distinct (cel-go ext/lists.go)", () => {
  it("slices and refuses bad bounds with cel-go's texts", () => {
    expect(listSlice([1n, 2n, 3n, 4n], 1n, 3n)).toEqual([2n, 3n]);
    expect(listSlice([1n, 2n], 2n, 2n)).toEqual([]);
    expect(errorOf(() => listSlice([1n], -1n, 1n))).toBe("cannot slice(-1, 1), negative indexes not supported");
    expect(errorOf(() => listSlice([1n, 2n, 3n], 2n, 1n))).toBe(
      "cannot slice(2, 1), start index must be less than or equal to end index",
    );
    expect(errorOf(() => listSlice([1n, 2n], 0n, 3n))).toBe("cannot slice(0, 3), list is length 2");
  });

  it("flattens to the given depth and refuses a negative one", () => {
    const nested = [1n, [2n, [3n, [4n]]]];
    expect(listFlatten(nested, 1n)).toEqual([1n, 2n, [3n, [4n]]]);
    expect(listFlatten(nested, 2n)).toEqual([1n, 2n, 3n, [4n]]);
    expect(listFlatten(nested, 0n)).toEqual(nested);
    expect(listFlatten([1n, 2n, [], [], [3n, 4n]], 1n)).toEqual([1n, 2n, 3n, 4n]);
    expect(errorOf(() => listFlatten(nested, -1n))).toBe("level must be non-negative");
  });

  it("ranges, reverses and keeps the first of equal elements", () => {
    expect(listRange(4n)).toEqual([0n, 1n, 2n, 3n]);
    expect(listRange(-2n)).toEqual([]);
    expect(listReverse([5n, 3n, 1n, 2n])).toEqual([2n, 1n, 3n, 5n]);
    expect(listDistinct(["b", "b", "c", "a", "c"], (a, b) => a === b)).toEqual(["b", "c", "a"]);
  });
});

describe("sortByKeys (cel-go sortListByAssociatedKeys)", () => {
  const ordering: KeyOrdering<unknown> = {
    compare: (a, b) =>
      typeof a === "bigint" && typeof b === "bigint"
        ? compareBigint(a, b)
        : typeof a === "number" && typeof b === "number"
          ? compareDouble(a, b)
          : typeof a === "string" && typeof b === "string"
            ? compareString(a, b)
            : undefined,
    typeName: (k) => typeof k,
    comparable: (k) => typeof k !== "object",
  };

  it("orders a list by its associated keys", () => {
    expect(sortByKeys(["foo", "bar", "baz"], [3n, 1n, 2n], ordering)).toEqual(["bar", "baz", "foo"]);
    expect(sortByKeys([3n, 1n, 2n], [3n, 1n, 2n], ordering)).toEqual([1n, 2n, 3n]);
    expect(sortByKeys([], [], ordering)).toEqual([]);
  });

  it("keeps equal keys in their order on short lists (Go's insertion sort up to 12 elements)", () => {
    expect(sortByKeys(["a", "b", "c", "d"], [1n, 0n, 1n, 0n], ordering)).toEqual(["b", "d", "a", "c"]);
  });

  it("fails with cel-go's texts on mixed, unorderable or mismatched keys", () => {
    expect(errorOf(() => sortByKeys([1n, "b"], [1n, "b"], ordering))).toBe("list elements must have the same type");
    expect(errorOf(() => sortByKeys([[1n]], [[1n]], ordering))).toBe("list elements must be comparable");
    expect(errorOf(() => sortByKeys([1n, 2n], [1n], ordering))).toBe(
      "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got 2 and 1 elements respectively",
    );
    // one element: nothing is compared, so nothing fails
    expect(sortByKeys(["x"], [["unorderable?"]], { ...ordering, comparable: () => true })).toEqual(["x"]);
  });

  it("orders NaN keys as Go's less does (never less, never greater) without failing", () => {
    expect(sortByKeys([2, Number.NaN, 1], [2, Number.NaN, 1], ordering)).toHaveLength(3);
  });
});
