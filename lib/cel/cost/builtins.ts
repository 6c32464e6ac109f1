/**
 * cel-go's estimates of its standard functions (checker/cost.go functionCost): the size-dependent string, bytes and
 * list operations. Library functions carry their own estimates (the `callCosts` of ../libraries/*).
 */
import { type CallEstimate, type CostOperand, comparisonCost, sizeOf } from "./operand.js";
import { add, byFactor, mul, mulU, ONE, type Range, REGEX_LENGTH, STRING_TRAVERSAL, union } from "./range.js";
import { isVariableSized, type Kind } from "./type-names.js";

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
