/**
 * Inputs built to make a naive implementation explode (backtracking regular expressions, format checks written as
 * regular expressions, nesting), each measured at its size and at twice its size in the same run. Goal: twice the
 * input costs at most 2.5× the time, i.e. the check stays linear (a backtracking engine on `^(a+)+$` is exponential:
 * it never finishes at these sizes). The unit tests check what these inputs produce; how long they take is held
 * here, not by timed assertions there.
 */

import { compilePattern, isPatternError } from "../../lib/go/regexp.js";
import { parseDocuments } from "../../lib/objects/decode.js";
import { checkStringFormat } from "../../lib/schema/formats.js";
import type { BenchCase, BenchRow } from "./bench-case.js";
import { alternate, alternatedRow } from "./measure.js";

/** A hostile input of a given size (`n` repetitions of its unit) and what checking it does. */
interface Hostile {
  name: string;
  /** The input at `n` units. */
  input(n: number): string;
  n: number;
  check(input: string): unknown;
}

function pattern(source: string) {
  const compiled = compilePattern(source);
  if (isPatternError(compiled)) throw new Error(`${source}: ${compiled.error}`);
  return compiled;
}

const NESTED_PLUS = pattern("^(a+)+$");

function decodeError(text: string): string {
  const doc = parseDocuments(text)[0];
  if (doc?.error === undefined) throw new Error("the hostile document decoded without an error");
  return doc.error;
}

const HOSTILE: readonly Hostile[] = [
  {
    name: "format-hostname",
    n: 20_000,
    input: (n) => `${"a-".repeat(n)}!`,
    check: (v) => checkStringFormat("hostname", v),
  },
  { name: "format-email", n: 20_000, input: (n) => `${"(".repeat(n)}a@b`, check: (v) => checkStringFormat("email", v) },
  {
    name: "format-duration",
    n: 50_000,
    input: (n) => `${"1".repeat(n)} `,
    check: (v) => checkStringFormat("duration", v),
  },
  {
    name: "format-datetime",
    n: 50_000,
    input: (n) => `2014-12-15T19:30:20.${"1".repeat(n)}`,
    check: (v) => checkStringFormat("datetime", v),
  },
  {
    name: "format-uri",
    n: 50_000,
    input: (n) => `http://${"a".repeat(n)}%`,
    check: (v) => checkStringFormat("uri", v),
  },
  { name: "regexp-nested-plus", n: 50_000, input: (n) => `${"a".repeat(n)}!`, check: (v) => NESTED_PLUS.test(v) },
  { name: "yaml-nesting", n: 1 << 20, input: (n) => `a: ${"[".repeat(n)}`, check: decodeError },
  { name: "json-nesting", n: 1 << 20, input: (n) => "[".repeat(n), check: decodeError },
];

/** Repetitions of `check` that take at least ~5 ms at the smaller size, so timer resolution does not matter. */
function repetitionsFor(h: Hostile, input: string): number {
  const t0 = performance.now();
  h.check(input);
  const once = Math.max(performance.now() - t0, 0.001);
  return Math.max(1, Math.ceil(5 / once));
}

async function hostileRow(h: Hostile): Promise<BenchRow> {
  const small = h.input(h.n);
  const large = h.input(2 * h.n);
  const reps = repetitionsFor(h, small);
  const run = (input: string) => () => {
    for (let i = 0; i < reps; i++) h.check(input);
  };
  const t = await alternate(run(large), run(small), 9);
  return alternatedRow(
    `hostile/${h.name}`,
    t,
    `the same at half the size`,
    ["twice the input ÷ the input", 2.5],
    (value, base) => ({
      note:
        `${small.length} characters ${(base / reps).toFixed(3)} ms, ${large.length} characters ` +
        `${(value / reps).toFixed(3)} ms (median of 9, ${reps} checks per run)`,
      data: { characters: small.length, smallMs: base / reps, largeMs: value / reps, repetitions: reps },
    }),
  );
}

export const hostileInputCases: readonly BenchCase[] = HOSTILE.map((h) => ({
  name: `hostile/${h.name}`,
  run: () => hostileRow(h),
}));
