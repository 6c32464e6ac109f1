import { describe, expect, it } from "vitest";
import { LibraryError } from "../../../../../lib/cel/implementations/error.js";
import { isURL, parseURLValue, URLValue } from "../../../../../lib/cel/implementations/url.js";

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof LibraryError) return e.message;
    throw e;
  }
  throw new Error("expected a LibraryError");
}

const PREFIX = "URL parse error during conversion from string: ";

describe("isURL (url.ParseRequestURI)", () => {
  it.each([
    { input: "https://example.com", want: true },
    { input: "https://example.com:8080/path?x=1#frag", want: true },
    { input: "/absolute/path", want: true },
    { input: "mailto:x@y", want: true },
    { input: "urn:isbn:0451450523", want: true },
    { input: "*", want: true },
    { input: "http://[::1]:80/", want: true },
    { input: "HTTP://EXAMPLE.com", want: true },
    { input: "example.com/x", want: false },
    { input: "../x", want: false },
    { input: "", want: false },
    { input: " ", want: false },
    { input: "not-a-valid-url", want: false },
    { input: "https://example.com:abc", want: false },
    { input: "https://\ntestingress.com", want: false },
    { input: "://x", want: false },
    { input: "https://exa mple.com", want: false },
    { input: "https://example.com/%zz", want: false },
    { input: "https://[1.2.3.4]/", want: false },
    { input: "https://a[::1]/", want: false },
    { input: "http://a:1:2/", want: false },
    { input: "postgres://a:1,b:2/db", want: true },
    { input: "//example.com/x", want: true },
  ])("$input → $want", ({ input, want }) => {
    expect(isURL(input)).toBe(want);
  });
});

describe("url() errors (exact Kubernetes text)", () => {
  it.each([
    { input: "../relative", error: 'parse "../relative": invalid URI for request' },
    { input: " ", error: 'parse " ": invalid URI for request' },
    { input: "not-a-valid-url", error: 'parse "not-a-valid-url": invalid URI for request' },
    { input: "", error: 'parse "": empty url' },
    {
      input: "https://\ntestingress.com",
      error: 'parse "https://\\ntestingress.com": net/url: invalid control character in URL',
    },
    { input: "\ntestingress.com", error: 'parse "\\ntestingress.com": net/url: invalid control character in URL' },
    { input: "https://example.com:abc/x", error: 'parse "https://example.com:abc/x": invalid port ":abc" after host' },
    { input: "https://ü@example.com/", error: 'parse "https://ü@example.com/": net/url: invalid userinfo' },
    { input: "https://example.com/%zz", error: 'parse "https://example.com/%zz": invalid URL escape "%zz"' },
    { input: "https://example.com/%zé", error: 'parse "https://example.com/%zé": invalid URL escape "%z\\xc3"' },
    { input: "://x", error: 'parse "://x": missing protocol scheme' },
    { input: "https://a{b}/", error: 'parse "https://a{b}/": invalid character "{" in host name' },
    { input: "https://[1.2.3.4]/", error: 'parse "https://[1.2.3.4]/": invalid IP-literal' },
    {
      input: "https://[v1.x]/",
      error: 'parse "https://[v1.x]/": invalid host: ParseAddr("v1.x"): unexpected character (at "v1.x")',
    },
    { input: "https://[::1/", error: "parse \"https://[::1/\": missing ']' in host" },
    { input: "https://%41.com/", error: 'parse "https://%41.com/": invalid URL escape "%41"' },
    { input: "http://a:1:2/", error: 'parse "http://a:1:2/": invalid port ":1:2" after host' },
    { input: "https://x/?a#%zz", error: 'parse "https://x/?a#%zz": invalid URL escape "%zz"' },
  ])("$input", ({ input, error }) => {
    expect(errorOf(() => parseURLValue(input))).toBe(PREFIX + error);
  });

  it("isURL accepts a fragment error that url() then reports (two parses)", () => {
    expect(isURL("https://x/?a#%zz")).toBe(true);
  });
});

describe("getters", () => {
  it.each([
    {
      input: "https://user:pw@Example.com:8443/a%20b/c?x=1&y=2#frag",
      scheme: "https",
      host: "Example.com:8443",
      hostname: "Example.com",
      port: "8443",
      path: "/a%20b/c",
    },
    { input: "HTTPS://example.com", scheme: "https", host: "example.com", hostname: "example.com", port: "", path: "" },
    { input: "https://[::1]:80/x", scheme: "https", host: "[::1]:80", hostname: "::1", port: "80", path: "/x" },
    { input: "https://[::1]/", scheme: "https", host: "[::1]", hostname: "::1", port: "", path: "/" },
    {
      input: "https://[fe80::1%25en0]:8080/",
      scheme: "https",
      host: "[fe80::1%en0]:8080",
      hostname: "fe80::1%en0",
      port: "8080",
      path: "/",
    },
    { input: "mailto:x@y", scheme: "mailto", host: "", hostname: "", port: "", path: "" },
    { input: "/absolute/path", scheme: "", host: "", hostname: "", port: "", path: "/absolute/path" },
    {
      input: "https://example.com:/x",
      scheme: "https",
      host: "example.com:",
      hostname: "example.com",
      port: "",
      path: "/x",
    },
    {
      input: "https://example.com/a b",
      scheme: "https",
      host: "example.com",
      hostname: "example.com",
      port: "",
      path: "/a%20b",
    },
    {
      input: "https://example.com/a(b)",
      scheme: "https",
      host: "example.com",
      hostname: "example.com",
      port: "",
      path: "/a(b)",
    },
    {
      input: "https://example.com/%2f",
      scheme: "https",
      host: "example.com",
      hostname: "example.com",
      port: "",
      path: "/%2f",
    },
    {
      input: "https://example.com/é",
      scheme: "https",
      host: "example.com",
      hostname: "example.com",
      port: "",
      path: "/%C3%A9",
    },
    { input: "https://%C3%A9.com/", scheme: "https", host: "é.com", hostname: "é.com", port: "", path: "/" },
    {
      input: "https://example.com/a#frag/x",
      scheme: "https",
      host: "example.com",
      hostname: "example.com",
      port: "",
      path: "/a",
    },
    { input: "postgres://a:1,b:2/db", scheme: "postgres", host: "a:1,b:2", hostname: "a:1,b", port: "2", path: "/db" },
    { input: "*", scheme: "", host: "", hostname: "", port: "", path: "*" },
  ])("$input", ({ input, scheme, host, hostname, port, path }) => {
    // Act
    const u = parseURLValue(input);
    // Assess
    expect(u.getScheme()).toBe(scheme);
    expect(u.getHost()).toBe(host);
    expect(u.getHostname()).toBe(hostname);
    expect(u.getPort()).toBe(port);
    expect(u.getEscapedPath()).toBe(path);
  });
});

describe("getQuery (url.ParseQuery)", () => {
  it.each([
    { input: "https://example.com/?a=1&b=2&a=3", want: { a: ["1", "3"], b: ["2"] } },
    { input: "https://example.com/?a", want: { a: [""] } },
    { input: "https://example.com/?a=&=b", want: { a: [""], "": ["b"] } },
    { input: "https://example.com/?q=a+b%20c", want: { q: ["a b c"] } },
    { input: "https://example.com/?a=1;b=2&c=3", want: { c: ["3"] } },
    { input: "https://example.com/?a=%zz&b=1", want: { b: ["1"] } },
    { input: "https://example.com/?&&a=1&", want: { a: ["1"] } },
    { input: "https://example.com/?", want: {} },
    { input: "https://example.com/", want: {} },
    { input: "https://example.com/?x=1#y=2", want: { x: ["1"] } },
    { input: "https://example.com/?k%C3%A9=v", want: { ké: ["v"] } },
  ])("$input", ({ input, want }) => {
    expect(Object.fromEntries(parseURLValue(input).getQuery())).toEqual(want);
  });

  it("drops everything past 10,000 parameters (urlmaxqueryparams)", () => {
    const many = Array.from({ length: 10_001 }, (_, i) => `k${i}=v`).join("&");
    expect(parseURLValue(`https://e.com/?${many}`).getQuery().size).toBe(0);
    const enough = Array.from({ length: 10_000 }, (_, i) => `k${i}=v`).join("&");
    expect(parseURLValue(`https://e.com/?${enough}`).getQuery().size).toBe(10_000);
  });
});

describe("equality (URL.String)", () => {
  it.each([
    { a: "https://example.com", b: "HTTPS://example.com", equal: true },
    { a: "https://example.com/a%20b", b: "https://example.com/a b", equal: true },
    { a: "https://example.com/", b: "https://example.com", equal: false },
    { a: "https://example.com/#a", b: "https://example.com/#a", equal: true },
    { a: "https://Example.com", b: "https://example.com", equal: false },
  ])("$a == $b → $equal", ({ a, b, equal }) => {
    expect(parseURLValue(a).equals(parseURLValue(b))).toBe(equal);
  });

  it.each([
    {
      input: "https://user:p%40ss@example.com:8080/a b?x=y#f g",
      want: "https://user:p%40ss@example.com:8080/a%20b?x=y#f%20g",
    },
    { input: "file:///etc/passwd", want: "file:///etc/passwd" },
    { input: "mailto:x@y?subject=hi", want: "mailto:x@y?subject=hi" },
    { input: "https://example.com?", want: "https://example.com?" },
  ])("toString($input)", ({ input, want }) => {
    expect(URLValue.parse(input).toString()).toBe(want);
  });
});
