/**
 * The adapter to the CEL engine: the only module of tollgate that imports @marcbachmann/cel-js (pinned to an exact
 * version in package.json), so the engine can be replaced. Engine internals tollgate relies on (node fields that
 * are not in the engine's .d.ts) are reached only through the helpers here, and are covered by contract tests
 * (test/unit/lib/cel/engine.test.ts).
 */

import type { ASTNode, ParseResult } from "@marcbachmann/cel-js";
import { TypeError as CelTypeError, Environment, EvaluationError, Optional, ParseError } from "@marcbachmann/cel-js";
import { Duration, UnsignedInt } from "@marcbachmann/cel-js/evaluator";

export type { ASTNode, ParseResult };
export { CelTypeError, Duration, Environment, EvaluationError, Optional, ParseError, UnsignedInt };

/** The options of every tollgate CEL environment. */
export const ENVIRONMENT_OPTIONS = Object.freeze({
  enableOptionalTypes: true,
  homogeneousAggregateLiterals: true,
  unlistedVariablesAreDyn: false,
});

/** A fresh engine environment with tollgate's options. */
export function newEnvironment(): Environment {
  return new Environment({ ...ENVIRONMENT_OPTIONS });
}

/** Children of an AST node, for read-only walks (macros keep their original call form). */
export function astChildren(node: ASTNode): ASTNode[] {
  const a = node.args as unknown;
  switch (node.op) {
    case "value":
    case "id":
      return [];
    case ".":
    case ".?":
      return [(a as [ASTNode, string])[0]];
    case "call":
      return [...(a as [string, ASTNode[]])[1]];
    case "rcall": {
      const [, target, args] = a as [string, ASTNode, ASTNode[]];
      return [target, ...args];
    }
    case "list":
      return [...(a as ASTNode[])];
    case "map":
      return (a as [ASTNode, ASTNode][]).flat();
    case "!_":
    case "-_":
      return [a as ASTNode];
    default:
      return Array.isArray(a) ? (a as ASTNode[]).filter((x) => typeof x === "object" && x !== null) : [];
  }
}

/** Whether the expression references the identifier `name` anywhere. */
export function referencesIdentifier(node: ASTNode, name: string): boolean {
  if (node.op === "id" && node.args === name) return true;
  for (const c of astChildren(node)) if (referencesIdentifier(c, name)) return true;
  return false;
}

/**
 * Renames method calls in place before the type check (engine internal: `args` is declared readonly): used to route
 * built-ins such as `matches`, `lowerAscii`, `upperAscii` and `trim` to tollgate's Go-exact versions.
 */
export function renameMethodCalls(node: ASTNode, renames: Readonly<Record<string, string>>): void {
  if (node.op === "rcall") {
    const args = node.args as unknown as [string, ASTNode, ASTNode[]];
    const to = renames[args[0]];
    if (to !== undefined) args[0] = to;
  }
  if (node.op === "call") {
    const args = node.args as unknown as [string, ASTNode[]];
    const to = renames[`global:${args[0]}`];
    if (to !== undefined) args[0] = to;
  }
  for (const c of astChildren(node)) renameMethodCalls(c, renames);
}

/** The type the checker inferred for a node (engine internal), as a type name, when known. */
export function checkedTypeName(node: ASTNode): string | undefined {
  const t = (node as unknown as { checkedType?: { name?: string } | string }).checkedType;
  if (t === undefined) return undefined;
  return typeof t === "string" ? t : t.name;
}

type Evaluator = { tryEval(ast: ASTNode, ctx: unknown): unknown; run(ast: ASTNode, ctx: unknown): unknown };
type NodeEvaluate = (ev: Evaluator, ast: ASTNode, ctx: unknown) => unknown;

function logicalError(v: unknown): Error {
  if (v instanceof Error) return v;
  return new EvaluationError({ code: "no_such_overload", message: "no such overload" });
}

/**
 * cel-go's `||` and `&&` (interpreter evalOr/evalAnd): both sides are evaluated unless the left one decides, an
 * error on one side is absorbed when the other side decides, and when both fail the **left** error is reported.
 * The engine reports the right one; an own `evaluate` on each node (engine internal: ASTNode.evaluate dispatch)
 * restores cel-go's order. Called after the type check.
 */
export function applyCelGoLogicalOperators(node: ASTNode): void {
  if (node.op === "||" || node.op === "&&") {
    const [left, right] = node.args as unknown as [ASTNode, ASTNode];
    const decides = node.op === "||";
    const evaluate: NodeEvaluate = (ev, _ast, ctx) => {
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
    };
    (node as unknown as { evaluate: NodeEvaluate }).evaluate = evaluate;
  }
  for (const c of astChildren(node)) applyCelGoLogicalOperators(c);
}

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
 * Runtime cost metering: every AST node evaluation costs its weight (nodeCost) (engine internal: all node evaluations go
 * through Evaluator.prototype.run, reached through `this` of a registered function). This reproduces cel-go's actual cost
 * closely (7 per inner iteration of `self.v.all(a, self.v.all(b, a + b >= -1))`, as the semantics note measures)
 * and bounds every evaluation: past the limit each further node throws, and the limit is checked again after the
 * evaluation because the engine absorbs errors inside `||`, `&&` and comprehensions.
 */
function installMeter(): void {
  if (meterInstalled) return;
  meterInstalled = true;
  const probe = new Environment({ ...ENVIRONMENT_OPTIONS });
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

/** Evaluates a program with a cost limit; returns the value and the cost spent. Throws CostLimitExceeded. */
export function evaluateMetered(
  program: ParseResult,
  activation: Record<string, unknown>,
  limit: number,
): { value: unknown; cost: number } {
  installMeter();
  const saved = { active: meter.active, cost: meter.cost, limit: meter.limit };
  meter.active = true;
  meter.cost = 0;
  meter.limit = limit;
  try {
    const value = program(activation);
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

/** Hooks that give `==`, `!=` and `+` Kubernetes list-type semantics for list operands. */
export interface ListOperatorHooks {
  equals(left: unknown[], right: unknown): boolean;
  concat(left: unknown[], right: unknown): unknown[];
}

/**
 * Kubernetes dispatches `==` and `+` on the left operand's list type (`x-kubernetes-list-type: set|map`). For every
 * `==`/`!=`/`+` node whose left operand the checker typed as a list, an own `evaluate` (engine internal: node
 * dispatch and `checkedType`) evaluates both operands and applies the hooks. Called after the type check.
 */
export function applyListOperators(node: ASTNode, hooks: ListOperatorHooks): void {
  const op = node.op;
  if (op === "==" || op === "!=" || op === "+") {
    const [left, right] = node.args as unknown as [ASTNode, ASTNode];
    const leftType = checkedTypeName(left);
    if (leftType?.startsWith("list<") === true) {
      const evaluate = (ev: { run(a: ASTNode, c: unknown): unknown }, _ast: ASTNode, ctx: unknown): unknown => {
        const l = ev.run(left, ctx) as unknown[];
        const r = ev.run(right, ctx);
        if (op === "+") return hooks.concat(l, r);
        const eq = hooks.equals(l, r);
        return op === "==" ? eq : !eq;
      };
      (node as unknown as { evaluate: typeof evaluate }).evaluate = evaluate;
    }
  }
  for (const c of astChildren(node)) applyListOperators(c, hooks);
}
