import { describe, expect, it } from "vitest";
import {
  compare,
  integer,
  isQuantityError,
  parseQuantity,
  type Rational,
  rationalText,
} from "../../../../lib/kubevirt/quantity.js";

function value(q: string | number | bigint): string {
  const r = parseQuantity(q);
  if (isQuantityError(r)) throw new Error(`unexpected error for ${String(q)}: ${r.error}`);
  return rationalText(r);
}

describe("parseQuantity: exact values as apimachinery keeps them", () => {
  it.each([
    // binary suffixes, including the fractions and sizes the real validator's AsInt64 refuses
    { quantity: "2Gi", bytes: "2147483648" },
    { quantity: "1536Mi", bytes: "1610612736" },
    { quantity: "1.5Gi", bytes: "1610612736" },
    { quantity: "0.5Gi", bytes: "536870912" },
    { quantity: "1024Ki", bytes: "1048576" },
    { quantity: "12345Gi", bytes: "13255342817280" },
    { quantity: "100000Gi", bytes: "107374182400000" },
    { quantity: "1Ei", bytes: "1152921504606846976" },
    // decimal SI and exponents: G is not Gi
    { quantity: "2G", bytes: "2000000000" },
    { quantity: "1.5G", bytes: "1500000000" },
    { quantity: "0.5G", bytes: "500000000" },
    { quantity: "512M", bytes: "512000000" },
    { quantity: "2e9", bytes: "2000000000" },
    { quantity: "2E3", bytes: "2000" },
    { quantity: "1E", bytes: "1000000000000000000" },
    { quantity: "1k", bytes: "1000" },
    // plain numbers, signs, odd but valid forms
    { quantity: "2147483648", bytes: "2147483648" },
    { quantity: "2147483648.0", bytes: "2147483648" },
    { quantity: "2147483648000m", bytes: "2147483648" },
    { quantity: " 1Gi ", bytes: "1073741824" },
    { quantity: "+1", bytes: "1" },
    { quantity: "-1Ki", bytes: "-1024" },
    { quantity: "0", bytes: "0" },
    { quantity: "-", bytes: "0" },
    { quantity: ".5", bytes: "0.5" },
    { quantity: "5.", bytes: "5" },
    { quantity: "007", bytes: "7" },
    // fractions of a unit: exact to the nano, rounded up beyond (apimachinery's rounding)
    { quantity: "500m", bytes: "0.5" },
    { quantity: "1n", bytes: "0.000000001" },
    { quantity: "0.1n", bytes: "0.000000001" },
    { quantity: "-0.1n", bytes: "-0.000000001" },
    { quantity: "1e-20", bytes: "0.000000001" },
    // binary-SI values are capped at 2^63 - 1; decimal ones are not (apimachinery caps BinarySI only: this module
    // once capped both, unlike Go)
    { quantity: "10Ei", bytes: "9223372036854775807" },
    { quantity: "10E", bytes: "10000000000000000000" },
    { quantity: "1e30", bytes: "1000000000000000000000000000000" },
  ])("$quantity = $bytes", ({ quantity, bytes }) => {
    expect(value(quantity)).toBe(bytes);
  });

  it.each([
    { json: 2147483648, bytes: "2147483648" },
    { json: 1.5, bytes: "1.5" },
    { json: 9007199254740993n, bytes: "9007199254740993" },
  ])("the JSON number $json = $bytes", ({ json, bytes }) => {
    expect(value(json)).toBe(bytes);
  });

  it.each([
    { quantity: "", error: "quantities must match" },
    { quantity: "   ", error: "quantities must match" },
    { quantity: "1GB", error: "quantities must match" },
    { quantity: "1Gi1", error: "unable to parse quantity's suffix" },
    { quantity: "abc", error: "quantities must match" },
    { quantity: "1.2.3", error: "quantities must match" },
    { quantity: "1e", error: "unable to parse quantity's suffix" },
    { quantity: "1 Gi", error: "quantities must match" },
    { quantity: "1".repeat(300), error: "longer than 256" },
  ])("$quantity is refused", ({ quantity, error }) => {
    const r = parseQuantity(quantity);
    expect(isQuantityError(r) ? r.error : "parsed").toContain(error);
  });
});

describe("compare", () => {
  const q = (s: string): Rational => parseQuantity(s) as Rational;
  it.each([
    { a: "2G", b: "2Gi", want: -1 },
    { a: "2048Mi", b: "2Gi", want: 0 },
    { a: "1.5Gi", b: "1536Mi", want: 0 },
    { a: "500m", b: "1", want: -1 },
    { a: "1001m", b: "1", want: 1 },
  ])("$a vs $b", ({ a, b, want }) => {
    expect(compare(q(a), q(b))).toBe(want);
  });

  it("compares with integers", () => {
    expect(compare(q("1610612736"), integer(1610612736n))).toBe(0);
    expect(compare(q("1610612735"), integer(1610612736n))).toBe(-1);
  });
});
