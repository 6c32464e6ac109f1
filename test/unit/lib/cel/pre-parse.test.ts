/**
 * What lib/cel/pre-parse.ts rewrites before the engine parses. Optional entries of list and map literals (`[?x]`,
 * `{?k: v}`; cel-go's optional syntax, on in Kubernetes): values, cel-go's compile errors at cel-go's positions,
 * cel-go's runtime errors for dyn values, and the literal's cost (the rewrite costs nothing). Bytes literals with
 * characters beyond ASCII, raw bytes literals, and doubles without a leading zero.
 */
import { describe, expect, it } from "vitest";
import { compileExpression, createCelEnvironment, evaluate, formatIssues } from "../../../../lib/cel/index.js";
import { preParse } from "../../../../lib/cel/pre-parse.js";

const env = createCelEnvironment({ variables: { m: "map<string, int>", d: "dyn" } });
const m = new Map([["a", 1n]]);

/** Runs an expression: its value, `error: <message>`, or `compile: <cel-go's display of the issues>`. */
function run(expr: string, d: unknown = null): unknown {
  const c = compileExpression(env, expr);
  if (c.kind === "failed") return `compile: ${c.reason === "compile" ? formatIssues(expr, c.issues) : c.message}`;
  const r = evaluate(c.program, { m, d }, Number.POSITIVE_INFINITY);
  if (r.kind === "value") return r.value;
  return r.kind === "error" ? `error: ${r.message}` : "cost limit";
}

describe("optional entries of literals: values as cel-go gives them", () => {
  it.each([
    { expr: "[?m.?a, ?m.?b, 3]", want: [1n, 3n] },
    { expr: "[?optional.of(1), 2, ?optional.none()]", want: [1n, 2n] },
    { expr: "[?optional.none()].size()", want: 0n },
    { expr: "[ ? m.?a ] == [1]", want: true },
    { expr: "[[?m.?b], [?m.?a]]", want: [[], [1n]] },
    { expr: "{?'a': m.?a, 'b': 2, ?'c': m.?c} == {'a': 1, 'b': 2}", want: true },
    { expr: "'c' in {?'c': m.?c}", want: false },
    // a conditional in the key: its `?` and `:` are not the entry's
    { expr: "{?m.a > 0 ? 'x' : 'y' : m.?a} == {'x': 1}", want: true },
    { expr: "[m.a > 0 ? 1 : 2, ?m.?z]", want: [1n] },
    // optional index and selection stay the engine's
    { expr: "[1, 2][?0].value()", want: 1n },
    { expr: "[?[1][?5]].size()", want: 0n },
    // text that only looks like a marked entry
    { expr: "'[?m.?a]'.size()", want: 7n },
    { expr: "r'{?k: v}' + \"[?\" + '''?]'''", want: "{?k: v}[??]" },
    { expr: "[1, // [?x\n 2].size()", want: 2n },
    // the last of two equal keys wins, and an empty marked entry takes away an earlier one (cel-go evalMap)
    { expr: "{'a': 1, ?'a': m.?z}.size()", want: 0n },
  ])("$expr", ({ expr, want }) => {
    expect(run(expr)).toEqual(want);
  });

  it("a dyn value marked optional must hold an optional at run time (cel-go's errors)", () => {
    expect(run("[?d]", 7n)).toBe("error: cannot initialize optional list element from non-optional value 7");
    expect(run("{?'k': d}", "v")).toBe("error: cannot initialize optional entry 'k' from non-optional value v");
    expect(run("[?d, ?d].size()", { a: 1n })).toMatch(/^error: cannot initialize optional list element/);
  });
});

describe("optional entries of literals: compile errors in cel-go's words, where cel-go points", () => {
  it.each([
    {
      expr: "[?1]",
      want: "ERROR: <input>:1:3: expected type 'optional_type(int)' but found 'int'\n | [?1]\n | ..^",
    },
    {
      expr: "{'a': 1, ?'b': m.a}",
      want: "ERROR: <input>:1:17: expected type 'optional_type(int)' but found 'int'\n | {'a': 1, ?'b': m.a}\n | ................^",
    },
    {
      expr: "[1, ?optional.of('a')] == []",
      want: "ERROR: <input>:1:17: expected type 'int' but found 'string'\n | [1, ?optional.of('a')] == []\n | ................^",
    },
    {
      expr: "[?m.?a] + 1",
      want: "ERROR: <input>:1:9: found no matching overload for '_+_' applied to '(list(int), int)'\n | [?m.?a] + 1\n | ........^",
    },
  ])("$expr", ({ expr, want }) => {
    expect(run(expr)).toBe(`compile: ${want}`);
  });

  it("a `?` with nothing after it stays a syntax error", () => {
    expect(run("[?]")).toMatch(/^compile: ERROR: <input>:1:2: /);
    expect(run("{?: 1}")).toMatch(/^compile: ERROR: <input>:1:2: /);
  });
});

describe("optional entries of literals: cost", () => {
  const cost = (expr: string) => {
    const c = compileExpression(env, expr);
    if (c.kind !== "compiled") throw new Error(c.message);
    const r = evaluate(c.program, { m, d: null }, Number.POSITIVE_INFINITY);
    return { estimated: c.cost, actual: r.cost };
  };

  it("is the literal's, as cel-go charges it: the same as the literal without the marks", () => {
    expect(cost("[?m.?a, ?m.?b]")).toEqual(cost("[m.?a, m.?b]"));
    expect(cost("{?'a': m.?a, ?'b': m.?b}")).toEqual(cost("{'a': m.?a, 'b': m.?b}"));
    expect(cost("[?m.?a, ?m.?b, 3]").estimated).toEqual({ min: 14, max: 14 });
    expect(cost("{?'a': m.?a, 'b': m.a}")).toEqual({ estimated: { min: 34, max: 34 }, actual: 34 });
  });
});

describe("bytes literals and doubles as cel-go's parser reads them", () => {
  const hex = (v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v);
  it.each([
    // a bytes literal's text is UTF-8 encoded
    { expr: "b'ÿ'", want: "c3bf" },
    { expr: "b'\\303\\277' == b'ÿ'", want: true },
    { expr: "b'''€\n'''", want: "e282ac0a" },
    { expr: "size(b'😀')", want: 4n },
    // raw bytes keep their backslashes
    { expr: "br'a\\x00'", want: "615c783030" },
    { expr: 'bR"\\"', want: "5c" },
    { expr: "rb'ÿ\\'", want: "c3bf5c" },
    // a string literal is left alone
    { expr: "'ÿ'.size()", want: 1n },
    { expr: ".5 + .25 == 0.75", want: true },
    { expr: ".99 > 9.9e-1", want: false },
    { expr: "[1, 2][0] + 1", want: 2n },
  ])("$expr", ({ expr, want }) => {
    expect(hex(run(expr))).toEqual(want);
  });
});

describe("preParse", () => {
  it("leaves a text without marked entries as it is", () => {
    const text = "self.a[?0].orValue(1) > 0 ? [x] : {'k': y.?z}";
    expect(preParse(text).text).toBe(text);
  });

  it("maps every offset of the rewritten text to the original", () => {
    const r = preParse("[?a, b]");
    expect(r.text).toBe("__optList([__optElement(a), __optPlain(b)])");
    expect(r.origin[r.text.indexOf("a)")]).toBe(2);
    expect(r.origin[r.text.indexOf("b)")]).toBe(5);
    expect(r.origin[r.text.length]).toBe(7);
  });
});
