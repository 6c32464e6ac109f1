/**
 * The DFA test of lib/go/regexp.ts against re2js itself on fuzzed patterns and texts: every pattern re2js compiles
 * answers the same through compilePattern (the DFA where it runs one) as through re2js.
 */
import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { compilePattern, isPatternError } from "../../lib/go/regexp.js";
import { runs, SEED, timeout } from "./budget.js";

const atom = fc.constantFrom(
  "a",
  "b",
  "A",
  "k",
  "0",
  "-",
  "/",
  "\\.",
  ".",
  "\\d",
  "\\w",
  "\\s",
  "\\D",
  "[a-c]",
  "[^a-c]",
  "[-A-Za-z0-9/._~!$&'()*+,;=:@]",
  "[[:alpha:]]",
  "\\pL",
  "é",
  "😀",
  "\\n",
  "^",
  "$",
  "\\A",
  "\\z",
  "\\b",
);

const regex: fc.Arbitrary<string> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    atom,
    fc.tuple(tie("node"), tie("node")).map(([a, b]) => `${a}${b}`),
    fc.tuple(tie("node"), tie("node")).map(([a, b]) => `(?:${a}|${b})`),
    fc.tuple(tie("node"), fc.constantFrom("*", "+", "?", "{2}", "{1,3}", "*?", "{0,}")).map(([a, q]) => `(${a})${q}`),
    fc.tuple(fc.constantFrom("(?i)", "(?s)", "(?m)", ""), tie("node")).map(([f, a]) => `${f}${a}`),
  ),
})).node;

const text = fc
  .array(
    fc.constantFrom(
      "a",
      "b",
      "A",
      "K",
      "\u212a",
      "k",
      "0",
      "9",
      "-",
      "/",
      ".",
      " ",
      "\n",
      "é",
      "É",
      "😀",
      "\ud800",
      "\udc00",
      "%",
      "2",
      "f",
    ),
    {
      maxLength: 12,
    },
  )
  .map((cs) => cs.join(""));

describe("regexp DFA", () => {
  it(
    "answers as re2js on every pattern it compiles",
    () => {
      fc.assert(
        fc.property(regex, fc.array(text, { minLength: 1, maxLength: 8 }), (pattern, inputs) => {
          let re: RE2JS;
          try {
            re = RE2JS.compile(pattern);
          } catch {
            return;
          }
          const compiled = compilePattern(pattern);
          if (isPatternError(compiled)) throw new Error(`compilePattern refused ${pattern}: ${compiled.error}`);
          for (const s of inputs)
            expect(compiled.test(s), `${JSON.stringify(pattern)} on ${JSON.stringify(s)}`).toBe(re.test(s));
        }),
        { seed: SEED, numRuns: runs(3000, 200_000) },
      );
    },
    timeout(60_000),
  );
});
