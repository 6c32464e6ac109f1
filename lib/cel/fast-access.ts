/**
 * Shorter paths of the engine's field selection, indexing and presence tests (`x.f`, `l[i]`, `m[k]`, `has(x.f)`) for
 * the values they meet almost always: an object value of the operand's declared type, a map, a list indexed by an
 * int. Each takes the value the engine's handle would give (the same read on the same value, and the engine's own
 * check of the value against the declared type); for anything else (an absent field or key, an index out of range,
 * a value of another type) the engine's handle or macro runs, with its value or error. Nodes whose handle a library
 * replaced keep it.
 */
import {
  type CheckedType,
  type EngineNode,
  type EvaluationContext,
  type Evaluator,
  engineNode,
  hasOverriddenHandle,
  kindEvaluate,
  type ObjectTypeDeclaration,
  type SyntaxNode,
} from "./engine.js";
import type { Run } from "./evaluation.js";
import { type StructField, StructValue } from "./schema-types.js";

type Handle = (...args: unknown[]) => unknown;

/** Whether a value has a type (the engine's check of a variable's, field's or element's value). */
export type TypeCheck = (v: unknown, ev: Evaluator) => boolean;

/**
 * The engine's check of a value against `type`, remembering its answer for the last class of object seen: the
 * engine knows an object's runtime type by its `constructor` alone (Evaluator.debugType), so for an object type
 * the answer for one value of a class is the answer for every value of that class. Other values are checked as the
 * engine does.
 */
export function typeCheckOf(type: CheckedType): TypeCheck {
  if (type.kind !== "message") return (v, ev) => type.matchesValueType(v, ev);
  let seen: unknown;
  let answer = false;
  return (v, ev) => {
    if (typeof v !== "object" || v === null) return type.matchesValueType(v, ev);
    const c = (v as { constructor?: unknown }).constructor;
    if (c !== undefined && c === seen) return answer;
    answer = type.matchesValueType(v, ev);
    seen = c;
    return answer;
  };
}

/**
 * A variable read (`self`): its value when it has the declared type, else the engine's read (with its conversion
 * of a plain object to the declared object type, or its error).
 */
export function variableRun(node: SyntaxNode): Run | undefined {
  if (node.op !== "id") return undefined;
  const n = engineNode(node);
  const type = n.checkedType;
  if (type === undefined) return undefined;
  const name = node.args;
  const check = typeCheckOf(type);
  return (ev, _ast, ctx) => {
    const v = ctx.getValue(name);
    if (v !== undefined && check(v, ev)) return v;
    return ctx.getCheckedValue(ev, n);
  };
}

/** The constant strings of a list literal of string literals, or undefined. */
function constantStrings(node: SyntaxNode): ReadonlySet<string> | undefined {
  if (node.op !== "list") return undefined;
  const out = new Set<string>();
  for (const e of node.args) {
    if (e.op !== "value" || typeof e.args !== "string") return undefined;
    out.add(e.args);
  }
  return out;
}

/**
 * `s in ['a', 'b']`: a string among the literal strings (the engine's membership test compares a string with each
 * element by identity); any other left value runs the engine's handle on the literal list. The list is a constant
 * (cel-go's planner makes the test a set lookup, and charges nothing for the list).
 */
export function constantMembershipRun(node: SyntaxNode, left: Run): Run | undefined {
  if (node.op !== "in" || hasOverriddenHandle(node)) return undefined;
  const n = engineNode(node);
  const strings = constantStrings(node.args[1]);
  if (strings === undefined || typeof n.handle !== "function") return undefined;
  const handle = n.handle as Handle;
  const list = [...strings];
  return (ev, _ast, ctx) => {
    const x = left(ev, undefined, ctx);
    if (typeof x === "string") return strings.has(x);
    return handle(x, [...list], n, ev);
  };
}

/** The handle and the operand's checked type of an access node, when a shorter path may apply. */
function accessParts(node: SyntaxNode): { n: EngineNode; handle: Handle; operandType: CheckedType } | undefined {
  if (node.op !== "." && node.op !== "[]") return undefined;
  const n = engineNode(node);
  const operandType = engineNode(node.args[0]).checkedType;
  if (hasOverriddenHandle(n) || typeof n.handle !== "function" || operandType === undefined) return undefined;
  return { n, handle: n.handle as Handle, operandType };
}

/**
 * An object type's declaration, when the engine knows its values by their class alone (no other type shares the
 * class), so that a value of that class is a value of that type.
 */
function exactObjectType(ev: Evaluator, typeName: string): ObjectTypeDeclaration | undefined {
  const decl = ev.objectTypes.get(typeName);
  if (decl?.ctor === undefined || ev.objectTypesByConstructor.get(decl.ctor) !== decl) return undefined;
  return decl;
}

/** The field `key` of values of the object type `typeName`: the engine reads `get(key)` of such a value. */
interface FieldRead {
  readonly valueClass: unknown;
  readonly fieldType: CheckedType;
  readonly check: TypeCheck;
  readonly key: string;
  /** The field as a struct value of the type keeps it (found on the first such value). */
  struct: StructField | undefined;
}

function fieldRead(ev: Evaluator, typeName: string, key: string): FieldRead | null {
  const decl = exactObjectType(ev, typeName);
  const fieldType = decl?.fields?.[key];
  if (decl === undefined || fieldType === undefined) return null;
  return { valueClass: decl.ctor, fieldType, check: typeCheckOf(fieldType), key, struct: undefined };
}

/** What `o.get(key)` gives on a value of the read's type (a struct value's field read without the name lookup). */
function readField(o: Map<unknown, unknown>, read: FieldRead): unknown {
  if (o instanceof StructValue) {
    read.struct ??= o.field(read.key);
    return read.struct === undefined ? undefined : o.read(read.struct);
  }
  return o.get(read.key);
}

/** `x.f` on an object type (the engine's message field read) or a map (its key lookup). */
export function selectRun(node: SyntaxNode, operand: Run): Run | undefined {
  const parts = accessParts(node);
  if (parts === undefined || node.op !== ".") return undefined;
  const { n, handle, operandType } = parts;
  const key = node.args[1];
  if (operandType.kind === "message") {
    const typeName = operandType.name;
    // Resolved on the first evaluation (the evaluator knows the declarations); null: no shorter path.
    let read: FieldRead | null | undefined;
    return (ev, _ast, ctx) => {
      const o = operand(ev, undefined, ctx);
      if (o instanceof Map) {
        read ??= fieldRead(ev, typeName, key);
        if (read !== null && o.constructor === read.valueClass) {
          const v = readField(o, read);
          if (v !== undefined && read.check(v, ev)) return v;
        }
      }
      return handle(o, key, n, ev);
    };
  }
  const valueType = operandType.kind === "map" ? operandType.valueType : undefined;
  if (valueType === undefined) return undefined;
  const check = typeCheckOf(valueType);
  return (ev, _ast, ctx) => {
    const o = operand(ev, undefined, ctx);
    if (o instanceof Map) {
      const v: unknown = o.get(key);
      if (v !== undefined && check(v, ev)) return v;
    }
    return handle(o, key, n, ev);
  };
}

/** `l[i]` on a list with an int index (the engine's element read), `m[k]` on a map (its key lookup). */
export function indexRun(node: SyntaxNode, operand: Run, index: Run): Run | undefined {
  const parts = accessParts(node);
  if (parts === undefined || node.op !== "[]") return undefined;
  const { n, handle, operandType } = parts;
  const valueType = operandType.valueType;
  if (valueType === undefined) return undefined;
  const check = typeCheckOf(valueType);
  const indexType = engineNode(node.args[1]).checkedType;
  if (operandType.kind === "list" && indexType?.name === "int") {
    return (ev, _ast, ctx) => {
      const o = operand(ev, undefined, ctx);
      const i = index(ev, undefined, ctx);
      if (Array.isArray(o) && o.constructor === Array && typeof i === "bigint") {
        const v: unknown = o[Number(i)];
        if (v !== undefined && check(v, ev)) return v;
      }
      return handle(o, i, n, ev);
    };
  }
  if (operandType.kind === "map") {
    return (ev, _ast, ctx) => {
      const o = operand(ev, undefined, ctx);
      const k = index(ev, undefined, ctx);
      if (o instanceof Map) {
        const v: unknown = o.get(k);
        if (v !== undefined && check(v, ev)) return v;
      }
      return handle(o, k, n, ev);
    };
  }
  return undefined;
}

/** The presence test's answer on values of the declared types; undefined where the engine's macro must answer. */
type PresenceRun = (ev: Evaluator, ast: unknown, ctx: EvaluationContext) => boolean | undefined;

function presenceRun(path: readonly EngineNode[], runs: ReadonlyMap<SyntaxNode, Run>): PresenceRun | undefined {
  const rootNode = path[path.length - 1];
  const rootType = rootNode?.checkedType;
  const root = rootNode === undefined ? undefined : runs.get(rootNode as unknown as SyntaxNode);
  const selections = path.slice(0, -1).reverse();
  if (root === undefined || rootType?.kind !== "message" || selections.some((s) => s.op !== ".")) return undefined;
  const keys = selections.map((s) => (s.args as [unknown, string])[1]);
  let reads: FieldRead[] | null | undefined;
  const resolve = (ev: Evaluator): FieldRead[] | null => {
    const out: FieldRead[] = [];
    let typeName = rootType.name;
    for (let i = 0; i < keys.length; i++) {
      const read = fieldRead(ev, typeName, keys[i]!);
      if (read === null) return null;
      out.push(read);
      const next = read.fieldType;
      if (i < keys.length - 1 && next.kind !== "message") return null;
      typeName = next.name;
    }
    return out;
  };
  return (ev, _ast, ctx) => {
    reads ??= resolve(ev);
    return presence(ev, ctx, root, keys, reads);
  };
}

function presence(
  ev: Evaluator,
  ctx: EvaluationContext,
  root: Run,
  keys: readonly string[],
  reads: readonly FieldRead[] | null,
): boolean | undefined {
  if (reads === null) return undefined;
  let obj = root(ev, undefined, ctx);
  const last = keys.length - 1;
  for (let i = 0; i <= last; i++) {
    const read = reads[i]!;
    if (!(obj instanceof Map) || obj.constructor !== read.valueClass) return undefined;
    const v = readField(obj, read);
    if (v === undefined) return i === last ? false : undefined;
    if (!read.check(v, ev)) return undefined;
    obj = v;
  }
  return true;
}

/**
 * `has(x.f.g)` where every operand of a selection is of an object type: the engine's presence test (its
 * selections from the identifier outwards; an absent field but the last is an error) on values of those types. Any
 * other value, an absent inner field or a value that fails the type check runs the engine's macro (the identifier
 * is read again: reading a variable has no effect and no charge).
 *
 * @param path the has() macro's selections, outermost first, then the identifier they start from
 */
export function presenceTestRun(
  node: SyntaxNode,
  path: readonly EngineNode[],
  runs: ReadonlyMap<SyntaxNode, Run>,
): Run | undefined {
  const fast = presenceRun(path, runs);
  if (fast === undefined) return undefined;
  const n = engineNode(node);
  const macro = kindEvaluate(n);
  return (ev, _ast, ctx) => {
    const r = fast(ev, undefined, ctx);
    return r === undefined ? macro(ev, n, ctx) : r;
  };
}
