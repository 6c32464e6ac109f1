/**
 * What the static cost estimator knows about one expression (cel-go keeps it in maps by expression id): its cost,
 * type, schema path and size. Call estimators (the `callCosts` of each library, cel-go's built-ins) read their
 * receiver and arguments through these.
 */
import type { SyntaxNode } from "../engine.js";
import { byFactor, fixed, ONE, type Range, STRING_TRAVERSAL, UNKNOWN, union } from "./range.js";
import type { Decl } from "./schema-sizes.js";
import { type CelTypeInfo, isScalar } from "./type-names.js";

/** The sizes of a list's elements or a map's keys and values, known for literals and computed lists. */
export interface Entry {
  container: "list" | "map";
  key: Range;
  val: Range;
}

export function unionEntry(a: Entry | undefined, b: Entry | undefined): Entry | undefined {
  if (a === undefined || b === undefined) return undefined;
  return { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) };
}

/**
 * A cel-go field path (AstNode.Path), resolved against the rule's schema as it grows. The size estimator skips a
 * path's first element (the variable) and walks the rest from the rule's node, so a path that starts at an
 * expression without one (`f(x).y`, the iteration variable of a literal list) resolves from the rule's node too.
 * `decl` is undefined when the path leaves the schema.
 */
export interface SchemaPath {
  decl: Decl | undefined;
}

/** A comprehension's iteration variable (or a variable bound by a rewrite). */
export interface LocalVar {
  name: string;
  path: SchemaPath | undefined;
  size: Range | undefined;
  type: CelTypeInfo;
}

/** What the estimator knows about one expression: a call's receiver or argument. */
export interface CostOperand {
  node: SyntaxNode | undefined;
  cost: Range;
  type: CelTypeInfo;
  path: SchemaPath | undefined;
  /** A size computed by the expression itself (calls, comprehensions) or cached from the schema. */
  size: Range | undefined;
  entry: Entry | undefined;
  /** The local variable an identifier refers to. */
  local: LocalVar | undefined;
}

/** The estimate of one call: its own cost (without its operands') and, where known, the size of its result. */
export interface CallEstimate {
  cost: Range;
  resultSize?: Range | undefined;
}

/**
 * The estimate of a function by name: its receiver (undefined for global functions and operators) and arguments.
 * Returns undefined where it does not apply.
 */
export type CallCostEstimator = (
  target: CostOperand | undefined,
  args: readonly CostOperand[],
) => CallEstimate | undefined;

function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** `-<literal>`: a negative number literal. */
export function isNegatedLiteral(node: SyntaxNode): boolean {
  return node.op === "-_" && node.args.op === "value";
}

/** cel-go computeExprSize: the size of literals. */
function literalSize(e: SyntaxNode): Range | undefined {
  switch (e.op) {
    case "value": {
      const v = e.args;
      if (typeof v === "string") return fixed(codePointLength(v));
      if (v instanceof Uint8Array) return fixed(v.length);
      return ONE;
    }
    case "-_":
      return isNegatedLiteral(e) ? ONE : undefined;
    case "list":
    case "map":
      return fixed(e.args.length);
    default:
      return undefined;
  }
}

/** cel-go computeSize: a computed size, a literal's, the schema's, 1 for scalars, or a local variable's. */
export function computeSize(info: CostOperand): Range | undefined {
  if (info.size !== undefined) return info.size;
  if (info.node !== undefined) {
    const literal = literalSize(info.node);
    if (literal !== undefined) return literal;
  }
  const decl = info.path?.decl;
  if (decl !== undefined) {
    info.size = decl.range;
    return decl.range;
  }
  if (isScalar(info.type)) return ONE;
  return info.local?.size;
}

/** cel-go sizeOrUnknown / Kubernetes sizeEstimate. */
export function sizeOf(info: CostOperand): Range {
  return computeSize(info) ?? UNKNOWN;
}

/** The element of a list receiver as Kubernetes' listElementNode sees it: the receiver's path plus `@items`. */
export function listElement(list: CostOperand): { size: Range; type: CelTypeInfo } | undefined {
  const type = list.type.params[0];
  if (type === undefined) return undefined;
  const decl = list.path?.decl?.elem;
  return { size: decl === undefined ? UNKNOWN : decl.range, type };
}

/** Size-based equality and string/bytes comparison (cel-go: the smaller of the two max sizes × 0.1). */
export function comparisonCost(l: CostOperand, r: CostOperand): Range {
  const smallestMax = Math.min(sizeOf(l).max, sizeOf(r).max);
  return byFactor({ min: smallestMax > 0 ? 1 : 0, max: smallestMax }, STRING_TRAVERSAL);
}

/** The constant cost 1 (functions Kubernetes' estimator lists with a fixed cost). */
export const constantCost: CallCostEstimator = () => ({ cost: ONE });

/**
 * Kubernetes' estimate of a parsing function (`quantity()`, `isQuantity()`, `cidr()`, `isCIDR()`, `isIP()`,
 * `ip()`, `ip.isCanonical()`, `semver()`, `isSemver()`, `url()`): `traversal` × the size of the string argument.
 * (Before Kubernetes 1.34 the estimator only applied with a receiver, which these global functions never have;
 * 1.34 fixed that, apiserver commit "Fix the cost issue to match the bug fix for target being nil in CEL side".)
 */
export function parseCost(traversal: number): CallCostEstimator {
  return (_target, args) => {
    if (args.length < 1) return undefined;
    return { cost: byFactor(sizeOf(args[0]!), traversal) };
  };
}

/** Kubernetes' estimate of `==` on one of its opaque types (`typeName`), when both sides have that type. */
export function typedEqualityCost(typeName: string, estimate: CallCostEstimator): CallCostEstimator {
  return (target, args) => {
    if (args.length !== 2) return undefined;
    const [l, r] = args as [CostOperand, CostOperand];
    if (l.type.name !== typeName || r.type.name !== typeName) return undefined;
    return estimate(target, args);
  };
}
