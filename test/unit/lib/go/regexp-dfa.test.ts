/**
 * lib/go/regexp-dfa.ts: the DFA test of a compiled re2js program answers what re2js answers (Go's MatchString),
 * on the edges of its semantics: the ends of the text, newlines, case folding, code points beyond the BMP and lone
 * surrogates; patterns it does not run (word boundaries, line anchors, too many states) are left to re2js. The
 * re2js internals it reads are checked here (they gate an upgrade of re2js).
 */
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { compilePattern, isPatternError } from "../../../../lib/go/regexp.js";
import { dfaTestOf } from "../../../../lib/go/regexp-dfa.js";

function fast(pattern: string): (s: string) => boolean | undefined {
  const t = dfaTestOf(RE2JS.compile(pattern));
  if (t === undefined) throw new Error(`no DFA for ${pattern}`);
  return t;
}

describe("re2js internals the DFA reads", () => {
  it("a compiled pattern has its program's instructions and start", () => {
    const prog = (RE2JS.compile("a+b") as unknown as { re2Input: { prog: { inst: unknown[]; start: number } } })
      .re2Input.prog;
    expect(prog.inst.length).toBeGreaterThan(2);
    expect(typeof prog.start).toBe("number");
  });
});

describe("the DFA test answers as re2js", () => {
  it.each([
    ["", "", true],
    ["^$", "", true],
    ["^$", "\n", false],
    ["^a$", "a\n", false],
    ["a$", "ba", true],
    ["^a", "ba", false],
    ["\\Aa\\z", "a", true],
    ["a|^b", "cb", false],
    ["a|^b", "bc", true],
    ["x*", "", true],
    [".", "\n", false],
    ["(?s).", "\n", true],
    ["^.{2}$", "😀a", true],
    ["^.{2}$", "😀", false],
    ["^.$", "\ud800", true],
    ["^.$", "\ud800\udc00", true],
    ["^..$", "\udc00\ud800", true],
    ["^[^a]$", "é", true],
    ["(?i)k", "\u212a", true],
    ["(?i)^straße$", "STRASSE", false],
    ["\\d+", "٣", false],
    ["^[[:alpha:]]+$", "abc", true],
    ["\\pL", "ж", true],
    ["^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$", "/some/thing%2f", true],
    ["^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$", "/some thing", false],
  ])("%j on %j is %s", (pattern, input, want) => {
    expect(RE2JS.compile(pattern).test(input)).toBe(want);
    expect(fast(pattern)(input)).toBe(want);
  });
});

describe("patterns left to re2js", () => {
  it.each(["\\bword\\b", "(?m)^a$", "\\Bx"])("%s has no DFA", (pattern) => {
    expect(dfaTestOf(RE2JS.compile(pattern))).toBeUndefined();
  });

  it("a pattern past the state limit answers through re2js", () => {
    const pattern = "(a|b)*a(a|b){12}";
    const re = RE2JS.compile(pattern);
    const t = fast(pattern);
    const inputs = Array.from({ length: 3000 }, (_, i) =>
      (i * 2654435761).toString(2).replace(/0/g, "a").replace(/1/g, "b"),
    );
    const answers = inputs.map((s) => t(s));
    expect(answers).toContain(undefined);
    const compiled = compilePattern(pattern);
    if (isPatternError(compiled)) throw new Error(compiled.error);
    for (const s of inputs) expect(compiled.test(s)).toBe(re.test(s));
  });
});
