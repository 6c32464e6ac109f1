import { describe, expect, it } from "vitest";
import {
  exponentDigits,
  formatFloatFixed,
  formatFloatShortestF,
  formatFloatShortestG,
  goQuote,
  goQuoteBytes,
} from "../../../../lib/go/strconv.js";

describe("goQuote (strconv.Quote)", () => {
  it.each([
    { input: "abc", want: '"abc"' },
    { input: "", want: '""' },
    { input: 'a"b\\c', want: '"a\\"b\\\\c"' },
    { input: "\n\t\r\u0007\b\f\v", want: '"\\n\\t\\r\\a\\b\\f\\v"' },
    { input: "\u0000\u001f\u007f", want: '"\\x00\\x1f\\x7f"' },
    { input: "é日本", want: '"é日本"' },
    { input: "\u0080\u00ad", want: '"\\u0080\\u00ad"' },
    { input: "\u2028", want: '"\\u2028"' },
    { input: "😀", want: '"😀"' },
    { input: "\u{e0001}", want: '"\\U000e0001"' },
    { input: " ", want: '" "' },
    { input: "\u00a0", want: '"\\u00a0"' },
    { input: "\ud800", want: '"�"' },
  ])("$input", ({ input, want }) => {
    expect(goQuote(input)).toBe(want);
  });

  it("quotes invalid UTF-8 bytes as \\x escapes", () => {
    expect(goQuoteBytes("%z\xc3")).toBe('"%z\\xc3"');
    expect(goQuoteBytes("\xff\xfe")).toBe('"\\xff\\xfe"');
    expect(goQuoteBytes("\xc3\xa9")).toBe('"é"');
  });
});

/** e to five decimals (a literal would trip biome's noApproximativeNumericConstant). */
const E5 = Number.parseFloat("2.71828");

describe("formatFloatShortestG (strconv 'g', -1)", () => {
  it.each([
    { x: 0, want: "0" },
    { x: -0, want: "-0" },
    { x: 1, want: "1" },
    { x: 56.8, want: "56.8" },
    { x: 100000, want: "100000" },
    { x: 1000000, want: "1e+06" },
    { x: 1234567, want: "1.234567e+06" },
    { x: 123456789, want: "1.23456789e+08" },
    { x: 0.0001, want: "0.0001" },
    { x: 0.00001, want: "1e-05" },
    { x: 1e21, want: "1e+21" },
    { x: 1e100, want: "1e+100" },
    { x: -2.5, want: "-2.5" },
    { x: 5e-324, want: "5e-324" },
    { x: Number.NaN, want: "NaN" },
    { x: Number.POSITIVE_INFINITY, want: "+Inf" },
    { x: Number.NEGATIVE_INFINITY, want: "-Inf" },
  ])("$x → $want", ({ x, want }) => {
    expect(formatFloatShortestG(x)).toBe(want);
  });
});

describe("formatFloatShortestF (strconv 'f', -1)", () => {
  it.each([
    { x: 6347, want: "6347" },
    { x: 1.5, want: "1.5" },
    { x: 1e-9, want: "0.000000001" },
    { x: 1e21, want: "1000000000000000000000" },
    { x: -0.25, want: "-0.25" },
  ])("$x → $want", ({ x, want }) => {
    expect(formatFloatShortestF(x)).toBe(want);
  });
});

describe("formatFloatFixed (strconv 'f', prec; half to even on the exact value)", () => {
  it.each([
    { x: 3.14, prec: 6, want: "3.140000" },
    { x: 1.2345, prec: 3, want: "1.234" },
    { x: 0.125, prec: 2, want: "0.12" },
    { x: 0.375, prec: 2, want: "0.38" },
    { x: 2.5, prec: 0, want: "2" },
    { x: 3.5, prec: 0, want: "4" },
    { x: -1.005, prec: 2, want: "-1.00" },
    { x: 1e21, prec: 1, want: "1000000000000000000000.0" },
    { x: 0, prec: 2, want: "0.00" },
    { x: 5e-324, prec: 3, want: "0.000" },
    { x: Number.NaN, prec: 2, want: "NaN" },
    { x: Number.NEGATIVE_INFINITY, prec: 2, want: "-Inf" },
  ])("$x with $prec → $want", ({ x, prec, want }) => {
    expect(formatFloatFixed(x, prec)).toBe(want);
  });
});

describe("exponentDigits (strconv 'e')", () => {
  it.each([
    { x: E5, prec: 6, want: { negative: false, digits: "2718280", exp: 0 } },
    { x: 1052.032911275, prec: 6, want: { negative: false, digits: "1052033", exp: 3 } },
    { x: 9.9999999, prec: 6, want: { negative: false, digits: "1000000", exp: 1 } },
    { x: -0.001, prec: 2, want: { negative: true, digits: "100", exp: -3 } },
    { x: 0, prec: 2, want: { negative: false, digits: "000", exp: 0 } },
  ])("$x", ({ x, prec, want }) => {
    expect(exponentDigits(x, prec)).toEqual(want);
  });
});
