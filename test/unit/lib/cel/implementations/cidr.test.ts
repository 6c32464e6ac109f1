import { describe, expect, it } from "vitest";
import { isCIDR, parseCIDR } from "../../../../../lib/cel/implementations/cidr.js";
import { LibraryError } from "../../../../../lib/cel/implementations/error.js";
import { parseIP } from "../../../../../lib/cel/implementations/ip.js";

function thrown(fn: () => unknown): LibraryError {
  try {
    fn();
  } catch (e) {
    if (e instanceof LibraryError) return e;
    throw e;
  }
  throw new Error("expected a LibraryError");
}

const P = "network address parse error during conversion from string: ";

describe("cidr() / isCIDR errors (upstream cidr_test.go and netip.ParsePrefix)", () => {
  it.each([
    { input: "192.168.0.0/", error: `${P}${P}netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""` },
    { input: "2001:db8::/", error: `${P}${P}netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""` },
    { input: "192.168.0.0", error: `${P}${P}netip.ParsePrefix("192.168.0.0"): no '/'` },
    { input: "192.168.0.0/33", error: `${P}${P}netip.ParsePrefix("192.168.0.0/33"): prefix length out of range` },
    { input: "::1/129", error: `${P}${P}netip.ParsePrefix("::1/129"): prefix length out of range` },
    { input: "10.0.0.0/08", error: `${P}${P}netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08"` },
    { input: "10.0.0.0/+8", error: `${P}${P}netip.ParsePrefix("10.0.0.0/+8"): bad bits after slash: "+8"` },
    { input: "10.0.0.0/-1", error: `${P}${P}netip.ParsePrefix("10.0.0.0/-1"): bad bits after slash: "-1"` },
    {
      input: "10.0.0.0/99999999999999999999",
      error: `${P}${P}netip.ParsePrefix("10.0.0.0/99999999999999999999"): bad bits after slash: "99999999999999999999"`,
    },
    {
      input: "10.0.0.0/999999999999999999",
      error: `${P}${P}netip.ParsePrefix("10.0.0.0/999999999999999999"): prefix length out of range`,
    },
    {
      input: "010.0.0.0/8",
      error: `${P}${P}netip.ParsePrefix("010.0.0.0/8"): ParseAddr("010.0.0.0"): IPv4 field has octet with leading zero`,
    },
    {
      input: "fe80::1%eth0/64",
      error: `${P}${P}netip.ParsePrefix("fe80::1%eth0/64"): IPv6 zones cannot be present in a prefix`,
    },
    { input: "::ffff:1.2.3.4/120", error: `${P}IPv4-mapped IPv6 address "::ffff:1.2.3.4/120" is not allowed` },
  ])("$input", ({ input, error }) => {
    expect(thrown(() => parseCIDR(input)).message).toBe(error);
    expect(isCIDR(input)).toBe(false);
  });
});

describe("cidr() accepted forms", () => {
  it.each([
    { input: "192.168.0.0/24", string: "192.168.0.0/24", ip: "192.168.0.0", masked: "192.168.0.0/24", bits: 24n },
    { input: "10.0.0.5/8", string: "10.0.0.5/8", ip: "10.0.0.5", masked: "10.0.0.0/8", bits: 8n },
    { input: "0.0.0.0/0", string: "0.0.0.0/0", ip: "0.0.0.0", masked: "0.0.0.0/0", bits: 0n },
    { input: "1.2.3.4/32", string: "1.2.3.4/32", ip: "1.2.3.4", masked: "1.2.3.4/32", bits: 32n },
    { input: "2001:db8::/32", string: "2001:db8::/32", ip: "2001:db8::", masked: "2001:db8::/32", bits: 32n },
    { input: "2001:db8:1::/32", string: "2001:db8:1::/32", ip: "2001:db8:1::", masked: "2001:db8::/32", bits: 32n },
    { input: "2001:DB8::1/127", string: "2001:db8::1/127", ip: "2001:db8::1", masked: "2001:db8::/127", bits: 127n },
    { input: "::1/128", string: "::1/128", ip: "::1", masked: "::1/128", bits: 128n },
    {
      input: "fd00:10:96::/108",
      string: "fd00:10:96::/108",
      ip: "fd00:10:96::",
      masked: "fd00:10:96::/108",
      bits: 108n,
    },
    { input: "1.2.3.255/29", string: "1.2.3.255/29", ip: "1.2.3.255", masked: "1.2.3.248/29", bits: 29n },
  ])("$input", ({ input, string, ip, masked, bits }) => {
    // Act
    const c = parseCIDR(input);
    // Assess
    expect(isCIDR(input)).toBe(true);
    expect(c.toString()).toBe(string);
    expect(c.ip().toString()).toBe(ip);
    expect(c.masked().toString()).toBe(masked);
    expect(c.prefixLength()).toBe(bits);
  });

  it("equality includes host bits (cidr('192.168.0.1/24') != its masked())", () => {
    expect(parseCIDR("192.168.0.0/24").equals(parseCIDR("192.168.0.0/24").masked())).toBe(true);
    expect(parseCIDR("192.168.0.1/24").equals(parseCIDR("192.168.0.1/24").masked())).toBe(false);
    expect(parseCIDR("10.0.0.0/8").equals(parseCIDR("10.0.0.0/16"))).toBe(false);
  });
});

describe("containsIP", () => {
  it.each([
    { cidr: "192.168.0.0/24", ip: "192.168.0.1", want: true },
    { cidr: "192.168.0.0/24", ip: "192.168.1.1", want: false },
    { cidr: "192.168.0.5/24", ip: "192.168.0.200", want: true },
    { cidr: "0.0.0.0/0", ip: "8.8.8.8", want: true },
    { cidr: "0.0.0.0/0", ip: "::1", want: false },
    { cidr: "::/0", ip: "1.2.3.4", want: false },
    { cidr: "2001:db8::/32", ip: "2001:db8::1", want: true },
    { cidr: "2001:db8::/32", ip: "2001:dc8::1", want: false },
  ])("$cidr ∋ $ip → $want", ({ cidr, ip, want }) => {
    expect(parseCIDR(cidr).containsIP(ip)).toBe(want);
    expect(parseCIDR(cidr).containsIP(parseIP(ip))).toBe(want);
  });

  it("an unparsable string argument is cel-go's no such overload", () => {
    const e = thrown(() => parseCIDR("10.0.0.0/8").containsIP("x"));
    expect(e.message).toBe("no such overload");
    expect(e.code).toBe("no_such_overload");
  });
});

describe("containsCIDR (equal or longer prefix, masked comparison since kubernetes#130450)", () => {
  it.each([
    { outer: "192.168.0.0/24", inner: "192.168.0.0/25", want: true },
    { outer: "192.168.0.0/24", inner: "192.168.0.0/23", want: false },
    { outer: "192.168.0.0/16", inner: "192.168.10.0/24", want: true },
    { outer: "192.168.1.0/24", inner: "192.168.2.0/24", want: false },
    { outer: "192.168.0.0/16", inner: "192.168.0.1/32", want: true },
    { outer: "192.168.0.0/24", inner: "192.168.0.0/24", want: true },
    { outer: "192.168.0.7/24", inner: "192.168.0.9/30", want: true },
    { outer: "10.0.0.0/8", inner: "::/128", want: false },
    { outer: "::/0", inner: "10.0.0.0/8", want: false },
    { outer: "2001:db8::/32", inner: "2001:db8::/33", want: true },
    { outer: "2001:db8::/32", inner: "2001:db8::/31", want: false },
  ])("$outer ⊇ $inner → $want", ({ outer, inner, want }) => {
    expect(parseCIDR(outer).containsCIDR(inner)).toBe(want);
    expect(parseCIDR(outer).containsCIDR(parseCIDR(inner))).toBe(want);
  });

  it("an unparsable string argument reports the cidr() error", () => {
    expect(thrown(() => parseCIDR("10.0.0.0/8").containsCIDR("10.0.0.0")).message).toBe(
      `${P}${P}netip.ParsePrefix("10.0.0.0"): no '/'`,
    );
  });
});
