/**
 * Static cost estimation of CEL expressions at compile time, as kube-apiserver does when a CRD is written
 * (spec/k8s-cel-semantics.md §6): a port of cel-go's `checker/cost.go` coster over the checked syntax tree. An
 * expression costs the sum of its parts (1 per identifier, field selection of a map or object, operator and call;
 * constants free; list and map literals 10 and 30; `&&`/`||` the left side plus at most the right; comprehensions
 * their range, accumulator and result plus, per element, the loop condition and step), with size-based costs for
 * string, bytes and list operations: cel-go's for its standard functions (builtins.ts), each library's own for its
 * functions (the `callCosts` of ../libraries/*, Kubernetes' `EstimateCallCost` with its quirks). Sizes come from
 * the schema of the rule's node (schema-sizes.ts); CRD rules are further multiplied by their cardinality
 * (cardinality.ts).
 */
import { identifierName, type SyntaxCall, type SyntaxNode } from "../engine.js";
import { OPTIONAL_LITERAL_FUNCTIONS } from "../pre-parse.js";
import { BINARY_FUNCTIONS, builtinCallCost } from "./builtins.js";
import { type TwoVariable, twoVariableComprehension } from "./comprehensions.js";
import {
  type CallCostEstimator,
  type CallEstimate,
  type CostOperand,
  computeSize,
  type Entry,
  isNegatedLiteral,
  type LocalVar,
  type SchemaPath,
  sizeOf,
  unionEntry,
} from "./operand.js";
import { add, addU, type CostEstimate, fixed, mul, ONE, type Range, U64, union, ZERO } from "./range.js";
import type { Decl } from "./schema-sizes.js";
import { parseTypeName, typeOf, UNKNOWN_TYPE } from "./type-names.js";

const OPTIONAL_LITERAL_CALLS: ReadonlySet<string> = new Set(Object.values(OPTIONAL_LITERAL_FUNCTIONS));

/** What an estimate depends on besides the expression: the environment's sizes and libraries. */
export interface CostContext {
  /** The sizes identifiers resolve to (a rule's schema node, see schemaSizes); null where unknown. */
  readonly sizes: Decl | null;
  /** The original names of functions the libraries rename (their estimates are by original name). */
  readonly originalNames: ReadonlyMap<string, string>;
  /** The libraries' estimators by function name, in library order. */
  readonly callCosts: ReadonlyMap<string, readonly CallCostEstimator[]>;
}

const MACROS = new Set(["all", "exists", "exists_one", "map", "filter"]);
/** Receivers that are namespaces of global functions (`optional.of`, `format.named`, `ip.isCanonical`). */
const NAMESPACES = new Set(["optional", "format", "ip", "sets", "strings", "lists", "math", "base64", "cel"]);

class Coster {
  private readonly locals: LocalVar[] = [];
  private readonly root: Decl | null;

  constructor(private readonly context: CostContext) {
    this.root = context.sizes;
  }

  private peek(name: string): LocalVar | undefined {
    for (let i = this.locals.length - 1; i >= 0; i--) if (this.locals[i]!.name === name) return this.locals[i];
    return undefined;
  }

  /** The path of an expression extended by one step; an expression without a path starts at the rule's node. */
  private extend(path: SchemaPath | undefined, step: (d: Decl) => Decl | undefined): SchemaPath {
    if (path === undefined) return { decl: this.root ?? undefined };
    return { decl: path.decl === undefined ? undefined : step(path.decl) };
  }

  private info(node: SyntaxNode, cost: Range, path?: SchemaPath): CostOperand {
    return { node, cost, type: typeOf(node), path, size: undefined, entry: undefined, local: undefined };
  }

  visit(e: SyntaxNode): CostOperand {
    switch (e.op) {
      case "value":
        return this.info(e, ZERO);
      case "id": {
        const v = this.peek(e.args);
        if (v === undefined) return this.info(e, ONE, { decl: this.root ?? undefined });
        const i = this.info(e, ONE, v.path);
        // The engine types two-variable comprehension variables dyn; cel-go knows their element types.
        if (v.type.kind !== "unknown") i.type = v.type;
        i.local = v;
        return i;
      }
      case ".": {
        const [operand, field] = e.args;
        const o = this.visit(operand);
        const k = o.type.kind;
        // Objects and maps cost a selection; operands without a checked type are inside has() (objects or maps).
        const selectCost =
          k === "map" || k === "struct" || k === "param" || k === "unknown" ? add(o.cost, ONE) : o.cost;
        return this.info(
          e,
          selectCost,
          this.extend(o.path, (d) => d.field(field)),
        );
      }
      case ".?": {
        // cel-go `_?._(operand, 'field')`: a call of cost 1.
        const o = this.visit(e.args[0]);
        return this.info(e, add(o.cost, ONE));
      }
      case "[]":
        return this.visitIndex(e, e.args);
      case "[?]": {
        const [x, i] = e.args;
        return this.info(e, add(add(this.visit(x).cost, this.visit(i).cost), ONE));
      }
      case "list": {
        const elements = e.args;
        let sum = fixed(10);
        let item: Range = elements.length === 0 ? ZERO : { min: U64, max: 0 };
        for (const el of elements) {
          const i = this.visit(el);
          sum = add(sum, i.cost);
          item = union(item, sizeOf(i));
        }
        const out = this.info(e, sum);
        out.entry = { container: "list", key: ONE, val: item };
        return out;
      }
      case "map": {
        const entries = e.args;
        let sum = fixed(30);
        let key: Range = entries.length === 0 ? ZERO : { min: U64, max: 0 };
        let val: Range = key;
        for (const [k, v] of entries) {
          const ki = this.visit(k);
          const vi = this.visit(v);
          sum = add(add(sum, ki.cost), vi.cost);
          key = union(key, sizeOf(ki));
          val = union(val, sizeOf(vi));
        }
        const out = this.info(e, sum);
        out.entry = { container: "map", key, val };
        return out;
      }
      case "?:": {
        const [c, t, f] = e.args;
        const ci = this.visit(c);
        const ti = this.visit(t);
        const fi = this.visit(f);
        const out = this.info(e, add(ci.cost, union(ti.cost, fi.cost)));
        out.size = union(sizeOf(ti), sizeOf(fi));
        out.entry = unionEntry(ti.entry, fi.entry);
        return out;
      }
      case "&&":
      case "||": {
        const [l, r] = e.args;
        const li = this.visit(l);
        const ri = this.visit(r);
        return this.info(e, { min: li.cost.min, max: addU(li.cost.max, ri.cost.max) });
      }
      case "!_":
      case "-_": {
        const x = e.args;
        if (e.op === "-_" && x.op === "value") return this.info(e, ZERO); // a negative literal
        // cel-go drops an even number of repeated unary operators.
        if (x.op === e.op && !isNegatedLiteral(x)) {
          const inner = this.visit(x.args);
          return this.info(e, inner.cost);
        }
        return this.info(e, add(this.visit(x).cost, ONE));
      }
      case "call":
        return this.visitCall(e, { name: e.args[0], target: undefined, args: e.args[1] });
      case "rcall":
        return this.visitCall(e, { name: e.args[0], target: e.args[1], args: e.args[2] });
      default: {
        const fn = BINARY_FUNCTIONS[e.op];
        if (fn === undefined) return this.info(e, ZERO);
        return this.visitFunction(e, fn, undefined, e.args);
      }
    }
  }

  private visitIndex(e: SyntaxNode, [x, i]: readonly [SyntaxNode, SyntaxNode]): CostOperand {
    const xi = this.visit(x);
    const ii = this.visit(i);
    const out = this.info(e, add(add(xi.cost, ii.cost), ONE));
    const k = xi.type.kind;
    if (k === "list" || k === "map" || k === "dyn") {
      out.path = this.extend(xi.path, (d) => d.elem);
      out.size = xi.entry?.val ?? computeSize(out);
    }
    return out;
  }

  private visitCall(e: SyntaxNode, call: SyntaxCall): CostOperand {
    let { name, target } = call;
    const args = call.args;
    name = this.context.originalNames.get(name) ?? name;
    const two = twoVariableComprehension(target, name, args);
    if (two !== undefined) return this.visitTwoVariable(e, two);
    if (target === undefined) {
      if ((name === "__entries" || OPTIONAL_LITERAL_CALLS.has(name)) && args.length === 1) {
        // Outside the patterns below: the entries of a list or map stand for the list or map itself. The calls of
        // an optional literal entry (../pre-parse.ts) stand for the literal and the entry's value: cel-go
        // charges the literal only.
        const arg = this.visit(args[0]!);
        const out = this.info(e, arg.cost, arg.path);
        out.size = computeSize(arg);
        out.entry = arg.entry;
        return out;
      }
      if (name === "has" && args.length === 1) {
        // A presence test: free (PresenceTestHasCost(false)), only the operand of the selection costs.
        const arg = args[0]!;
        const operand = arg.op === "." ? arg.args[0] : arg;
        return this.info(e, this.visit(operand).cost);
      }
      if (name === "__has" && args.length === 2) return this.info(e, this.visit(args[0]!).cost);
      if (name === "dyn" && args.length === 1) {
        const arg = this.visit(args[0]!);
        const out = this.info(e, add(arg.cost, ONE));
        out.size = computeSize(arg);
        out.entry = arg.entry;
        return out;
      }
    } else {
      if (MACROS.has(name) && args[0]?.op === "id" && (args.length === 2 || (name === "map" && args.length === 3))) {
        return this.visitComprehension(e, name, target, args);
      }
      if (name === "bind" && target.op === "id" && target.args === "cel" && args.length === 3) {
        // Only the rewrites bind (user rules may not): the variable takes the value's path and size.
        const [id, init, body] = args as [SyntaxNode, SyntaxNode, SyntaxNode];
        const i = this.visit(init);
        this.locals.push({
          name: identifierName(id) ?? "",
          path: i.path,
          size: computeSize(i),
          type: UNKNOWN_TYPE,
        });
        const b = this.visit(body);
        this.locals.pop();
        return this.info(e, add(i.cost, b.cost));
      }
      if (target.op === "id") {
        const ns = target.args;
        if (NAMESPACES.has(ns) && this.peek(ns) === undefined) {
          name = `${ns}.${name}`;
          target = undefined;
        }
      }
    }
    return this.visitFunction(e, name, target, args);
  }

  /** cel-go costCall for a function (or operator) with its receiver and arguments. */
  private visitFunction(
    e: SyntaxNode,
    fn: string,
    target: SyntaxNode | undefined,
    args: readonly SyntaxNode[],
  ): CostOperand {
    const argInfos: CostOperand[] = [];
    let argSum = ZERO;
    for (const a of args) {
      // the rewrite wraps format() list elements in dyn() for the engine; cel-go sees them bare.
      const i = fn === "format" && a.op === "list" ? this.visitFormatList(a) : this.visit(a);
      argInfos.push(i);
      argSum = add(argSum, i.cost);
    }
    let sum = ZERO;
    let targetInfo: CostOperand | undefined;
    if (target !== undefined) {
      targetInfo = this.visit(target);
      sum = targetInfo.cost;
    }
    const est = this.callCost(fn, targetInfo, argInfos);
    const out = this.info(e, add(sum, add(est.cost, argSum)));
    if (fn === "_+_" && argInfos.length === 2) out.entry = unionEntry(argInfos[0]!.entry, argInfos[1]!.entry);
    out.size = est.resultSize ?? computeSize(out);
    return out;
  }

  /**
   * The estimate of one call: the environment's library estimators for the function, in library order, then
   * cel-go's built-in ones, then 1.
   */
  private callCost(fn: string, target: CostOperand | undefined, args: readonly CostOperand[]): CallEstimate {
    for (const estimate of this.context.callCosts.get(fn) ?? []) {
      const est = estimate(target, args);
      if (est !== undefined) return est;
    }
    return builtinCallCost(fn, target, args) ?? { cost: ONE };
  }

  /** A format() argument list whose elements the rewrite wrapped in dyn(). */
  private visitFormatList(list: SyntaxNode): CostOperand {
    const elements = list.op === "list" ? list.args : [];
    let sum = fixed(10);
    let item: Range = elements.length === 0 ? ZERO : { min: U64, max: 0 };
    for (const el of elements) {
      const inner = el.op === "call" && el.args[0] === "dyn" ? el.args[1][0] : undefined;
      const i = this.visit(inner ?? el);
      sum = add(sum, i.cost);
      item = union(item, sizeOf(i));
    }
    const out = this.info(list, sum);
    out.entry = { container: "list", key: ONE, val: item };
    return out;
  }

  /**
   * A two-variable comprehension (cel-go ext.TwoVarComprehensions), which the rewrite turns into `__entries()`:
   * costed like cel-go's expansion, with the first variable on the index (lists) or key (maps) and the second on the
   * value.
   */
  private visitTwoVariable(e: SyntaxNode, c: TwoVariable): CostOperand {
    const r = this.visit(c.range);
    let sum = r.cost;
    if (c.macro === "transformList") sum = add(sum, fixed(10));
    else if (c.macro === "transformMap" || c.macro === "transformMapEntry") sum = add(sum, fixed(30));
    const isList = (r.entry?.container ?? (r.type.kind === "list" ? "list" : "map")) === "list";
    this.locals.push({
      name: c.first,
      // `@indices` is no schema path; map keys have the key's size
      path: this.extend(r.path, isList ? () => undefined : (d) => d.key),
      size: r.entry?.key,
      type: isList ? parseTypeName("int") : (r.type.params[0] ?? UNKNOWN_TYPE),
    });
    this.locals.push({
      name: c.second,
      path: this.extend(r.path, (d) => d.elem),
      size: r.entry?.val,
      type: (isList ? r.type.params[0] : r.type.params[1]) ?? UNKNOWN_TYPE,
    });
    let loop = 0;
    let step: Range;
    let stepEntry: Entry | undefined;
    const filter = c.filter === undefined ? undefined : this.visit(c.filter).cost;
    const body = this.visit(c.body);
    switch (c.macro) {
      case "all":
      case "exists":
        loop = c.macro === "all" ? 2 : 3;
        step = { min: 1, max: addU(1, body.cost.max) };
        break;
      case "exists_one":
        step = add(body.cost, union(fixed(2), ONE));
        break;
      case "transformList":
        // __result__ + [t], or f ? __result__ + [t] : __result__
        step = add(fixed(12), body.cost);
        stepEntry = { container: "list", key: ONE, val: union(ZERO, sizeOf(body)) };
        break;
      default:
        // cel.@mapInsert(__result__, k, t) or cel.@mapInsert(__result__, t), or f ? ... : __result__
        step = add(fixed(c.macro === "transformMap" ? 3 : 2), body.cost);
        break;
    }
    if (filter !== undefined) step = add(filter, union(step, ONE));
    this.locals.pop();
    this.locals.pop();
    sum = add(sum, c.macro === "exists_one" ? fixed(2) : ONE);
    const rangeCount = sizeOf(r);
    sum = add(sum, mul(rangeCount, add(step, fixed(loop))));
    const out = this.info(e, sum);
    if (c.macro.startsWith("transform")) {
      out.size = rangeCount;
      out.entry = stepEntry;
    } else {
      out.size = ONE;
    }
    return out;
  }

  /** A macro comprehension (cel-go macro expansions of all, exists, exists_one, map and filter). */
  private visitComprehension(
    e: SyntaxNode,
    macro: string,
    range: SyntaxNode,
    args: readonly SyntaxNode[],
  ): CostOperand {
    const iterVar = identifierName(args[0]) ?? "";
    const r = this.visit(range);
    let sum = r.cost;
    const listResult = macro === "map" || macro === "filter";
    // The accumulator: `[]` for map/filter (cost 10), a bool or int literal otherwise.
    if (listResult) sum = add(sum, fixed(10));
    const accuEntry: Entry = { container: "list", key: ONE, val: ZERO };

    const isList = (r.entry?.container ?? (r.type.kind === "list" ? "list" : "map")) === "list";
    const v: LocalVar = {
      name: iterVar,
      path: this.extend(r.path, isList ? (d) => d.elem : (d) => d.key),
      size: isList ? r.entry?.val : r.entry?.key,
      type: r.type.params[0] ?? UNKNOWN_TYPE,
    };
    this.locals.push(v);

    let loop = 0;
    let step: Range;
    let stepEntry: Entry | undefined;
    switch (macro) {
      case "all":
      case "exists": {
        // @not_strictly_false(__result__) and @not_strictly_false(!__result__); __result__ && p, __result__ || p.
        loop = macro === "all" ? 2 : 3;
        const body = this.visit(args[1]!).cost;
        step = { min: 1, max: addU(1, body.max) };
        break;
      }
      case "exists_one":
        // p ? __result__ + 1 : __result__
        step = add(this.visit(args[1]!).cost, union(fixed(2), ONE));
        break;
      case "map": {
        // __result__ + [f(x)], or p(x) ? __result__ + [f(x)] : __result__
        const filter = args.length === 3 ? this.visit(args[1]!).cost : undefined;
        const transform = this.visit(args[args.length - 1]!);
        const append = add(fixed(12), transform.cost);
        stepEntry = unionEntry(accuEntry, { container: "list", key: ONE, val: sizeOf(transform) });
        step = filter === undefined ? append : add(filter, union(append, ONE));
        if (filter !== undefined) stepEntry = unionEntry(stepEntry, accuEntry);
        break;
      }
      default: {
        // filter: p(x) ? __result__ + [x] : __result__
        step = add(this.visit(args[1]!).cost, union(fixed(13), ONE));
        const x: CostOperand = {
          node: undefined,
          cost: ONE,
          type: v.type,
          path: v.path,
          size: undefined,
          entry: undefined,
          local: v,
        };
        stepEntry = unionEntry(unionEntry(accuEntry, { container: "list", key: ONE, val: sizeOf(x) }), accuEntry);
        break;
      }
    }
    this.locals.pop();

    // The result: __result__, or __result__ == 1 for exists_one.
    sum = add(sum, macro === "exists_one" ? fixed(2) : ONE);
    const rangeCount = sizeOf(r);
    sum = add(sum, mul(rangeCount, add(step, fixed(loop))));
    const out = this.info(e, sum);
    if (listResult) {
      out.size = rangeCount;
      out.entry = stepEntry;
    } else {
      out.size = ONE;
    }
    return out;
  }
}

/**
 * Estimates the cost of one type-checked expression (after the rewrites and renames of ../program.ts; the
 * evaluation hooks installed afterwards do not matter), as `env.EstimateCost` does in kube-apiserver. Returns the
 * [min, max] cost; Kubernetes checks `max` (multiplied by the cardinality for CRD rules, see ruleCost).
 */
export function estimateCost(syntax: SyntaxNode, context: CostContext): CostEstimate {
  return new Coster(context).visit(syntax).cost;
}
