/**
 * Selection, indexing and comprehension receivers where the engine differs from cel-go (lib/cel/access.ts, and the
 * empty literal receivers of engine.ts parseExpression).
 */
import { describe, expect, it } from "vitest";
import { runCel } from "../../../helpers/cel-run.js";

const run = runCel;

describe("a plain step on a present optional qualifies its value (cel-go Qualify, no presence test)", () => {
  it.each([
    { expr: "{'null_key': dyn(null)}.?null_key.invalid.hasValue()", want: "error: no such key: invalid" },
    { expr: "{true: dyn(0)}[?true].absent.hasValue()", want: "error: no such key: absent" },
    { expr: "{'a': dyn('s')}.?a.b.hasValue()", want: "error: no such key: b" },
    { expr: "x.?a.b.hasValue()", x: { a: 1n }, want: "error: no such key: b" },
    { expr: "x.?a['b'].hasValue()", x: { a: true }, want: "error: no such key: b" },
  ])("$expr fails", ({ expr, x, want }) => {
    expect(run(expr, x)).toBe(want);
  });

  it.each([
    { expr: "{'a': {'b': 1}}.?a.c.hasValue()", want: false },
    { expr: "{'a': dyn({'b': 1})}.?a.b.value()", want: 1n },
    { expr: "{true: dyn(0)}[?false].absent.hasValue()", want: false },
    { expr: "[[1]][?0][3].hasValue()", want: false },
    { expr: "{'a': dyn(null)}.?a.?b.hasValue()", want: false },
    { expr: "x.?a.b.hasValue()", x: { a: new Map() }, want: false },
  ])("$expr is none or the value", ({ expr, x, want }) => {
    expect(run(expr, x)).toBe(want);
  });
});

describe("a list indexed by a uint (cel-go types.IndexOrError)", () => {
  it.each([
    { expr: "[7, 8, 9][dyn(0u)]", want: 7n },
    { expr: "[7, 8, 9][dyn(2u)]", want: 9n },
    { expr: "x[dyn(1u)]", x: ["a", "b"], want: "b" },
    { expr: "[7, 8, 9][dyn(3u)]", want: "error: index out of bounds: 3" },
    { expr: "[7, 8, 9][dyn(1)]", want: 8n },
    { expr: "{1u: 'one'}[dyn(1u)]", want: "one" },
  ])("$expr", ({ expr, x, want }) => {
    expect(run(expr, x)).toBe(want);
  });
});

describe("a comprehension over an empty list or map literal (cel-go binds its element type to dyn)", () => {
  it.each([
    { expr: "[].all(e, e > 0)", want: true },
    { expr: "[].exists(e, e == 'a')", want: false },
    { expr: "[].exists_one(e, e > 0)", want: false },
    { expr: "{}.all(k, k > 0)", want: true },
    { expr: "[].all(i, v, v > 0)", want: true },
    { expr: "[].all(e, e > 0) && [1].all(e, e > 0)", want: true },
  ])("$expr compiles and runs", ({ expr, want }) => {
    expect(run(expr)).toBe(want);
  });

  it("still type-checks the predicate against the rest of the expression", () => {
    expect(run("[].all(e, e > 0) && 1")).toMatch(/^compile: /);
  });
});

describe("a comprehension over a map literal with int, uint or bool keys sees keys of that type (the engine keeps strings)", () => {
  it.each([
    { expr: "{6: 'six', 7: 'seven', 8: 'eight'}.exists_one(foo, foo % 5 == 2)", want: true },
    { expr: "{6: 'six', 7: 'seven', 8: 'eight'}.existsOne(k, v, k % 5 == 2 && v == 'seven')", want: true },
    { expr: "{-1: 'a'}.all(k, k < 0)", want: true },
    { expr: "{1u: 'a'}.all(k, k == 1u)", want: true },
    { expr: "{true: 1}.exists(k, k)", want: true },
    { expr: "{'a': 1}.all(k, k == 'a')", want: true },
    { expr: "{6: 'six'}[6]", want: "six" },
  ])("$expr", ({ expr, want }) => {
    expect(run(expr)).toBe(want);
  });

  it("maps the keys to their type", () => {
    expect(run("{6: 'six', 7: 'seven'}.map(k, k)")).toEqual([6n, 7n]);
  });
});
