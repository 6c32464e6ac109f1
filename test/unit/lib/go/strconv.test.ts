import { describe, expect, it } from "vitest";
import {
  exponentDigits,
  formatFloatFixed,
  formatFloatShortestF,
  formatFloatShortestG,
  goQuote,
  goQuoteBytes,
  parseBool,
  parseFloat64,
  parseInt64,
  parseUint64,
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
    { input: "~ }{ [] then a tab\t", want: '"~ }{ [] then a tab\\t"' },
    { input: "\u00a0", want: '"\\u00a0"' },
    { input: "\ud800", want: '"�"' },
  ])("$input", ({ input, want }) => {
    expect(goQuote(input)).toBe(want);
  });

  it("quotes a long input whose one escape comes last", () => {
    const long = "a".repeat(100_000);
    expect(goQuote(`${long}"`)).toBe(`"${long}\\""`);
    expect(goQuote(long)).toBe(`"${long}"`);
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

describe("parseInt64 / parseUint64 (strconv.ParseInt, ParseUint with base 10)", () => {
  it.each([
    { input: "42", int: 42n, uint: 42n },
    { input: "+5", int: 5n, uint: undefined },
    { input: "-5", int: -5n, uint: undefined },
    { input: "007", int: 7n, uint: 7n },
    { input: "9223372036854775807", int: 9223372036854775807n, uint: 9223372036854775807n },
    { input: "9223372036854775808", int: undefined, uint: 9223372036854775808n },
    { input: "-9223372036854775808", int: -9223372036854775808n, uint: undefined },
    { input: "18446744073709551616", int: undefined, uint: undefined },
    { input: "", int: undefined, uint: undefined },
    { input: " 5", int: undefined, uint: undefined },
    { input: "1_000", int: undefined, uint: undefined },
    { input: "0x10", int: undefined, uint: undefined },
    { input: "1e3", int: undefined, uint: undefined },
  ])("$input", ({ input, int, uint }) => {
    expect(parseInt64(input)).toBe(int);
    expect(parseUint64(input)).toBe(uint);
  });
});

describe("parseBool (strconv.ParseBool)", () => {
  it.each(["1", "t", "T", "TRUE", "true", "True"])("%s is true", (s) => expect(parseBool(s)).toBe(true));
  it.each(["0", "f", "F", "FALSE", "false", "False"])("%s is false", (s) => expect(parseBool(s)).toBe(false));
  it.each(["", "yes", "tRUE", "on", " true"])("%s does not parse", (s) => expect(parseBool(s)).toBeUndefined());
});

describe("parseFloat64 (strconv.ParseFloat with bitSize 64)", () => {
  it.each([
    { input: "1.5", want: 1.5 },
    { input: ".5", want: 0.5 },
    { input: "5.", want: 5 },
    { input: "1e3", want: 1000 },
    { input: "1_000.5", want: 1000.5 },
    { input: "1e5_0", want: 1e50 },
    { input: "0x1p-2", want: 0.25 },
    { input: "0X1.8P1", want: 3 },
    { input: "0x_1p0", want: 1 },
    { input: "0x.8p1", want: 1 },
    { input: "0x1p-1074", want: 5e-324 },
    { input: "0x1p-1075", want: 0 },
    { input: "0x1.fffffffffffff7p1023", want: 1.7976931348623157e308 },
    { input: "1e-400", want: 0 },
    { input: "inf", want: Number.POSITIVE_INFINITY },
    { input: "-Infinity", want: Number.NEGATIVE_INFINITY },
    { input: "+INF", want: Number.POSITIVE_INFINITY },
  ])("$input is $want", ({ input, want }) => {
    expect(parseFloat64(input)).toBe(want);
  });

  it("reads NaN", () => expect(parseFloat64("NaN")).toBeNaN());

  it.each([
    { input: "", why: "empty" },
    { input: " 1", why: "space" },
    { input: "1e", why: "exponent without digits" },
    { input: ".", why: "no digits" },
    { input: "1__0", why: "two underscores" },
    { input: "_1", why: "leading underscore" },
    { input: "1_", why: "trailing underscore" },
    { input: "0x10", why: "hexadecimal without a p exponent" },
    { input: "0b1", why: "binary" },
    { input: "+nan", why: "signed NaN" },
    { input: "infin", why: "a prefix of infinity" },
    { input: "1e400", why: "overflow (ErrRange)" },
    { input: "0x1p1024", why: "hexadecimal overflow" },
    { input: "0x1.fffffffffffff8p1023", why: "rounds up to overflow" },
  ])("$input does not parse ($why)", ({ input }) => {
    expect(parseFloat64(input)).toBeUndefined();
  });
});
