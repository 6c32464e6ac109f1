/**
 * Compiling and evaluating one CEL expression in an environment: the one path every expression takes (CRD rules
 * and their messageExpressions, admission policy expressions, the CEL conformance tests).
 *
 * Compiling (cel-go `env.Compile` plus the API server's checks) runs these steps:
 *
 * 1. rewrite what the engine's parser reads differently (pre-parse.ts: optional literal entries, bytes literals,
 *    doubles without a leading zero), and parse;
 * 2. refuse engine built-ins Kubernetes 1.36 does not have (`json`, `hex`, `base64`, `at`, `cel.bind`), on the tree
 *    as written;
 * 3. rewrite the source where the engine's language differs from cel-go's (rewrite.ts), and parse again;
 * 4. refuse literal patterns of `matches`, `find` and `findAll` that do not compile (cel-go checks them at compile
 *    time);
 * 5. rename built-ins the libraries replace (Go-exact versions of `matches`, `lowerAscii`, …);
 * 6. type-check (again after writing `duration + timestamp` as `timestamp + duration`, which the engine types as
 *    cel-go does), run the caller's own checks of the checked tree (`CompileOptions.checks`), report every error as
 *    cel-go does, and compare the output type with the expected one;
 * 7. estimate the cost (cost/estimate.ts);
 * 8. install the libraries' own implementations of built-ins (cel-go's conversions, timestamps, durations), the
 *    runtime charges (cost/runtime.ts), cel-go's `||`/`&&` error order, its selection and index semantics where
 *    the engine's differ (access.ts), and Kubernetes' list-type semantics of `==`/`+` on lists.
 *
 * Evaluating runs the program with a cost limit (cel-go's runtime cost as the API server tracks it) and words errors
 * as cel-go does.
 */
import { installAccessSemantics } from "./access.js";
import { estimateCost } from "./cost/estimate.js";
import type { CostEstimate } from "./cost/range.js";
import { runtimeMeters } from "./cost/runtime.js";
import {
  allowNullVariables,
  checkedTypeName,
  declaredFunctionNames,
  type EngineProgram,
  errorRange,
  overrideHandlers,
  parseExpression,
  presetVariableTypes,
  referencesIdentifier,
  renameMethodCalls,
  type SyntaxNode,
  syntaxChildren,
  syntaxOf,
  type TypeCheckOutcome,
  typeCheck,
} from "./engine.js";
import type { CelEnvironment } from "./environment.js";
import { KUBERNETES_LIST_OPERATORS } from "./equality.js";
import { type EvaluationMode, installEvaluation } from "./evaluation.js";
import { type CompileIssue, checkIssues, parseIssue, placeIssue } from "./issues.js";
import type { LibraryOverride } from "./libraries/library.js";
import { checkLiteralPattern } from "./libraries/regex.js";
import { typeLiteralMapKeys } from "./literal-keys.js";
import { CostLimitExceeded, evaluateMetered } from "./metering.js";
import { preParse } from "./pre-parse.js";
import { durationPlusTimestamp, rewriteSource } from "./rewrite.js";
import { runtimeErrorText } from "./runtime-errors.js";
import { applyEdits, type MappedText, originalOffset, unmapped } from "./source-map.js";

/** A compiled expression, ready to evaluate. */
export interface CelProgram {
  /** The checked syntax tree (after the rewrites and renames), for facts such as the variables it uses. */
  readonly syntax: SyntaxNode;
  /** The engine's program. */
  readonly engine: EngineProgram;
  /** The runtime cost every evaluation starts with (charged before anything runs). */
  readonly rootCost: number;
  /**
   * The text `syntax` was parsed from, mapped to the expression's text (they differ where pre-parse.ts rewrote
   * it); undefined when a rewrite of rewrite.ts changed it in ways that do not map back.
   */
  readonly source: MappedText | undefined;
}

export interface CompileOptions {
  /** The type the expression must have (`bool`, `string`, …; cel-go's type names). Default: any type. */
  readonly expectedType?: string;
  /**
   * Whether to type-check. Default true. Only the CEL conformance tests turn it off (their `disable_check`); an
   * unchecked program has no output type and a meaningless cost estimate.
   */
  readonly typeCheck?: boolean;
  /**
   * Variables of an object type that may hold null at evaluation (cel-go allows it; the engine does not unless
   * told). Default: none.
   */
  readonly nullableVariables?: ReadonlySet<string>;
  /**
   * Checks of the checked tree that the engine's type check lacks and cel-go's checker makes (CRD rules: `has()`
   * of undeclared fields, crd/checker-gaps.ts), given the tree and the text it was parsed from (offsets in that
   * text). Their issues join the type check's, as cel-go reports them together. Default: none.
   */
  readonly checks?: (syntax: SyntaxNode, text: string) => readonly CompileIssue[];
  /** How the nodes evaluate (evaluation.ts EvaluationMode). Default `direct`; tests compare it with `engine`. */
  readonly evaluation?: EvaluationMode;
}

/**
 * The outcome of compiling. A failure's `message` has cel-go's wording: for `reason: "compile"` the issue text
 * (`ERROR: <input>: undeclared reference to 'x' (in container '')`, without cel-go's line:column and source
 * excerpt), which the API server shows after `compilation failed: `; for `reason: "type"` the output type did not
 * match (`message` is `must evaluate to <expected>`, as admission policies word it).
 */
export type CompileResult =
  | {
      kind: "compiled";
      program: CelProgram;
      /** The checked output type (`dyn` when the type check is off). */
      outputType: string;
      /** The static cost estimate (min and max); the API server checks `max` against its limits. */
      cost: CostEstimate;
    }
  | {
      kind: "failed";
      reason: "compile";
      message: string;
      /**
       * The issues as cel-go reports them (its wording, at its token positions; see issues.ts), for messages that
       * show them (admission policies: `formatIssues`).
       */
      issues: readonly CompileIssue[];
    }
  | { kind: "failed"; reason: "type"; message: string; outputType: string };

type Failure = Extract<CompileResult, { kind: "failed" }>;

/** Engine built-ins (methods) Kubernetes 1.36 does not offer: they must not compile. */
const UNAVAILABLE_METHODS = new Set(["json", "hex", "base64", "at"]);

function compileError(detail: string, issues: readonly CompileIssue[] = [{ detail }]): Failure {
  return { kind: "failed", reason: "compile", message: `ERROR: <input>: ${detail}`, issues };
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split("\n")[0] ?? "";
}

/** Step 2: a call of a built-in Kubernetes does not have, as cel-go reports it. */
function findUnavailable(node: SyntaxNode): string | undefined {
  if (node.op === "rcall") {
    const [name, target] = node.args;
    if (name === "bind" && target.op === "id" && target.args === "cel")
      return "undeclared reference to 'cel' (in container '')";
    if (UNAVAILABLE_METHODS.has(name)) return `found no matching overload for '${name}'`;
  }
  for (const c of syntaxChildren(node)) {
    const r = findUnavailable(c);
    if (r !== undefined) return r;
  }
  return undefined;
}

/** Step 4: a literal pattern of `matches` / `find` / `findAll` that does not compile. */
function findBadLiteralPattern(node: SyntaxNode): string | undefined {
  if (node.op === "rcall") {
    const [name, , args] = node.args;
    const first = args[0];
    if (
      (name === "matches" || name === "find" || name === "findAll") &&
      first?.op === "value" &&
      typeof first.args === "string"
    ) {
      const err = checkLiteralPattern(first.args);
      if (err !== undefined)
        return name === "matches"
          ? "invalid matches argument"
          : `error parsing regexp: ${err.replace(/^error parsing regexp: /, "")}`;
    }
  }
  for (const c of syntaxChildren(node)) {
    const r = findBadLiteralPattern(c);
    if (r !== undefined) return r;
  }
  return undefined;
}

/** The engine's check errors in cel-go's wording where they differ. */
function checkErrorText(summary: string): string {
  const key = /^No such key: (.*)$/.exec(summary);
  if (key !== null) return `undefined field '${key[1]}'`;
  const unknownVar = /^Unknown variable: (.*)$/.exec(summary);
  if (unknownVar !== null) return `undeclared reference to '${unknownVar[1]}' (in container '')`;
  return summary;
}

/**
 * The program of an expression, parsed from `parsed.text`: the expression as pre-parse.ts rewrote it, mapped to
 * the original, or (`mapped` false) a text rewrite.ts changed, whose
 * offsets do not map back.
 */
interface Parsed {
  readonly kind: "parsed";
  readonly program: EngineProgram;
  readonly parsed: MappedText;
  readonly mapped: boolean;
}

/** Steps 1 to 4: the parsed, rewritten program, or the compile failure. */
function parseAndRewrite(env: CelEnvironment, text: string): Parsed | Failure {
  let program: EngineProgram;
  let parsed = preParse(text);
  let mapped = true;
  try {
    program = parseExpression(env.engine, parsed.text);
  } catch (e) {
    const summary = (e as { summary?: string }).summary ?? firstLine(e);
    return compileError(firstLine(e), [placeIssue(parseIssue(summary, errorRange(e)), parsed)]);
  }
  try {
    const unavailable = findUnavailable(syntaxOf(program));
    if (unavailable !== undefined) return compileError(unavailable);
    const source = rewriteSource(parsed.text, syntaxOf(program));
    if (source !== undefined) {
      program = parseExpression(env.engine, source);
      parsed = unmapped(source);
      mapped = false;
    }
  } catch (e) {
    return compileError(firstLine(e));
  }
  const badPattern = findBadLiteralPattern(syntaxOf(program));
  if (badPattern !== undefined) return compileError(badPattern);
  return { kind: "parsed", program, parsed, mapped };
}

/** The cel-go name of an operator or call node (`_+_`, `-_`, `int`, `.getHours`), if it is one. */
function builtinName(node: SyntaxNode): string | undefined {
  switch (node.op) {
    case "call":
      return node.args[0];
    case "rcall":
      return `.${node.args[0]}`;
    case "-_":
    case "!_":
      return node.op;
    case "==":
    case "!=":
    case "<":
    case "<=":
    case ">":
    case ">=":
    case "+":
    case "-":
    case "*":
    case "/":
    case "%":
    case "in":
      return `_${node.op}_`;
    default:
      return undefined;
  }
}

/** Whether an override applies to a node: an operand has one of its types, is dyn, or has no checked type. */
function overrideApplies(node: SyntaxNode, override: LibraryOverride): boolean {
  const types = override.operandTypes;
  if (types === undefined) return true;
  return syntaxChildren(node).some((c) => {
    const t = checkedTypeName(c);
    return t === undefined || t === "dyn" || types.includes(t);
  });
}

/** Step 8: the libraries' own implementations of built-ins, on the nodes they apply to. */
function applyOverrides(syntax: SyntaxNode, overrides: ReadonlyMap<string, LibraryOverride>): void {
  if (overrides.size === 0) return;
  overrideHandlers(syntax, (node) => {
    const name = builtinName(node);
    const override = name === undefined ? undefined : overrides.get(name);
    return override !== undefined && overrideApplies(node, override) ? override.run : undefined;
  });
}

type CheckFailure = Extract<TypeCheckOutcome, { valid: false }>;

/** How many check errors a compile reports at most (cel-go common.Errors' maxErrorsToReport). */
const MAX_CHECK_ISSUES = 100;

/** What stands for an expression that failed the check, so that the check goes on: any type fits it. */
const PLACEHOLDER = "dyn(null)";

/**
 * Every issue of the type check, as cel-go's checker reports them all. The engine stops at the first error, so the
 * expression that failed is replaced by a dyn placeholder and the text is checked again, until it passes, the error
 * is about a placeholder (cel-go's error type does not make errors of its own), or the text no longer parses.
 * Positions refer to the expression as written; there are none when rewrite.ts changed the source.
 */
function allCheckIssues(
  env: CelEnvironment,
  parsed: Parsed,
  first: CheckFailure,
  checks: CompileOptions["checks"],
): CompileIssue[] {
  const functions = declaredFunctionNames(env.engine);
  const issues: CompileIssue[] = [];
  let source = parsed.parsed;
  let failed: { failure: CheckFailure; root: SyntaxNode } | undefined = {
    failure: first,
    root: syntaxOf(parsed.program),
  };
  const placeholders: number[] = [];
  while (failed !== undefined && issues.length < MAX_CHECK_ISSUES) {
    const { failure, root } = failed;
    const found = checkIssues(failure, source.text, functions);
    // An error about an expression built on a placeholder is one cel-go's error type would not cause, unless it
    // is about a name no declaration has.
    const node = failure.node;
    const about = node === undefined ? [] : [originalOffset(source, node.start), originalOffset(source, node.end)];
    const onPlaceholder = placeholders.some((p) => p >= about[0]! && p <= about[1]!);
    if (onPlaceholder && !found.every((i) => i.detail.startsWith("undeclared reference"))) break;
    for (const i of found) {
      const issue = parsed.mapped ? placeIssue(i, source) : { detail: i.detail };
      // an undeclared function is reported with its undeclared receiver already (issues.ts)
      if (!issues.some((o) => o.detail === issue.detail && o.offset === issue.offset)) issues.push(issue);
    }
    // cel-go gives a literal of mixed types the error type: the literal is what stops being checked
    const failedNode = failure.code.startsWith("heterogeneous_") ? literalOf(root, node) : node;
    if (failedNode === undefined) break;
    const span = { at: failedNode.start, remove: failedNode.end - failedNode.start, insert: PLACEHOLDER };
    source = applyEdits(source, [span]);
    placeholders.push(source.origin[failedNode.start]!);
    const next = recheck(env, source.text);
    failed = next?.failure === undefined ? undefined : { failure: next.failure, root: next.root };
    // the rest passes the engine's check: the other checks see it
    if (next !== undefined && next.failure === undefined && checks !== undefined) {
      for (const i of checks(next.root, source.text)) {
        const issue = parsed.mapped ? placeIssue(i, source) : { detail: i.detail };
        if (!issues.some((o) => o.detail === issue.detail && o.offset === issue.offset)) issues.push(issue);
      }
    }
  }
  return issues;
}

/** The list or map literal `node` is an element, key or value of (an optional literal's wrapper call counts). */
function literalOf(root: SyntaxNode, node: SyntaxNode | undefined): SyntaxNode | undefined {
  if (node === undefined) return undefined;
  const visit = (n: SyntaxNode, parents: readonly SyntaxNode[]): SyntaxNode | undefined => {
    if (n === node) return parents.findLast((p) => p.op === "list" || p.op === "map");
    for (const c of syntaxChildren(n)) {
      const found = visit(c, n.op === "list" || n.op === "map" ? [n] : parents);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return visit(root, []);
}

/** The checked tree of a text and its first check error, if any; undefined when the text does not parse. */
function recheck(env: CelEnvironment, text: string): { failure?: CheckFailure; root: SyntaxNode } | undefined {
  try {
    const program = parseExpression(env.engine, text);
    renameMethodCalls(syntaxOf(program), env.renames);
    const check = typeCheck(program);
    return check.valid ? { root: syntaxOf(program) } : { failure: check, root: syntaxOf(program) };
  } catch {
    // a text the placeholder made unparsable, or an engine fault: no further issues
    return undefined;
  }
}

/** How many times the type check runs again after typed rewrites (nested `duration + timestamp` sums). */
const MAX_TYPED_REWRITES = 8;

/** Steps 1 to 7 of a compile (see the module comment), in the environment they ended in (a bound child's full one). */
interface Checked {
  readonly kind: "checked";
  readonly env: CelEnvironment;
  readonly parsed: Parsed;
  readonly outputType: string;
  readonly cost: CostEstimate;
}

function checkSteps(env: CelEnvironment, text: string, options: CompileOptions): Checked | Failure {
  // An unchecked program looks its variables up when it runs: it needs them declared.
  if (env.bound !== undefined && options.typeCheck === false) return checkSteps(env.bound.full(), text, options);
  let parsed = parseAndRewrite(env, text);
  if (parsed.kind === "failed") return parsed;
  renameMethodCalls(syntaxOf(parsed.program), env.renames);
  let outputType = "dyn";
  if (options.typeCheck !== false) {
    // A child of extendEach: its variables are typed on the tree; anything else compiles in the ordinary child
    // (a macro that rebinds one of them, a typed rewrite, and every failure, so that errors are worded from the
    // same declarations).
    const bound = env.bound;
    if (bound !== undefined && !presetVariableTypes(syntaxOf(parsed.program), bound.types)) {
      return checkSteps(bound.full(), text, options);
    }
    let check = typeCheck(parsed.program);
    // step 6b: `duration + timestamp` as cel-go types it (rewrite.ts), checked again
    for (let n = 0; n < MAX_TYPED_REWRITES; n++) {
      const swapped = durationPlusTimestamp(parsed.parsed, syntaxOf(parsed.program));
      if (swapped === undefined) break;
      if (bound !== undefined) return checkSteps(bound.full(), text, options);
      parsed = { ...parsed, program: parseExpression(env.engine, swapped.text), parsed: swapped };
      renameMethodCalls(syntaxOf(parsed.program), env.renames);
      check = typeCheck(parsed.program);
    }
    if (!check.valid) {
      if (bound !== undefined) return checkSteps(bound.full(), text, options);
      return compileError(checkErrorText(check.summary), allCheckIssues(env, parsed, check, options.checks));
    }
    const found = options.checks?.(syntaxOf(parsed.program), parsed.parsed.text) ?? [];
    if (found.length > 0) {
      const { parsed: mapped, mapped: placed } = parsed;
      const issues = found.map((i) => (placed ? placeIssue(i, mapped) : { detail: i.detail }));
      return compileError(issues[0]!.detail, issues);
    }
    outputType = check.type;
    const expected = options.expectedType;
    if (expected !== undefined && outputType !== expected) {
      return { kind: "failed", reason: "type", message: `must evaluate to ${expected}`, outputType };
    }
  }
  return { kind: "checked", env, parsed, outputType, cost: estimateCost(syntaxOf(parsed.program), env.cost) };
}

/** Compiles one expression in an environment (see the module comment for the steps). */
export function compileExpression(env: CelEnvironment, text: string, options: CompileOptions = {}): CompileResult {
  const checked = checkSteps(env, text, options);
  if (checked.kind === "failed") return checked;
  // The environment the checks ended in (a bound child's full one, after a fallback) prepares the program.
  const { parsed, outputType, cost, env: checkedIn } = checked;
  const program = parsed.program;
  const syntax = syntaxOf(program);
  applyOverrides(syntax, checkedIn.overrides);
  installAccessSemantics(syntax);
  typeLiteralMapKeys(syntax);
  if (options.nullableVariables !== undefined) allowNullVariables(syntax, options.nullableVariables);
  const meters = runtimeMeters(syntax, checkedIn.runtimeCost);
  const { rootCost } = installEvaluation(syntax, meters, KUBERNETES_LIST_OPERATORS, options.evaluation);
  return {
    kind: "compiled",
    program: { syntax, engine: program, rootCost, source: parsed.mapped ? parsed.parsed : undefined },
    outputType,
    cost,
  };
}

/** The outcome of checking an expression without preparing it to run: what compiling would report. */
export type CheckResult =
  | { kind: "checked"; syntax: SyntaxNode; outputType: string; cost: CostEstimate }
  | Extract<CompileResult, { kind: "failed" }>;

/**
 * Steps 1 to 7 of compileExpression only: the same failures, output type and cost estimate, without step 8 (what
 * makes the program runnable). For loads that report every rule's problems now and compile a rule's program when
 * it first runs.
 */
export function checkExpression(env: CelEnvironment, text: string, options: CompileOptions = {}): CheckResult {
  const checked = checkSteps(env, text, options);
  if (checked.kind === "failed") return checked;
  return {
    kind: "checked",
    syntax: syntaxOf(checked.parsed.program),
    outputType: checked.outputType,
    cost: checked.cost,
  };
}

/** Whether a compiled expression uses the variable `name` (e.g. `oldSelf`, which decides when a rule runs). */
export function usesVariable(program: CelProgram, name: string): boolean {
  return referencesIdentifier(program.syntax, name);
}

/**
 * The outcome of one evaluation: the value and the cost spent; a runtime error in cel-go's wording
 * (`noSuchOverload`: cel-go's "no such overload", which the API server words differently); or the cost limit
 * was exceeded (cel-go "operation cancelled: actual cost limit exceeded").
 */
export type EvaluationResult =
  | { kind: "value"; value: unknown; cost: number }
  | { kind: "error"; message: string; noSuchOverload: boolean; cost: number }
  | { kind: "cost-limit-exceeded"; cost: number };

/**
 * Evaluates a compiled expression with the variables of `activation` (CEL values: int as bigint, double as number,
 * lists as arrays, maps as Map or plain objects, declared object types as their values) and a cost limit (cel-go's
 * runtime cost; `Infinity` for none).
 */
export function evaluate(
  program: CelProgram,
  activation: Readonly<Record<string, unknown>>,
  costLimit: number,
): EvaluationResult {
  try {
    const r = evaluateMetered(program.engine, activation, costLimit, program.rootCost);
    if (r.kind === "error") return { kind: "error", ...runtimeErrorText(r.error), cost: r.cost };
    return r;
  } catch (e) {
    if (e instanceof CostLimitExceeded) return { kind: "cost-limit-exceeded", cost: e.cost };
    return { kind: "error", ...runtimeErrorText(e), cost: 0 };
  }
}
