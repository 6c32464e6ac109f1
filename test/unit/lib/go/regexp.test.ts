import { describe, expect, it } from "vitest";
import { compilePattern, isPatternError, patternCacheSize } from "../../../../lib/go/regexp.js";

function mustCompile(source: string) {
  const compiled = compilePattern(source);
  if (isPatternError(compiled)) throw new Error(`unexpected pattern error: ${compiled.error}`);
  return compiled;
}

// Go regexp.MatchString: RE2 syntax, unanchored search.
describe("compilePattern: matching like regexp.MatchString", () => {
  it.each([
    // unanchored search
    { pattern: "abc", value: "xxabcxx", matches: true },
    { pattern: "^abc", value: "xxabc", matches: false },
    { pattern: "^[a-z0-9-]+$", value: "hello-world", matches: true },
    { pattern: "^[a-z0-9-]+$", value: "Hello World", matches: false },
    { pattern: "^([0-9]{1,5}(h|m|s|ms)){1,4}$", value: "1h30m", matches: true },
    { pattern: "^([0-9]{1,5}(h|m|s|ms)){1,4}$", value: "1h30m5s100ms", matches: true },
    { pattern: "^([0-9]{1,5}(h|m|s|ms)){1,4}$", value: "1h2h3h4h5h", matches: false },
    { pattern: "", value: "anything", matches: true },
    // `$` is end of text only (no implicit multiline); `.` stops at newline
    { pattern: "^a$", value: "a\n", matches: false },
    { pattern: "a\\z", value: "a", matches: true },
    { pattern: "a\\z", value: "a\n", matches: false },
    { pattern: "^.$", value: "\n", matches: false },
    { pattern: "(?s)^.$", value: "\n", matches: true },
    { pattern: "(?m)^b$", value: "a\nb", matches: true },
    { pattern: "^[^a]$", value: "\n", matches: true },
    // `.` is one code point
    { pattern: "^.$", value: "😀", matches: true },
    { pattern: "^..$", value: "😀", matches: false },
    // Perl classes are ASCII-only; \s has no \v
    { pattern: "\\d", value: "٣", matches: false },
    { pattern: "\\w", value: "é", matches: false },
    { pattern: "\\s", value: "\u000b", matches: false },
    { pattern: "\\s", value: "\f", matches: true },
    { pattern: "\\bfoo\\b", value: "a foo b", matches: true },
    // Unicode classes and Go-only syntax
    { pattern: "^\\pL+$", value: "héllo", matches: true },
    { pattern: "^\\p{Greek}+$", value: "αβγ", matches: true },
    { pattern: "^\\PL$", value: "1", matches: true },
    { pattern: "^[[:alpha:]]+$", value: "abc", matches: true },
    { pattern: "^(?P<year>\\d{4})-(?P<month>\\d{2})$", value: "2024-05", matches: true },
    { pattern: "^(?<year>\\d{4})$", value: "2024", matches: true },
    { pattern: "^\\Qa.b\\E$", value: "a.b", matches: true },
    { pattern: "^\\Qa.b\\E$", value: "axb", matches: false },
    { pattern: "(?i)^k$", value: "\u212a", matches: true }, // Kelvin sign folds to k in Go
    { pattern: "(?U)a+", value: "aaa", matches: true },
    { pattern: "a{,5}", value: "a{,5}", matches: true }, // not a repeat in Go: a literal
    { pattern: "x{1000}", value: "x".repeat(1000), matches: true },
  ])("$pattern on $value → $matches", ({ pattern, value, matches }) => {
    // Act
    const got = mustCompile(pattern).test(value);
    // Assess
    expect(got).toBe(matches);
  });
});

// Go regexp/syntax errors: "error parsing regexp: <code>: `<fragment>`".
describe("compilePattern: errors in Go's wording", () => {
  it.each([
    { pattern: "(a", error: "error parsing regexp: missing closing ): `(a`" },
    { pattern: "a)", error: "error parsing regexp: unexpected ): `a)`" },
    { pattern: "[a", error: "error parsing regexp: missing closing ]: `[a`" },
    { pattern: "[z-a]", error: "error parsing regexp: invalid character class range: `z-a`" },
    { pattern: "*", error: "error parsing regexp: missing argument to repetition operator: `*`" },
    { pattern: "a**", error: "error parsing regexp: invalid nested repetition operator: `**`" },
    { pattern: "a++", error: "error parsing regexp: invalid nested repetition operator: `++`" }, // possessive
    { pattern: "(?=a)", error: "error parsing regexp: invalid or unsupported Perl syntax: `(?=`" }, // lookahead
    { pattern: "(?!a)", error: "error parsing regexp: invalid or unsupported Perl syntax: `(?!`" },
    { pattern: "(?<=a)b", error: "error parsing regexp: invalid named capture: `(?<=a)b`" }, // lookbehind
    { pattern: "(?>a)", error: "error parsing regexp: invalid or unsupported Perl syntax: `(?>`" }, // atomic
    { pattern: "(a)\\1", error: "error parsing regexp: invalid escape sequence: `\\1`" }, // backreference
    { pattern: "a\\Z", error: "error parsing regexp: invalid escape sequence: `\\Z`" },
    { pattern: "\\e", error: "error parsing regexp: invalid escape sequence: `\\e`" },
    { pattern: "\\p{Foo}", error: "error parsing regexp: invalid character class range: `\\p{Foo}`" },
    { pattern: "x{1001}", error: "error parsing regexp: invalid repeat count: `{1001}`" },
    { pattern: "x{2,1}", error: "error parsing regexp: invalid repeat count: `{2,1}`" },
    { pattern: "(x{100}){11}", error: "error parsing regexp: invalid repeat count: `{11}`" },
    { pattern: "(?P<n>a)(?P<n>b)", error: "error parsing regexp: duplicate capture group name: `n`" },
    { pattern: "(?P<a-b>x)", error: "error parsing regexp: invalid named capture: `(?P<a-b>`" },
    { pattern: "(?z)", error: "error parsing regexp: invalid or unsupported Perl syntax: `(?z`" },
    { pattern: "a\\", error: "error parsing regexp: trailing backslash at end of expression" },
    { pattern: `${"(".repeat(1001)}a${")".repeat(1001)}`, error: "error parsing regexp: expression nests too deeply" },
  ])("$pattern", ({ pattern, error }) => {
    // Act
    const got = compilePattern(pattern);
    // Assess
    expect(got).toEqual({ error });
  });
});

describe("compilePattern: cache", () => {
  it("returns the same object for the same source, errors included", () => {
    expect(compilePattern("^cache-[0-9]+$")).toBe(compilePattern("^cache-[0-9]+$"));
    expect(compilePattern("(cache")).toBe(compilePattern("(cache"));
  });

  it("keeps the source", () => {
    expect(mustCompile("^a+$").source).toBe("^a+$");
  });

  it("stays bounded at 10,000 entries", () => {
    // Prepare
    for (let i = 0; i < 10_050; i++) compilePattern(`^bounded-${i}$`);
    // Act
    const size = patternCacheSize();
    // Assess
    expect(size).toBe(10_000);
    expect(mustCompile("^bounded-3$").test("bounded-3")).toBe(true);
  });
});

// How long this takes is held by the hostile/regexp-nested-plus bench case (linear in the input).
describe("compilePattern: linear time", () => {
  it("answers a pattern that backtracking engines explode on", () => {
    // Prepare
    const pattern = mustCompile("^(a+)+$");
    // Act
    const got = pattern.test(`${"a".repeat(50_000)}!`);
    // Assess
    expect(got).toBe(false);
  });
});
