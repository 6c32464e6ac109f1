/**
 * The shortcuts of lib/cel/cost/value-size.ts that skip counting code points must charge what counting them gives:
 * `ceil(size × 0.1)` of a value and of a concatenation, on strings with and without surrogate pairs, lone
 * surrogates, and values that are not strings.
 */
import { describe, expect, it } from "vitest";
import { STRING_TRAVERSAL } from "../../../../lib/cel/cost/range.js";
import {
  actualSize,
  ceilFactor,
  comparisonCharge,
  concatenationTraversal,
  runeCount,
  sizeTraversal,
} from "../../../../lib/cel/cost/value-size.js";

const pieces = ["", "a", "é", "😀", "\ud800", "\udc00", "abcdefghij", "😀😀😀😀😀", "x😀y"];
const strings: string[] = [];
for (const a of pieces) for (const b of pieces) for (const c of pieces) strings.push(a + b + c);

describe("runeCount", () => {
  it("is the number of code points (a lone surrogate is one), short and long strings, asked again and alternately", () => {
    const long = strings
      .map((s) => s.repeat(6))
      .concat(["x".repeat(5000), `${"x".repeat(4999)}😀`, "😀".repeat(40), "x".repeat(80), "😀".repeat(40)]);
    const all = [...strings, ...long, ...long.map((s) => `${s}\ud800`)];
    const wrong: string[] = [];
    for (let round = 0; round < 2; round++) {
      for (const s of all) {
        // Twice in a row, then the next string of the same length (the last long string is remembered).
        if (runeCount(s) !== [...s].length || runeCount(s) !== [...s].length) wrong.push(JSON.stringify(s));
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("traversal charges without counting", () => {
  it("sizeTraversal is ceil(size × 0.1) of any value", () => {
    for (const v of [...strings, [1, 2, 3], new Uint8Array(25), 7n, null]) {
      expect(sizeTraversal(v), String(v)).toBe(ceilFactor(actualSize(v), STRING_TRAVERSAL));
    }
  });

  it("concatenationTraversal is ceil((size(a) + size(b)) × 0.1)", () => {
    for (const a of strings) {
      for (const b of pieces) {
        expect(concatenationTraversal(a, b), `${JSON.stringify(a)} + ${JSON.stringify(b)}`).toBe(
          ceilFactor(actualSize(a) + actualSize(b), STRING_TRAVERSAL),
        );
      }
    }
    const bytes = new Uint8Array(12);
    expect(concatenationTraversal(bytes, bytes)).toBe(3);
  });

  it("comparisonCharge is ceil(min(size(a), size(b)) × 0.1)", () => {
    const longer = [...strings, "x".repeat(25), "😀".repeat(12), `${"é".repeat(30)}\ud800`];
    const wrong: string[] = [];
    for (const a of longer) {
      for (const b of longer) {
        const want = ceilFactor(Math.min(actualSize(a), actualSize(b)), STRING_TRAVERSAL);
        if (comparisonCharge(a, b) !== want) wrong.push(`${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
