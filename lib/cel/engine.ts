/**
 * The adapter to the CEL engine: the only module of tollgate that imports @marcbachmann/cel-js (pinned to an exact
 * version in package.json), so the engine can be replaced. It offers:
 *
 * - engine environments with tollgate's options, and the registration surface libraries use (`EngineRegistrar`);
 * - parsing and type checking, with a typed read-only view of the syntax tree (`SyntaxNode`) for the steps that
 *   read it (source rewrites, compile-time checks, cost estimation, facts such as "uses oldSelf");
 * - the few changes tollgate makes to a parsed tree: renaming method calls, replacing the handler of an operator or
 *   call, letting object variables hold null;
 * - the node internals tollgate's evaluation of a checked tree (evaluation.ts, metering.ts) builds on: a node's
 *   evaluate dispatch, handle and checked type, a macro's expansion, the evaluator and its variable contexts.
 *
 * Engine internals are named here only (the other modules use the names this module gives them), and are covered by
 * contract tests (test/unit/lib/cel/engine.test.ts).
 */

import type { ParseResult } from "@marcbachmann/cel-js";
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
// Node internals: a node's evaluate dispatch and meta, the handle and type the checker records, the comprehension a
// macro call expands into. lib/cel's evaluation (evaluation.ts, metering.ts) reaches them through these names only.

/** The engine's evaluator, as a node's evaluation sees it. */
export interface Evaluator {
  run(ast: EngineNode, ctx: EvaluationContext): unknown;
  tryEval(ast: EngineNode, ctx: EvaluationContext): unknown;
  /** The runtime type of a value (throws for a value of no CEL type). */
  debugType(v: unknown): CheckedType;
  /** The declared object types by name. */
  readonly objectTypes: ReadonlyMap<string, ObjectTypeDeclaration>;
  /** The declared object types by value class: how the engine knows an object value's type. */
  readonly objectTypesByConstructor: ReadonlyMap<unknown, ObjectTypeDeclaration>;
}

/** A declared object type: its value class and its fields' types. */
export interface ObjectTypeDeclaration {
  readonly ctor?: unknown;
  readonly fields?: Readonly<Record<string, CheckedType>>;
}

/** The variables an evaluation sees: the activation, and the variables of the comprehensions it is in. */
export interface EvaluationContext {
  getValue(name: string): unknown;
  /** A variable's value, checked against its declared type (the engine's error when it does not fit). */
  getCheckedValue(ev: Evaluator, ast: EngineNode): unknown;
}

/** A type the checker gave a node (the engine's type declaration). */
export interface CheckedType {
  readonly name: string;
  readonly kind: string;
  readonly valueType?: CheckedType;
  readonly keyType?: CheckedType;
  /** Whether a runtime value has this type (the engine's check of a field's, element's or variable's value). */
  matchesValueType(v: unknown, ev: Evaluator): boolean;
  /** The engine's selection of `key` on a value of this type: the value, or undefined when absent. */
  fieldLazy(obj: unknown, key: unknown, ast: EngineNode, ev: Evaluator): unknown;
}

/** How the engine evaluates a node (its `evaluate` dispatch). */
export type NodeEvaluate = (ev: Evaluator, ast: EngineNode, ctx: EvaluationContext) => unknown;

interface MacroExpansion {
  evaluate(ev: Evaluator, macro: MacroExpansion, ctx: EvaluationContext): unknown;
  /** has(): its selections, outermost first, then the identifier they start from (set by the type check). */
  readonly macroHasProps?: readonly EngineNode[];
}

/** A comprehension's parts (the engine's expansion of a macro call). */
export interface ComprehensionArgs {
  readonly iterable: EngineNode;
  /** The accumulator's first value. */
  readonly init: EngineNode;
  step: EngineNode;
  condition?: (accu: unknown) => boolean;
  /** The context that binds the loop variable (and the accumulator). */
  readonly iterCtx: IterationContext;
}

/** A comprehension's variable context (the engine's, one per comprehension node, reused by each evaluation). */
export interface IterationContext extends EvaluationContext {
  /** The context, with `parent` as the variables around it. */
  reuse(parent: EvaluationContext): IterationContext;
  /** Binds the loop variable to `v`, checked against (or converted to) its type; the engine's error otherwise. */
  setIterValue(v: unknown, ev: Evaluator): IterationContext;
  readonly iterValue: unknown;
  accuValue: unknown;
}

/** An engine node: the SyntaxNode view's object, with what the engine keeps on it. */
export interface EngineNode {
  readonly op: string;
  readonly args: unknown;
  readonly meta: { evaluate: NodeEvaluate; alternate?: EngineNode; macro?: MacroExpansion };
  evaluate: NodeEvaluate;
  /** Set by the checker (at compile time, or when an unchecked program is evaluated) on operators and calls. */
  readonly handle?: (...args: never[]) => unknown;
  readonly checkedType?: CheckedType;
}

/** The engine node of a view node (they are the same objects). */
export function engineNode(node: SyntaxNode): EngineNode {
  return node as unknown as EngineNode;
}

function internal(node: SyntaxNode): EngineNode {
  return node as unknown as EngineNode;
}

/** The evaluation a node has now: one installed by lib/cel, or the engine's for its kind. */
export function currentEvaluate(n: EngineNode): NodeEvaluate {
  if (Object.hasOwn(n, "evaluate")) return n.evaluate;
  return kindEvaluate(n);
}

/**
 * The engine's evaluation of a node's kind (its macro's or alternate's, as ASTNode.evaluate dispatches), whatever
 * lib/cel installed on it. A constant identifier gets its alternate when it is type-checked.
 */
export function kindEvaluate(n: EngineNode): NodeEvaluate {
  const { alternate, macro } = n.meta;
  if (alternate !== undefined) return (ev, _ast, ctx) => alternate.evaluate(ev, alternate, ctx);
  if (macro !== undefined) return (ev, _ast, ctx) => macro.evaluate(ev, macro, ctx);
  return n.meta.evaluate;
}

/** Whether a pass of lib/cel gave the node an evaluation of its own (before the evaluation is installed). */
export function hasOwnEvaluate(n: EngineNode): boolean {
  return Object.hasOwn(n, "evaluate");
}

/** Gives a node its own evaluation (engine internal: ASTNode.evaluate dispatch). */
export function overrideEvaluate(node: SyntaxNode | EngineNode, evaluate: NodeEvaluate): void {
  (node as EngineNode).evaluate = evaluate;
}

/** The engine's loop of a comprehension over its range's value (the expansion's handle). */
export type ComprehensionLoop = (
  range: unknown,
  args: ComprehensionArgs,
  ev: Evaluator,
  ctx: EvaluationContext,
) => unknown;

/** The comprehension a macro call expands into (`all`, `map`, …), with the engine's loop over a range's value. */
export function comprehensionOf(node: SyntaxNode): { args: ComprehensionArgs; loop: ComprehensionLoop } | undefined {
  const alternate = internal(node).meta.alternate;
  if (alternate?.op !== "comprehension" || typeof alternate.handle !== "function") return undefined;
  return { args: alternate.args as ComprehensionArgs, loop: alternate.handle as unknown as ComprehensionLoop };
}

/** The selections of a has() macro call, outermost first, and the identifier they start from. */
export function presenceTestPath(node: SyntaxNode): readonly EngineNode[] | undefined {
  if (node.op !== "call" || node.args[0] !== "has") return undefined;
  return internal(node).meta.macro?.macroHasProps;
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

const overridden = new WeakSet<object>();

/** Whether overrideHandlers replaced the node's handle. */
export function hasOverriddenHandle(node: SyntaxNode | EngineNode): boolean {
  return overridden.has(node);
}

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
    overridden.add(node);
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

/**
 * cel-go lets a variable of an object type hold null (kube-apiserver binds an admission policy's `namespaceObject`
 * to null for cluster-scoped requests), while the engine checks a variable's value against its declared type. Reads
 * of the named variables return a null value as is (engine internal: the context's getValue). Called after the type
 * check.
 */
export function allowNullVariables(node: SyntaxNode, names: ReadonlySet<string>): void {
  if (node.op === "id" && names.has(node.args)) {
    const name = node.args;
    overrideEvaluate(node, (ev, ast, ctx) => (ctx.getValue(name) === null ? null : ctx.getCheckedValue(ev, ast)));
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
