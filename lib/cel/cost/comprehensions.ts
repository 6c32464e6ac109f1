/**
 * Recognises the rewrite of two-variable comprehensions (cel-go ext.TwoVarComprehensions; see ../rewrite.ts) in a
 * checked syntax tree, so the estimator costs them like cel-go's expansion rather than the rewrite.
 */
import { callOf, identifierName, type SyntaxNode } from "../engine.js";

/** A two-variable comprehension, as written before the rewrite. */
export interface TwoVariable {
  macro: "all" | "exists" | "exists_one" | "transformList" | "transformMap" | "transformMapEntry";
  range: SyntaxNode;
  first: string;
  second: string;
  filter?: SyntaxNode | undefined;
  body: SyntaxNode;
}

/** `cel.bind(k, __e[0], cel.bind(v, __e[1], body))`. */
function unwrapEntryBinds(n: SyntaxNode | undefined): { first: string; second: string; body: SyntaxNode } | undefined {
  const outer = callOf(n);
  if (outer?.name !== "bind" || identifierName(outer.target) !== "cel" || outer.args.length !== 3) return undefined;
  const inner = callOf(outer.args[2]);
  if (inner?.name !== "bind" || identifierName(inner.target) !== "cel" || inner.args.length !== 3) return undefined;
  const first = identifierName(outer.args[0]);
  const second = identifierName(inner.args[0]);
  if (first === undefined || second === undefined) return undefined;
  return { first, second, body: inner.args[2]! };
}

/** `__entries(x)`, optionally `.filter(__e, <binds>)`: the range and the filter. */
function entriesRange(n: SyntaxNode | undefined): { range: SyntaxNode; filter?: SyntaxNode } | undefined {
  const c = callOf(n);
  if (c === undefined) return undefined;
  if (c.target === undefined && c.name === "__entries" && c.args.length === 1) return { range: c.args[0]! };
  if (c.name === "filter" && c.args.length === 2 && identifierName(c.args[0]) === "__e") {
    const inner = callOf(c.target);
    const binds = unwrapEntryBinds(c.args[1]);
    if (inner?.name === "__entries" && inner.target === undefined && inner.args.length === 1 && binds !== undefined) {
      return { range: inner.args[0]!, filter: binds.body };
    }
  }
  return undefined;
}

/** The `dyn(<binds>)` of a `[__e[0], dyn(<binds>)]` pair (the transform of transformMap). */
function pairBinds(pair: SyntaxNode): { first: string; second: string; body: SyntaxNode } | undefined {
  const elements = pair.op === "list" ? pair.args : [];
  const dyn = callOf(elements[1]);
  return dyn?.name === "dyn" && dyn.args.length === 1 ? unwrapEntryBinds(dyn.args[0]) : undefined;
}

/** Recognises the rewrite of a two-variable comprehension at a call (see ../rewrite.ts). */
export function twoVariableComprehension(
  target: SyntaxNode | undefined,
  name: string,
  args: readonly SyntaxNode[],
): TwoVariable | undefined {
  if (target === undefined) {
    // __fromEntries(<map of [__e[0], dyn(t)]>) and __mergeMaps(<map of t>)
    if ((name !== "__fromEntries" && name !== "__mergeMaps") || args.length !== 1) return undefined;
    const inner = callOf(args[0]);
    if (inner?.target === undefined) return undefined;
    const two = twoVariableComprehension(inner.target, inner.name, inner.args);
    if (two?.macro !== "transformList") return undefined;
    if (name === "__mergeMaps") return { ...two, macro: "transformMapEntry" };
    // the transform was [__e[0], dyn(<binds>)]
    const binds = pairBinds(two.body);
    return binds === undefined ? undefined : { ...two, macro: "transformMap", body: binds.body };
  }
  if (args.length !== 2 || identifierName(args[0]) !== "__e") return undefined;
  const range = entriesRange(target);
  if (range === undefined) return undefined;
  if (name === "map") {
    // transformList keeps the pair when the transform is the [__e[0], dyn(...)] of transformMap
    const binds = unwrapEntryBinds(args[1]);
    if (binds !== undefined) return { macro: "transformList", ...range, ...binds };
    const inner = pairBinds(args[1]!);
    if (inner === undefined) return undefined;
    return { macro: "transformList", ...range, first: inner.first, second: inner.second, body: args[1]! };
  }
  if (range.filter !== undefined) return undefined;
  const binds = unwrapEntryBinds(args[1]);
  if (binds === undefined) return undefined;
  if (name === "all" || name === "exists" || name === "exists_one") return { macro: name, ...range, ...binds };
  return undefined;
}
