/**
 * Runs one cel-spec test through lib/cel's production path (`createCelEnvironment` with Kubernetes' libraries and
 * the test's declarations, `compileExpression`, `evaluate`) and
 * says whether it passed, failed (with the reason classification.ts gives) or is out of scope (skip-rules.ts).
 *
 * - `type_env` identifiers become declarations; bound names without one are declared `dyn` when the test
 *   disables the type check. `disable_check` turns the check off.
 * - An expected `value` (or `typed_result.result`; the deduced type is not compared) must equal the result with
 *   typed equality (values.ts). A test without a matcher expects `true`.
 * - An expected `eval_error` passes when parsing, checking or evaluating fails, whatever the message.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { EvaluationMode } from "../../../lib/cel/evaluation.js";
import { compileExpression, createCelEnvironment, evaluate as evaluateProgram } from "../../../lib/cel/index.js";
import { caseKey } from "../corpus.js";
import { classify } from "./classification.js";
import type { KnownFailure } from "./known-failures.js";
import { skipReason } from "./skip-rules.js";
import { parseSimpleTestFile, type SpecFile, type SpecTest, type SpecValue } from "./textproto.js";
import {
  differs,
  formatEngineValue,
  formatSpecValue,
  NotRepresentableError,
  toDeclaration,
  toEngineValue,
} from "./values.js";

export type SpecOutcome =
  | { kind: "skipped"; reason: string }
  | { kind: "passed" }
  | { kind: "failed"; failure: KnownFailure };

export interface SpecCase {
  /** `<file>#<section>/<test>`; a repeated test name in a section gets ` (2)`, ` (3)`, … */
  key: string;
  file: string;
  section: string;
  /** The test name, with the same suffix as the key when repeated. */
  name: string;
  test: SpecTest;
}

export interface SpecCaseFile {
  /** The file name, e.g. `string_ext.textproto`. */
  file: string;
  spec: SpecFile;
  cases: SpecCase[];
}

/** Reads every `<corpus>/cel-spec/*.textproto`, in sorted order. Throws when the folder or its files are missing. */
export function readSpecFiles(corpusRoot: string): SpecCaseFile[] {
  const dir = join(corpusRoot, "cel-spec");
  if (!existsSync(dir)) throw new Error(`CEL conformance tests not found: ${dir} does not exist`);
  const names = readdirSync(dir)
    .filter((n) => n.endsWith(".textproto"))
    .sort();
  if (names.length === 0) throw new Error(`CEL conformance tests: no *.textproto files in ${dir}`);
  return names.map((file) => {
    const spec = parseSimpleTestFile(readFileSync(join(dir, file), "utf8"), file);
    const cases: SpecCase[] = [];
    for (const section of spec.sections) {
      const seen = new Map<string, number>();
      for (const test of section.tests) {
        const n = (seen.get(test.name) ?? 0) + 1;
        seen.set(test.name, n);
        const name = n === 1 ? test.name : `${test.name} (${n})`;
        cases.push({ key: caseKey(file, `${section.name}/${name}`), file, section: section.name, name, test });
      }
    }
    return { file, spec, cases };
  });
}

const MAX_REASON = 160;

function firstLine(s: string): string {
  const line = s.split("\n")[0] ?? "";
  return line.length > MAX_REASON ? `${line.slice(0, MAX_REASON - 1)}…` : line;
}

function oneLine(expr: string): string {
  const s = expr.replace(/\s*\n\s*/g, " ").trim();
  return s.length > 200 ? `${s.slice(0, 199)}…` : s;
}

type Result =
  | { kind: "value"; value: unknown }
  | { kind: "error"; stage: "compile" | "eval"; message: string }
  | { kind: "unrepresentable"; message: string };

function evaluate(test: SpecTest, evaluation: EvaluationMode = "direct"): Result & { cost?: number } {
  const declarations: Record<string, string> = {};
  for (const d of test.typeEnv) {
    if (d.kind === "ident") declarations[d.name] = toDeclaration(d.type) ?? "dyn";
  }
  const bindings: Record<string, unknown> = {};
  try {
    for (const [name, b] of test.bindings) {
      if (b.kind !== "value") continue;
      bindings[name] = toEngineValue(b.value);
      if (test.disableCheck && declarations[name] === undefined) declarations[name] = "dyn";
    }
  } catch (e) {
    if (e instanceof NotRepresentableError) return { kind: "unrepresentable", message: e.message };
    throw e;
  }
  const compiled = compileExpression(createCelEnvironment({ variables: declarations }), test.expr, {
    typeCheck: !test.disableCheck,
    evaluation,
  });
  if (compiled.kind === "failed") return { kind: "error", stage: "compile", message: compiled.message };
  const r = evaluateProgram(compiled.program, bindings, Number.POSITIVE_INFINITY);
  if (r.kind === "value") return { kind: "value", value: r.value, cost: r.cost };
  const message = r.kind === "error" ? r.message : "cost limit exceeded";
  return { kind: "error", stage: "eval", message, cost: r.cost };
}

/**
 * The outcome of a test's expression (value or error, and the cost spent) with each node's own work done directly
 * and with the engine's (lib/cel/evaluation.ts EvaluationMode), described the same way: they must agree.
 */
export function evaluationModeOutcomes(c: SpecCase): { direct: string; engine: string } {
  const describe = (r: Result & { cost?: number }) => `${describeResult(r)} (cost ${r.cost ?? "-"})`;
  return { direct: describe(evaluate(c.test, "direct")), engine: describe(evaluate(c.test, "engine")) };
}

function describeResult(r: Result): string {
  if (r.kind === "value") return formatEngineValue(r.value);
  if (r.kind === "error") return `${r.stage} error: ${firstLine(r.message)}`;
  return `binding not representable: ${r.message}`;
}

/** For a test that turns the type check off: the compile error of its expression with the check, if any. */
function checkedError(test: SpecTest): string | undefined {
  if (!test.disableCheck) return undefined;
  const declarations: Record<string, string> = {};
  for (const d of test.typeEnv) {
    if (d.kind === "ident") declarations[d.name] = toDeclaration(d.type) ?? "dyn";
  }
  const compiled = compileExpression(createCelEnvironment({ variables: declarations }), test.expr);
  return compiled.kind === "failed" ? compiled.message : undefined;
}

/** Runs one test. Never throws for an engine failure; a thrown error means a bug in the harness. */
export function runSpecCase(c: SpecCase): SpecOutcome {
  const { test } = c;
  const skip = skipReason(c.file, c.section, test);
  if (skip !== undefined) return { kind: "skipped", reason: skip };

  const result = evaluate(test);
  const failed = (derived: string, want: string): SpecOutcome => {
    return {
      kind: "failed",
      failure: {
        reason: classify({ key: c.key, test, derived, checkedError: checkedError(test) }),
        expr: oneLine(test.expr),
        want,
        got: describeResult(result),
      },
    };
  };

  if (result.kind === "unrepresentable") return failed(`binding not representable: ${result.message}`, "(any)");

  if (test.expect.kind === "error") {
    const want = test.expect.messages.length > 0 ? `error: ${test.expect.messages.join(" | ")}` : "an error";
    if (result.kind === "error") return { kind: "passed" };
    return failed(`expected error, got value ${formatEngineValue(result.value)}`, want);
  }

  const expected: SpecValue | undefined =
    test.expect.kind === "value"
      ? test.expect.value
      : test.expect.kind === "typedResult"
        ? test.expect.value
        : undefined;
  if (expected === undefined) throw new Error(`${c.key}: no expected value (should have been skipped)`);
  const want = formatSpecValue(expected);
  if (result.kind === "error") return failed(`${result.stage} error: ${firstLine(result.message)}`, want);
  const diff = differs(expected, result.value);
  if (diff === undefined) return { kind: "passed" };
  return failed(`wrong value: ${firstLine(diff)}`, want);
}
