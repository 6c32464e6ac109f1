import { describe, expect, it } from "vitest";
import {
  exponentDigits,
  formatFloatFixed,
  formatFloatShortestF,
  formatFloatShortestG,
  groupThousands,
} from "../../../../../lib/cel/implementations/go-float.js";

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

describe("groupThousands", () => {
  it.each([
    { s: "1234567.891", want: "1,234,567.891" },
    { s: "-1234", want: "-1,234" },
    { s: "123", want: "123" },
    { s: "0.5", want: "0.5" },
  ])("$s", ({ s, want }) => {
    expect(groupThousands(s)).toBe(want);
  });
});
