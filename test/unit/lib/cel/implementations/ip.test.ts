import { describe, expect, it } from "vitest";
import { LibraryError } from "../../../../../lib/cel/implementations/error.js";
import { ipIsCanonical, isIP, parseIP } from "../../../../../lib/cel/implementations/ip.js";

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof LibraryError) return e.message;
    throw e;
  }
  throw new Error("expected a LibraryError");
}

describe("ip() / isIP errors (upstream ip_test.go and netip)", () => {
  const P = "parse error during conversion from string: ";
  it.each([
    {
      input: "192.168.0.1.0",
      error: `IP Address "192.168.0.1.0" ${P}ParseAddr("192.168.0.1.0"): IPv4 address too long`,
    },
    {
      input: "2001:db8:::68",
      error: `IP Address "2001:db8:::68" ${P}ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")`,
    },
    {
      input: "010.1.1.1",
      error: `IP Address "010.1.1.1" ${P}ParseAddr("010.1.1.1"): IPv4 field has octet with leading zero`,
    },
    { input: "1.2.3.256", error: `IP Address "1.2.3.256" ${P}ParseAddr("1.2.3.256"): IPv4 field has value >255` },
    { input: "1.2.3", error: `IP Address "1.2.3" ${P}ParseAddr("1.2.3"): IPv4 address too short` },
    {
      input: "1..2.3",
      error: `IP Address "1..2.3" ${P}ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")`,
    },
    {
      input: "1.2.3.",
      error: `IP Address "1.2.3." ${P}ParseAddr("1.2.3."): IPv4 field must have at least one digit (at ".")`,
    },
    { input: "1.2.3.a", error: `IP Address "1.2.3.a" ${P}ParseAddr("1.2.3.a"): unexpected character (at "a")` },
    { input: "x", error: `IP Address "x" ${P}ParseAddr("x"): unable to parse IP` },
    { input: "", error: `IP Address "" ${P}ParseAddr(""): unable to parse IP` },
    { input: "%eth0", error: `IP Address "%eth0" ${P}ParseAddr("%eth0"): missing IPv6 address` },
    { input: "fe80::1%", error: `IP Address "fe80::1%" ${P}ParseAddr("fe80::1%"): zone must be a non-empty string` },
    {
      input: "1:2:3:4:5:6:7:8:9",
      error: `IP Address "1:2:3:4:5:6:7:8:9" ${P}ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9")`,
    },
    { input: "1:2:3", error: `IP Address "1:2:3" ${P}ParseAddr("1:2:3"): address string too short` },
    {
      input: "12345::",
      error: `IP Address "12345::" ${P}ParseAddr("12345::"): each group must have 4 or less digits (at "12345::")`,
    },
    { input: "1::2::3", error: `IP Address "1::2::3" ${P}ParseAddr("1::2::3"): multiple :: in address (at ":3")` },
    { input: "1:", error: `IP Address "1:" ${P}ParseAddr("1:"): colon must be followed by more characters (at ":")` },
    {
      input: "1:2:3:4:5:6:7::8",
      error: `IP Address "1:2:3:4:5:6:7::8" ${P}ParseAddr("1:2:3:4:5:6:7::8"): the :: must expand to at least one field of zeros`,
    },
    {
      input: "1:2:3:4:5:6:7:8::",
      error: `IP Address "1:2:3:4:5:6:7:8::" ${P}ParseAddr("1:2:3:4:5:6:7:8::"): the :: must expand to at least one field of zeros`,
    },
    {
      input: "1:2:3:4:1.2.3.4",
      error: `IP Address "1:2:3:4:1.2.3.4" ${P}ParseAddr("1:2:3:4:1.2.3.4"): embedded IPv4 address must replace the final 2 fields of the address (at "1.2.3.4")`,
    },
    {
      input: "::1.2.3.04",
      error: `IP Address "::1.2.3.04" ${P}ParseAddr("::1.2.3.04"): IPv4 field has octet with leading zero`,
    },
    {
      input: "1:2:g::",
      error: `IP Address "1:2:g::" ${P}ParseAddr("1:2:g::"): each colon-separated field must have at least one digit (at "g::")`,
    },
    {
      input: "1:2:3x::",
      error: `IP Address "1:2:3x::" ${P}ParseAddr("1:2:3x::"): unexpected character, want colon (at "x::")`,
    },
    { input: "fe80::1%eth0", error: 'IP address "fe80::1%eth0" with zone value is not allowed' },
    { input: "::ffff:1.2.3.4", error: 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed' },
    { input: "::ffff:102:304", error: 'IPv4-mapped IPv6 address "::ffff:102:304" is not allowed' },
  ])("$input", ({ input, error }) => {
    expect(errorOf(() => parseIP(input))).toBe(error);
    expect(isIP(input)).toBe(false);
  });
});

describe("ip() accepted forms", () => {
  it.each([
    { input: "192.168.0.1", string: "192.168.0.1", family: 4n },
    { input: "0.0.0.0", string: "0.0.0.0", family: 4n },
    { input: "2001:db8::68", string: "2001:db8::68", family: 6n },
    { input: "2001:DB8::68", string: "2001:db8::68", family: 6n },
    { input: "2001:db8:0:0:0:0:0:1", string: "2001:db8::1", family: 6n },
    { input: "2001:0db8::0001", string: "2001:db8::1", family: 6n },
    { input: "::", string: "::", family: 6n },
    { input: "::1", string: "::1", family: 6n },
    { input: "1::", string: "1::", family: 6n },
    { input: "1:0:0:2:0:0:0:3", string: "1:0:0:2::3", family: 6n },
    { input: "1:0:0:2:0:0:3:4", string: "1::2:0:0:3:4", family: 6n },
    { input: "1:0:2:3:4:5:6:7", string: "1:0:2:3:4:5:6:7", family: 6n },
    { input: "::1.2.3.4", string: "::102:304", family: 6n },
    { input: "64:ff9b::1.2.3.4", string: "64:ff9b::102:304", family: 6n },
  ])("$input → $string", ({ input, string, family }) => {
    // Act
    const ip = parseIP(input);
    // Assess
    expect(isIP(input)).toBe(true);
    expect(ip.toString()).toBe(string);
    expect(ip.family()).toBe(family);
  });

  it("compares by address", () => {
    expect(parseIP("2001:db8:0:0:0:0:0:1").equals(parseIP("2001:db8::1"))).toBe(true);
    expect(parseIP("10.0.0.1").equals(parseIP("10.0.0.2"))).toBe(false);
    expect(parseIP("::").equals(parseIP("0.0.0.0"))).toBe(false);
  });
});

describe("ip.isCanonical", () => {
  it.each([
    { input: "127.0.0.1", want: true },
    { input: "2001:db8::68", want: true },
    { input: "2001:DB8::68", want: false },
    { input: "2001:db8:0:0:0:0:0:68", want: false },
    { input: "::ffff", want: true },
  ])("$input → $want", ({ input, want }) => {
    expect(ipIsCanonical(input)).toBe(want);
  });

  it("throws the ip() error on an invalid address", () => {
    expect(errorOf(() => ipIsCanonical("127.0.0.1.0"))).toBe(
      'IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too long',
    );
  });
});

describe("classification (Go netip)", () => {
  it.each([
    { input: "0.0.0.0", unspecified: true, loopback: false, llm: false, llu: false, global: false },
    { input: "127.0.0.1", unspecified: false, loopback: true, llm: false, llu: false, global: false },
    { input: "127.255.0.9", unspecified: false, loopback: true, llm: false, llu: false, global: false },
    { input: "224.0.0.1", unspecified: false, loopback: false, llm: true, llu: false, global: false },
    { input: "224.0.1.1", unspecified: false, loopback: false, llm: false, llu: false, global: false },
    { input: "169.254.169.254", unspecified: false, loopback: false, llm: false, llu: true, global: false },
    { input: "192.168.0.1", unspecified: false, loopback: false, llm: false, llu: false, global: true },
    { input: "10.0.0.1", unspecified: false, loopback: false, llm: false, llu: false, global: true },
    { input: "255.255.255.255", unspecified: false, loopback: false, llm: false, llu: false, global: false },
    { input: "::", unspecified: true, loopback: false, llm: false, llu: false, global: false },
    { input: "::1", unspecified: false, loopback: true, llm: false, llu: false, global: false },
    { input: "ff02::1", unspecified: false, loopback: false, llm: true, llu: false, global: false },
    { input: "ff12::1", unspecified: false, loopback: false, llm: true, llu: false, global: false },
    { input: "fd00::1", unspecified: false, loopback: false, llm: false, llu: false, global: true },
    { input: "fe80::1", unspecified: false, loopback: false, llm: false, llu: true, global: false },
    { input: "febf::1", unspecified: false, loopback: false, llm: false, llu: true, global: false },
    { input: "fec0::1", unspecified: false, loopback: false, llm: false, llu: false, global: true },
    { input: "fd80::1", unspecified: false, loopback: false, llm: false, llu: false, global: true },
    { input: "2001:db8::abcd", unspecified: false, loopback: false, llm: false, llu: false, global: true },
    { input: "ff00::1", unspecified: false, loopback: false, llm: false, llu: false, global: false },
  ])("$input", ({ input, unspecified, loopback, llm, llu, global }) => {
    // Act
    const ip = parseIP(input);
    // Assess
    expect({
      unspecified: ip.isUnspecified(),
      loopback: ip.isLoopback(),
      llm: ip.isLinkLocalMulticast(),
      llu: ip.isLinkLocalUnicast(),
      global: ip.isGlobalUnicast(),
    }).toEqual({ unspecified, loopback, llm, llu, global });
  });
});
