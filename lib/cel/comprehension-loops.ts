/**
 * The loops of the comprehension macros over a list (`all`, `exists`, `exists_one`, `filter`, `map`), done here as
 * the engine's expansion of each macro does them (its runQualifier / runComprehension over the step node the macro
 * expands into), with the macro's per-iteration charges (cel-go's runtime cost, lib/cel/cost/runtime.ts): the
 * predicate and transform run as their own evaluations (evaluation.ts), the loop variable is bound in the engine's
 * iteration context, as the engine binds it. A range that is not a list (a map's keys, a set) runs the engine's
 * loop.
 *
 * `all` and `exists` absorb an error of one element when another decides, and report the first error otherwise;
 * the others stop at the first error. A predicate that is not a bool fails with the engine's error (the step's
 * ternary handle).
 */
import {
  type ComprehensionArgs,
  type ComprehensionLoop,
  callOf,
  type EngineNode,
  type EvaluationContext,
  type Evaluator,
  engineNode,
  type IterationContext,
  type SyntaxNode,
} from "./engine.js";
import type { Run } from "./evaluation.js";
import { charge, type NodeMeter } from "./metering.js";

type Iteration = NonNullable<NodeMeter["iteration"]>;

const NO_ITERATION: Iteration = { condition: 0, step: 0, push: 0, increment: 0 };

/** The ternary the macro's step is (`p ? a : b`): its handle fails a condition that is not a bool. */
type TernaryHandle = (c: unknown, ev: Evaluator, ast: EngineNode, ctx: EvaluationContext) => unknown;

/** The parts of a macro's expansion a loop needs, when the step is the expansion the loop expects. */
interface Expansion {
  readonly step: EngineNode;
  /** The ternary step's handle, or undefined for `map`'s plain append. */
  readonly ternary: TernaryHandle | undefined;
  /** The step's branch taken when the predicate holds: `accuPush` (its operand), `accuInc`, or a value. */
  readonly branch: EngineNode | undefined;
}

function expansion(args: ComprehensionArgs, predicate: SyntaxNode | undefined): Expansion | undefined {
  const step = args.step;
  if (predicate === undefined) return step.op === "accuPush" ? { step, ternary: undefined, branch: step } : undefined;
  if (step.op !== "?:" || typeof step.handle !== "function") return undefined;
  const [condition, branch] = step.args as EngineNode[];
  if (condition !== engineNode(predicate)) return undefined;
  return { step, ternary: step.handle as unknown as TernaryHandle, branch };
}

/** A predicate's value that is not a bool, as the step's ternary takes it: the engine's error. */
function condition(p: unknown, x: Expansion, ev: Evaluator, ctx: EvaluationContext): boolean {
  x.ternary!(p, ev, x.step, ctx);
  throw new Error("a comprehension's predicate that is not a bool did not fail");
}

/** `all` (decides on false) and `exists` (decides on true): errors absorbed as the engine's iterateQuantifier does. */
function quantifier(isExists: boolean, predicate: Run, x: Expansion, it: Iteration, args: ComprehensionArgs) {
  const conditionCost = it.condition;
  const stepCost = it.step;
  return (ev: Evaluator, items: readonly unknown[], c: IterationContext): unknown => {
    let accu = ev.run(args.init, c);
    c.accuValue = accu;
    let error: unknown;
    for (let i = 0; i < items.length; i++) {
      if (conditionCost !== 0) charge(conditionCost);
      if (isExists ? accu : !accu) return accu;
      c.setIterValue(items[i], ev);
      let step: unknown;
      try {
        if (stepCost !== 0) charge(stepCost);
        const p = predicate(ev, undefined, c);
        step = p === true || p === false ? p : condition(p, x, ev, c);
      } catch (e) {
        step = e;
      }
      if (step instanceof Error) {
        error ??= step;
        continue;
      }
      accu = step;
    }
    if (error !== undefined) {
      if (conditionCost !== 0) charge(conditionCost);
      if (isExists ? !accu : accu) throw error;
    }
    return accu;
  };
}

/** `exists_one`: counts the elements the predicate holds for; errors stop it. */
function existsOne(predicate: Run, x: Expansion, it: Iteration, args: ComprehensionArgs) {
  return (ev: Evaluator, items: readonly unknown[], c: IterationContext): unknown => {
    let accu = ev.run(args.init, c);
    c.accuValue = accu;
    for (let i = 0; i < items.length; i++) {
      c.setIterValue(items[i], ev);
      if (it.step !== 0) charge(it.step);
      const p = predicate(ev, undefined, c);
      if (p === true || (p !== false && condition(p, x, ev, c))) {
        if (it.increment !== 0) charge(it.increment);
        c.accuValue = (c.accuValue as number) + 1;
      }
      accu = c.accuValue;
    }
    return accu === 1;
  };
}

/** `filter` (appends the element) and `map` (appends the transform, where the optional filter holds). */
function appending(
  predicate: Run | undefined,
  transform: Run | undefined,
  x: Expansion,
  it: Iteration,
  args: ComprehensionArgs,
) {
  return (ev: Evaluator, items: readonly unknown[], c: IterationContext): unknown => {
    let accu = ev.run(args.init, c);
    c.accuValue = accu;
    for (let i = 0; i < items.length; i++) {
      c.setIterValue(items[i], ev);
      if (it.step !== 0) charge(it.step);
      const p = predicate === undefined ? true : predicate(ev, undefined, c);
      if (p === true || (p !== false && condition(p, x, ev, c))) {
        if (it.push !== 0) charge(it.push);
        const v = transform === undefined ? c.iterValue : transform(ev, undefined, c);
        (c.accuValue as unknown[]).push(v);
      }
      accu = c.accuValue;
    }
    return accu;
  };
}

type Loop = (ev: Evaluator, items: readonly unknown[], c: IterationContext) => unknown;

/** The loop of a macro call over a list, or undefined where the engine's loop runs (another macro or expansion). */
function loopOf(node: SyntaxNode, args: ComprehensionArgs, runs: ReadonlyMap<SyntaxNode, Run>, it: Iteration) {
  const call = callOf(node);
  if (call === undefined) return undefined;
  const [, first, second] = call.args;
  const run = (n: SyntaxNode | undefined) => (n === undefined ? undefined : runs.get(n));
  const fatal = (args as { errorsAreFatal?: boolean }).errorsAreFatal === true;
  let loop: Loop | undefined;
  switch (`${call.name}/${call.args.length}`) {
    case "all/2":
    case "exists/2": {
      const x = expansion(args, first);
      const p = run(first);
      if (x !== undefined && p !== undefined && !fatal) loop = quantifier(call.name === "exists", p, x, it, args);
      break;
    }
    case "exists_one/2": {
      const x = expansion(args, first);
      const p = run(first);
      if (x !== undefined && p !== undefined && fatal && x.branch?.op === "accuInc") loop = existsOne(p, x, it, args);
      break;
    }
    case "filter/2": {
      const x = expansion(args, first);
      const p = run(first);
      if (x !== undefined && p !== undefined && fatal && x.branch?.op === "accuPush")
        loop = appending(p, undefined, x, it, args);
      break;
    }
    case "map/2": {
      // map(v, t): the step appends the transform
      const x = expansion(args, undefined);
      const t = run(first);
      if (x !== undefined && t !== undefined && fatal && x.branch?.args === engineNode(first!))
        loop = appending(undefined, t, x, it, args);
      break;
    }
    case "map/3": {
      // map(v, f, t): the step appends the transform where the filter holds
      const x = expansion(args, first);
      const p = run(first);
      const t = run(second);
      const push = x?.branch;
      if (
        x !== undefined &&
        p !== undefined &&
        t !== undefined &&
        fatal &&
        push?.op === "accuPush" &&
        push.args === engineNode(second!)
      )
        loop = appending(p, t, x, it, args);
      break;
    }
  }
  return loop;
}

/**
 * The evaluation of a comprehension macro call whose range is `range`: the loop above over a list, the engine's
 * loop over anything else. Undefined where the macro or its expansion is not one the loops know.
 */
export function comprehensionRun(
  node: SyntaxNode,
  comprehension: { args: ComprehensionArgs; loop: ComprehensionLoop },
  range: Run,
  runs: ReadonlyMap<SyntaxNode, Run>,
  iteration: Iteration | undefined,
): Run | undefined {
  const { args, loop: engineLoop } = comprehension;
  const loop = loopOf(node, args, runs, iteration ?? NO_ITERATION);
  if (loop === undefined) return undefined;
  return (ev, _ast, ctx) => {
    const items = range(ev, undefined, ctx);
    if (!Array.isArray(items)) return engineLoop(items, args, ev, ctx);
    return loop(ev, items, args.iterCtx.reuse(ctx));
  };
}
