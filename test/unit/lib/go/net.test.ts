import { describe, expect, it } from "vitest";
import { isStdEncoding } from "../../../../lib/go/base64.js";
import { isValidAddress } from "../../../../lib/go/mail.js";
import { isIPv4, parseCIDRSloppy, parseIP, parseIPSloppy, parseMAC } from "../../../../lib/go/net.js";
import { addrToString, parseAddr, parsePrefix } from "../../../../lib/go/netip.js";
import { escapedPath, hostname, parse, parseRequestURI, port, query } from "../../../../lib/go/url.js";

describe("net", () => {
  it("ParseIP (Go ≥ 1.22) is strict and gives 16 bytes; To4 finds IPv4 in them", () => {
    expect(parseIP("010.1.1.1")).toBeUndefined();
    expect(parseIP("fe80::1%eth0")).toBeUndefined();
    const v4 = parseIP("10.1.2.3");
    expect(v4 === undefined ? undefined : [...v4.slice(10)]).toEqual([0xff, 0xff, 10, 1, 2, 3]);
    expect(v4 !== undefined && isIPv4(v4)).toBe(true);
    const v6 = parseIP("::1");
    expect(v6 !== undefined && isIPv4(v6)).toBe(false);
  });

  it("Go 1.16's sloppy ParseIP and ParseCIDR accept leading zeros and long IPv6 groups", () => {
    expect(parseIPSloppy("010.001.002.003")).toEqual(Uint8Array.of(10, 1, 2, 3));
    expect(parseIPSloppy("00001::")).toBeDefined();
    expect(parseCIDRSloppy("10.0.0.5/008")).toEqual({ ip: Uint8Array.of(10, 0, 0, 5), bits: 8 });
    expect(parseCIDRSloppy("10.0.0.5/33")).toBeUndefined();
  });

  it.each([
    { s: "00:1a:2B:3c:4d:5e", want: [0x00, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e] },
    { s: "001a.2b3c.4d5e", want: [0x00, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e] },
    { s: "00:1a-2b:3c:4d:5e", want: undefined },
    { s: "00:1a:2b:3c:4d", want: undefined },
  ])("ParseMAC($s)", ({ s, want }) => {
    const mac = parseMAC(s);
    expect(mac === undefined ? undefined : [...mac]).toEqual(want);
  });
});

describe("net/netip", () => {
  it("ParseAddr and ParsePrefix with Go's error texts; Addr.String in RFC 5952 form", () => {
    const a = parseAddr("2001:db8:0:0:0:0:0:1");
    expect(a.ok && addrToString(a.value)).toBe("2001:db8::1");
    expect(parseAddr("1.2.3")).toEqual({ ok: false, error: 'ParseAddr("1.2.3"): IPv4 address too short' });
    expect(parsePrefix("10.0.0.0")).toEqual({ ok: false, error: `netip.ParsePrefix("10.0.0.0"): no '/'` });
  });
});

describe("net/url", () => {
  it("ParseRequestURI refuses relative references; Parse splits host, port, path, query and fragment", () => {
    expect(parseRequestURI("../x")).toEqual({ ok: false, error: 'parse "../x": invalid URI for request' });
    const u = parse("https://example.com:8443/a%20b?x=1&x=2&y#frag");
    if (!u.ok) throw new Error(u.error);
    expect([hostname(u.value), port(u.value), escapedPath(u.value)]).toEqual(["example.com", "8443", "/a%20b"]);
    expect(query(u.value)).toEqual(
      new Map([
        ["x", ["1", "2"]],
        ["y", [""]],
      ]),
    );
  });
});

describe("net/mail and encoding/base64", () => {
  it.each([
    { s: "j@example.com", want: true },
    { s: "Jane <j@example.com>", want: true },
    { s: "team: j@example.com;", want: true },
    { s: "j@[1.2.3.4]", want: true },
    { s: "j@[::1]", want: false },
    { s: "j@", want: false },
  ])("ParseAddress($s) succeeds: $want", ({ s, want }) => {
    expect(isValidAddress(s)).toBe(want);
  });

  it.each([
    { s: "aGVsbG8=", want: true },
    { s: "aGVs\r\nbG8=", want: true },
    { s: "aGVsbG8", want: false },
    { s: "aG=sbG8=", want: false },
    { s: "", want: true },
  ])("StdEncoding.DecodeString($s) succeeds: $want", ({ s, want }) => {
    expect(isStdEncoding(s)).toBe(want);
  });
});
