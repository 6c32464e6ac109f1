/**
 * The Kubernetes lists library and cel-go's lists extension as expressions run them (lib/cel/libraries/lists.ts):
 * cel-go's ordering of every comparable type (uint, bytes, timestamps to the nanosecond, NaN), sums of every
 * summable type with overflow errors, the extension's error texts, flatten's typing, and the sortBy macro.
 */
import { describe, expect, it } from "vitest";
import { runCel } from "../../../helpers/cel-run.js";

const run = runCel;

describe("Kubernetes lists library", () => {
  it.each([
    { expr: "[1u, 18446744073709551615u, 2u].max() == 18446744073709551615u", want: true },
    { expr: "[9007199254740993u, 9007199254740992u].min() == 9007199254740992u", want: true },
    { expr: "[b'b', b'a', b'\\xff'].max() == b'\\xff'", want: true },
    { expr: "['\\uffff', '\\U0001F600'].isSorted()", want: true },
    {
      expr: "[timestamp('2020-01-01T00:00:00.000000002Z'), timestamp('2020-01-01T00:00:00.000000001Z')].isSorted()",
      want: false,
    },
    { expr: "[duration('1ns'), duration('2ns')].max() == duration('2ns')", want: true },
    { expr: "[1.0, 0.0/0.0, 0.5].isSorted()", want: true },
    { expr: "[1u, 2u].sum() == 3u", want: true },
    { expr: "[duration('1s'), duration('500ms')].sum() == duration('1.5s')", want: true },
    { expr: "[9223372036854775807, 1].sum()", want: "error: integer overflow" },
    { expr: "[18446744073709551615u, 1u].sum()", want: "error: unsigned integer overflow" },
    { expr: "[duration('2562047h'), duration('2562047h')].sum()", want: "error: integer overflow" },
    { expr: "[].max()", want: "error: max called on empty list" },
  ])("$expr", ({ expr, want }) => {
    expect(run(expr)).toEqual(want);
  });
});

describe("lists extension", () => {
  it.each([
    {
      expr: "[1, 2, 3].slice(2, 1)",
      want: "error: cannot slice(2, 1), start index must be less than or equal to end index",
    },
    { expr: "[1, 2, 3].slice(0, 4)", want: "error: cannot slice(0, 4), list is length 3" },
    { expr: "[[1], [2, 3]].flatten()", want: [1n, 2n, 3n] },
    { expr: "[b'b', b'a'].sort() == [b'a', b'b']", want: true },
    { expr: "['b', '\\U0001F600', '\\uffff'].sort() == ['b', '\\uffff', '\\U0001F600']", want: true },
    { expr: "[3u, 1u].sort() == [1u, 3u]", want: true },
    { expr: "['a', 'b', 'a'].distinct()", want: ["a", "b"] },
    { expr: "[1, 2, 3].reverse()", want: [3n, 2n, 1n] },
    { expr: "lists.range(0)", want: [] },
  ])("$expr", ({ expr, want }) => {
    expect(run(expr)).toEqual(want);
  });

  it("flattens a dyn list to a depth, and refuses a negative one", () => {
    expect(run("x.flatten(2)", [1n, [2n, [3n, [4n]]]])).toEqual([1n, 2n, 3n, [4n]]);
    expect(run("x.flatten(-1)", [1n, [2n]])).toBe("error: level must be non-negative");
  });

  it("flattens a dyn list whose elements are not all lists, keeping the others (cel-go's type guards are off)", () => {
    expect(run("x.flatten()", [1n, [2n, [3n]]])).toEqual([1n, 2n, [3n]]);
    expect(run("x.flatten()", ["a", "b"])).toEqual(["a", "b"]);
    expect(run("dyn([1, 2]).flatten() == [1, 2]")).toBe(true);
    expect(run("x.flatten()", "abc")).toBe("error: no such overload: string.flatten()");
    expect(run("x.flatten(1)", { a: 1n })).toBe("error: no such overload: map.flatten(int)");
  });

  it("sorts a dyn list of mixed types with cel-go's error", () => {
    expect(run("x.sort()", [3n, "a", 1n])).toBe("error: list elements must have the same type");
  });

  it("refuses flatten() on a list whose elements are not lists, as cel-go's checker does", () => {
    expect(run("[1, 2].flatten()")).toMatch(/^compile: /);
  });
});

describe("sortBy", () => {
  it.each([
    { expr: "['bb', 'a', 'ccc'].sortBy(s, size(s))", want: ["a", "bb", "ccc"] },
    { expr: "[3, 1, 2].sortBy(i, -i)", want: [3n, 2n, 1n] },
    { expr: "['b', 'a', 'd', 'c'].sortBy(s, s == 'a' || s == 'c')", want: ["b", "d", "a", "c"] },
    { expr: "[[2, 0], [1, 9]].sortBy(p, p[0]).map(p, p[1])", want: [9n, 0n] },
    { expr: "[].sortBy(e, e)", want: [] },
  ])("$expr", ({ expr, want }) => {
    expect(run(expr)).toEqual(want);
  });

  it("sorts by keys of mixed types with cel-go's error", () => {
    expect(run("x.sortBy(v, v)", [1n, "a"])).toBe("error: list elements must have the same type");
  });

  it("refuses what cel-go's macro refuses: a map receiver, a binding that is not a name", () => {
    expect(run("{'a': 1}.sortBy(k, k)")).toMatch(/^compile: /);
    expect(run("[1, 2].sortBy(1, 2)")).toMatch(/^compile: /);
  });
});
