import { describe, expect, it } from "vitest";
import {
  type Cardinality,
  childCardinality,
  maxCardinality,
  ROOT_CARDINALITY,
  ruleCost,
  unboundedCardinality,
} from "../../../../lib/cel/cost/cardinality.js";
import {
  costErrorMessage,
  formatCostFactor,
  messageExpressionCostIssue,
  ruleCostIssue,
  SchemaCostTotal,
  STATIC_ESTIMATED_COST_LIMIT,
} from "../../../../lib/cel/cost/limits.js";
import { compileCelRules } from "../../../../lib/cel/crd/compile.js";
import { type CompileIssue, compileSchema, type SchemaNode } from "../../../../lib/schema/structural.js";

type Json = Record<string, unknown>;

interface Estimated {
  /** The rule's estimated max cost. */
  max: number;
  /** The messageExpression's estimated max cost, if any. */
  message?: number;
  /** The rule's cost × cardinality, as checked against the per-expression limit. */
  total: number;
  cardinality: Cardinality;
}

/** Compiles a schema (as openAPIV3Schema) that carries exactly one rule somewhere and estimates it. */
function estimate(schema: Json): Estimated {
  const issues: CompileIssue[] = [];
  const root = compileSchema(schema, issues);
  const program = compileCelRules(root, issues);
  // the rule compiler reports a cost over the limit itself; everything else must compile
  expect(issues.filter((i) => !/exceeds budget|contributed to estimated rule cost/.test(i.message))).toEqual([]);
  const cardinalities = new Map<SchemaNode, Cardinality>();
  const walk = (n: SchemaNode, c: Cardinality) => {
    cardinalities.set(n, c);
    const cc = childCardinality(n, c);
    if (n.properties !== null) for (const p of n.properties.values()) walk(p, cc);
    if (n.additionalProperties !== null) walk(n.additionalProperties, cc);
    if (n.items !== null) walk(n.items, cc);
  };
  walk(root, ROOT_CARDINALITY);
  const [entry] = [...program.nodes];
  expect(entry).toBeDefined();
  const [node, { rules }] = entry!;
  const rule = rules[0]!;
  const isResourceRoot = node === root || node.embeddedResource;
  const max = rule.estimatedCost;
  const cardinality = cardinalities.get(node) ?? null;
  const out: Estimated = { max, total: ruleCost(max, node, cardinality, isResourceRoot), cardinality };
  if (rule.messageProgram !== undefined) out.message = rule.messageEstimatedCost;
  return out;
}

/** A root object with one property `x` carrying the schema (rules on `x` see `x` as self, as in Kubernetes' tests). */
function under(x: Json): Json {
  return { type: "object", properties: { x } };
}

function withRule(s: Json, rule: string, extra: Json = {}): Json {
  return { ...s, "x-kubernetes-validations": [{ rule, ...extra }] };
}

function lim(key: string, n: number | undefined): Json {
  return n === undefined ? {} : { [key]: n };
}

/** A scalar schema from Kubernetes' test type names (string formats and int-or-string). */
function scalar(t: string): Json {
  if (t === "duration" || t === "date" || t === "date-time") return { type: "string", format: t };
  if (t === "int-or-string") return { "x-kubernetes-int-or-string": true };
  return { type: t };
}

const array = (item: string, rule: string) => (n?: number) =>
  withRule({ type: "array", items: scalar(item), ...lim("maxItems", n) }, rule);
const arrayOfArrays = (item: string, rule: string) => (n?: number) =>
  withRule({ type: "array", items: { type: "array", items: { type: item } }, ...lim("maxItems", n) }, rule);
const objectForMap = {
  type: "object",
  properties: { required: { type: "string" }, optional: { type: "string" } },
  required: ["required"],
};
const objectArray = (rule: string) => (n?: number) =>
  withRule({ type: "array", items: objectForMap, ...lim("maxItems", n) }, rule);
const mapArray = (value: string, rule: string) => (n?: number) =>
  withRule(
    { type: "array", items: { type: "object", additionalProperties: { type: value } }, ...lim("maxItems", n) },
    rule,
  );
const map = (value: string, rule: string) => (n?: number) =>
  withRule({ type: "object", additionalProperties: scalar(value), ...lim("maxProperties", n) }, rule);
const mapOf = (value: Json, rule: string) => (n?: number) =>
  withRule({ type: "object", additionalProperties: value, ...lim("maxProperties", n) }, rule);
const string = (rule: string) => (n?: number) => withRule({ type: "string", ...lim("maxLength", n) }, rule);
const bytes = (rule: string) => (n?: number) =>
  withRule({ type: "string", format: "byte", ...lim("maxLength", n) }, rule);
const nestedSpec = (rule: string) => (n?: number) =>
  withRule(
    {
      type: "object",
      additionalProperties: { type: "string", ...lim("maxLength", n) },
      ...lim("maxProperties", n),
    },
    rule,
  );
const nestedRoot = (all: boolean, rule: string) => (n?: number) =>
  withRule(
    {
      type: "array",
      items: {
        type: "object",
        additionalProperties: { ...objectForMap, ...(all ? lim("maxProperties", n) : {}) },
        ...lim("maxProperties", n),
      },
      ...(all ? lim("maxItems", n) : {}),
    },
    rule,
  );
const stringList = (rule: string) => (n?: number) =>
  withRule({ type: "array", items: { type: "string", ...lim("maxLength", n) }, ...lim("maxItems", n) }, rule);

describe("estimateCost: Kubernetes' estimated costs (apiextensions compilation_test.go TestCostEstimation)", () => {
  // [name, schema generator, cost without limits, limit, cost with the limit]
  const cases: [string, (n?: number) => Json, number | undefined, number, number][] = [
    ["number array with all", array("number", "self.all(x, true)"), 4718591, 10, 32],
    ["string array with all", array("string", "self.all(x, true)"), 3145727, 20, 62],
    ["boolean array with all", array("boolean", "self.all(x, true)"), 1887437, 5, 17],
    ["array of number arrays with all", arrayOfArrays("number", "self.all(x, true)"), 3145727, 100, 302],
    ["array of objects with all", objectArray("self.all(x, true)"), 555128, 50, 152],
    ["map of numbers with all", map("number", "self.all(x, true)"), 1348169, 10, 32],
    ["map of strings with all", map("string", "self.all(x, true)"), 1179647, 3, 11],
    ["map of booleans with all", map("boolean", "self.all(x, true)"), 943718, 100, 302],
    ["string with contains", string("self.contains('test')"), 314574, 10, 5],
    ["string with startsWith", string("self.startsWith('test')"), 2, 15, 2],
    ["string with endsWith", string("self.endsWith('test')"), 2, 30, 2],
    ["concat string", string(`size(self + "hello") > size("hello")`), 314578, 4, 7],
    ["index of array with numbers", array("number", "self[1] == 0.0"), 2, 5000, 2],
    ["index of array with strings", array("string", "self[1] == self[1]"), 314577, 8, 314577],
    ["O(n^2) loop with numbers", array("number", "self.all(x, self.all(y, true))"), undefined, 10, 352],
    ["O(n^3) loop with numbers", array("number", "self.all(x, self.all(y, self.all(z, true)))"), undefined, 10, 3552],
    ["regex matches simple", string(`self.matches("x")`), 314574, 50, 22],
    ["regex matches empty string", string(`"".matches("(((((((((())))))))))[0-9]")`), 7, 10, 7],
    ["regex matches empty regex", string(`self.matches("")`), 1, 100, 1],
    ["map of strings with value length", nestedSpec("self.all(x, x.contains(self[x]))"), 2752507, 10, 72],
    ["set array maxLength to zero", array("number", "self[3] == 0.0"), 2, 0, 2],
    ["set map maxLength to zero", map("number", `self["x"] == 0.0`), 2, 0, 2],
    ["set string maxLength to zero", string(`self == "x"`), 2, 0, 1],
    ["set bytes maxLength to zero", bytes(`self == b"x"`), 2, 0, 1],
    ["set maxLength greater than estimated", array("number", "self.all(x, x == 0.0)"), 6291454, 6291456, 25165826],
    ["nested types, all bounded", nestedRoot(true, `self.all(x, x["y"].required == "z")`), 7340027, 10, 72],
    ["nested types, one bounded", nestedRoot(false, `self.all(x, x["y"].required == "z")`), 7340027, 10, 7340027],
    ["int-or-string array with all", array("int-or-string", "self.all(x, true)"), 4718591, 10, 32],
    ["index of array with int-or-strings", array("int-or-string", "self[0] == 5"), 3, 10, 3],
    ["index of array with booleans", array("boolean", "self[0] == false"), 2, 25, 2],
    ["index of array of array of numbers", arrayOfArrays("number", "self[0][0] == -1.0"), 3, 51, 3],
    ["array of number maps with all", mapArray("number", "self.all(x, x.y == 25.2)"), 6291452, 12, 74],
    ["index of array of number maps", mapArray("number", "self[0].x > 2.0"), 4, 3000, 4],
    ["duration array with all", array("duration", "self.all(x, true)"), 2359295, 5, 17],
    ["index of duration array", array("duration", "self[0].getHours() == 2"), 4, 525, 4],
    ["date array with all", array("date", "self.all(x, true)"), 725936, 15, 47],
    ["index of date array", array("date", "self[2].getDayOfMonth() == 13"), 4, 42, 4],
    ["date-time array with all", array("date-time", "self.all(x, true)"), 428963, 25, 77],
    ["index of date-time array", array("date-time", "self[2].getMinutes() == 45"), 4, 99, 4],
    ["map of int-or-strings with all", map("int-or-string", "self.all(x, true)"), 1348169, 15, 47],
    ["map of objects with all", mapOf(objectForMap, "self.all(x, true)"), 428963, 20, 62],
    [
      "map of number maps with all",
      mapOf({ type: "object", additionalProperties: { type: "number" } }, "self.all(x, true)"),
      1179647,
      10,
      32,
    ],
    [
      "map of number arrays with all",
      mapOf({ type: "array", items: { type: "number" } }, "self.all(x, true)"),
      1179647,
      25,
      77,
    ],
    ["map of durations with all", map("duration", "self.all(x, true)"), 1048577, 5, 17],
    ["map of dates with all", map("date", "self.all(x, true)"), 524288, 10, 32],
    ["map of date-times with all", map("date-time", "self.all(x, true)"), 349526, 25, 77],
    ["extended library regex find", string("self.find('[0-9]+') == ''"), 629147, 10, 11],
    ["extended library join", stringList("self.join(' ') == 'aa bb'"), 329853068905, 10, 43],
    ["extended library isSorted", stringList("self.isSorted() == true"), 329854432052, 10, 52],
    [
      "extended library replace",
      (n) =>
        withRule(
          {
            type: "object",
            properties: {
              str: { type: "string", ...lim("maxLength", n) },
              before: { type: "string", maxLength: 2 },
              after: { type: "string", maxLength: 4 },
            },
          },
          "self.str.replace(self.before, self.after) == 'does not matter'",
        ),
      629154,
      4,
      12,
    ],
    [
      "extended library split",
      (n) =>
        withRule(
          {
            type: "object",
            properties: {
              str: { type: "string", ...lim("maxLength", n) },
              separator: { type: "string", ...lim("maxLength", n) },
            },
          },
          "self.str.split(self.separator) == []",
        ),
      629160,
      10,
      22,
    ],
    ["extended library lowerAscii", string("self.lowerAscii() == 'lower!'"), 314575, 10, 6],
    ["size calls", map("integer", "oldSelf.size() == self.size()"), 5, 10, 5],
    ["timestamp comparison", map("date-time", `self["a"] == self["b"]`), 8, 7, 8],
    ["duration comparison", map("duration", `self["c"] == self["d"]`), 8, 42, 8],
    [
      "int-or-string with a quantity rule",
      (n) => withRule({ "x-kubernetes-int-or-string": true, ...lim("maxLength", n) }, "isQuantity(self)"),
      314574,
      20,
      9,
    ],
    [
      "enums bound strings without maxLength",
      (n) =>
        withRule({ type: "string", enum: ["A", "B", "C", "LongValue"], ...lim("maxLength", n) }, "self.contains('A')"),
      2,
      1000,
      401,
    ],
  ];
  it.each(cases)("%s", (_name, gen, unbounded, limit, bounded) => {
    const free = estimate(under(gen())).max;
    if (unbounded === undefined) expect(free).toBeGreaterThan(STATIC_ESTIMATED_COST_LIMIT);
    else expect(free).toBe(unbounded);
    expect(estimate(under(gen(limit))).max).toBe(bounded);
  });
});

describe("estimateCost: examples of the semantics note and the spike", () => {
  const ints = (maxItems: number) =>
    withRule(
      { type: "object", properties: { v: { type: "array", items: { type: "integer" }, maxItems } } },
      "self.v.all(a, self.v.all(b, a + b >= -1))",
    );
  it("7 per inner iteration: maxItems 1200 is over the limit by 1.008720x, 1100 is accepted", () => {
    const over = estimate(under(ints(1200)));
    expect(over.max).toBe(10_087_203);
    expect(over.total).toBe(10_087_203);
    expect(ruleCostIssue(over.total)).toBe(
      "Forbidden: estimated rule cost exceeds budget by factor of 1.008720x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
    );
    const within = estimate(under(ints(1100)));
    expect(within.max).toBe(8_476_603);
    expect(ruleCostIssue(within.total)).toBeUndefined();
  });

  const items = (maxItems?: number, maxLength?: number) =>
    withRule(
      {
        type: "object",
        properties: {
          items: {
            type: "array",
            ...lim("maxItems", maxItems),
            items: { type: "object", properties: { name: { type: "string", ...lim("maxLength", maxLength) } } },
          },
        },
      },
      "self.items.all(x, x.name.matches('^[a-z0-9]+$'))",
    );
  it.each([
    ["maxItems 100, maxLength 63", 100, 63, 8_303, undefined],
    ["no maxLength", 100, undefined, 94_372_403, "9.4x"],
    ["no maxItems", undefined, 63, 87_031_728, "8.7x"],
  ])("matches over items (%s)", (_n, maxItems, maxLength, cost, factor) => {
    const e = estimate(under(items(maxItems, maxLength)));
    expect(e.max).toBe(cost);
    if (factor === undefined) expect(ruleCostIssue(e.total)).toBeUndefined();
    else expect(ruleCostIssue(e.total)).toContain(`by factor of ${factor} (`);
  });

  it.each([
    // contains on strings: 11, 30, 106 and 414 per item for maxLength 16, 63, 253, 1024 (measured on v0.36.3)
    [16, 909_090, 909_091],
    [63, 333_333, 333_334],
    [253, 94_339, 94_340],
    [1024, 24_154, 24_155],
  ])("self.all(x, x.contains('gpu')) with maxLength %i: largest accepted maxItems %i", (maxLength, ok, over) => {
    const list = (n: number) =>
      withRule({ type: "array", maxItems: n, items: { type: "string", maxLength } }, "self.all(x, x.contains('gpu'))");
    expect(ruleCostIssue(estimate(under(list(ok))).total)).toBeUndefined();
    expect(ruleCostIssue(estimate(under(list(over))).total)).toBeDefined();
  });

  it("unbounded []int is accepted, unbounded [][]int is not (more than 100x)", () => {
    const flat = estimate(under(withRule({ type: "array", items: { type: "integer" } }, "self.all(x, x == 5)")));
    expect(ruleCostIssue(flat.total)).toBeUndefined();
    const nested = estimate(
      under(
        withRule(
          { type: "array", items: { type: "array", items: { type: "integer" } } },
          "self.all(x, x.all(y, y == 5))",
        ),
      ),
    );
    expect(ruleCostIssue(nested.total)).toContain("by factor of more than 100x");
  });

  it("an unbounded string is 3 MiB long; maxLength bounds it at 4 bytes per character", () => {
    const s = (maxLength?: number) =>
      under(withRule({ type: "string", ...lim("maxLength", maxLength) }, "self == self"));
    // min(3145726, 3145726) × 0.1 rounded up, plus the two identifiers
    expect(estimate(s()).max).toBe(314_575);
    expect(estimate(s(10)).max).toBe(6);
  });

  it("messageExpression: concatenating string(int) has no size bound, string(int) alone is fine", () => {
    const count = (messageExpression: string) =>
      under(
        withRule({ type: "object", properties: { count: { type: "integer" } } }, "self.count > 0", {
          messageExpression,
        }),
      );
    const concat = estimate(count("'x' + string(self.count)")).message!;
    expect(messageExpressionCostIssue(concat)).toBe(
      "Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
    );
    const alone = estimate(count("string(self.count)")).message!;
    expect(alone).toBe(3);
    expect(messageExpressionCostIssue(alone)).toBeUndefined();
  });
});

describe("estimateCost: language and library costs", () => {
  const obj = under({
    type: "object",
    properties: {
      name: { type: "string", maxLength: 63 },
      count: { type: "integer" },
      tags: { type: "array", maxItems: 10, items: { type: "string", maxLength: 20 } },
      labels: { type: "object", maxProperties: 5, additionalProperties: { type: "string", maxLength: 10 } },
      q: { "x-kubernetes-int-or-string": true },
      ip: { type: "string", maxLength: 45 },
      items: {
        type: "array",
        maxItems: 4,
        items: { type: "object", properties: { name: { type: "string", maxLength: 8 } } },
      },
    },
  });
  const on = (rule: string) => {
    const s = structuredClone(obj) as { properties: { x: Json } };
    s.properties.x = withRule(s.properties.x, rule);
    return estimate(s).max;
  };
  it.each([
    // has() is free (PresenceTestHasCost(false)): only the operand costs
    ["has(self.name)", 1],
    ["has(self.items[0].name)", 3],
    // integer fields have no size in the schema, so equality with them costs only its operands
    ["self.count == 3", 2],
    ["self.count > 3", 3],
    ["-self.count < 0", 4],
    ["!(self.count > 3)", 4],
    // && and || cost the left side plus at most the right side
    ["self.count > 3 && self.count < 10", 6],
    ["self.count > 3 ? self.name == 'a' : self.name == 'bc'", 6],
    // strings: size-dependent comparison, startsWith on the argument, contains and matches on both
    ["self.name == 'abc'", 3],
    ["self.name < self.name", 30],
    ["self.name.startsWith('abcdefghijk')", 4],
    ["self.name.contains('abc')", 28],
    ["self.name.matches('^[a-z]+$')", 54],
    ["matches(self.name, '^[a-z]+$')", 3],
    ["self.name.size() <= 63", 4],
    // lists: in is linear, indexing follows the item schema, literals cost 10 plus their elements
    ["'a' in self.tags", 12],
    ["self.tags[0] == 'x'", 4],
    ["self.tags == ['a', 'b']", 13],
    ["self.tags.exists_one(t, t == 'a')", 44],
    ["self.tags.map(t, t.size()).all(n, n < 5)", 204],
    ["self.tags.filter(t, t.size() > 3).size() == 0", 175],
    ["self.items.map(i, i.name.size() > 2, i.name).size() > 0", 87],
    // map keys have no size; values follow the schema
    ["self.labels.all(k, self.labels[k].size() < 5)", 48],
    ["'a' in self.labels", 3],
    ["self.?name.orValue('') == ''", 3],
    ["self.tags[?0].hasValue()", 4],
    // int-or-string is dyn, bounded by 3 MiB
    ["type(self.q) == string ? self.q.matches('^[0-9]+%$') : true", 943725],
    // Kubernetes libraries: parse functions cost a traversal of their argument (Kubernetes 1.34+), accessors 1
    ["isIP(self.ip)", 20],
    ["ip(self.ip).family() == 4", 22],
    ["cidr(self.ip).ip().family() == 4", 23],
    ["ip.isCanonical(self.ip)", 38],
    ["quantity(self.name).isGreaterThan(quantity('1'))", 30],
    ["quantity(self.name) == quantity('1')", 30],
    ["isSemver(self.name) && semver(self.name).major() == 1", 58],
    ["format.dns1123Label().validate(self.name).hasValue()", 836],
    ["self.name.lowerAscii() == 'a'", 29],
    ["self.name.split(',').size() == 2", 55],
    ["self.tags.join(',') == 'a'", 84],
    ["self.tags.isSorted()", 92],
    ["self.name.find('[0-9]+') == ''", 54],
    ["url(self.name).getHost() == ''", 29],
    ["cidr(self.ip).containsIP('10.0.0.1')", 25],
    // the lists extension (version 3): the result's size (squared for sort and distinct) plus the call and the list
    ["lists.range(5).size() == 5", 18],
    ["lists.range(self.count).size() > 0", 18446744073709552000],
    ["self.tags.sort() == self.tags", 226],
    ["self.items.map(i, i.name.size()).sort()[0] > 0", 118],
    ["self.tags.distinct().size() < 3", 215],
    ["self.tags.slice(1, 3).size() == 2", 17],
    ["self.tags.slice(3, 1).size() == 2", 18446744073709552000],
    ["self.tags.slice(1, self.count).size() == 2", 26],
    ["self.tags.reverse()[0] == 'a'", 24],
    ["[self.tags, self.tags].flatten().size() > 0", 29],
    ["self.tags.flatten(2).size() > 0", 35],
    // two-variable comprehensions (rewritten by lib/cel/rewrite.ts) cost like cel-go's: key/index and value variables
    ["self.labels.all(k, v, v.size() > 0)", 33],
    ["self.labels.exists(k, v, k == 'a')", 28],
    ["self.tags.existsOne(i, v, v == 'a')", 44],
    ["self.tags.transformList(i, v, i > 0, v + 'x').size() > 0", 255],
    ["self.labels.transformMap(k, v, v + 'x').size() > 0", 80],
    ["self.labels.transformMapEntry(k, v, {k: v}).size() > 0", 205],
  ])("%s costs %i", (rule, cost) => {
    expect(on(rule)).toBe(cost);
  });
});

describe("cardinality", () => {
  const list = (maxItems: number | undefined, items: Json) => ({ type: "array", ...lim("maxItems", maxItems), items });
  it("multiplies the maxItems/maxProperties of enclosing lists and maps", () => {
    const s = under(
      list(10, {
        type: "object",
        properties: {
          m: {
            type: "object",
            maxProperties: 3,
            additionalProperties: withRule({ type: "string", maxLength: 5 }, "self.size() > 0"),
          },
        },
      }),
    );
    const e = estimate(s);
    expect(e.cardinality).toBe(30);
    expect(e.total).toBe(e.max * 30);
  });

  it("uses the number of minimal items in 3 MiB under an unbounded list: cheap item rules can be rejected", () => {
    const rule = (r: string) => estimate(under(list(undefined, withRule({ type: "string" }, r))));
    // a string's minimal serialization is "" (2 bytes): 3145728 / 3
    const cheap = rule("self.size() > 0 && self.size() < 1000 && self.size() != 5");
    expect(cheap.cardinality).toBeNull();
    expect(cheap.max).toBe(9);
    expect(cheap.total).toBe(9 * 1_048_576);
    expect(ruleCostIssue(cheap.total)).toBeUndefined();
    const ten = rule("self.size() > 0 && self.size() < 1000 && -self.size() != 5");
    expect(ten.max).toBe(10);
    expect(ruleCostIssue(ten.total)).toContain("by factor of 1.048576x");
  });

  it("maxCardinality folds the ancestors; objects count once, unbounded lists and maps are null", () => {
    const issues: CompileIssue[] = [];
    const bounded = compileSchema({ type: "array", maxItems: 7, items: { type: "object" } }, issues);
    const unbounded = compileSchema({ type: "object", additionalProperties: { type: "string" } }, issues);
    const plain = compileSchema({ type: "object", properties: { a: { type: "string" } } }, issues);
    expect(maxCardinality([])).toBe(1);
    expect(maxCardinality([plain, bounded, bounded.items!])).toBe(7);
    expect(maxCardinality([bounded, unbounded])).toBeNull();
    // required properties add to the minimal serialization: {"a":""} is 2 + 1 + 2 + 4
    const required = compileSchema({ type: "object", properties: { a: { type: "string" } }, required: ["a"] }, issues);
    expect(unboundedCardinality(required, false)).toBe(Math.floor(3145728 / 10));
    expect(issues).toEqual([]);
  });
});

describe("messages", () => {
  it.each([
    [10_087_203, "1.008720x"],
    [14_999_999, "1.500000x"],
    [15_000_000, "1.5x"],
    [83_000_000, "8.3x"],
    [22_500_000, "2.2x"], // Go rounds exact ties to even
    [27_500_000, "2.8x"],
    [1_000_000_000, "100.0x"],
    [1_000_000_001, "more than 100x"],
    [2 ** 64, "more than 100x"],
  ])("cost %d is %s the limit", (cost, factor) => {
    expect(formatCostFactor(cost, STATIC_ESTIMATED_COST_LIMIT)).toBe(factor);
  });

  it("the per-schema total reports the most expensive rules and the total", () => {
    const total = new SchemaCostTotal();
    total.observe("properties[a].x-kubernetes-validations[0].rule", 60_000_000);
    total.observe("properties[b].x-kubernetes-validations[0].rule", 999_999); // under 1% of the limit: not listed
    total.observe("properties[c].x-kubernetes-validations[0].messageExpression", 45_000_000);
    expect(total.total).toBe(105_999_999);
    expect(total.issues()).toEqual([
      {
        path: "properties[a].x-kubernetes-validations[0].rule",
        message: "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
        severity: "error",
      },
      {
        path: "properties[c].x-kubernetes-validations[0].messageExpression",
        message: "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
        severity: "error",
      },
      {
        path: "",
        message: `Forbidden: ${costErrorMessage(
          "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
          105_999_999,
          100_000_000,
        )}`,
        severity: "error",
      },
    ]);
    expect(total.issues()[2]!.message).toContain("exceeds budget by factor of 1.060000x (try simplifying the rule");
    const small = new SchemaCostTotal();
    small.observe("r", 100_000_000);
    expect(small.issues()).toEqual([]);
  });
});
