/**
 * CEL rules that ask library calls for unbounded work: kube-apiserver refuses them when the CRD is created (the
 * static estimate, size-based for every library function) or stops them at run time (the per-call limit, charged by
 * the operands' sizes before the call runs), and so does tollgate, with the API server's texts. The inputs are those
 * that made tollgate run for minutes or run out of memory when library calls cost 1; the tests carry no timings:
 * vitest's per-test timeout fails a call that does the work.
 */
import { describe, expect, it } from "vitest";
import { compileExpression, createCelEnvironment, evaluate } from "../../../../lib/cel/index.js";
import type { PolicySet } from "../../../../lib/index.js";
import { widget, widgetBundle } from "../../../helpers/widget-crd.js";

function bundleWith(properties: Record<string, unknown>, rule: string): Promise<PolicySet> {
  return widgetBundle(properties, [{ rule }]);
}

function errorsOf(set: PolicySet, spec: Record<string, unknown>): string[] {
  return set.validate({ operation: "CREATE", object: widget(spec) }).errors.map((e) => `${e.field}: ${e.message}`);
}

const TOO_COSTLY =
  "Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";
const TOTAL_TOO_COSTLY =
  "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema";

const ints = (n: number) => Array.from({ length: n }, (_, i) => n - i);
const intList = (maxItems?: number) => ({
  type: "array",
  items: { type: "integer" },
  ...(maxItems ? { maxItems } : {}),
});
const str = (maxLength?: number) => ({ type: "string", ...(maxLength ? { maxLength } : {}) });

describe("rules refused when the CRD is created (the static estimate)", () => {
  it.each([
    { name: "distinct() of an unbounded list", props: { l: intList() }, rule: "self.l.distinct().size() >= 0" },
    { name: "sort() of an unbounded list", props: { l: intList() }, rule: "self.l.sort().size() >= 0" },
    { name: "lists.range() of a field", props: { n: { type: "integer" } }, rule: "lists.range(self.n).size() >= 0" },
    {
      name: "sets.contains() of two unbounded lists",
      props: { a: intList(), b: intList() },
      rule: "sets.contains(self.a, self.b)",
    },
  ])("$name", async ({ props, rule }) => {
    const set = await bundleWith(props, rule);
    const messages = set.failures.map((f) => f.message);
    expect(messages).toContain(TOO_COSTLY);
    expect(messages).toContain(TOTAL_TOO_COSTLY);
  });

  it("accepts the same calls on bounded operands", async () => {
    const set = await bundleWith(
      { l: intList(100), a: intList(100), b: intList(100) },
      "self.l.distinct().size() >= 0",
    );
    expect(set.failures).toEqual([]);
    expect(errorsOf(set, { l: ints(100) })).toEqual([]);
  });
});

describe("rules stopped at run time by the per-call limit, before the call does its work", () => {
  const cancelled = (rule: string) => [
    `spec: Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${rule}`,
  ];

  it.each([
    // 2000² × 2 + 11 = 8,000,011: within the static limit (10,000,000), past the per-call one (1,000,000)
    { name: "distinct()", props: { l: intList(2000) }, rule: "self.l.distinct().size() >= 0", spec: { l: ints(2000) } },
    { name: "sort()", props: { l: intList(2000) }, rule: "self.l.sort().size() >= 0", spec: { l: ints(2000) } },
    {
      name: "sets.equivalent()",
      props: { a: intList(2000), b: intList(2000) },
      rule: "sets.equivalent(self.a, self.b)",
      spec: { a: ints(2000), b: ints(2000) },
    },
  ])("$name", async ({ props, rule, spec }) => {
    const set = await bundleWith(props, rule);
    expect(set.failures).toEqual([]);
    expect(errorsOf(set, spec)).toEqual(cancelled(rule));
  });
});

describe("size-charged string calls run in time linear in their operands", () => {
  const worst = "a".repeat(100_000);
  it.each([
    // cel-go compares at every position (quadratic for these operands); the answer is the same
    { rule: "self.s.indexOf(self.t) == -1", spec: { s: worst, t: `${"a".repeat(50_000)}b` } },
    { rule: "self.s.lastIndexOf(self.t) == -1", spec: { s: worst, t: `${"a".repeat(50_000)}b` } },
    { rule: "self.s.indexOf(self.t, 7) == 7", spec: { s: worst, t: "a".repeat(50_000) } },
    { rule: "self.s.lastIndexOf(self.t) == 50000", spec: { s: worst, t: "a".repeat(50_000) } },
    { rule: "self.s.replace('', 'xy').size() == 300002", spec: { s: worst, t: "" } },
    { rule: "self.s.split('').size() == 100000", spec: { s: worst, t: "" } },
  ])("$rule", async ({ rule, spec }) => {
    const set = await bundleWith({ s: str(100_000), t: str(100_000) }, rule);
    expect(set.failures).toEqual([]);
    expect(errorsOf(set, spec)).toEqual([]);
  });
});

describe("runtime charges (cel-go's tracker and Kubernetes' CallCost, from the operands' sizes)", () => {
  const env = createCelEnvironment({
    variables: {
      n: "int",
      s: "string",
      t: "string",
      l: "list<int>",
      ls: "list<string>",
      a: "list<int>",
      b: "list<int>",
    },
  });
  const costOf = (expr: string, activation: Record<string, unknown>, limit = 1_000_000_000) => {
    const c = compileExpression(env, expr);
    if (c.kind === "failed") throw new Error(c.message);
    return evaluate(c.program, activation, limit);
  };
  const big = (n: number) => Array.from({ length: n }, (_, i) => BigInt(i));

  it.each([
    // n (1), range: n + 1 + 10 (the call and the new list), size (1)
    { expr: "lists.range(n).size() >= 0", activation: { n: 1000n }, cost: 1 + 1011 + 1 + 1 },
    // l (1), distinct: 100² × 2 + 11, size, >= (1 each)
    { expr: "l.distinct().size() >= 0", activation: { l: big(100) }, cost: 1 + 20_011 + 2 },
    // string elements: × 2.1
    { expr: "ls.sort().size() >= 0", activation: { ls: ["b", "a", "c"] }, cost: 1 + 18 + 11 + 2 },
    { expr: "l.reverse().size() >= 0", activation: { l: big(50) }, cost: 1 + 61 + 2 },
    { expr: "l.slice(10, 40).size() >= 0", activation: { l: big(50) }, cost: 1 + 41 + 2 },
    // sets: 1 + |a| × |b| (× 2 for equivalent)
    { expr: "sets.contains(a, b)", activation: { a: big(30), b: big(20) }, cost: 2 + 601 },
    { expr: "sets.equivalent(a, b)", activation: { a: big(30), b: big(20) }, cost: 2 + 1201 },
    // the lists library's traversal: a string receiver costs a tenth of its bytes (rounded down)
    { expr: "s.indexOf(t) >= 0", activation: { s: "x".repeat(1005), t: "x" }, cost: 2 + 100 + 1 },
    { expr: "l.sum() >= 0", activation: { l: big(40) }, cost: 1 + 40 + 1 },
    // lowerAscii / replace / split: ceil(size × 0.1), twice for replace and split
    { expr: "s.lowerAscii().size() > 0", activation: { s: "A".repeat(95) }, cost: 1 + 10 + 2 },
    { expr: "s.replace('a', 'b').size() > 0", activation: { s: "a".repeat(95) }, cost: 1 + 19 + 2 },
    // matches: ceil((1 + size) × 0.1) × ceil(len(pattern) × 0.25)
    { expr: "s.matches('^[a-z]+$')", activation: { s: "a".repeat(99) }, cost: 1 + 10 * 2 },
    // string concatenation: ceil((size + size) × 0.1); == on strings: ceil(min size × 0.1)
    { expr: "s + s == t", activation: { s: "a".repeat(50), t: "a".repeat(100) }, cost: 3 + 10 + 10 },
  ])("$expr costs $cost", ({ expr, activation, cost }) => {
    expect(costOf(expr, activation)).toMatchObject({ kind: "value", cost });
  });

  it("lists.range(2e9) is stopped before it makes a list (the charge is the list's size)", () => {
    const r = costOf("lists.range(n).size() >= 0", { n: 2_000_000_000n }, 1_000_000);
    // the parts whose cost does not depend on the data (n, size, >=) are charged when the expression starts
    expect(r).toEqual({ kind: "cost-limit-exceeded", cost: 3 + 2_000_000_011 });
  });

  it("a flatten of negative depth is charged as cel-go's tracker converts it: past any limit", () => {
    const r = costOf("l.flatten(-1).size() >= 0", { l: big(3) }, 1_000_000);
    expect(r.kind).toBe("cost-limit-exceeded");
  });
});

describe("list concatenation: charged 1 as cel-go charges it, its copies bounded by the limit", () => {
  const env = createCelEnvironment({ variables: { l: "list<int>", a: "list<int>", b: "list<int>" } });
  const run = (expr: string, activation: Record<string, unknown>, limit: number) => {
    const c = compileExpression(env, expr);
    if (c.kind === "failed") throw new Error(c.message);
    return evaluate(c.program, activation, limit);
  };
  const big = (n: number) => Array.from({ length: n }, (_, i) => BigInt(i));

  it("a concatenation costs 1 whatever the lists' sizes (cel-go's AddList: a view of both lists)", () => {
    // a, b (1 each), +, size, == (1 each)
    expect(run("size(a + b) == 3000", { a: big(1000), b: big(2000) }, 1_000_000)).toEqual({
      kind: "value",
      value: true,
      cost: 5,
    });
    expect(run("size(a + b) > 0", { a: big(1), b: big(2) }, 1_000_000)).toEqual({
      kind: "value",
      value: true,
      cost: 5,
    });
  });

  it("a list doubled again and again is cancelled at its limit, not copied until memory runs out", () => {
    // 40 doublings of 1,000 elements: 2^40 × 1,000 elements, for a cost of a few hundred
    const expr = `[l]${".map(x, x + x)".repeat(40)}[0]`;
    const r = run(`size(${expr}) > 0`, { l: big(1000) }, 1_000_000);
    expect(r.kind).toBe("cost-limit-exceeded");
    expect(r.cost).toBeLessThan(1000);
  });

  it("concatenations repeated in a comprehension are cancelled once their copies pass ten times the limit", async () => {
    // Within the static limit (1,000 × 40 concatenations) and the per-call one; each step copies 1,000 to 40,000
    // elements (820,000 in all): about 800 million copies for the whole list.
    const sum = Array.from({ length: 40 }, () => "self.l").join(" + ");
    const rule = `self.l.all(x, size(${sum}) > x)`;
    const set = await bundleWith({ l: intList(1000) }, rule);
    expect(set.failures).toEqual([]);
    expect(errorsOf(set, { l: ints(1000) })).toEqual([
      `spec: Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${rule}`,
    ]);
    // the same rule over fewer elements copies less than the allowance and holds
    expect(errorsOf(set, { l: ints(100) })).toEqual([]);
  });
});
