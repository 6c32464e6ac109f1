import { describe, expect, it } from "vitest";
import { LibraryError } from "../../../../../lib/cel/implementations/error.js";
import { isSemver, parseSemver } from "../../../../../lib/cel/implementations/semver.js";

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof LibraryError) return e.message;
    throw e;
  }
  throw new Error("expected a LibraryError");
}

describe("isSemver (upstream semver_test.go)", () => {
  it.each([
    { s: "1.2.3-beta.1+build.1", normalize: false, want: true },
    { s: "1.0.0", normalize: false, want: true },
    { s: "0.1.0-alpha.1", normalize: false, want: true },
    { s: "", normalize: false, want: false },
    { s: "v1.0.0", normalize: false, want: false },
    { s: " 1.0.0", normalize: false, want: false },
    { s: "1. 0.0", normalize: false, want: false },
    { s: "1.0.0 ", normalize: false, want: false },
    { s: "01.01.01", normalize: false, want: false },
    { s: "1", normalize: false, want: false },
    { s: "1.1", normalize: false, want: false },
    { s: "hello", normalize: false, want: false },
    { s: "", normalize: true, want: false },
    { s: " 1.0.0", normalize: true, want: false },
    { s: "1. 0.0", normalize: true, want: false },
    { s: "1.0.0 ", normalize: true, want: false },
    { s: "v1.0.0", normalize: true, want: true },
    { s: "01.01.01", normalize: true, want: true },
    { s: "1", normalize: true, want: true },
    { s: "1.1", normalize: true, want: true },
    { s: "vv1.0.0", normalize: true, want: false },
    { s: "1.0-alpha", normalize: true, want: false },
    { s: "1.0.00-alpha", normalize: true, want: true },
    { s: "1.0.0-01", normalize: false, want: false },
    { s: "1.0.0-0a", normalize: false, want: true },
    { s: "1.0.0-", normalize: false, want: false },
    { s: "1.0.0-a..b", normalize: false, want: false },
    { s: "1.0.0+", normalize: false, want: false },
    { s: "1.0.0+build.01", normalize: false, want: true },
    { s: "1.0.0-alpha-1", normalize: false, want: true },
    { s: "1.0.0-α", normalize: false, want: false },
  ])("isSemver('$s', $normalize) → $want", ({ s, normalize, want }) => {
    expect(isSemver(s, normalize)).toBe(want);
  });
});

describe("semver() errors (blang/semver texts)", () => {
  it.each([
    { s: "v1.0", normalize: false, error: "No Major.Minor.Patch elements found" },
    { s: "", normalize: false, error: "Version string empty" },
    { s: "v1.0.0", normalize: false, error: 'Invalid character(s) found in major number "v1"' },
    { s: "01.0.0", normalize: false, error: 'Major number must not contain leading zeroes "01"' },
    { s: "1.01.0", normalize: false, error: 'Minor number must not contain leading zeroes "01"' },
    { s: "1.0.01", normalize: false, error: 'Patch number must not contain leading zeroes "01"' },
    { s: "1.x.0", normalize: false, error: 'Invalid character(s) found in minor number "x"' },
    { s: "1.0.x", normalize: false, error: 'Invalid character(s) found in patch number "x"' },
    { s: ".0.0", normalize: false, error: 'strconv.ParseUint: parsing "": invalid syntax' },
    {
      s: "99999999999999999999.0.0",
      normalize: false,
      error: 'strconv.ParseUint: parsing "99999999999999999999": value out of range',
    },
    { s: "1.0.0-", normalize: false, error: "Prerelease is empty" },
    { s: "1.0.0-01", normalize: false, error: 'Numeric PreRelease version must not contain leading zeroes "01"' },
    { s: "1.0.0-a_b", normalize: false, error: 'Invalid character(s) found in prerelease "a_b"' },
    { s: "1.0.0+", normalize: false, error: "Build meta data is empty" },
    { s: "1.0.0+a_b", normalize: false, error: 'Invalid character(s) found in build meta data "a_b"' },
    { s: "1.0-alpha", normalize: true, error: "short version cannot contain PreRelease/Build meta data" },
    { s: "1+b", normalize: true, error: "short version cannot contain PreRelease/Build meta data" },
  ])("semver('$s', $normalize)", ({ s, normalize, error }) => {
    expect(errorOf(() => parseSemver(s, normalize))).toBe(error);
  });
});

describe("normalization", () => {
  it.each([
    { s: "v1.0.0", want: "1.0.0" },
    { s: "1.0", want: "1.0.0" },
    { s: "1", want: "1.0.0" },
    { s: "01.01.01", want: "1.1.1" },
    { s: "v01.01", want: "1.1.0" },
    { s: "1.0.00-alpha", want: "1.0.0-alpha" },
    { s: "1.0.010+build", want: "1.0.10+build" },
  ])("semver('$s', true) is $want", ({ s, want }) => {
    expect(parseSemver(s, true).toString()).toBe(want);
  });
});

describe("precedence (semver 2.0)", () => {
  it.each([
    { a: "1.2.3", b: "1.2.3", cmp: 0 },
    { a: "1.0.0", b: "1.2.3", cmp: -1 },
    { a: "1.2.3", b: "0.1.2", cmp: 1 },
    { a: "1.10.0", b: "1.9.0", cmp: 1 },
    { a: "1.0.0-alpha", b: "1.0.0", cmp: -1 },
    { a: "1.0.0-alpha", b: "1.0.0-alpha.1", cmp: -1 },
    { a: "1.0.0-alpha.1", b: "1.0.0-alpha.beta", cmp: -1 },
    { a: "1.0.0-alpha.beta", b: "1.0.0-beta", cmp: -1 },
    { a: "1.0.0-beta", b: "1.0.0-beta.2", cmp: -1 },
    { a: "1.0.0-beta.2", b: "1.0.0-beta.11", cmp: -1 },
    { a: "1.0.0-beta.11", b: "1.0.0-rc.1", cmp: -1 },
    { a: "1.0.0-rc.1", b: "1.0.0", cmp: -1 },
    { a: "1.0.0+build.1", b: "1.0.0+build.2", cmp: 0 },
    { a: "1.0.0-B", b: "1.0.0-a", cmp: -1 },
  ])("$a vs $b → $cmp", ({ a, b, cmp }) => {
    // Act
    const va = parseSemver(a);
    const vb = parseSemver(b);
    // Assess
    expect(va.compareTo(vb)).toBe(BigInt(cmp));
    expect(vb.compareTo(va)).toBe(BigInt(-cmp));
    expect(va.isGreaterThan(vb)).toBe(cmp === 1);
    expect(va.isLessThan(vb)).toBe(cmp === -1);
    expect(va.equals(vb)).toBe(cmp === 0);
  });

  it("equality across normalization (upstream equality_normalize)", () => {
    expect(parseSemver("v01.01", true).equals(parseSemver("1.1.0"))).toBe(true);
  });
});

describe("major / minor / patch", () => {
  it.each([
    { s: "1.2.3", major: 1n, minor: 2n, patch: 3n },
    { s: "18446744073709551615.9223372036854775808.0", major: -1n, minor: -9223372036854775808n, patch: 0n },
  ])("$s", ({ s, major, minor, patch }) => {
    // Act
    const v = parseSemver(s);
    // Assess
    expect([v.majorInt(), v.minorInt(), v.patchInt()]).toEqual([major, minor, patch]);
  });
});
