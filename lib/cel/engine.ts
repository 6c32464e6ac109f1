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
  const program = env.parse(text);
  presetEmptyReceivers(env, program.ast as unknown as SyntaxNode);
  return program;
}

const dynAggregateTypes = new WeakMap<EngineEnvironment, ReadonlyMap<string, EngineType>>();

/**
 * cel-go types an empty list or map literal with free type parameters, which bind to dyn when nothing else binds
 * them (checker.go); the engine leaves them unbound, so a comprehension over `[]` or `{}` gives its variable a
 * parameter type that every comparison overload matches ("overlaps"). An empty literal that is a comprehension's
 * receiver is typed `list<dyn>` / `map<dyn, dyn>` before the check (engine internal: the checker keeps a node's
 * preset checkedType, and the literal evaluates to an empty list or map either way).
 */
function presetEmptyReceivers(env: EngineEnvironment, node: SyntaxNode): void {
  const target = macroOf(node) === "comprehension" ? callOf(node)?.target : undefined;
  if ((target?.op === "list" || target?.op === "map") && target.args.length === 0) {
    let types = dynAggregateTypes.get(env);
    if (types === undefined) {
      types = engineTypes(env, ["list<dyn>", "map<dyn, dyn>"]);
      dynAggregateTypes.set(env, types);
    }
    const t = types.get(target.op === "list" ? "list<dyn>" : "map<dyn, dyn>");
    if (t !== undefined) (target as unknown as { checkedType: EngineType }).checkedType = t;
  }
  for (const c of syntaxChildren(node)) presetEmptyReceivers(env, c);
}

/** The program's syntax tree. */
export function syntaxOf(program: EngineProgram): SyntaxNode {
  return program.ast;
}

/** A type of an engine environment (engine internal: the checker's type declaration), for `presetVariableTypes`. */
export type EngineType = { readonly name: string };

/**
 * The engine's types of the named types of an environment (engine internal: what the checker gives a variable of
 * that type), from one probe child that declares a variable of each; a name the environment does not know is left
 * out. The environment is frozen by this, as by any child.
 */
export function engineTypes(env: EngineEnvironment, typeNames: Iterable<string>): Map<string, EngineType> {
  const probe = env.clone();
  const probes: [string, string][] = [];
  for (const typeName of typeNames) {
    const variable = `v${probes.length}`;
    try {
      probe.registerVariable(variable, typeName);
      probes.push([typeName, variable]);
    } catch {
      // an unknown type: its users declare it the ordinary way, and get the ordinary error
    }
  }
  const out = new Map<string, EngineType>();
  for (const [typeName, variable] of probes) {
    const program = probe.parse(variable);
    if (program.check().valid) out.set(typeName, (program.ast as unknown as { checkedType: EngineType }).checkedType);
  }
  return out;
}

/** The parameters of a macro call (`x.all(v, p)`, `cel.bind(v, i, e)`, `has(x.f)`), or undefined for other nodes. */
function macroArguments(node: SyntaxNode): readonly SyntaxNode[] | undefined {
  if (macroOf(node) === undefined) return undefined;
  return callOf(node)?.args;
}

/** Whether a macro anywhere in the tree binds one of `names` (its first parameter is that identifier). */
function rebindsAny(node: SyntaxNode, names: ReadonlyMap<string, unknown>): boolean {
  const first = macroArguments(node)?.[0];
  if (first?.op === "id" && names.has(first.args)) return true;
  for (const c of syntaxChildren(node)) if (rebindsAny(c, names)) return true;
  return false;
}

function presetTypes(node: SyntaxNode, types: ReadonlyMap<string, EngineType>): void {
  if (node.op === "id") {
    const t = types.get(node.args);
    if (t !== undefined) (node as unknown as { checkedType: EngineType }).checkedType = t;
    return;
  }
  for (const c of syntaxChildren(node)) presetTypes(c, types);
}

/**
 * Types the free occurrences of the variables `types` names before the type check (engine internal: the checker
 * keeps a node's `checkedType` and looks a variable up only when it has none), so that an expression can be checked
 * in an environment that does not declare them, as if it did. Returns false, and changes nothing, when a macro binds
 * one of the names as its own variable (its occurrences inside are not the outer variable).
 */
export function presetVariableTypes(root: SyntaxNode, types: ReadonlyMap<string, EngineType>): boolean {
  if (rebindsAny(root, types)) return false;
  presetTypes(root, types);
  return true;
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

// ---------------------------------------------------------------------------------------------------------------
// Node evaluation (engine internals: a node's evaluate dispatch and meta, the operands the checker records, the
// comprehension a macro call expands into)

type Evaluator = { tryEval(ast: ASTNode, ctx: unknown): unknown; run(ast: ASTNode, ctx: unknown): unknown };
type NodeEvaluate = (ev: Evaluator, ast: ASTNode, ctx: unknown) => unknown;

interface MacroExpansion {
  evaluate(ev: Evaluator, macro: MacroExpansion, ctx: unknown): unknown;
}

interface ComprehensionArgs {
  step: InternalNode;
  condition?: (accu: unknown) => boolean;
}

/** What this module reads and writes on an engine node besides the SyntaxNode view. */
interface InternalNode {
  readonly op: string;
  readonly args: unknown;
  readonly meta: { evaluate: NodeEvaluate; alternate?: InternalNode; macro?: MacroExpansion };
  evaluate: NodeEvaluate;
  /** Set by the checker (at compile time, or when an unchecked program is evaluated) on operators and calls. */
  readonly handle?: (...args: unknown[]) => unknown;
}

function internal(node: SyntaxNode): InternalNode {
  return node as unknown as InternalNode;
}

/** The evaluation a node has now: one installed by this module, or the engine's for its kind. */
function currentEvaluate(n: InternalNode): NodeEvaluate {
  if (Object.hasOwn(n, "evaluate")) return n.evaluate;
  const { alternate, macro } = n.meta;
  if (alternate !== undefined) return (ev, _ast, ctx) => alternate.evaluate(ev, alternate as unknown as ASTNode, ctx);
  if (macro !== undefined) return (ev, _ast, ctx) => macro.evaluate(ev, macro, ctx);
  return n.meta.evaluate;
}

/** Gives a node its own evaluation (engine internal: ASTNode.evaluate dispatch). */
function overrideEvaluate(node: SyntaxNode | InternalNode, evaluate: NodeEvaluate): void {
  (node as InternalNode).evaluate = evaluate;
}

/** The engine node of a view node (they are the same objects). */
function engineNode(node: SyntaxNode | InternalNode): ASTNode {
  return node as unknown as ASTNode;
}

/** Whether an identifier stands for a constant (a type name, a library namespace): the checker substituted it. */
export function isConstantIdentifier(node: SyntaxNode): boolean {
  return node.op === "id" && internal(node).meta.alternate !== undefined;
}

/** The engine macro a call expands into: a comprehension (`all`, `map`, …), `has`, or another macro. */
export function macroOf(node: SyntaxNode): "comprehension" | "macro" | undefined {
  if (node.op !== "call" && node.op !== "rcall") return undefined;
  const { alternate, macro } = internal(node).meta;
  if (alternate?.op === "comprehension") return "comprehension";
  return macro !== undefined ? "macro" : undefined;
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

/** The range a comprehension macro call iterates (engine internal: its expansion's iterable), if it is one. */
export function comprehensionRange(node: SyntaxNode): SyntaxNode | undefined {
  if (macroOf(node) !== "comprehension") return undefined;
  return (internal(node).meta.alternate?.args as { iterable?: SyntaxNode } | undefined)?.iterable;
}

/** Makes a node evaluate to `map` of the value it had (engine internal: its evaluate dispatch). */
export function mapNodeValue(node: SyntaxNode, map: (v: unknown) => unknown): void {
  const inner = currentEvaluate(internal(node));
  overrideEvaluate(node, (ev, ast, ctx) => map(inner(ev, ast, ctx)));
}

/** Hooks that give `==`, `!=` and `+` Kubernetes list-type semantics for list operands. */
export interface ListOperatorHooks {
  equals(left: unknown[], right: unknown): boolean;
  concat(left: unknown[], right: unknown): unknown[];
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluation with a cost limit

/** Raised when an evaluation exceeds its cost limit (cel-go "operation cancelled: actual cost limit exceeded"). */
export class CostLimitExceeded extends Error {
  /** The cost charged when the evaluation stopped (past the limit; the API server counts it against its budget). */
  readonly cost: number;

  constructor(cost = Number.POSITIVE_INFINITY) {
    super("operation cancelled: actual cost limit exceeded");
    this.name = "CostLimitExceeded";
    this.cost = cost;
  }
}

/**
 * The evaluation in progress: cost spent and its limit, and the work done beyond what cel-go charges (see
 * {@link chargeWork}). One at a time: evaluation is synchronous.
 */
const meter = { cost: 0, limit: Number.POSITIVE_INFINITY, work: 0 };

function charge(cost: number): void {
  meter.cost += cost;
  if (meter.cost > meter.limit) throw new CostLimitExceeded(meter.cost);
}

/** Units of work an evaluation may do beyond its charges, per unit of its cost limit (see {@link chargeWork}). */
export const WORK_PER_COST = 10;

function isOverWork(): boolean {
  return meter.work > meter.limit * WORK_PER_COST;
}

/**
 * Counts work this engine does where cel-go does none for the same charge (lists concatenated by copying, where
 * cel-go makes a view of both in constant time; lib/cel/cost/builtins.ts), without changing the cost: an evaluation
 * whose work passes {@link WORK_PER_COST} times its cost limit is cancelled as over its limit, so no expression does
 * unbounded work for a constant charge. No rule within its cost does that much in practice (ten million elements
 * copied under the API server's per-call limit of one million).
 */
export function chargeWork(units: number): void {
  meter.work += units;
  if (isOverWork()) throw new CostLimitExceeded(meter.cost);
}

/**
 * How one node is charged at run time (cel-go's runtime cost tracker; lib/cel/cost/runtime.ts decides the amounts).
 * Charges are made before the work they pay for, so that nothing runs past the limit.
 */
export interface NodeMeter {
  /** Charged when the node starts evaluating: its own cost and that of the parts it always evaluates once. */
  readonly before: number;
  /** `&&` and `||`: charged before the right side evaluates. */
  readonly beforeRight?: number;
  /**
   * A call's or operator's charge from its evaluated operands (receiver first; a namespace receiver such as
   * `sets` left out), charged before the function runs.
   */
  readonly sized?: (operands: readonly unknown[]) => number;
  /** Leave the first operand (a namespace constant) out of `sized`'s operands. */
  readonly namespaced?: boolean;
  /** Charged after an optional selection that yields a present value. */
  readonly whenPresent?: number;
  /** A comprehension: charged per loop condition, step, list append and counter increment. */
  readonly iteration?: { condition: number; step: number; push: number; increment: number };
}

/** What installMeters does to a program: the charge its root makes before anything else. */
export interface InstalledMeters {
  readonly rootCost: number;
}

function logicalError(v: unknown): Error {
  if (v instanceof Error) return v;
  return new EvaluationError({ code: "no_such_overload", message: "no such overload" });
}

/**
 * cel-go's `||` and `&&` (interpreter evalOr/evalAnd): both sides are evaluated unless the left one decides, an
 * error on one side is absorbed when the other side decides, and when both fail the **left** error is reported.
 * The engine reports the right one; an own evaluation of each node restores cel-go's order.
 */
function logicalEvaluate(n: InternalNode, m: NodeMeter | undefined): NodeEvaluate {
  const left = engineNode((n.args as InternalNode[])[0]!);
  const right = engineNode((n.args as InternalNode[])[1]!);
  const decides = n.op === "||";
  const before = m?.before ?? 0;
  const beforeRight = m?.beforeRight ?? 0;
  return (ev, _ast, ctx) => {
    if (before !== 0) charge(before);
    const l = ev.tryEval(left, ctx);
    if (l === decides) return decides;
    if (beforeRight !== 0) charge(beforeRight);
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
  };
}

/**
 * A binary operator evaluated here: both operands (cel-go evaluates both even when one fails), then the size-based
 * charge (1 when an operand failed, as cel-go sizes an error), then Kubernetes' list-type `==`/`+` (dispatched on
 * the left operand, `x-kubernetes-list-type: set|map`) or the engine's operator. The left error is reported first.
 */
function binaryEvaluate(n: InternalNode, m: NodeMeter | undefined, hooks: ListOperatorHooks | undefined): NodeEvaluate {
  const operands = n.args as [InternalNode, InternalNode];
  const left = engineNode(operands[0]);
  const right = engineNode(operands[1]);
  const before = m?.before ?? 0;
  const sized = m?.sized;
  const op = n.op;
  return (ev, ast, ctx) => {
    if (before !== 0) charge(before);
    let l: unknown;
    let r: unknown;
    let failed: unknown;
    try {
      l = ev.run(left, ctx);
    } catch (e) {
      failed = e;
    }
    try {
      r = ev.run(right, ctx);
    } catch (e) {
      failed ??= e;
    }
    if (failed !== undefined) {
      if (sized !== undefined) charge(1);
      throw failed;
    }
    if (sized !== undefined) charge(sized([l, r]));
    if (hooks === undefined) return (ast as unknown as InternalNode).handle!(l, r, ast, ev);
    if (op === "+") return hooks.concat(l as unknown[], r);
    const eq = hooks.equals(l as unknown[], r);
    return op === "==" ? eq : !eq;
  };
}

/**
 * A function or method call evaluated here: its operands (last first, as the engine does), the charge, the call.
 * As in cel-go, a call of one or two operands evaluates them all and is charged 1 when one fails; a call of more
 * stops at the failing operand and is not charged.
 */
function callEvaluate(n: InternalNode, m: NodeMeter): NodeEvaluate {
  const method = n.op === "rcall";
  const operands = (method ? [receiverOf(n), ...argumentsOf(n)] : argumentsOf(n)).map(engineNode);
  const before = m.before;
  const sized = m.sized!;
  const skip = m.namespaced === true;
  const count = operands.length - (skip ? 1 : 0);
  return (ev, ast, ctx) => {
    if (before !== 0) charge(before);
    const values = new Array<unknown>(operands.length);
    let failed: unknown;
    for (let i = operands.length - 1; i >= 0; i--) {
      try {
        values[i] = ev.run(operands[i]!, ctx);
      } catch (e) {
        if (count > 2) throw e;
        failed ??= e;
      }
    }
    if (failed !== undefined) {
      charge(1);
      throw failed;
    }
    charge(sized(skip ? values.slice(1) : values));
    const handle = (ast as unknown as InternalNode).handle!;
    return method ? handle(values, ev, ast) : handle(values, ast, ev);
  };
}

/** A method call's receiver (`rcall` args: name, receiver, arguments). */
function receiverOf(n: InternalNode): InternalNode {
  return (n.args as [string, InternalNode, InternalNode[]])[1];
}

/** A call's arguments (`call` args: name, arguments; `rcall`: name, receiver, arguments). */
function argumentsOf(n: InternalNode): InternalNode[] {
  return n.op === "rcall"
    ? (n.args as [string, InternalNode, InternalNode[]])[2]
    : (n.args as [string, InternalNode[]])[1];
}

function chargeBefore(n: InternalNode, cost: number): void {
  if (cost === 0) return;
  const inner = currentEvaluate(n);
  overrideEvaluate(n, (ev, ast, ctx) => {
    charge(cost);
    return inner(ev, ast, ctx);
  });
}

/** cel-go's per-iteration charges of a comprehension, on the engine's expansion of the macro. */
function meterComprehension(n: InternalNode, it: NonNullable<NodeMeter["iteration"]>): void {
  const args = n.meta.alternate!.args as ComprehensionArgs;
  const condition = args.condition;
  if (condition !== undefined && it.condition !== 0) {
    const c = it.condition;
    args.condition = (accu) => {
      charge(c);
      return condition(accu);
    };
  }
  const step = args.step;
  chargeBefore(step, it.step);
  const branch = step.op === "?:" ? (step.args as InternalNode[])[1] : step;
  if (branch?.op === "accuPush") chargeBefore(branch, it.push);
  if (branch?.op === "accuInc") chargeBefore(branch, it.increment);
}

/**
 * Installs the runtime charges of a checked program (cel-go's runtime cost tracker) and cel-go's `||`/`&&` and
 * Kubernetes' list `==`/`+` (which evaluate their operands themselves). Nodes without a meter are charged by an
 * ancestor's `before`. Returns the root's charge, which the evaluation makes up front. Call after the type check.
 */
export function installMeters(
  root: SyntaxNode,
  meters: ReadonlyMap<SyntaxNode, NodeMeter>,
  listHooks: ListOperatorHooks,
): InstalledMeters {
  const visit = (node: SyntaxNode, isRoot: boolean): void => {
    const n = internal(node);
    const found = meters.get(node);
    // The root's `before` is charged up front by evaluateMetered.
    const m = isRoot && found !== undefined ? { ...found, before: 0 } : found;
    const op = n.op;
    const listOperator =
      (op === "==" || op === "!=" || op === "+") &&
      checkedTypeName((n.args as SyntaxNode[])[0]!)?.startsWith("list<") === true;
    const binary = node.op !== "call" && node.op !== "rcall";
    if (op === "||" || op === "&&") overrideEvaluate(n, logicalEvaluate(n, m));
    else if (listOperator || (m?.sized !== undefined && binary)) {
      overrideEvaluate(n, binaryEvaluate(n, m, listOperator ? listHooks : undefined));
    } else if (m?.sized !== undefined) overrideEvaluate(n, callEvaluate(n, m));
    else if (m !== undefined) {
      if (m.whenPresent !== undefined) meterPresence(n, m.whenPresent);
      chargeBefore(n, m.before);
    }
    if (m?.iteration !== undefined) meterComprehension(n, m.iteration);
    for (const c of syntaxChildren(node)) visit(c, false);
  };
  visit(root, true);
  return { rootCost: meters.get(root)?.before ?? 0 };
}

function meterPresence(n: InternalNode, cost: number): void {
  const inner = currentEvaluate(n);
  overrideEvaluate(n, (ev, ast, ctx) => {
    const v = inner(ev, ast, ctx);
    if (v instanceof Optional && v.hasValue()) charge(cost);
    return v;
  });
}

/**
 * Adds a library function's own runtime cost to the evaluation in progress (cel-go's CallCost: an authorization
 * check costs 350,000 beyond its call node). Throws CostLimitExceeded past the limit.
 */
export function chargeRuntimeCost(cost: number): void {
  charge(cost);
}

/** The outcome of a metered evaluation that stayed within its limit: a value or an error, and the cost spent. */
export type MeteredOutcome =
  | { kind: "value"; value: unknown; cost: number }
  | { kind: "error"; error: unknown; cost: number };

/**
 * Evaluates a program with a cost limit, starting from `initialCost` (the root's charge, see installMeters).
 * Throws CostLimitExceeded past the limit; an evaluation error is returned with the cost spent until then (the API
 * server charges it to the budget). A cost error inside `||`, `&&` or a comprehension is absorbed by the engine
 * like any error, so the limit is checked again after the evaluation.
 */
export function evaluateMetered(
  program: EngineProgram,
  activation: Readonly<Record<string, unknown>>,
  limit: number,
  initialCost = 0,
): MeteredOutcome {
  const savedCost = meter.cost;
  const savedLimit = meter.limit;
  const savedWork = meter.work;
  meter.cost = initialCost;
  meter.limit = limit;
  meter.work = 0;
  try {
    if (initialCost > limit) throw new CostLimitExceeded(initialCost);
    const value: unknown = program(activation);
    if (meter.cost > limit || isOverWork()) throw new CostLimitExceeded(meter.cost);
    return { kind: "value", value, cost: meter.cost };
  } catch (e) {
    if (meter.cost > limit || isOverWork() || e instanceof CostLimitExceeded) throw new CostLimitExceeded(meter.cost);
    return { kind: "error", error: e, cost: meter.cost };
  } finally {
    meter.cost = savedCost;
    meter.limit = savedLimit;
    meter.work = savedWork;
  }
}
