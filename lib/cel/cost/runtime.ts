/**
 * Runtime costs as kube-apiserver charges them: cel-go v0.26's runtime cost tracker (interpreter/runtimecost.go)
 * over the plan its planner makes of a checked expression with the API server's program options (pkg/cel/environment
 * base.go: OptOptimize, OptTrackCost, PresenceTestHasCost(false)), Kubernetes' `CallCost` for its library functions
 * (pkg/cel/library/cost.go) and cel-go's extension trackers (lists version 3, sets).
 *
 * The tracker observes each planned step once it has run: an identifier or field selection costs 1, a call 1 or
 * its size-based cost, a list literal 10, a map literal 30; constants, `&&`, `||` and `?:` themselves nothing; a
 * comprehension its loop condition, step and result expressions as the macro expands them. The planner shapes
 * that: selections and indexes join their operand's attribute (a selection on a computed value costs 1 more), a
 * ternary's branches are read as attributes (an identifier branch costs nothing), `has()` costs its selections but
 * not its root, and OptOptimize computes list and map literals of constants and type conversions of constants at
 * compile time (they cost nothing) and turns `in` a constant list of primitives into a set lookup (free).
 *
 * This module decides, for a checked syntax tree, where each charge is made (metering.ts NodeMeter): parts whose cost
 * does not depend on the data are summed and charged once where they start; a call whose cost depends on its
 * operands' sizes is charged after its operands are evaluated and before it runs, so nothing allocates or loops
 * past the limit. Error paths are charged as if evaluation completed the expression they are in.
 */
import {
  type BinaryOperator,
  callOf,
  identifierName,
  isConstantIdentifier,
  macroOf,
  type SyntaxNode,
  syntaxChildren,
} from "../engine.js";
import type { NodeMeter } from "../metering.js";
import { OPTIONAL_LITERAL_FUNCTIONS } from "../pre-parse.js";
import { BINARY_FUNCTIONS, builtinRuntimeCharge } from "./builtins.js";
import { twoVariableComprehension } from "./comprehensions.js";
import { STRING_TRAVERSAL } from "./range.js";
import { type CelTypeInfo, typeOf } from "./type-names.js";
import { actualSize, traversalCost } from "./value-size.js";

/** A call's runtime charge from its evaluated operands (receiver first), or undefined where it does not apply. */
export type RuntimeCharge = (operands: readonly unknown[]) => number | undefined;

/** What a runtime cost knows of a call at compile time: the checked types of its receiver and arguments. */
export interface CallShape {
  readonly target: CelTypeInfo | undefined;
  readonly args: readonly CelTypeInfo[];
}

/**
 * A library's runtime cost of one function (Kubernetes' CallCost, cel-go's FunctionTracker), decided per call
 * from its checked types: a constant, a charge computed from the operands, or undefined where it does not apply
 * (cel-go's built-in costs apply then, and 1).
 */
export type RuntimeCallCost = (call: CallShape) => number | RuntimeCharge | undefined;

/** What the runtime costs depend on besides the expression: the environment's libraries. */
export interface RuntimeCostContext {
  /** The original names of functions the libraries rename. */
  readonly originalNames: ReadonlyMap<string, string>;
  /** The libraries' runtime costs by function name (global functions of a namespace as `<namespace>.<name>`). */
  readonly runtimeCosts: ReadonlyMap<string, readonly RuntimeCallCost[]>;
}

/** What the plan knows of an analysed expression. */
interface Info {
  /** Its cost when that does not depend on the data (undefined: it has meters of its own). */
  readonly fixed: number | undefined;
  /** cel-go plans it as an attribute (identifier, selection, index, ternary, presence test). */
  readonly attr: boolean;
  /** cel-go plans it as a constant (after OptOptimize's folding). */
  readonly constant: boolean;
}

/** A binary operator's node. */
type BinaryNode = SyntaxNode & { readonly op: BinaryOperator; readonly args: readonly [SyntaxNode, SyntaxNode] };

/** How an expression is read: as a ternary's branch, cel-go reads an attribute without observing its root. */
type Role = "value" | "branch";

const CONSTANT: Info = { fixed: 0, attr: false, constant: true };
const LIST_CREATE = 10;
const MAP_CREATE = 30;

/** cel-go's type conversion functions (OptOptimize computes them on a constant argument at compile time). */
const CONVERSIONS = new Set([
  "bool",
  "bytes",
  "double",
  "duration",
  "dyn",
  "int",
  "string",
  "timestamp",
  "type",
  "uint",
]);
const MACROS = new Set(["all", "exists", "exists_one", "map", "filter"]);
const SYNTHETIC_CALLS = new Set([
  "__entries",
  "__fromEntries",
  "__mergeMaps",
  ...Object.values(OPTIONAL_LITERAL_FUNCTIONS),
]);

/** Whether cel-go plans an expression as an attribute (before analysing it). */
function isAttribute(n: SyntaxNode): boolean {
  switch (n.op) {
    case "id":
      return !isConstantIdentifier(n);
    case ".":
    case ".?":
    case "[]":
    case "[?]":
    case "?:":
      return true;
    case "call":
      return n.args[0] === "has" || n.args[0] === "__has";
    default:
      return false;
  }
}

function isPrimitiveLiteral(n: SyntaxNode): boolean {
  if (n.op === "-_") return n.args.op === "value";
  if (n.op !== "value") return false;
  const v = n.args;
  return typeof v === "string" || typeof v === "number" || typeof v === "bigint" || typeof v === "boolean";
}

function sum(infos: readonly Info[]): number {
  let s = 0;
  for (const i of infos) s += i.fixed ?? 0;
  return s;
}

class Planner {
  readonly meters = new Map<SyntaxNode, NodeMeter>();

  constructor(private readonly context: RuntimeCostContext) {}

  /** A node whose parent evaluates it only sometimes (or repeatedly): its fixed cost is charged where it starts. */
  private standalone(n: SyntaxNode, info: Info): void {
    if (info.fixed !== undefined && info.fixed > 0) this.meters.set(n, { before: info.fixed });
  }

  /**
   * A node that evaluates each of `children` once, with its own cost: fixed when everything is, otherwise a meter
   * that charges the own cost and the fixed children (a size-based charge after the operands).
   */
  private combine(n: SyntaxNode, own: number, children: readonly Info[], extra: Partial<NodeMeter> = {}): Info {
    const attr = isAttribute(n);
    if (extra.sized === undefined && extra.whenPresent === undefined && children.every((c) => c.fixed !== undefined)) {
      return { fixed: own + sum(children), attr, constant: false };
    }
    this.meters.set(n, { before: Math.max(0, own + sum(children)), ...extra });
    return { fixed: undefined, attr, constant: false };
  }

  analyze(n: SyntaxNode, role: Role): Info {
    switch (n.op) {
      case "value":
        return CONSTANT;
      case "id":
        if (isConstantIdentifier(n)) return CONSTANT;
        return { fixed: role === "branch" ? 0 : 1, attr: true, constant: false };
      case ".":
      case ".?":
      case "[]":
      case "[?]":
        return this.access(n, role);
      case "list":
      case "map": {
        const infos = syntaxChildren(n).map((c) => this.analyze(c, "value"));
        if (infos.every((i) => i.constant)) return CONSTANT;
        return this.combine(n, n.op === "list" ? LIST_CREATE : MAP_CREATE, infos);
      }
      case "?:":
        return this.ternary(n);
      case "||":
      case "&&": {
        const l = this.analyze(n.args[0], "value");
        const r = this.analyze(n.args[1], "value");
        this.meters.set(n, { before: l.fixed ?? 0, beforeRight: r.fixed ?? 0 });
        return { fixed: undefined, attr: false, constant: false };
      }
      case "!_":
        return this.combine(n, 1, [this.analyze(n.args, "value")]);
      case "-_":
        return n.args.op === "value" ? CONSTANT : this.combine(n, 1, [this.analyze(n.args, "value")]);
      case "call":
      case "rcall":
        return this.call(n);
      default:
        return this.binary(n as BinaryNode);
    }
  }

  /** Selections and indexes: qualifiers of their operand's attribute (or of a relative one on a computed value). */
  private access(n: Extract<SyntaxNode, { op: "." | ".?" | "[]" | "[?]" }>, role: Role): Info {
    const operand = n.args[0];
    const chained = isAttribute(operand);
    const o = this.analyze(operand, chained ? role : "value");
    // A relative attribute is observed once, unless it is read as a ternary's branch.
    const relative = chained || role === "branch" ? 0 : 1;
    const optionalOperand = typeOf(operand).kind === "optional";
    if (n.op === "." || n.op === ".?") {
      if (n.op === ".?" || optionalOperand) return this.combine(n, relative, [o], { whenPresent: 1 });
      return this.combine(n, relative + 1, [o]);
    }
    const index = this.analyze(n.args[1] as SyntaxNode, "value");
    // A constant index is a qualifier (1); an attribute index is observed as one (its own cost); anything else is
    // evaluated and then observed as a relative attribute (1).
    const qualifier = index.constant ? 1 : index.attr ? 0 : 1;
    if (n.op === "[?]" || optionalOperand) {
      return this.combine(n, relative + qualifier - 1, [o, index], { whenPresent: 1 });
    }
    return this.combine(n, relative + qualifier, [o, index]);
  }

  /** `c ? a : b`: the condition, then one branch read as an attribute. */
  private ternary(n: Extract<SyntaxNode, { op: "?:" }>): Info {
    const [c, t, f] = n.args;
    const ci = this.analyze(c, "value");
    const ti = this.analyze(t, "branch");
    const fi = this.analyze(f, "branch");
    if (ci.fixed !== undefined && ti.fixed !== undefined && ti.fixed === fi.fixed) {
      return { fixed: ci.fixed + ti.fixed, attr: true, constant: false };
    }
    this.standalone(t, ti);
    this.standalone(f, fi);
    this.meters.set(n, { before: ci.fixed ?? 0 });
    return { fixed: undefined, attr: true, constant: false };
  }

  private binary(n: BinaryNode): Info {
    const [left, right] = n.args;
    const l = this.analyze(left, "value");
    if (n.op === "in" && right.op === "list" && right.args.every(isPrimitiveLiteral)) {
      // OptOptimize: a set lookup (free); `x in []` is the constant false.
      if (right.args.length === 0) return CONSTANT;
      return this.combine(n, 0, [l]);
    }
    const r = this.analyze(right, "value");
    const fn = BINARY_FUNCTIONS[n.op] ?? n.op;
    return this.callWith(n, fn, { target: undefined, args: [typeOf(left), typeOf(right)] }, [l, r], false);
  }

  /** A call with a cost from the libraries, cel-go's built-ins or 1. */
  private callWith(n: SyntaxNode, fn: string, shape: CallShape, operands: Info[], namespaced: boolean): Info {
    const charges: RuntimeCharge[] = [];
    for (const cost of this.context.runtimeCosts.get(fn) ?? []) {
      const c = cost(shape);
      if (typeof c === "number") {
        if (charges.length === 0) return this.combine(n, c, operands);
        charges.push(() => c);
        break;
      }
      if (c !== undefined) charges.push(c);
    }
    const builtin = builtinRuntimeCharge(fn, shape);
    if (builtin !== undefined) charges.push(builtin);
    if (charges.length === 0) return this.combine(n, 1, operands);
    const sized: (operands: readonly unknown[]) => number =
      charges.length === 1
        ? (ops) => charges[0]!(ops) ?? 1
        : (ops) => {
            for (const c of charges) {
              const v = c(ops);
              if (v !== undefined) return v;
            }
            return 1;
          };
    return this.combine(n, 0, operands, namespaced ? { sized, namespaced } : { sized });
  }

  private call(n: Extract<SyntaxNode, { op: "call" | "rcall" }>): Info {
    const c = callOf(n)!;
    const name = this.context.originalNames.get(c.name) ?? c.name;
    const { target, args } = c;
    const two = this.twoVariable(n, c.name, target, args);
    if (two !== undefined) return two;
    if (macroOf(n) === "comprehension") return this.comprehension(n, name, target!, args);
    if (target === undefined) {
      if (name === "has" && macroOf(n) === "macro") {
        // Presence test: the selections of its operand cost, not its root (PresenceTestHasCost(false)).
        let dots = 0;
        for (let x = args[0]; x?.op === "."; x = x.args[0]) dots++;
        return { fixed: dots, attr: true, constant: false };
      }
      if (name === "__has") {
        // has() on a computed operand: a test-only qualifier on its (relative) attribute.
        const o = this.analyze(args[0]!, "value");
        return this.combine(n, o.attr ? 0 : 1, [o]);
      }
      if (SYNTHETIC_CALLS.has(name))
        return this.combine(
          n,
          0,
          args.map((a) => this.analyze(a, "value")),
        );
      if (CONVERSIONS.has(name) && args.length === 1) {
        const a = this.analyze(args[0]!, "value");
        if (a.constant) return CONSTANT;
        if (name === "dyn") return this.combine(n, 1, [a]);
      }
    } else if (macroOf(n) === "macro") {
      // optional or()/orValue() (macros in the engine): cel-go calls them with both operands evaluated.
      const operands = [this.analyze(target, "value"), ...args.map((a) => this.analyze(a, "value"))];
      return this.combine(n, 1, operands);
    }
    const namespaced = target !== undefined && isConstantIdentifier(target);
    const fn = namespaced ? `${identifierName(target)}.${name}` : name;
    const operandNodes = [...(target !== undefined && !namespaced ? [target] : []), ...args];
    const infos = operandNodes.map((a) =>
      name === "format" && a.op === "list" ? this.formatList(a) : this.analyze(a, "value"),
    );
    const shape: CallShape = {
      target: target !== undefined && !namespaced ? typeOf(target) : undefined,
      args: args.map(typeOf),
    };
    return this.callWith(n, fn, shape, infos, namespaced);
  }

  /** A format() argument list whose elements the rewrite wrapped in dyn() (cel-go sees them bare). */
  private formatList(list: SyntaxNode): Info {
    const elements = list.op === "list" ? list.args : [];
    const infos = elements.map((e) => {
      const call = callOf(e);
      return call?.name === "dyn" && call.target === undefined
        ? this.analyze(call.args[0]!, "value")
        : this.analyze(e, "value");
    });
    if (infos.every((i) => i.constant)) return CONSTANT;
    return this.combine(list, LIST_CREATE, infos);
  }

  /**
   * A macro comprehension, as cel-go expands it (parser/macro.go): `all` checks @not_strictly_false(__result__)
   * (2) and steps `__result__ && p` (1), `exists` checks @not_strictly_false(!__result__) (3) and steps
   * `__result__ || p` (1), `exists_one` steps `p ? __result__ + 1 : __result__` (2 when p holds) and results in
   * `__result__ == 1` (2); `map` and `filter` start from `[]` (a constant) and append with `__result__ + [x]` (12,
   * and 13 with filter's element, 2 when the appended list is a constant).
   */
  private comprehension(n: SyntaxNode, macro: string, target: SyntaxNode, args: readonly SyntaxNode[]): Info {
    const range = this.analyze(target, "value");
    const it = { condition: 0, step: 0, push: 0, increment: 0 };
    let result = 1;
    if (!MACROS.has(macro)) throw new Error(`unexpected comprehension ${macro}`);
    if (macro === "all" || macro === "exists") {
      it.condition = macro === "all" ? 2 : 3;
      it.step = 1;
      this.standalone(args[1]!, this.analyze(args[1]!, "value"));
    } else if (macro === "exists_one") {
      it.increment = 2;
      result = 2;
      this.standalone(args[1]!, this.analyze(args[1]!, "value"));
    } else if (macro === "filter") {
      it.push = 13;
      this.standalone(args[1]!, this.analyze(args[1]!, "value"));
    } else {
      if (args.length === 3) this.standalone(args[1]!, this.analyze(args[1]!, "value"));
      it.push = this.appended(args[args.length - 1]!, LIST_CREATE + 2);
    }
    this.meters.set(n, { before: result + (range.fixed ?? 0), iteration: it });
    return { fixed: undefined, attr: false, constant: false };
  }

  /** The charge of appending `transform` to the accumulator (`base` with the transform's fixed cost). */
  private appended(transform: SyntaxNode, base: number): number {
    const t = this.analyze(transform, "value");
    if (t.constant && base === LIST_CREATE + 2) return 2;
    return base + (t.fixed ?? 0);
  }

  /**
   * A two-variable comprehension (cel-go ext.TwoVarComprehensions), which the rewrite expresses with `__entries()`,
   * `cel.bind` and one-variable macros (../rewrite.ts): charged like cel-go's expansion, the rewrite's own parts
   * free. `transformMap` steps `cel.@mapInsert(__result__, k, t)` (3), `transformMapEntry`
   * `cel.@mapInsert(__result__, t)` (2); a filter is part of the step.
   */
  private twoVariable(
    n: SyntaxNode,
    name: string,
    target: SyntaxNode | undefined,
    args: readonly SyntaxNode[],
  ): Info | undefined {
    const two = twoVariableComprehension(target, name, args);
    if (two === undefined) return undefined;
    // The engine's comprehension that appends or tests: n itself, or the map inside __fromEntries/__mergeMaps.
    const loop = target === undefined ? args[0]! : n;
    const loopTarget = callOf(loop)!.target!;
    const range = this.analyze(two.range, "value");
    if (two.filter !== undefined) {
      // __entries(x).filter(__e, f): the filter is the step's condition; its own bookkeeping is free.
      this.standalone(two.filter, this.analyze(two.filter, "value"));
      this.meters.set(loopTarget, {
        before: range.fixed ?? 0,
        iteration: { condition: 0, step: 0, push: 0, increment: 0 },
      });
    }
    const rangeCost = two.filter === undefined ? (range.fixed ?? 0) : 0;
    const it = { condition: 0, step: 0, push: 0, increment: 0 };
    let result = 1;
    switch (two.macro) {
      case "all":
      case "exists":
        it.condition = two.macro === "all" ? 2 : 3;
        it.step = 1;
        this.standalone(two.body, this.analyze(two.body, "value"));
        break;
      case "exists_one":
        it.increment = 2;
        result = 2;
        this.standalone(two.body, this.analyze(two.body, "value"));
        break;
      case "transformList":
        it.push = this.appended(two.body, LIST_CREATE + 2);
        break;
      default:
        it.push = this.appended(two.body, two.macro === "transformMap" ? 3 : 2);
    }
    this.meters.set(loop, { before: result + rangeCost, iteration: it });
    return { fixed: undefined, attr: false, constant: false };
  }
}

/** Where and what a checked expression is charged at run time (see the module comment), by node. */
export function runtimeMeters(syntax: SyntaxNode, context: RuntimeCostContext): Map<SyntaxNode, NodeMeter> {
  const planner = new Planner(context);
  const root = planner.analyze(syntax, "value");
  if (root.fixed !== undefined) planner.meters.set(syntax, { before: root.fixed });
  return planner.meters;
}

// Helpers for the libraries' runtime costs (Kubernetes' CallCost).

/**
 * Kubernetes' charge of traversing a call's first operand `times` times: `ceil(size × times × 0.1)`, in Go's order
 * of float operations.
 */
export function firstOperandTraversal(times: 1 | 2): RuntimeCharge {
  return (ops) => Math.ceil(actualSize(ops[0]) * times * STRING_TRAVERSAL);
}

/** Kubernetes' charge of a single traversal of the first operand as a data tree (`isSorted`, `sum`, `indexOf`…). */
export const firstOperandTree: RuntimeCharge = (ops) => traversalCost(ops[0]);

/** A runtime cost that is the same charge for every overload of the function. */
export function always(charge: RuntimeCharge): RuntimeCallCost {
  return () => charge;
}

/**
 * Kubernetes' charge of `==` on one of its types (1), when the left operand is one: decided at compile time from
 * the checked type, or at run time for a dyn operand.
 */
export function typedEqualityCharge(typeName: string, valueClass: abstract new (...args: never[]) => object) {
  return (call: CallShape): number | RuntimeCharge | undefined => {
    const left = call.args[0];
    if (left?.name === typeName) return 1;
    if (left?.kind === "dyn") return (ops) => (ops[0] instanceof valueClass ? 1 : undefined);
    return undefined;
  };
}
