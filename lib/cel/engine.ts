/**
 * The adapter to the CEL engine: the only module of tollgate that imports @marcbachmann/cel-js (pinned to an exact
 * version in package.json), so the engine can be replaced. It offers:
 *
 * - engine environments with tollgate's options, and the registration surface libraries use (`EngineRegistrar`);
 * - parsing and type checking, with a typed read-only view of the syntax tree (`SyntaxNode`) for the steps that
 *   read it (source rewrites, compile-time checks, cost estimation, facts such as "uses oldSelf");
 * - the few changes tollgate makes to a parsed tree: renaming method calls, and cel-go's evaluation of `||`/`&&`
 *   and of `==`/`+` on Kubernetes lists;
 * - evaluation with a runtime cost limit.
 *
 * Engine internals it relies on (the checked type and the evaluate dispatch of a node, the evaluator's `run`) are
 * reached here only, and are covered by contract tests (test/unit/lib/cel/engine.test.ts).
 */

import type { ASTNode, ParseResult } from "@marcbachmann/cel-js";
import { Environment, EvaluationError, Optional } from "@marcbachmann/cel-js";
import { Duration, UnsignedInt } from "@marcbachmann/cel-js/evaluator";

export { Duration, EvaluationError, Optional, UnsignedInt };

/** The options of every tollgate CEL environment. */
const ENVIRONMENT_OPTIONS = Object.freeze({
  enableOptionalTypes: true,
  homogeneousAggregateLiterals: true,
  unlistedVariablesAreDyn: false,
});

/** An engine environment: declarations (types, variables, functions, operators) that expressions compile against. */
export type EngineEnvironment = Environment;

/** What a library uses to declare its types, constants, functions and operators in an engine environment. */
export type EngineRegistrar = Pick<
  Environment,
  "registerType" | "registerFunction" | "registerOperator" | "registerConstant"
>;

/** A fresh engine environment with tollgate's options. */
export function newEnvironment(): EngineEnvironment {
  return new Environment({ ...ENVIRONMENT_OPTIONS });
}

// ---------------------------------------------------------------------------------------------------------------
// The syntax tree

/** A literal's value: CEL int and uint are bigint (uint boxed), double is number, bytes are Uint8Array. */
export type LiteralValue = string | number | bigint | boolean | null | Uint8Array | UnsignedInt;

/** The binary operators (`in` included), as the engine names them. */
export type BinaryOperator = "==" | "!=" | "<" | "<=" | ">" | ">=" | "+" | "-" | "*" | "/" | "%" | "in";

interface Syntax<Op extends string, Args> {
  readonly op: Op;
  readonly args: Args;
  /** The node's source range in the text that was parsed. */
  readonly start: number;
  readonly end: number;
}

/**
 * A read-only view of one node of a parsed expression, discriminated on `op`. Macros (`all`, `exists`, `map`, …)
 * keep their call form (`rcall`), `has(x.f)` is a `call`. The checker's result is read with `checkedTypeName`.
 */
export type SyntaxNode =
  | Syntax<"value", LiteralValue>
  | Syntax<"id", string>
  | Syntax<"." | ".?", readonly [operand: SyntaxNode, field: string]>
  | Syntax<"[]" | "[?]", readonly [operand: SyntaxNode, index: SyntaxNode]>
  | Syntax<"call", readonly [name: string, args: readonly SyntaxNode[]]>
  | Syntax<"rcall", readonly [name: string, target: SyntaxNode, args: readonly SyntaxNode[]]>
  | Syntax<"list", readonly SyntaxNode[]>
  | Syntax<"map", readonly (readonly [key: SyntaxNode, value: SyntaxNode])[]>
  | Syntax<"?:", readonly [condition: SyntaxNode, whenTrue: SyntaxNode, whenFalse: SyntaxNode]>
  | Syntax<"||" | "&&" | BinaryOperator, readonly [left: SyntaxNode, right: SyntaxNode]>
  | Syntax<"!_" | "-_", SyntaxNode>;

/** The children of a node, in source order (macros keep their call form). */
export function syntaxChildren(node: SyntaxNode): readonly SyntaxNode[] {
  switch (node.op) {
    case "value":
    case "id":
      return [];
    case ".":
    case ".?":
      return [node.args[0]];
    case "call":
      return node.args[1];
    case "rcall":
      return [node.args[1], ...node.args[2]];
    case "list":
      return node.args;
    case "map":
      return node.args.flat();
    case "!_":
    case "-_":
      return [node.args];
    default:
      return node.args;
  }
}

/** A function or method call: its name, receiver (undefined for global functions) and arguments. */
export interface SyntaxCall {
  readonly name: string;
  readonly target: SyntaxNode | undefined;
  readonly args: readonly SyntaxNode[];
}

/** The call a node is, if it is one (`f(x)` or `x.f(y)`, macros included). */
export function callOf(node: SyntaxNode | undefined): SyntaxCall | undefined {
  if (node?.op === "call") return { name: node.args[0], target: undefined, args: node.args[1] };
  if (node?.op === "rcall") return { name: node.args[0], target: node.args[1], args: node.args[2] };
  return undefined;
}

/** The name of an identifier node. */
export function identifierName(node: SyntaxNode | undefined): string | undefined {
  return node?.op === "id" ? node.args : undefined;
}

/** Whether the expression references the identifier `name` anywhere. */
export function referencesIdentifier(node: SyntaxNode, name: string): boolean {
  if (node.op === "id" && node.args === name) return true;
  for (const c of syntaxChildren(node)) if (referencesIdentifier(c, name)) return true;
  return false;
}

/** The type the checker inferred for a node (engine internal), as a type name, when known. */
export function checkedTypeName(node: SyntaxNode): string | undefined {
  const t = (node as unknown as { checkedType?: { name?: string } | string }).checkedType;
  if (t === undefined) return undefined;
  return typeof t === "string" ? t : t.name;
}

// ---------------------------------------------------------------------------------------------------------------
// Programs

/** A parsed expression of an engine environment, run by `evaluateMetered`. */
export type EngineProgram = ParseResult;

/** The outcome of the engine's type check: the output type, or the error's code and one-line summary. */
export type TypeCheckOutcome =
  | { valid: true; type: string }
  | { valid: false; code: string; summary: string; node?: SyntaxNode; range?: SourceRange };

/** A range of the parsed text (0-based offsets). */
export interface SourceRange {
  readonly start: number;
  readonly end: number;
}

/** The source range an engine error points at, when it has one. */
export function errorRange(e: unknown): SourceRange | undefined {
  const r = (e as { range?: { start?: unknown; end?: unknown } } | null)?.range;
  if (r === undefined || typeof r.start !== "number") return undefined;
  return { start: r.start, end: typeof r.end === "number" ? r.end : r.start };
}

const functionNames = new WeakMap<EngineEnvironment, ReadonlySet<string>>();

/** The names of every function and method an environment declares (for cel-go's "undeclared reference" errors). */
export function declaredFunctionNames(env: EngineEnvironment): ReadonlySet<string> {
  let names = functionNames.get(env);
  if (names === undefined) {
    names = new Set(env.getDefinitions().functions.map((f: { name: string }) => f.name));
    functionNames.set(env, names);
  }
  return names;
}

/** Parses an expression in an environment; throws the engine's parse error. */
export function parseExpression(env: EngineEnvironment, text: string): EngineProgram {
  return env.parse(text);
}

/** The program's syntax tree. */
export function syntaxOf(program: EngineProgram): SyntaxNode {
  return program.ast;
}

/** Type-checks a program (the checker annotates the tree with the types `checkedTypeName` reads). */
export function typeCheck(program: EngineProgram): TypeCheckOutcome {
  const c = program.check();
  if (c.valid) return { valid: true, type: c.type ?? "dyn" };
  const e = c.error;
  const out: TypeCheckOutcome = {
    valid: false,
    code: e?.code ?? "",
    summary: e?.summary ?? e?.message.split("\n")[0] ?? "unknown error",
  };
  const node = (e as { node?: unknown } | undefined)?.node;
  if (typeof node === "object" && node !== null && "op" in node) out.node = node as SyntaxNode;
  const range = errorRange(e);
  if (range !== undefined) out.range = range;
  return out;
}

/**
 * Renames method calls in place before the type check (engine internal: `args` is declared readonly): routes
 * built-ins such as `matches`, `lowerAscii`, `upperAscii` and `trim` to tollgate's Go-exact versions. A key
 * `global:<name>` renames calls of the global function `<name>`.
 */
export function renameMethodCalls(node: SyntaxNode, renames: Readonly<Record<string, string>>): void {
  if (node.op === "rcall") {
    const to = renames[node.args[0]];
    if (to !== undefined) (node.args as unknown as [string])[0] = to;
  }
  if (node.op === "call") {
    const to = renames[`global:${node.args[0]}`];
    if (to !== undefined) (node.args as unknown as [string])[0] = to;
  }
  for (const c of syntaxChildren(node)) renameMethodCalls(c, renames);
}

type Evaluator = { tryEval(ast: ASTNode, ctx: unknown): unknown; run(ast: ASTNode, ctx: unknown): unknown };
type NodeEvaluate = (ev: Evaluator, ast: ASTNode, ctx: unknown) => unknown;

/** Gives a node its own evaluation (engine internal: ASTNode.evaluate dispatch). */
function overrideEvaluate(node: SyntaxNode, evaluate: NodeEvaluate): void {
  (node as unknown as { evaluate: NodeEvaluate }).evaluate = evaluate;
}

/** The engine node of a view node (they are the same objects). */
function engineNode(node: SyntaxNode): ASTNode {
  return node as unknown as ASTNode;
}

function logicalError(v: unknown): Error {
  if (v instanceof Error) return v;
  return new EvaluationError({ code: "no_such_overload", message: "no such overload" });
}

/**
 * cel-go's `||` and `&&` (interpreter evalOr/evalAnd): both sides are evaluated unless the left one decides, an
 * error on one side is absorbed when the other side decides, and when both fail the **left** error is reported.
 * The engine reports the right one; an own evaluation of each node restores cel-go's order. Called after the type
 * check.
 */
export function applyCelGoLogicalOperators(node: SyntaxNode): void {
  if (node.op === "||" || node.op === "&&") {
    const left = engineNode(node.args[0]);
    const right = engineNode(node.args[1]);
    const decides = node.op === "||";
    overrideEvaluate(node, (ev, _ast, ctx) => {
      const l = ev.tryEval(left, ctx);
      if (l === decides) return decides;
      if (l === !decides) {
        // The left side does not decide: the right side's value (or error) is the result.
        const r = ev.run(right, ctx);
        if (typeof r === "boolean") return r;
        throw logicalError(r);
      }
      // The left side failed: a deciding right side absorbs the error, anything else reports the left error.
      const r = ev.tryEval(right, ctx);
      if (r === decides) return decides;
      throw logicalError(l);
    });
  }
  for (const c of syntaxChildren(node)) applyCelGoLogicalOperators(c);
}

/**
 * cel-go's type name of a runtime value (`ref.Type.TypeName()`), as its runtime errors print it: `int`, `uint`,
 * `double`, `bool`, `string`, `bytes`, `null_type`, `list`, `map`, `type`, `optional_type`,
 * `google.protobuf.Timestamp`, `google.protobuf.Duration`, or an object type's name.
 */
export function runtimeTypeName(v: unknown): string {
  switch (typeof v) {
    case "bigint":
      return "int";
    case "number":
      return "double";
    case "boolean":
      return "bool";
    case "string":
      return "string";
  }
  if (v === null || v === undefined) return "null_type";
  if (v instanceof UnsignedInt) return "uint";
  if (v instanceof Uint8Array) return "bytes";
  if (v instanceof Date) return "google.protobuf.Timestamp";
  if (v instanceof Duration) return "google.protobuf.Duration";
  if (v instanceof Optional) return "optional_type";
  if (Array.isArray(v) || v instanceof Set) return "list";
  const proto = Object.getPrototypeOf(v) as unknown;
  if (v instanceof Map || proto === Object.prototype || proto === null) return "map";
  if (String((v as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag]).startsWith("Type<")) return "type";
  return (v as { constructor?: { name?: string } }).constructor?.name ?? "object";
}

/** What an override returns to let the engine's own handler run. */
export const ENGINE_HANDLER: unique symbol = Symbol("engineHandler");

/** An own implementation of an operator or function, on the values of its operands (a method's receiver first). */
export type HandlerOverride = (args: readonly unknown[]) => unknown;

type BinaryHandle = (left: unknown, right: unknown, ast: unknown, ev: unknown) => unknown;
type UnaryHandle = (operand: unknown, ast: unknown, ev: unknown) => unknown;
type CallHandle = (args: unknown[], a: unknown, b: unknown) => unknown;

/** The checker's handle of an operator or call node (engine internal: set by the type check). */
interface Handled {
  handle?: BinaryHandle | UnaryHandle | CallHandle;
}

/**
 * Replaces the engine's handler of the operator and call nodes `pick` chooses (engine internal: the `handle` the
 * checker sets on each node), keeping the evaluation of the operands (and so the cost metering) as it is. The
 * override gets the operands' values and returns the result, throws the error, or returns ENGINE_HANDLER to let the
 * engine's handler run. Called after the type check; a node without a handle (no type check) is left alone.
 */
export function overrideHandlers(node: SyntaxNode, pick: (node: SyntaxNode) => HandlerOverride | undefined): void {
  const override = pick(node);
  const h = node as unknown as Handled;
  if (override !== undefined && typeof h.handle === "function") {
    const original = h.handle;
    switch (node.op) {
      case "call":
      case "rcall": {
        const engine = original as CallHandle;
        const handle: CallHandle = (args, a, b) => {
          const r = override(args);
          return r === ENGINE_HANDLER ? engine(args, a, b) : r;
        };
        h.handle = handle;
        break;
      }
      case "-_":
      case "!_": {
        const engine = original as UnaryHandle;
        const handle: UnaryHandle = (operand, ast, ev) => {
          const r = override([operand]);
          return r === ENGINE_HANDLER ? engine(operand, ast, ev) : r;
        };
        h.handle = handle;
        break;
      }
      default: {
        const engine = original as BinaryHandle;
        const handle: BinaryHandle = (left, right, ast, ev) => {
          const r = override([left, right]);
          return r === ENGINE_HANDLER ? engine(left, right, ast, ev) : r;
        };
        h.handle = handle;
      }
    }
  }
  for (const c of syntaxChildren(node)) overrideHandlers(c, pick);
}

interface VariableContext {
  getValue(name: string): unknown;
  getCheckedValue(ev: Evaluator, ast: ASTNode): unknown;
}

/**
 * cel-go lets a variable of an object type hold null (kube-apiserver binds an admission policy's `namespaceObject`
 * to null for cluster-scoped requests), while the engine checks a variable's value against its declared type. Reads
 * of the named variables return a null value as is (engine internal: the context's getValue). Called after the type
 * check.
 */
export function allowNullVariables(node: SyntaxNode, names: ReadonlySet<string>): void {
  if (node.op === "id" && names.has(node.args)) {
    const name = node.args;
    overrideEvaluate(node, (ev, ast, ctx) => {
      const c = ctx as VariableContext;
      return c.getValue(name) === null ? null : c.getCheckedValue(ev, ast);
    });
  }
  for (const c of syntaxChildren(node)) allowNullVariables(c, names);
}

/** Hooks that give `==`, `!=` and `+` Kubernetes list-type semantics for list operands. */
export interface ListOperatorHooks {
  equals(left: unknown[], right: unknown): boolean;
  concat(left: unknown[], right: unknown): unknown[];
}

/**
 * Kubernetes dispatches `==` and `+` on the left operand's list type (`x-kubernetes-list-type: set|map`). For every
 * `==`/`!=`/`+` node whose left operand the checker typed as a list, an own evaluation evaluates both operands and
 * applies the hooks. Called after the type check.
 */
export function applyListOperators(node: SyntaxNode, hooks: ListOperatorHooks): void {
  const op = node.op;
  if (op === "==" || op === "!=" || op === "+") {
    const [leftNode, rightNode] = node.args;
    if (checkedTypeName(leftNode)?.startsWith("list<") === true) {
      const left = engineNode(leftNode);
      const right = engineNode(rightNode);
      overrideEvaluate(node, (ev, _ast, ctx) => {
        const l = ev.run(left, ctx) as unknown[];
        const r = ev.run(right, ctx);
        if (op === "+") return hooks.concat(l, r);
        const eq = hooks.equals(l, r);
        return op === "==" ? eq : !eq;
      });
    }
  }
  for (const c of syntaxChildren(node)) applyListOperators(c, hooks);
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluation with a cost limit

/** Raised when an evaluation exceeds its cost limit (cel-go "operation cancelled: actual cost limit exceeded"). */
export class CostLimitExceeded extends Error {
  constructor() {
    super("operation cancelled: actual cost limit exceeded");
    this.name = "CostLimitExceeded";
  }
}

interface Meter {
  active: boolean;
  cost: number;
  limit: number;
}

const meter: Meter = { active: false, cost: 0, limit: 0 };
let meterInstalled = false;

interface CostNode {
  op?: string;
  args?: unknown;
}

/**
 * The cost of one node evaluation, after cel-go's runtime cost weights (interpreter/runtimecost.go): constants
 * (and negated constants) are free, list and map literals cost 10 and 30, the per-iteration step of a
 * comprehension (`?:` in the engine's expansion) 3 and the `map()` accumulation 12; everything else 1. Size-based
 * costs of string and list operations are not charged, so the actual cost is an approximation that stays close to
 * cel-go's on typical rules.
 */
function nodeCost(n: CostNode): number {
  switch (n.op) {
    case "value":
      return 0;
    case "-_":
      return (n.args as CostNode | undefined)?.op === "value" ? 0 : 1;
    case "?:":
      return 3;
    case "accuPush":
      return 12;
    case "list":
      return 10;
    case "map":
      return 30;
    default:
      return 1;
  }
}

/**
 * Runtime cost metering: every node evaluation costs its weight (nodeCost) (engine internal: all node evaluations
 * go through Evaluator.prototype.run, reached through `this` of a registered function). This reproduces cel-go's
 * actual cost closely (7 per inner iteration of `self.v.all(a, self.v.all(b, a + b >= -1))`, as the semantics note
 * measures) and bounds every evaluation: past the limit each further node throws, and the limit is checked again
 * after the evaluation because the engine absorbs errors inside `||`, `&&` and comprehensions.
 */
function installMeter(): void {
  if (meterInstalled) return;
  meterInstalled = true;
  const probe = newEnvironment();
  let evaluatorThis: unknown;
  probe.registerFunction("__tollgateProbe(): bool", function (this: unknown) {
    evaluatorThis = this;
    return true;
  });
  probe.parse("__tollgateProbe()")({});
  const proto = Object.getPrototypeOf(evaluatorThis) as { run: (ast: unknown, ctx: unknown) => unknown };
  const run = proto.run;
  proto.run = function metered(this: unknown, ast: unknown, ctx: unknown): unknown {
    if (meter.active) {
      meter.cost += nodeCost(ast as CostNode);
      if (meter.cost > meter.limit) throw new CostLimitExceeded();
    }
    return run.call(this, ast, ctx);
  };
}

/**
 * Adds a library function's own runtime cost to the evaluation in progress (cel-go's CallCost: an authorization
 * check costs 350,000 beyond its call node). Throws CostLimitExceeded past the limit; a no-op outside a metered
 * evaluation.
 */
export function chargeRuntimeCost(cost: number): void {
  if (!meter.active) return;
  meter.cost += cost;
  if (meter.cost > meter.limit) throw new CostLimitExceeded();
}

/** Evaluates a program with a cost limit; returns the value and the cost spent. Throws CostLimitExceeded. */
export function evaluateMetered(
  program: EngineProgram,
  activation: Readonly<Record<string, unknown>>,
  limit: number,
): { value: unknown; cost: number } {
  installMeter();
  const saved = { active: meter.active, cost: meter.cost, limit: meter.limit };
  meter.active = true;
  meter.cost = 0;
  meter.limit = limit;
  try {
    const value: unknown = program(activation);
    if (meter.cost > limit) throw new CostLimitExceeded();
    return { value, cost: meter.cost };
  } catch (e) {
    if (meter.cost > limit) throw new CostLimitExceeded();
    throw e;
  } finally {
    meter.active = saved.active;
    meter.cost = saved.cost;
    meter.limit = saved.limit;
  }
}
