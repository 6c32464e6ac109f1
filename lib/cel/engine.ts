/**
 * The adapter to the CEL engine: the only module of tollgate that imports @marcbachmann/cel-js (pinned to an exact
 * version in package.json), so the engine can be replaced. Engine internals tollgate relies on (node fields that
 * are not in the engine's .d.ts) are reached only through the helpers here, and are covered by contract tests
 * (test/unit/lib/cel/engine.test.ts).
 */

import type { ASTNode, ParseResult } from "@marcbachmann/cel-js";
import { TypeError as CelTypeError, Environment, EvaluationError, Optional, ParseError } from "@marcbachmann/cel-js";
import { Duration } from "@marcbachmann/cel-js/evaluator";

export type { ASTNode, ParseResult };
export { CelTypeError, Duration, Environment, EvaluationError, Optional, ParseError };

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
      return (a as [ASTNode, ASTNode][]).flatMap(([k, v]) => [k, v]);
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
