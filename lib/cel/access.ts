/**
 * Field selection and indexing where the engine's evaluation differs from cel-go's (interpreter/attributes.go):
 *
 * - a plain step (`.f`, `[k]`) on an optional that holds a value qualifies that value without a presence test:
 *   a value with no members (null, a number, a string, …) fails with "no such key", where the engine answers
 *   `optional.none()`;
 * - a list index held as a uint (`list[dyn(0u)]`) selects the element, as cel-go converts a uint index to an int
 *   (types.IndexOrError); the engine looks it up as a key.
 *
 * Installed on the checked tree, on the nodes whose operand types allow the difference (engine.ts overrideHandlers).
 */
import {
  checkedTypeName,
  ENGINE_HANDLER,
  EvaluationError,
  type HandlerOverride,
  Optional,
  overrideHandlers,
  type SyntaxNode,
  UnsignedInt,
} from "./engine.js";

/** Whether a value can be qualified by a field or key: a map, a list, or an object of a declared type. */
function hasMembers(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false;
  return !(v instanceof UnsignedInt || v instanceof Uint8Array || v instanceof Optional);
}

function noSuchKey(key: unknown): EvaluationError {
  return new EvaluationError({ code: "no_such_key", message: `No such key: ${String(key)}` });
}

/** A plain step on a present optional whose value has no members fails (cel-go Qualify without presence test). */
const stepOnOptional: HandlerOverride = ([operand, key]) => {
  if (operand instanceof Optional && operand.hasValue() && !hasMembers(operand.value())) throw noSuchKey(key);
  return ENGINE_HANDLER;
};

/** A list indexed by a uint: the element at that position, or cel-go's "index out of bounds". */
const uintListIndex: HandlerOverride = ([list, index]) => {
  if (!(Array.isArray(list) && index instanceof UnsignedInt)) return ENGINE_HANDLER;
  const i = index.valueOf();
  if (i < BigInt(list.length)) return list[Number(i)];
  throw new EvaluationError({ code: "index_out_of_bounds", message: `index out of bounds, index ${i}` });
};

function accessOverride(node: SyntaxNode): HandlerOverride | undefined {
  if (node.op !== "." && node.op !== "[]") return undefined;
  const operand = checkedTypeName(node.args[0]);
  if (operand?.startsWith("optional<") === true) return stepOnOptional;
  if (node.op !== "[]") return undefined;
  const index = checkedTypeName(node.args[1]);
  const listOperand = operand === undefined || operand === "dyn" || operand.startsWith("list<");
  return listOperand && (index === undefined || index === "dyn" || index === "uint") ? uintListIndex : undefined;
}

/** Installs cel-go's selection and index semantics (see the module comment) on a checked tree. */
export function installAccessSemantics(root: SyntaxNode): void {
  overrideHandlers(root, accessOverride);
}
