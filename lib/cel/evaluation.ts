/**
 * How a checked expression is evaluated: each node of the tree gets one evaluation (a `Run`), built from its
 * children's, with the runtime charges lib/cel/cost/runtime.ts planned for it (metering.ts), cel-go's `||`/`&&`
 * and Kubernetes' list `==`/`+`, installed as the node's evaluate dispatch so that the engine reaches it too.
 *
 * A node's own work is the engine's (its handle, its macro's loop, its variable lookup) or, where fast-access.ts
 * has one, a shorter path for the common case that gives the same value and leaves everything else (absent fields,
 * values of another type, errors) to the engine's handle. A parent calls its children's evaluations directly
 * rather than through the engine's dispatch; nodes kept by an earlier pass (literal map keys, nullable variables)
 * and macros other than comprehensions and has() keep the engine's evaluation of their own.
 */

import { comprehensionRun } from "./comprehension-loops.js";
import {
  type CheckedType,
  checkedTypeName,
  comprehensionOf,
  currentEvaluate,
  type EngineNode,
  type EvaluationContext,
  EvaluationError,
  type Evaluator,
  engineNode,
  hasOwnEvaluate,
  kindEvaluate,
  Optional,
  overrideEvaluate,
  presenceTestPath,
  type SyntaxNode,
  syntaxChildren,
} from "./engine.js";
import { constantMembershipRun, indexRun, presenceTestRun, selectRun, variableRun } from "./fast-access.js";
import { charge, type NodeMeter } from "./metering.js";

/**
 * A node's evaluation, in the engine's evaluator and variable context. It has the engine's evaluate signature, so
 * that it is the node's evaluate dispatch itself; the node argument is not used (a parent passes undefined).
 */
export type Run = (ev: Evaluator, ast: unknown, ctx: EvaluationContext) => unknown;

/** Hooks that give `==`, `!=` and `+` Kubernetes list-type semantics for list operands. */
export interface ListOperatorHooks {
  equals(left: unknown[], right: unknown): boolean;
  concat(left: unknown[], right: unknown): unknown[];
}

/**
 * How the nodes do their own work: `direct` (the default) as described in the module comment; `engine`: every node
 * keeps the engine's work and dispatch (the charges and cel-go's operators are the same), the reference the direct
 * evaluation is tested against.
 */
export type EvaluationMode = "direct" | "engine";

/** What installEvaluation did to a program: the charge its root makes before anything else. */
export interface InstalledEvaluation {
  readonly rootCost: number;
}

type Handle = (...args: unknown[]) => unknown;

/** The evaluations built so far, by node. */
type Runs = ReadonlyMap<SyntaxNode, Run>;

function runOf(runs: Runs, node: SyntaxNode): Run {
  const r = runs.get(node);
  if (r === undefined) throw new Error(`no evaluation built for a ${node.op} node`);
  return r;
}

/**
 * The engine's own evaluation of a node (its kind's, its macro's, or one an earlier pass installed). On a tree that
 * was not type-checked, the engine decides it when the node runs (a constant identifier is known after its check).
 */
function engineRun(n: EngineNode, checked: boolean): Run {
  if (checked || hasOwnEvaluate(n)) {
    const evaluate = currentEvaluate(n);
    return (ev, _ast, ctx) => evaluate(ev, n, ctx);
  }
  return (ev, _ast, ctx) => kindEvaluate(n)(ev, n, ctx);
}

/** Evaluates operands last first, as the engine does (resolveAstArray). */
function operandValues(ev: Evaluator, ctx: EvaluationContext, operands: readonly Run[]): unknown[] {
  let i = operands.length;
  const values = new Array<unknown>(i);
  while (i-- > 0) values[i] = operands[i]!(ev, undefined, ctx);
  return values;
}

/** A call's operands in the order its handle takes them: a method's receiver first. */
function callOperands(node: SyntaxNode): readonly SyntaxNode[] {
  if (node.op === "rcall") return [node.args[1], ...node.args[2]];
  if (node.op === "call") return node.args[1];
  return [];
}

/**
 * The engine's evaluation of a node's kind, calling the children's evaluations directly (operators/evaluate in the
 * engine: the same handle on the same operand values, in the same order), or a fast path of fast-access.ts.
 * Undefined where the engine's own evaluation is kept.
 */
function directRun(node: SyntaxNode, n: EngineNode, m: NodeMeter | undefined, runs: Runs): Run | undefined {
  const handle = n.handle as Handle | undefined;
  const macro = n.meta.macro !== undefined || n.meta.alternate !== undefined;
  if (macro) {
    const comprehension = comprehensionOf(node);
    const target = node.op === "rcall" ? node.args[1] : undefined;
    if (comprehension !== undefined && target !== undefined && comprehension.args.iterable === engineNode(target)) {
      const range = runOf(runs, target);
      const own = comprehensionRun(node, comprehension, range, runs, m?.iteration);
      if (own !== undefined) return own;
      const { args, loop } = comprehension;
      return (ev, _ast, ctx) => loop(range(ev, undefined, ctx), args, ev, ctx);
    }
    const path = presenceTestPath(node);
    if (path !== undefined) return presenceTestRun(node, path, runs);
    return undefined;
  }
  switch (node.op) {
    case "value": {
      const v = node.args;
      return () => v;
    }
    case "id":
      return variableRun(node) ?? ((ev, _ast, ctx) => ctx.getCheckedValue(ev, n));
    case ".":
    case ".?": {
      if (handle === undefined) return undefined;
      const operand = runOf(runs, node.args[0]);
      const fast = node.op === "." ? selectRun(node, operand) : undefined;
      if (fast !== undefined) return fast;
      const key = node.args[1];
      return (ev, _ast, ctx) => handle(operand(ev, undefined, ctx), key, n, ev);
    }
    case "[]":
    case "[?]": {
      if (handle === undefined) return undefined;
      const operand = runOf(runs, node.args[0]);
      const index = runOf(runs, node.args[1]);
      const fast = node.op === "[]" ? indexRun(node, operand, index) : undefined;
      if (fast !== undefined) return fast;
      return (ev, _ast, ctx) => handle(operand(ev, undefined, ctx), index(ev, undefined, ctx), n, ev);
    }
    case "?:": {
      if (handle === undefined) return undefined;
      const [condition, whenTrue, whenFalse] = node.args.map((c) => runOf(runs, c)) as [Run, Run, Run];
      return (ev, _ast, ctx) => {
        const c = condition(ev, undefined, ctx);
        if (c === true) return whenTrue(ev, undefined, ctx);
        if (c === false) return whenFalse(ev, undefined, ctx);
        return handle(c, ev, n, ctx);
      };
    }
    case "!_":
    case "-_": {
      if (handle === undefined) return undefined;
      const operand = runOf(runs, node.args);
      return (ev, _ast, ctx) => handle(operand(ev, undefined, ctx), n, ev);
    }
    case "list": {
      const elements = node.args.map((c) => runOf(runs, c));
      return (ev, _ast, ctx) => operandValues(ev, ctx, elements);
    }
    case "call":
    case "rcall": {
      if (handle === undefined) return undefined;
      const operands = callOperands(node).map((c) => runOf(runs, c));
      if (node.op === "rcall") return (ev, _ast, ctx) => handle(operandValues(ev, ctx, operands), ev, n);
      return (ev, _ast, ctx) => handle(operandValues(ev, ctx, operands), n, ev);
    }
    case "map":
    case "||":
    case "&&":
      return undefined;
    default: {
      if (handle === undefined) return undefined;
      const left = runOf(runs, node.args[0]);
      const membership = constantMembershipRun(node, left);
      if (membership !== undefined) return membership;
      // A literal operand is its value (evaluating it has no effect and no charge).
      const [l, r] = node.args;
      if (r.op === "value") {
        const constant = r.args;
        return (ev, _ast, ctx) => handle(left(ev, undefined, ctx), constant, n, ev);
      }
      const right = runOf(runs, r);
      if (l.op === "value") {
        const constant = l.args;
        return (ev, _ast, ctx) => handle(constant, right(ev, undefined, ctx), n, ev);
      }
      return (ev, _ast, ctx) => handle(left(ev, undefined, ctx), right(ev, undefined, ctx), n, ev);
    }
  }
}

function logicalError(v: unknown): Error {
  if (v instanceof Error) return v;
  return new EvaluationError({ code: "no_such_overload", message: "no such overload" });
}

/**
 * cel-go's `||` and `&&` (interpreter evalOr/evalAnd): both sides are evaluated unless the left one decides, an
 * error on one side is absorbed when the other side decides, and when both fail the **left** error is reported.
 * (The engine reports the right one.)
 */
function logicalRun(node: SyntaxNode, m: NodeMeter | undefined, runs: Runs): Run {
  const [left, right] = syntaxChildren(node).map((c) => runOf(runs, c)) as [Run, Run];
  const decides = node.op === "||";
  const before = m?.before ?? 0;
  const beforeRight = m?.beforeRight ?? 0;
  return (ev, _ast, ctx) => {
    if (before !== 0) charge(before);
    let l: unknown;
    try {
      l = left(ev, undefined, ctx);
    } catch (e) {
      l = e;
    }
    if (l === decides) return decides;
    if (beforeRight !== 0) charge(beforeRight);
    if (l === !decides) {
      // The left side does not decide: the right side's value (or error) is the result.
      const r = right(ev, undefined, ctx);
      if (typeof r === "boolean") return r;
      throw logicalError(r);
    }
    // The left side failed: a deciding right side absorbs the error, anything else reports the left error.
    let r: unknown;
    try {
      r = right(ev, undefined, ctx);
    } catch (e) {
      r = e;
    }
    if (r === decides) return decides;
    throw logicalError(l);
  };
}

/**
 * A binary operator evaluated here: both operands (cel-go evaluates both even when one fails), then the size-based
 * charge (1 when an operand failed, as cel-go sizes an error), then Kubernetes' list-type `==`/`+` (dispatched on
 * the left operand, `x-kubernetes-list-type: set|map`) or the engine's operator. The left error is reported first.
 */
function binaryRun(
  node: SyntaxNode,
  n: EngineNode,
  m: NodeMeter | undefined,
  hooks: ListOperatorHooks | undefined,
  runs: Runs,
): Run {
  const [left, right] = syntaxChildren(node).map((c) => runOf(runs, c)) as [Run, Run];
  const before = m?.before ?? 0;
  const sized = m?.sized;
  const op = n.op;
  return (ev, _ast, ctx) => {
    if (before !== 0) charge(before);
    let l: unknown;
    let r: unknown;
    let failed: unknown;
    try {
      l = left(ev, undefined, ctx);
    } catch (e) {
      failed = e;
    }
    try {
      r = right(ev, undefined, ctx);
    } catch (e) {
      failed ??= e;
    }
    if (failed !== undefined) {
      if (sized !== undefined) charge(1);
      throw failed;
    }
    if (sized !== undefined) charge(sized([l, r]));
    if (hooks === undefined) return (n.handle as Handle)(l, r, n, ev);
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
function callRun(node: SyntaxNode, n: EngineNode, m: NodeMeter, runs: Runs): Run {
  const method = node.op === "rcall";
  const operands = callOperands(node).map((c) => runOf(runs, c));
  const before = m.before;
  const sized = m.sized!;
  const skip = m.namespaced === true;
  const count = operands.length - (skip ? 1 : 0);
  return (ev, _ast, ctx) => {
    if (before !== 0) charge(before);
    const values = new Array<unknown>(operands.length);
    let failed: unknown;
    for (let i = operands.length - 1; i >= 0; i--) {
      try {
        values[i] = operands[i]!(ev, undefined, ctx);
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
    const handle = n.handle as Handle;
    return method ? handle(values, ev, n) : handle(values, n, ev);
  };
}

function chargedBefore(run: Run, cost: number): Run {
  return (ev, _ast, ctx) => {
    charge(cost);
    return run(ev, undefined, ctx);
  };
}

/** An optional selection charged when it yields a present value. */
function chargedWhenPresent(run: Run, cost: number): Run {
  return (ev, _ast, ctx) => {
    const v = run(ev, undefined, ctx);
    if (v instanceof Optional && v.hasValue()) charge(cost);
    return v;
  };
}

/** A synthetic node of a comprehension (its step, an append) charged before it evaluates. */
function chargeSyntheticBefore(n: EngineNode, cost: number): void {
  if (cost === 0) return;
  const inner = currentEvaluate(n);
  overrideEvaluate(n, (ev, ast, ctx) => {
    charge(cost);
    return inner(ev, ast, ctx);
  });
}

/** cel-go's per-iteration charges of a comprehension, on the engine's expansion of the macro. */
function meterComprehension(node: SyntaxNode, it: NonNullable<NodeMeter["iteration"]>): void {
  const args = comprehensionOf(node)?.args;
  if (args === undefined) return;
  const condition = args.condition;
  if (condition !== undefined && it.condition !== 0) {
    const c = it.condition;
    args.condition = (accu) => {
      charge(c);
      return condition(accu);
    };
  }
  const step = args.step;
  chargeSyntheticBefore(step, it.step);
  const branch = step.op === "?:" ? (step.args as EngineNode[])[1] : step;
  if (branch?.op === "accuPush") chargeSyntheticBefore(branch, it.push);
  if (branch?.op === "accuInc") chargeSyntheticBefore(branch, it.increment);
}

/** Whether `==`, `!=` or `+` has a list as its left operand (Kubernetes' list-type semantics apply). */
function isListOperator(node: SyntaxNode): boolean {
  return (
    (node.op === "==" || node.op === "!=" || node.op === "+") &&
    checkedTypeName(node.args[0])?.startsWith("list<") === true
  );
}

/** A node's evaluation with its charges (see the module comment). */
function meteredRun(
  node: SyntaxNode,
  n: EngineNode,
  m: NodeMeter | undefined,
  hooks: ListOperatorHooks,
  runs: Runs,
  direct: boolean,
  checked: boolean,
): Run {
  if (node.op === "||" || node.op === "&&") return logicalRun(node, m, runs);
  const listOperator = isListOperator(node);
  const call = node.op === "call" || node.op === "rcall";
  if (listOperator || (m?.sized !== undefined && !call)) {
    return binaryRun(node, n, m, listOperator ? hooks : undefined, runs);
  }
  if (m?.sized !== undefined) return callRun(node, n, m, runs);
  const own = hasOwnEvaluate(n) || !direct ? undefined : directRun(node, n, m, runs);
  let run = own ?? engineRun(n, checked);
  if (m?.whenPresent !== undefined) run = chargedWhenPresent(run, m.whenPresent);
  if (m !== undefined && m.before !== 0) run = chargedBefore(run, m.before);
  return run;
}

/**
 * Installs the evaluation of every node of a tree, with its runtime charges (cel-go's runtime cost tracker), cel-go's
 * `||`/`&&` and Kubernetes' list `==`/`+`. Nodes without a meter are charged by an ancestor's `before`. Returns the
 * root's charge, which the evaluation makes up front (metering.ts evaluateMetered). Call last, after the type check
 * and every other change to the tree; on a tree that was not type-checked, every node keeps the engine's work (its
 * handles are set when it first runs).
 */
export function installEvaluation(
  root: SyntaxNode,
  meters: ReadonlyMap<SyntaxNode, NodeMeter>,
  listHooks: ListOperatorHooks,
  mode: EvaluationMode = "direct",
): InstalledEvaluation {
  // Without a type check the engine sets each node's handle when it first runs: it keeps its work.
  const checked = (engineNode(root).checkedType as CheckedType | undefined) !== undefined;
  const direct = mode === "direct" && checked;
  const runs = new Map<SyntaxNode, Run>();
  const build = (node: SyntaxNode, isRoot: boolean): void => {
    for (const c of syntaxChildren(node)) build(c, false);
    const n = engineNode(node);
    const found = meters.get(node);
    // The root's `before` is charged up front by evaluateMetered.
    const m = isRoot && found !== undefined ? { ...found, before: 0 } : found;
    const run = meteredRun(node, n, m, listHooks, runs, direct, checked);
    if (m?.iteration !== undefined) meterComprehension(node, m.iteration);
    runs.set(node, run);
    overrideEvaluate(n, run);
  };
  build(root, true);
  return { rootCost: meters.get(root)?.before ?? 0 };
}
