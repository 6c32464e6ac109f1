/**
 * lib/cel/evaluation.ts and fast-access.ts: each node's own work done directly, with shorter paths for variable
 * reads, field selections, indexing, has() and membership in literal strings, must give what the engine's own work
 * gives (`evaluation: "engine"`), values, errors and runtime cost alike, also on values the shorter paths do not
 * take (absent fields, values of another type than declared, indexes out of range).
 */
import { describe, expect, it } from "vitest";
import { compileCelRules } from "../../../../lib/cel/crd/compile.js";
import { evaluateCelRules } from "../../../../lib/cel/crd/evaluate.js";
import type { EvaluationMode } from "../../../../lib/cel/evaluation.js";
import { compileExpression, createCelEnvironment, evaluate } from "../../../../lib/cel/index.js";
import { type CompileIssue, compileSchema } from "../../../../lib/schema/structural.js";

const str = { type: "string", maxLength: 64 };
const PROPERTIES = {
  name: str,
  count: { type: "integer" },
  spec: { type: "object", properties: { foo: str, inner: { type: "object", properties: { x: str } } } },
  labels: { type: "object", additionalProperties: str, maxProperties: 8 },
  items: { type: "array", items: str, maxItems: 8 },
  port: { "x-kubernetes-int-or-string": true },
};

/** The outcome of one rule on `self` (a JSON object) in a mode: `true`, or the field error's message. */
function ruleOutcome(rule: string, self: Record<string, unknown>, mode: EvaluationMode): string {
  const issues: CompileIssue[] = [];
  const root = compileSchema(
    { type: "object", properties: PROPERTIES, "x-kubernetes-validations": [{ rule, message: "rule failed" }] },
    issues,
  );
  const program = compileCelRules(root, issues, { evaluation: mode });
  if (issues.length > 0) throw new Error(issues.map((i) => i.message).join("; "));
  const r = evaluateCelRules(program, root, self, undefined, { source: { kind: "crd", policy: "test" } });
  return r.errors.length === 0 ? "true" : r.errors.map((e) => e.message).join("; ");
}

describe("a rule gives the same outcome directly and in the engine", () => {
  it.each([
    { rule: "self.name == 'a'", self: { name: "a" }, want: "true" },
    { rule: "self.name == 'a'", self: {}, want: /no such key: name evaluating rule/ },
    { rule: "self.name.startsWith('a')", self: { name: 7 }, want: /no such overload/ },
    { rule: "self.count > 1", self: { count: 3 }, want: "true" },
    { rule: "self.count > 1", self: { count: "three" }, want: /no such overload/ },
    { rule: "self.spec.foo == 'x'", self: { spec: { foo: "x" } }, want: "true" },
    { rule: "self.spec.foo == 'x'", self: { spec: "x" }, want: /no such overload/ },
    { rule: "self.spec.inner.x == 'y'", self: { spec: {} }, want: /no such key: inner/ },
    { rule: "self.labels.a == 'b'", self: { labels: { a: "b" } }, want: "true" },
    { rule: "self.labels.a == 'b'", self: { labels: { c: "b" } }, want: /no such key: a/ },
    { rule: "self.labels['a'] == 'b'", self: { labels: { a: "b" } }, want: "true" },
    { rule: "self.labels['z'] == 'b'", self: { labels: { a: "b" } }, want: /no such key: z/ },
    { rule: "self.items[1] == 'q'", self: { items: ["p", "q"] }, want: "true" },
    { rule: "self.items[2] == 'q'", self: { items: ["p", "q"] }, want: /index out of bounds: 2/ },
    { rule: "self.items[-1] == 'q'", self: { items: ["p", "q"] }, want: /index out of bounds: -1/ },
    { rule: "self.items[0] == 'q'", self: { items: [1] }, want: /List item with index '0' is not of type 'string'/ },
    { rule: "has(self.spec.foo)", self: { spec: { foo: "x" } }, want: "true" },
    { rule: "has(self.spec.foo)", self: { spec: { inner: {} } }, want: "Invalid value: rule failed" },
    { rule: "has(self.spec.foo)", self: { spec: { foo: null } }, want: "Invalid value: rule failed" },
    { rule: "has(self.spec.foo)", self: {}, want: /no such key: spec/ },
    { rule: "has(self.spec.foo)", self: { spec: "x" }, want: /no such overload/ },
    { rule: "has(self.spec.inner.x)", self: { spec: { inner: { x: "y" } } }, want: "true" },
    { rule: "has(self.spec.inner.x)", self: { spec: {} }, want: /no such key: inner/ },
    { rule: "self.name in ['a', 'b']", self: { name: "b" }, want: "true" },
    { rule: "self.name in ['a', 'b']", self: { name: "c" }, want: "Invalid value: rule failed" },
    { rule: "self.name in ['a', 'b']", self: { name: 1 }, want: /no such overload/ },
    { rule: "self.port in ['80', 'http']", self: { port: "http" }, want: "true" },
    { rule: "self.port in ['80', 'http']", self: { port: 80 }, want: "Invalid value: rule failed" },
    { rule: "self.items.all(i, i != 'x') && self.items.exists_one(i, i == 'p')", self: { items: ["p"] }, want: "true" },
  ])("$rule on $self", ({ rule, self, want }) => {
    const direct = ruleOutcome(rule, self, "direct");
    expect(direct).toBe(ruleOutcome(rule, self, "engine"));
    if (typeof want === "string") expect(direct).toBe(want);
    else expect(direct).toMatch(want);
  });

  it("leaves the stack trace limit as it found it (the rules run without stack traces)", () => {
    const limit = Error.stackTraceLimit;
    expect(ruleOutcome("self.name == 'a'", {}, "direct")).toMatch(/no such key: name/);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error("after").stack).toContain(" at ");
  });
});

describe("evaluation without a type check", () => {
  it("reads a type name as the type constant the check gives it when the expression runs", () => {
    const c = compileExpression(createCelEnvironment(), "type(1) == int && dyn([1, 2]).size() == 2", {
      typeCheck: false,
    });
    expect(c.kind).toBe("compiled");
    if (c.kind !== "compiled") return;
    expect(evaluate(c.program, {}, Number.POSITIVE_INFINITY)).toMatchObject({ kind: "value", value: true });
  });
});

describe("runtime cost", () => {
  const env = createCelEnvironment({ variables: { s: "string", l: "list<string>", m: "map<string, string>" } });
  it.each([
    "s.contains('b') && s.startsWith('a')",
    "l.filter(e, e.startsWith('a')).size() <= 1",
    "l.exists(e, e in ['x', 'y']) || m.a == 'z'",
    "has(m.a) ? m['a'].size() : l.size()",
    "'x' + s + 'y' != s + 'x'",
    "[1, 0, 2].all(x, 10 / x > 0)",
    "[0, 1].exists(x, 1 / x == 1)",
    "[0, 2].exists(x, 1 / x == 1)",
    "[2, 0].all(x, 1 / x == 1)",
    "[1, 2, 3].exists_one(x, x > 1) || [1, 2, 3].exists_one(x, x > 2)",
    "[1, 0].exists_one(x, 1 / x == 1)",
    "l.map(x, x + 'a').size() == l.filter(x, x.startsWith('a')).size()",
    "[1, 2, 3].map(x, x > 1, x * 2) == [4, 6]",
    "[dyn(1)].all(x, x)",
    "[dyn(true), dyn(1)].exists(x, x)",
    "[1, 2].filter(x, dyn(x))",
    "{'a': 1, 'b': 2}.all(k, k != 'c') && {'a': 1}.exists_one(k, k == 'a')",
    "l.all(a, l.exists(b, a + b == 'xx'))",
  ])("%s evaluates and costs the same directly and in the engine", (expr) => {
    const activation = { s: "abcdefghijklmnopqrstuvwxyz", l: ["ab", "x", "ac"], m: new Map([["a", "z"]]) };
    const costs = (["direct", "engine"] as const).map((evaluation) => {
      const c = compileExpression(env, expr, { evaluation });
      if (c.kind !== "compiled") throw new Error(c.message);
      return evaluate(c.program, activation, Number.POSITIVE_INFINITY);
    });
    expect(costs[0]).toEqual(costs[1]);
    expect(costs[0]?.cost).toBeGreaterThan(1);
  });
});
