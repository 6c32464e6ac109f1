/**
 * cel-go's costs of its standard functions, static (checker/cost.go functionCost) and at run time
 * (interpreter/runtimecost.go costCall): the size-dependent string, bytes and list operations. Library functions
 * carry their own (the `callCosts` and `runtimeCosts` of ../libraries/*).
 */
import { chargeWork } from "../metering.js";
import { LIST_TYPES } from "../schema-types.js";
import { type CallEstimate, type CostOperand, comparisonCost, sizeOf } from "./operand.js";
import { add, byFactor, mul, mulU, ONE, type Range, REGEX_LENGTH, STRING_TRAVERSAL, union } from "./range.js";
import type { CallShape, RuntimeCharge } from "./runtime.js";
import { isVariableSized, type Kind } from "./type-names.js";
import { actualSize, comparisonCharge, concatenationTraversal, sizeTraversal, traversalCost } from "./value-size.js";

/** cel-go's function names of the binary operators (its overloads and the libraries' costs are keyed by them). */
export const BINARY_FUNCTIONS: Readonly<Record<string, string>> = {
  "==": "_==_",
  "!=": "_!=_",
  "<": "_<_",
  "<=": "_<=_",
  ">": "_>_",
  ">=": "_>=_",
  "+": "_+_",
  "-": "_-_",
  "*": "_*_",
  "/": "_/_",
  "%": "_%_",
  in: "@in",
};

/** The string's traversal times the pattern's length factor (cel-go `matches`, Kubernetes `find`/`findAll`). */
export function matchCost(target: CostOperand, pattern: CostOperand): Range {
  const strCost = byFactor(add(sizeOf(target), ONE), STRING_TRAVERSAL);
  const regexCost = byFactor(sizeOf(pattern), REGEX_LENGTH);
  return mul(strCost, regexCost);
}

/** cel-go functionCost's built-in overloads, by function name (`_+_`, `@in`, …); undefined where none applies. */
export function builtinCallCost(
  fn: string,
  target: CostOperand | undefined,
  args: readonly CostOperand[],
): CallEstimate | undefined {
  switch (fn) {
    case "bytes":
      if (target === undefined && args.length === 1 && args[0]!.type.kind === "string") {
        const sz = sizeOf(args[0]!);
        return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: { min: sz.min, max: mulU(sz.max, 4) } };
      }
      return undefined;
    case "string":
      if (target === undefined && args.length === 1 && args[0]!.type.kind === "bytes") {
        const sz = sizeOf(args[0]!);
        return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: { min: Math.floor(sz.min / 4), max: sz.max } };
      }
      return undefined;
    case "startsWith":
    case "endsWith":
      if (target !== undefined && target.type.kind === "string" && args.length === 1) {
        return { cost: byFactor(sizeOf(args[0]!), STRING_TRAVERSAL) };
      }
      return undefined;
    case "matches":
      return target !== undefined && args.length === 1 ? { cost: matchCost(target, args[0]!) } : undefined;
    case "contains":
      if (target !== undefined && target.type.kind === "string" && args.length === 1) {
        const strCost = byFactor(sizeOf(target), STRING_TRAVERSAL);
        const subCost = byFactor(sizeOf(args[0]!), STRING_TRAVERSAL);
        return { cost: mul(strCost, subCost) };
      }
      return undefined;
    case "@in": {
      const k = args[1]?.type.kind;
      if (k !== "list" && k !== "dyn") return undefined;
      const c = byFactor(sizeOf(args[1]!), 1);
      return { cost: k === "dyn" ? union(c, ONE) : c };
    }
    case "_+_": {
      if (args.length !== 2) return undefined;
      const [l, r] = args as [CostOperand, CostOperand];
      const lk = l.type.kind;
      const rk = r.type.kind;
      const may = (kind: Kind) => (lk === kind || lk === "dyn") && (rk === kind || rk === "dyn");
      const sized = may("string") || may("bytes");
      const list = may("list");
      if (!sized && !list) return undefined;
      const resultSize = add(sizeOf(l), sizeOf(r));
      let cost: Range = sized ? byFactor(resultSize, STRING_TRAVERSAL) : ONE;
      if (sized && (list || (!isVariableSized(lk) && !isVariableSized(rk)))) cost = union(cost, ONE);
      return { cost, resultSize };
    }
    case "_==_":
    case "_!=_":
      if (args.length !== 2) return undefined;
      return { cost: comparisonCost(args[0]!, args[1]!) };
    case "_<_":
    case "_<=_":
    case "_>_":
    case "_>=_": {
      if (args.length !== 2) return undefined;
      const [l, r] = args as [CostOperand, CostOperand];
      const lk = l.type.kind;
      const rk = r.type.kind;
      const may = (kind: Kind) => (lk === kind || lk === "dyn") && (rk === kind || rk === "dyn");
      if (!may("string") && !may("bytes")) return undefined;
      const c = comparisonCost(l, r);
      return { cost: !isVariableSized(lk) && !isVariableSized(rk) ? union(c, ONE) : c };
    }
  }
  return undefined;
}

// Runtime charges (interpreter/runtimecost.go costCall): they apply only when the checker resolved the call to one
// overload (cel-go keys them by overload id, which is empty for a call with several candidate overloads).

/** Types whose values all have size 1 (cel-go: not a `traits.Sizer`). */
const UNSIZED: ReadonlySet<Kind> = new Set(["bool", "int", "uint", "double", "null", "timestamp", "duration", "type"]);

/** Whether a comparison or `+` of two operands resolves to the overload of `kind` (string or bytes) only. */
function onlyOverloadOf(kind: Kind, shape: CallShape): boolean {
  const [l, r] = shape.args;
  if (l === undefined || r === undefined) return false;
  const fits = (k: Kind) => k === kind || k === "dyn";
  return fits(l.kind) && fits(r.kind) && (l.kind === kind || r.kind === kind);
}

const sizeOfFirst: RuntimeCharge = (ops) => sizeTraversal(ops[0]);

/** cel-go's runtime charge of a standard function, when it is not the default 1. */
export function builtinRuntimeCharge(fn: string, shape: CallShape): RuntimeCharge | undefined {
  const { target, args } = shape;
  switch (fn) {
    case "startsWith":
    case "endsWith":
    case "format":
      // the receiver's traversal (at run time args[0] is the receiver)
      return target !== undefined && args.length === 1 ? sizeOfFirst : undefined;
    case "strings.quote":
      return args.length === 1 ? sizeOfFirst : undefined;
    case "bytes":
      return target === undefined && args[0]?.kind === "string" ? sizeOfFirst : undefined;
    case "string":
      return target === undefined && args[0]?.kind === "bytes" ? sizeOfFirst : undefined;
    case "matches":
      // `s.matches(re)` only: the global matches() has its own overload id, which cel-go does not size
      return target !== undefined && args.length === 1
        ? (ops) => Math.ceil((1 + actualSize(ops[0])) * STRING_TRAVERSAL) * Math.ceil(actualSize(ops[1]) * REGEX_LENGTH)
        : undefined;
    case "contains":
      return target !== undefined && args.length === 1 && (target.kind === "string" || target.kind === "dyn")
        ? (ops) => sizeTraversal(ops[0]) * sizeTraversal(ops[1])
        : undefined;
    case "@in":
      return args[1]?.kind === "list" ? (ops) => actualSize(ops[1]) : undefined;
    case "_==_":
    case "_!=_": {
      const [l, r] = args;
      if (l !== undefined && r !== undefined && UNSIZED.has(l.kind) && UNSIZED.has(r.kind)) return undefined;
      return (ops) => comparisonCharge(ops[0], ops[1]);
    }
    case "_<_":
    case "_<=_":
    case "_>_":
    case "_>=_":
      return onlyOverloadOf("string", shape) || onlyOverloadOf("bytes", shape)
        ? (ops) => comparisonCharge(ops[0], ops[1])
        : undefined;
    case "_+_":
      if (onlyOverloadOf("string", shape) || onlyOverloadOf("bytes", shape)) {
        return (ops) => concatenationTraversal(ops[0], ops[1]);
      }
      return mayBeLists(shape) ? listConcatenation : undefined;
  }
  return undefined;
}

/** Whether both operands of a `+` may be lists. */
function mayBeLists(shape: CallShape): boolean {
  const [l, r] = shape.args;
  const fits = (k: Kind | undefined) => k === "list" || k === "dyn";
  return fits(l?.kind) && fits(r?.kind);
}

/**
 * cel-go charges `list + list` 1 (runtimecost.go: AddList is O(1), a concatList is a view of both lists), and so
 * does this charge (undefined: the default); this engine copies both lists (and a Kubernetes set or map list
 * hashes every element), so the copy is counted as work (engine.ts chargeWork), which cancels an evaluation that
 * would do unbounded work for the constant charge (a list doubled again and again).
 */
const listConcatenation: RuntimeCharge = (ops) => {
  const [a, b] = ops;
  if (Array.isArray(a) && Array.isArray(b)) chargeWork(listCopyWork(a, b));
  return undefined;
};

/** The work of concatenating `a` and `b`: every element copied; a set or map list's elements also hashed. */
function listCopyWork(a: unknown[], b: unknown[]): number {
  const work = a.length + b.length;
  if (!LIST_TYPES.has(a)) return work;
  return work + traversalCost(a) + traversalCost(b);
}
