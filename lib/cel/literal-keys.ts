/**
 * The engine keeps the keys of a map literal as strings (a plain object), so a comprehension over `{6: 'six'}`
 * would see the string "6" where cel-go sees the int 6. Where a comprehension ranges over a map whose checked key
 * type is int, uint or bool (directly, or through a two-variable comprehension's `__entries`, rewrite.ts), a plain
 * object is handed over as a Map with keys of that type. Called on the checked tree.
 */
import {
  checkedTypeName,
  comprehensionRange,
  mapNodeValue,
  type SyntaxNode,
  syntaxChildren,
  UnsignedInt,
} from "./engine.js";

/** A map literal's key, which the engine keeps as a string, as a value of the map's checked key type. */
const KEY_FROM_STRING = new Map<string, (k: string) => unknown>([
  ["int", (k) => BigInt(k)],
  ["uint", (k) => new UnsignedInt(BigInt(k))],
  ["bool", (k) => k === "true"],
]);

/** The node a comprehension (or `__entries`) ranges over, if `node` is one. */
function rangeOf(node: SyntaxNode): SyntaxNode | undefined {
  if (node.op === "call" && node.args[0] === "__entries") return node.args[1][0];
  return comprehensionRange(node);
}

/** Types the keys of literal maps where comprehensions range over them (see the module comment). */
export function typeLiteralMapKeys(node: SyntaxNode): void {
  const range = rangeOf(node);
  const keyType = range === undefined ? undefined : /^map<(\w+), /.exec(checkedTypeName(range) ?? "")?.[1];
  const toKey = keyType === undefined ? undefined : KEY_FROM_STRING.get(keyType);
  if (range !== undefined && toKey !== undefined) {
    mapNodeValue(range, (v) => {
      if (typeof v !== "object" || v === null || Object.getPrototypeOf(v) !== Object.prototype) return v;
      return new Map(Object.entries(v).map(([k, e]) => [toKey(k), e]));
    });
  }
  for (const c of syntaxChildren(node)) typeLiteralMapKeys(c);
}
