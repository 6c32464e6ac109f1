/**
 * The runtime cost of the evaluation in progress (cel-go's runtime cost tracker, as the API server limits it): the
 * charges nodes make (evaluation.ts installs them where lib/cel/cost/runtime.ts decides), the limit they are checked
 * against, and the work this engine does beyond what cel-go charges. Evaluation is synchronous: one meter at a
 * time, saved and restored around a nested evaluation.
 */
import type { EngineProgram } from "./engine.js";

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

/** The evaluation in progress: cost spent and its limit, and the work done beyond what cel-go charges. */
const meter = { cost: 0, limit: Number.POSITIVE_INFINITY, work: 0 };

/** Adds to the cost of the evaluation in progress; throws CostLimitExceeded past its limit. */
export function charge(cost: number): void {
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
 * Adds a library function's own runtime cost to the evaluation in progress (cel-go's CallCost: an authorization
 * check costs 350,000 beyond its call node). Throws CostLimitExceeded past the limit.
 */
export function chargeRuntimeCost(cost: number): void {
  charge(cost);
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

/** The outcome of a metered evaluation that stayed within its limit: a value or an error, and the cost spent. */
export type MeteredOutcome =
  | { kind: "value"; value: unknown; cost: number }
  | { kind: "error"; error: unknown; cost: number };

/**
 * Evaluates a program with a cost limit, starting from `initialCost` (the root's charge, see evaluation.ts).
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
  // An evaluation error is a value here (its message is all anyone reads): capturing each one's stack trace cost
  // more than the rest of making it (rules that fail on absent fields make one per object). A caller that runs many
  // evaluations may set the limit to 0 once around them (writing it costs more than reading it).
  const savedStackLimit = Error.stackTraceLimit;
  if (savedStackLimit !== 0) Error.stackTraceLimit = 0;
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
    if (savedStackLimit !== 0) Error.stackTraceLimit = savedStackLimit;
  }
}
