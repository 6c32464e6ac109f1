import { describe, expect, it } from "vitest";
import {
  ERR_FORMAT_WRONG,
  ERR_NUMERIC,
  ERR_SUFFIX,
  goPow10,
  isQuantity,
  parseQuantity,
  Quantity,
  QuantityError,
  quantitySign,
} from "../../../../lib/objects/quantity.js";

const q = (s: string): Quantity => parseQuantity(s);

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof QuantityError) return e.message;
    throw e;
  }
  throw new Error("expected a QuantityError");
}

describe("parseQuantity: values (apimachinery TestQuantityParse)", () => {
  it.each([
    { input: "0", equals: "0", format: "DecimalSI" },
    { input: "0n", equals: "0", format: "DecimalSI" },
    { input: "0Ki", equals: "0", format: "BinarySI" },
    { input: "0Mi", equals: "0", format: "BinarySI" },
    { input: "1", equals: "1", format: "DecimalSI" },
    { input: "1Ki", equals: "1024", format: "BinarySI" },
    { input: "8Ki", equals: "8192", format: "BinarySI" },
    { input: "7Mi", equals: "7340032", format: "BinarySI" },
    { input: "6Gi", equals: "6442450944", format: "BinarySI" },
    { input: "5Ti", equals: "5497558138880", format: "BinarySI" },
    { input: "4Pi", equals: "4503599627370496", format: "BinarySI" },
    { input: "3Ei", equals: "3458764513820540928", format: "BinarySI" },
    { input: "5n", equals: "0.000000005", format: "DecimalSI" },
    { input: "4u", equals: "0.000004", format: "DecimalSI" },
    { input: "3m", equals: "0.003", format: "DecimalSI" },
    { input: "8k", equals: "8000", format: "DecimalSI" },
    { input: "7M", equals: "7000000", format: "DecimalSI" },
    { input: "6G", equals: "6000000000", format: "DecimalSI" },
    { input: "5T", equals: "5000000000000", format: "DecimalSI" },
    { input: "2P", equals: "2000000000000000", format: "DecimalSI" },
    { input: "1E", equals: "1000000000000000000", format: "DecimalSI" },
    { input: "1E-3", equals: "0.001", format: "DecimalExponent" },
    { input: "1e3", equals: "1000", format: "DecimalExponent" },
    { input: "1E6", equals: "1000000", format: "DecimalExponent" },
    { input: "12e6", equals: "12000000", format: "DecimalExponent" },
    { input: "100.035k", equals: "100035", format: "DecimalSI" },
    { input: "0.001", equals: "1m", format: "DecimalSI" },
    { input: "0.0005k", equals: "0.5", format: "DecimalSI" },
    { input: "0.5e-1", equals: "0.05", format: "DecimalExponent" },
    { input: "1.3E+6", equals: "1300000", format: "DecimalExponent" },
    { input: "1.01E", equals: "1010000000000000000", format: "DecimalSI" },
    { input: "3.001n", equals: "4n", format: "DecimalSI" },
    { input: "1.1E-9", equals: "2n", format: "DecimalExponent" },
    { input: "0.0000000001", equals: "1n", format: "DecimalSI" },
    { input: "0.9n", equals: "1n", format: "DecimalSI" },
    { input: "0.00000012345", equals: "124n", format: "DecimalSI" },
    { input: "9Ei", equals: "9223372036854775807", format: "BinarySI" },
    { input: "9223372036854775807Ki", equals: "9223372036854775807", format: "BinarySI" },
    { input: "100.035Ki", equals: "102435.84", format: "BinarySI" },
    { input: "0.5Mi", equals: "524288", format: "BinarySI" },
    { input: "0.000000000001Ki", equals: "2n", format: "DecimalSI" },
    { input: ".001", equals: "1m", format: "DecimalSI" },
    { input: "1.", equals: "1", format: "DecimalSI" },
    { input: "1.G", equals: "1G", format: "DecimalSI" },
    { input: "-1.025Ti", equals: "-1126999418470.4", format: "BinarySI" },
    { input: "+5k", equals: "5000", format: "DecimalSI" },
    { input: ".", equals: "0", format: "DecimalSI" },
    { input: "-", equals: "0", format: "DecimalSI" },
    { input: "-000", equals: "0", format: "DecimalSI" },
  ])("$input == $equals ($format)", ({ input, equals, format }) => {
    // Act
    const got = q(input);
    // Assess
    expect(got.equals(q(equals))).toBe(true);
    expect(got.format).toBe(format);
  });
});

describe("parseQuantity: errors", () => {
  it.each([
    { input: "", error: ERR_FORMAT_WRONG },
    { input: "10Mo", error: ERR_FORMAT_WRONG },
    { input: "10Mm", error: ERR_SUFFIX },
    { input: "200K", error: ERR_SUFFIX },
    { input: "Three", error: ERR_FORMAT_WRONG },
    { input: "1,3G", error: ERR_FORMAT_WRONG },
    { input: "1.1.M", error: ERR_FORMAT_WRONG },
    { input: "1+1.0M", error: ERR_FORMAT_WRONG },
    { input: "0.1mi", error: ERR_SUFFIX },
    { input: "0.1am", error: ERR_FORMAT_WRONG },
    { input: "aoeu", error: ERR_FORMAT_WRONG },
    { input: ".5i", error: ERR_SUFFIX },
    { input: "1i", error: ERR_SUFFIX },
    { input: "-3.01i", error: ERR_SUFFIX },
    { input: "-3.01e-", error: ERR_SUFFIX },
    { input: "1e", error: ERR_SUFFIX },
    { input: "1e99999999999999999999", error: ERR_SUFFIX },
    { input: " 1", error: ERR_FORMAT_WRONG },
    { input: "1 ", error: ERR_FORMAT_WRONG },
    { input: ".e-10", error: ERR_NUMERIC },
  ])("$input → $error", ({ input, error }) => {
    expect(errorOf(() => q(input))).toBe(error);
    expect(isQuantity(input)).toBe(false);
  });

  it("prints the regular expression as Kubernetes does", () => {
    expect(ERR_FORMAT_WRONG).toBe(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  });
});

describe("isQuantity (library doc examples)", () => {
  it.each([
    { input: "1.3G", want: true },
    { input: "1.3Gi", want: true },
    { input: "1,3G", want: false },
    { input: "10000k", want: true },
    { input: "200K", want: false },
    { input: "Three", want: false },
    // The library doc says false, but ParseQuantity accepts a bare suffix as 0 (apimachinery#165).
    { input: "Mi", want: true },
    { input: "k", want: true },
    { input: "20", want: true },
    { input: "20M", want: true },
    { input: "20Mo", want: false },
  ])("$input → $want", ({ input, want }) => {
    expect(isQuantity(input)).toBe(want);
  });
});

describe("comparison and equality (library tests)", () => {
  it.each([
    { a: "200M", b: "200M", cmp: 0 },
    { a: "200M", b: "0.2G", cmp: 0 },
    { a: "2M", b: "0.002G", cmp: 0 },
    { a: "2000k", b: "2M", cmp: 0 },
    { a: "1Gi", b: "1024Mi", cmp: 0 },
    { a: "200M", b: "0.3G", cmp: -1 },
    { a: "50M", b: "50Mi", cmp: -1 },
    { a: "50Mi", b: "50M", cmp: 1 },
    { a: "150Mi", b: "100Mi", cmp: 1 },
    { a: "100m", b: "50m", cmp: 1 },
    { a: "10000T", b: "100Gi", cmp: 1 },
    { a: "-1", b: "1n", cmp: -1 },
    { a: "9999999999999999999999999999999999999G", b: "1e45", cmp: 1 },
    { a: "1e2000000000", b: "1", cmp: 1 },
    { a: "1e-2000000000", b: "1n", cmp: 0 },
    { a: "Mi", b: "0", cmp: 0 },
    { a: "0.5Ki", b: "512", cmp: 0 },
  ])("$a vs $b → $cmp", ({ a, b, cmp }) => {
    // Act
    const qa = q(a);
    const qb = q(b);
    // Assess
    expect(qa.compareTo(qb)).toBe(BigInt(cmp));
    expect(qb.compareTo(qa)).toBe(BigInt(-cmp));
    expect(qa.equals(qb)).toBe(cmp === 0);
    expect(qa.isGreaterThan(qb)).toBe(cmp === 1);
    expect(qa.isLessThan(qb)).toBe(cmp === -1);
  });
});

describe("arithmetic (library tests)", () => {
  it.each([
    { name: "add quantity", got: () => q("50k").add(q("20")), want: "50.02k" },
    { name: "add int", got: () => q("50k").add(20n), want: "50020" },
    { name: "sub quantity", got: () => q("50k").sub(q("20")), want: "49.98k" },
    { name: "sub int", got: () => q("50k").sub(20n), want: "49980" },
    { name: "sub to negative", got: () => q("50k").add(20n).sub(q("100k")), want: "-49980" },
    { name: "chain", got: () => q("50k").add(20n).sub(q("100k")).sub(-50000n), want: "20" },
    { name: "dec + int", got: () => q("0.5Ki").add(q("1")), want: "513" },
    { name: "overflow to dec", got: () => q("9223372036854775807").add(1n), want: "9223372036854775808" },
    { name: "sub min int", got: () => q("0").sub(-9223372036854775808n), want: "9223372036854775808" },
    { name: "mixed scales", got: () => q("1m").add(q("1G")), want: "1000000000.001" },
  ])("$name", ({ got, want }) => {
    expect(got().equals(q(want))).toBe(true);
  });

  it("keeps int64 representation when it can (asInteger works after arithmetic)", () => {
    expect(q("50k").add(20n).sub(q("100k")).asInteger()).toBe(-49980n);
    expect(q("50k").add(20n).sub(q("100k")).sub(-50000n).asInteger()).toBe(20n);
  });

  it("throws instead of building an astronomically large alignment", () => {
    expect(() => q("1e2000000000").add(q("1"))).toThrow(QuantityError);
  });
});

describe("isInteger / asInteger (AsInt64 semantics)", () => {
  it.each([
    { input: "50", integer: true, value: 50n },
    { input: "50k", integer: true, value: 50000n },
    { input: "1.5k", integer: true, value: 1500n },
    { input: "50000000G", integer: true, value: 50000000000000000n },
    { input: "1Gi", integer: true, value: 1073741824n },
    { input: "-2Ki", integer: true, value: -2048n },
    { input: "0", integer: true, value: 0n },
    { input: "1.0", integer: false, value: undefined },
    { input: "1000m", integer: false, value: undefined },
    { input: "0.5Ki", integer: false, value: undefined },
    { input: "0.5", integer: false, value: undefined },
    { input: "9999999999999999999999999999999999999G", integer: false, value: undefined },
    { input: "9223372036854775807", integer: false, value: undefined },
    { input: "922337203685477580", integer: true, value: 922337203685477580n },
    { input: "10e18", integer: false, value: undefined },
    { input: "9e18", integer: true, value: 9000000000000000000n },
    { input: "8Ei", integer: false, value: undefined },
  ])("$input → $integer", ({ input, integer, value }) => {
    // Act
    const got = q(input);
    // Assess
    expect(got.isInteger()).toBe(integer);
    if (value === undefined) expect(errorOf(() => got.asInteger())).toBe("cannot convert value to integer");
    else expect(got.asInteger()).toBe(value);
  });
});

describe("asApproximateFloat (AsApproximateFloat64 with math.Pow10)", () => {
  it.each([
    { input: "50.703k", want: 50703 },
    { input: "1.5", want: 1.5 },
    { input: "1Gi", want: 1073741824 },
    { input: "100m", want: 0.1 },
    { input: "1n", want: 1e-9 },
    { input: "-2.5M", want: -2500000 },
    { input: "1e308", want: 1e308 },
    { input: "1e309", want: Number.POSITIVE_INFINITY },
    { input: "1e-400", want: 1e-9 },
    { input: "0.5Ki", want: 512 },
  ])("$input → $want", ({ input, want }) => {
    expect(q(input).asApproximateFloat()).toBe(want);
  });

  it("sub then float (library doc example)", () => {
    expect(q("50k").sub(20000n).asApproximateFloat()).toBe(30000);
  });
});

describe("sign", () => {
  it.each([
    { input: "5", want: 1n },
    { input: "-5m", want: -1n },
    { input: "0", want: 0n },
    { input: "-0", want: 0n },
    { input: "0.5Ki", want: 1n },
    { input: "-1e-400", want: -1n },
  ])("sign($input) → $want", ({ input, want }) => {
    expect(quantitySign(q(input))).toBe(want);
  });
});

describe("toString (apimachinery TestQuantityParseEmit / canonical form)", () => {
  it.each([
    { input: "1Ki", want: "1Ki" },
    { input: "1Mi", want: "1Mi" },
    { input: "1024Mi", want: "1Gi" },
    { input: "1000M", want: "1G" },
    { input: ".001Ki", want: "1024m" },
    { input: ".000001Ki", want: "1024u" },
    { input: ".000000001Ki", want: "1024n" },
    { input: ".000000000001Ki", want: "2n" },
    { input: "1.5", want: "1500m" },
    { input: "1.5Gi", want: "1536Mi" },
    { input: "12e6", want: "12e6" },
    { input: "1080m", want: "1080m" },
    { input: "1.08", want: "1080m" },
    { input: "0.001e12", want: "1e9" },
    { input: "1000E", want: "1e21" },
    { input: "5", want: "5" },
    { input: "-1Ki", want: "-1Ki" },
    { input: "0", want: "0" },
  ])("$input → $want", ({ input, want }) => {
    expect(q(input).toString()).toBe(want);
  });
});

describe("Quantity.fromInt", () => {
  it("uses DecimalExponent like resource.NewQuantity(i, DecimalExponent)", () => {
    const got = Quantity.fromInt(1000000n);
    expect(got.format).toBe("DecimalExponent");
    expect(got.toString()).toBe("1e6");
    expect(got.asInteger()).toBe(1000000n);
  });
});

describe("goPow10 (Go math.Pow10 tables)", () => {
  it.each([
    { n: 0, want: 1 },
    { n: 3, want: 1000 },
    { n: -9, want: 1e-9 },
    { n: 308, want: 1e308 },
    { n: 309, want: Number.POSITIVE_INFINITY },
    { n: -323, want: 1e-323 },
    { n: -324, want: 0 },
  ])("10^$n", ({ n, want }) => {
    expect(goPow10(n)).toBe(want);
  });
});
