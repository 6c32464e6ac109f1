/**
 * CEL-core conformance: the official CEL conformance tests (`<corpus>/cel-spec/*.textproto`, google/cel-spec
 * tests/simple/testdata, read in place) through lib/cel's production path (`createCelEnvironment` with Kubernetes'
 * libraries and the test's declarations, `compileExpression`, `evaluate`: the same steps as a CRD rule, without a
 * schema). It guards the engine adapter and engine upgrades. One test per cel-spec test, keyed
 * `<file>#<section>/<test>` (a repeated test name within a section gets ` (2)`, ` (3)`, …).
 *
 * Out of scope (not registered as tests, counted as skipped in the totals, never as passing; the rules and their reasons are in skip-rules.ts):
 * - tests that need protobuf messages: the proto2, proto3, proto2_ext, wrappers and dynamic files; tests in a
 *   protobuf-package container; expressions naming TestAllTypes & co. or `google.protobuf` types other than
 *   Timestamp/Duration; message or enum values in bindings or expectations; variables of message, wrapper, Any
 *   or abstract types;
 * - extensions Kubernetes 1.36 does not offer (math, encoders, cel.bind, cel.block, strings v3 `reverse`) and
 *   unknown sets (partial evaluation);
 * - `check_only` tests (deduced type only), `disable_macros`, custom function declarations, error/unknown bindings.
 *
 * Comparison (values.ts): typed equality (int, uint and double are distinct; NaN equals NaN; maps regardless of
 * order; timestamps to the millisecond the engine keeps, and a sub-millisecond expectation fails); a
 * `typed_result` compares its value only; an `eval_error` expectation passes when parsing, checking or
 * evaluating fails. A test with a non-protobuf `container` runs without it (the adapter has no container).
 *
 * Tests listed in known-failures.yaml must still fail: the suite fails when a listed test passes, is skipped or no
 * longer exists, so the list only shrinks. Each listed reason is the one classification.ts gives (whether a
 * Kubernetes rule can reach the difference), and none may be unclassified. Regenerate it with
 * `npx tsx test/conformance/cel-spec/update-known-failures.ts` (it also prints totals and the common reasons).
 */
import { afterAll, describe, expect, it } from "vitest";
import { resolveCorpusRoot } from "../corpus.js";
import { readKnownFailures } from "./known-failures.js";
import { readSpecFiles, runSpecCase } from "./run-spec.js";
import { skipReason } from "./skip-rules.js";
import { parseSimpleTestFile, parseTextFormat, type SpecValue } from "./textproto.js";

const files = readSpecFiles(resolveCorpusRoot());
const known = readKnownFailures();
const REGENERATE = "npx tsx test/conformance/cel-spec/update-known-failures.ts";
const startedAt = performance.now();

interface Tally {
  passed: number;
  knownFailures: number;
  skipped: number;
  failed: number;
  nowPassing: number;
}
const tallies = new Map<string, Tally>();

for (const { file, cases } of files) {
  const tally: Tally = { passed: 0, knownFailures: 0, skipped: 0, failed: 0, nowPassing: 0 };
  tallies.set(file, tally);
  // Out of scope (protobuf messages, extensions Kubernetes does not offer): not registered as tests, only
  // counted in the totals. A listed test that is out of scope fails the known-failures.yaml check below.
  const inScope = cases.filter((c) => skipReason(file, c.section, c.test) === undefined);
  tally.skipped = cases.length - inScope.length;
  if (inScope.length === 0) continue; // unknowns.textproto has no tests; whole files can be out of scope
  describe(file, () => {
    for (const c of inScope) {
      const listed = known.get(c.key);
      it(`${c.section}/${c.name}`, () => {
        const outcome = runSpecCase(c);
        if (outcome.kind === "skipped") expect.fail(`${c.key} became out of scope at run time: ${outcome.reason}`);
        if (listed !== undefined) {
          if (outcome.kind === "passed") {
            tally.nowPassing++;
            expect.fail(`listed in known-failures.yaml (${listed.reason}) but now passes: remove it (${REGENERATE})`);
          }
          // the listed reason is the one classification.ts gives now
          expect(
            outcome.kind === "failed" ? outcome.failure.reason : undefined,
            `the reason listed in known-failures.yaml is not classification.ts's; regenerate it (${REGENERATE})`,
          ).toBe(listed.reason);
          tally.knownFailures++;
          return;
        }
        if (outcome.kind === "failed") {
          tally.failed++;
          const f = outcome.failure;
          expect.fail(`${c.key}\n  expr: ${c.test.expr}\n  ${f.reason}\n  want: ${f.want}\n  got:  ${f.got}`);
        }
        tally.passed++;
      });
    }
  });
}

describe("known-failures.yaml", () => {
  it("lists only tests that exist and run", () => {
    const running = new Set(
      files.flatMap(({ file, cases }) =>
        cases.filter((c) => skipReason(file, c.section, c.test) === undefined).map((c) => c.key),
      ),
    );
    const stale = [...known.keys()].filter((k) => !running.has(k));
    expect(
      stale,
      `known-failures.yaml lists tests that do not exist or are skipped; regenerate it (${REGENERATE})`,
    ).toEqual([]);
  });

  it("says of every test why it stays: classification.ts knows each difference", () => {
    const unclassified = [...known].filter(([, f]) => f.reason.startsWith("unclassified")).map(([k]) => k);
    expect(unclassified, "add a row to classification.ts for each").toEqual([]);
  });
});

describe("textproto.ts", () => {
  const readExpected = (text: string): SpecValue => {
    const f = parseSimpleTestFile(`section { name: "s" test { name: "t" expr: "x" value { ${text} } } }`, "inline");
    const e = f.sections[0]!.tests[0]!.expect;
    if (e.kind !== "value") throw new Error("no value");
    return e.value;
  };

  it("reads scalars with text-format escapes (octal and \\x are bytes)", () => {
    expect(readExpected(`string_value: "\\303\\277" ' \\x41\\u00e9'`)).toEqual({ kind: "string", value: "ÿ Aé" });
    expect(readExpected(`bytes_value: "\\377\\x00"`)).toEqual({ kind: "bytes", value: Uint8Array.of(0xff, 0) });
    expect(readExpected("int64_value: -9223372036854775808")).toEqual({ kind: "int", value: -9223372036854775808n });
    expect(readExpected("uint64_value: 18446744073709551615")).toEqual({ kind: "uint", value: 18446744073709551615n });
    expect(readExpected("double_value: -inf")).toEqual({ kind: "double", value: Number.NEGATIVE_INFINITY });
    expect(readExpected("null_value: NULL_VALUE")).toEqual({ kind: "null" });
  });

  it("reads lists, maps and expanded Any values", () => {
    expect(readExpected("list_value { values { int64_value: 1 } values: { bool_value: true } }")).toEqual({
      kind: "list",
      values: [
        { kind: "int", value: 1n },
        { kind: "bool", value: true },
      ],
    });
    expect(readExpected(`map_value { entries { key { string_value: "k" } value { uint64_value: 2 } } }`)).toEqual({
      kind: "map",
      entries: [
        [
          { kind: "string", value: "k" },
          { kind: "uint", value: 2n },
        ],
      ],
    });
    expect(
      readExpected("object_value { [type.googleapis.com/google.protobuf.Duration] { seconds: 1 nanos: 5 } }"),
    ).toEqual({
      kind: "duration",
      seconds: 1n,
      nanos: 5,
    });
  });

  it("reads repeated fields in list syntax, comments and a test without a matcher (expects true)", () => {
    const m = parseTextFormat("a: [1, 2] # comment\nb < c: 'x' >");
    expect(m.fields.map((f) => f.name)).toEqual(["a", "a", "b"]);
    const f = parseSimpleTestFile(`section { test { name: "t" expr: "true" disable_check: true } }`, "inline");
    expect(f.sections[0]!.tests[0]).toMatchObject({
      disableCheck: true,
      expect: { kind: "value", value: { kind: "bool", value: true } },
    });
  });

  it("rejects unknown fields of a test", () => {
    expect(() => parseSimpleTestFile(`section { test { name: "t" frobnicate: 1 } }`, "inline")).toThrow(
      /unknown SimpleTest field/,
    );
  });
});

afterAll(() => {
  const sum: Tally = { passed: 0, knownFailures: 0, skipped: 0, failed: 0, nowPassing: 0 };
  const lines: string[] = [];
  for (const [file, t] of tallies) {
    for (const k of Object.keys(sum) as (keyof Tally)[]) sum[k] += t[k];
    lines.push(
      `  ${file.padEnd(26)} ${t.passed} passed / ${t.knownFailures} known failures / ${t.skipped} skipped` +
        (t.failed + t.nowPassing > 0 ? ` / ${t.failed + t.nowPassing} FAILED` : ""),
    );
  }
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
  console.log(
    `conformance (cel-spec): ${sum.passed} passed / ${sum.knownFailures} known failures / ${sum.skipped} skipped` +
      (sum.failed > 0 ? ` / ${sum.failed} failed` : "") +
      (sum.nowPassing > 0 ? ` / ${sum.nowPassing} listed in known-failures.yaml now pass (failed)` : "") +
      ` (${seconds} s)\n${lines.join("\n")}`,
  );
});
