/**
 * CEL library calls under fuzzed operand sizes (strings up to 150,000 code points, lists up to 5,000 elements, huge
 * ints): a rule is refused when the CRD is created (the static estimate) or evaluates to a verdict, a runtime error
 * or a cost-limit stop with the API server's texts, and never throws. Each property has a time budget: a call that
 * does more work than its charge allows (a quadratic search, a list made before it is charged) runs past it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PolicySet } from "../../lib/index.js";
import { widget, widgetBundle } from "../helpers/widget-crd.js";
import { runs, SEED, timeout } from "./budget.js";

/** Rules whose work depends on their operands' sizes, one library function (or two) each. */
const RULES = [
  "self.s.indexOf(self.t) >= -1",
  "self.s.lastIndexOf(self.t) >= -1",
  "self.s.indexOf(self.t, self.n) >= -1",
  "self.s.replace(self.t, 'xy').size() >= 0",
  "self.s.replace('', self.t).size() >= 0",
  "self.s.split(self.t).size() >= 0",
  "self.ls.join(self.t).size() >= 0",
  "self.s.matches('^(a|aa)*$')",
  "self.s.findAll('a+').size() >= 0",
  "self.s.find(self.t) == ''",
  "self.s.lowerAscii().upperAscii().trim().size() >= 0",
  "self.s.substring(self.n).size() >= 0",
  "self.s.charAt(self.n) != 'x'",
  "self.s + self.t != self.t + self.s",
  "self.s.contains(self.t) || self.s.startsWith(self.t)",
  "self.l.distinct().size() >= 0",
  "self.l.sort().size() >= 0",
  "self.ls.sort().size() >= 0",
  "self.ls.distinct().size() >= 0",
  "self.l.reverse().slice(0, 1).size() >= 0",
  "lists.range(self.n).size() >= 0",
  "sets.contains(self.l, self.l) && sets.intersects(self.l, self.l)",
  "sets.equivalent(self.ls, self.ls)",
  "self.l.all(x, self.l.exists(y, x == y))",
  "self.ls.all(x, self.s.contains(x))",
  "self.l.map(x, self.s + self.t).size() >= 0",
  "self.l.max() >= self.l.min()",
  "self.l.sum() >= 0",
  "self.l.indexOf(self.n) >= -1",
  "self.ls.lastIndexOf(self.t) >= -1",
  "self.ls.isSorted() || true",
  "self.l.filter(x, x % 2 == 0).size() <= self.l.size()",
  "isURL(self.s) || isQuantity(self.s) || isSemver(self.s) || isIP(self.s) || isCIDR(self.s)",
  "format.dns1123Subdomain().validate(self.s).hasValue() || true",
];

/** The texts a rule's evaluation may end with (the API server's). */
const OUTCOME =
  /^spec: Invalid value: (("object"|"string"): )?(failed rule: |'operation cancelled: actual cost limit exceeded': no further validation rules will be run|validation failed due to running out of cost budget|.* evaluating rule: |'no such overload': call arguments did not match)/;
/** The texts a CRD may be refused with because of a rule's estimated cost. */
const REFUSED =
  /^Forbidden: (estimated rule cost exceeds budget by factor of|contributed to estimated rule cost total exceeding cost limit|x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of)/;

function properties(bounded: boolean) {
  const str = bounded ? { type: "string", maxLength: 150_000 } : { type: "string" };
  const list = (items: Record<string, unknown>) => ({ type: "array", items, ...(bounded ? { maxItems: 5_000 } : {}) });
  return {
    s: str,
    t: str,
    n: { type: "integer" },
    l: list({ type: "integer" }),
    ls: list(bounded ? { type: "string", maxLength: 64 } : { type: "string" }),
  };
}

const bundles = new Map<string, Promise<PolicySet>>();

function bundleFor(rule: string, bounded: boolean): Promise<PolicySet> {
  const key = `${bounded}:${rule}`;
  let b = bundles.get(key);
  if (b === undefined) {
    b = widgetBundle(properties(bounded), [{ rule }]);
    bundles.set(key, b);
  }
  return b;
}

/** A long string made of a repeated unit (runs of one letter are the worst case of naive searches). */
const bigString = fc
  .record({
    unit: fc.constantFrom("a", "ab", "aab", "é", "😀", "a😀", "A b", ""),
    count: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 75_000 })),
    tail: fc.constantFrom("", "b", "a", "😀"),
  })
  .map(({ unit, count, tail }) => unit.repeat(count).slice(0, 150_000 - tail.length) + tail);

const bigList = fc
  .record({ length: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 5_000 })), mod: fc.nat(50) })
  .map(({ length, mod }) => Array.from({ length }, (_, i) => (mod === 0 ? i : i % mod)));

const spec = fc.record({
  s: bigString,
  t: bigString.map((t) => t.slice(0, 80_000)),
  n: fc.oneof(fc.integer({ min: -3, max: 200 }), fc.constantFrom(2_000_000_000, 30_000_000, 1_000_001)),
  l: bigList,
  ls: fc.array(fc.constantFrom("a", "b", "ab", "é", "zz"), { maxLength: 2_000 }),
});

describe("CEL library calls with fuzzed operand sizes", () => {
  it(
    "are refused by the estimate or end with the API server's outcome texts",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...RULES), fc.boolean(), spec, async (rule, bounded, s) => {
          const set = await bundleFor(rule, bounded);
          const refused = set.failures.filter((f) => f.severity === "error").map((f) => f.message);
          for (const m of refused) expect(m).toMatch(REFUSED);
          if (refused.length > 0) return;
          const v = set.validate({ operation: "CREATE", object: widget(s) });
          for (const e of v.errors) {
            if (e.field === "spec") expect(`${e.field}: ${e.message}`).toMatch(OUTCOME);
          }
        }),
        { numRuns: runs(60, 3_000), seed: SEED },
      );
    },
    timeout(60_000),
  );
});
