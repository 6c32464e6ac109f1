/**
 * Evaluates a parsed client-go JSONPath (parser.ts) over a VirtualMachine the way client-go's `FindResults` walks the
 * typed Go struct (util/jsonpath/jsonpath.go), which is what the real template validator does
 * (spec/kubevirt-validator-behaviour.md, section 4):
 *
 * - a field the Go type defines is found even when the JSON omits it: as its zero value, or as a nil pointer;
 * - a step through a nil pointer contributes nothing; a step that finds nothing in any input is the error
 *   "<name> is not found", so `disks[*].disk.bus` silently drops CD-ROMs and fails only when every disk is dropped;
 * - `[*]` over an empty list is an empty result, not an error; an index out of range is an error;
 * - filters compare with Go template semantics (`incompatible types for comparison`).
 *
 * The same walk runs on the validator's reference VM (`REFERENCE`): a zero VirtualMachine whose
 * `spec.template.spec.domain` is fully allocated (every pointer set, every map empty, 64 disks, 64 interfaces, 16
 * ports per interface, 8 NTP servers, other lists 64 long, CD-ROMs defaulted to `readonly: true, tray: closed`), used
 * when a lookup on the real VM fails. It is never built: absent parts are made up on demand.
 *
 * Not reproduced: `{range}`/`{end}` (reported as unsupported), and client-go's habit of keeping a negative index
 * adjusted by the first list it met for later lists (a bug that only moves which element of the reference VM is read).
 * Work is bounded: a walk that makes more than MAX_VALUES values stops with an error.
 */

import { childOf, indexOf, keyOf, type Path } from "../../field/path.js";
import { appendAll } from "../../objects/append.js";
import { isMapping } from "../../objects/mapping.js";
import { ANY_TYPE, type FieldType, lookupField, type TypeNode, typeText, virtualMachineType } from "../vm-types.js";
import type { JpNode, ListNode } from "./parser.js";

/** One value a JSONPath step produced. */
export interface Val {
  /** The Go type (for a pointer: the type pointed to). */
  readonly type: TypeNode;
  /** A nil pointer (or nil interface). */
  readonly nil: boolean;
  /** The JSON value; undefined when the JSON has none (the zero value of `type`). */
  readonly json: unknown;
  /** Inside the reference VM's allocated domain: absent pointers are allocated, absent lists are long. */
  readonly alloc: boolean;
  /** Found on the reference VM rather than the admitted one. */
  readonly reference: boolean;
  /** The Kubernetes field path of the value; null for literals of the template itself. */
  readonly path: Path | null;
  /** A literal of the JSONPath (`"text"`, `3`, `1.5`, `true`). */
  readonly literal?: "string" | "int" | "float" | "bool";
}

/** A JSONPath that could not be evaluated, with client-go's message. */
export class JsonPathEvalError extends Error {
  override readonly name = "JsonPathEvalError";
}

/** Most values one path evaluation may make (`..bus` on the reference VM makes about 40,000). */
const MAX_VALUES = 200_000;

/**
 * A budget of values shared by several evaluations (all the rules of one VM), so that an annotation of many
 * expensive paths stays bounded in time as a whole.
 */
export class EvalBudget {
  constructor(public left: number) {}

  take(n: number): void {
    this.left -= n;
    if (this.left < 0) throw new EvalBudgetExhausted();
  }
}

/** The shared budget ran out: not a property of one path, so never a reason to try the reference VM. */
export class EvalBudgetExhausted extends Error {
  override readonly name = "EvalBudgetExhausted";
  constructor() {
    super("the rules need too much work to evaluate (evaluation budget exhausted)");
  }
}

/** How many elements the reference VM gives a list it allocates (kubevirtjobs NumItems; default MaxItems 64). */
const REFERENCE_LIST_LENGTHS: Readonly<Record<string, number>> = {
  disks: 64,
  interfaces: 64,
  ports: 16,
  ntpServers: 8,
};
const REFERENCE_LIST_DEFAULT = 64;
/** KubeVirt's CD-ROM defaulting, applied to the reference VM. */
const CDROM_DEFAULTS = Object.freeze({ readonly: true, tray: "closed" });

const STRING_LITERAL: TypeNode = { kind: "scalar", scalar: "string" };
const INT_LITERAL: TypeNode = { kind: "scalar", scalar: "integer" };
const FLOAT_LITERAL: TypeNode = { kind: "scalar", scalar: "number" };
const BOOL_LITERAL: TypeNode = { kind: "scalar", scalar: "boolean" };

interface Result {
  vals: Val[];
  err?: string;
}

/** The root value of an admitted VM (its decoded JSON). */
export function vmRoot(vm: Record<string, unknown>): Val {
  return { type: virtualMachineType(), nil: false, json: vm, alloc: false, reference: false, path: null };
}

/** The root value of the reference VM. */
export function referenceRoot(): Val {
  return { type: virtualMachineType(), nil: false, json: undefined, alloc: false, reference: true, path: null };
}

/** What the value is after dereferencing pointers, as Go reflection's Kind would say. */
export type ValKind = "nil" | "struct" | "list" | "map" | "string" | "int" | "float" | "bool" | "leaf";

/** The reflect.Kind-like kind of a value. `leaf` is a Quantity or an IntOrString (Go structs tollgate treats as leaves). */
export function kindOf(v: Val): ValKind {
  if (v.nil) return "nil";
  const t = v.type;
  if (t.kind === "any") return jsonKind(v.json);
  if (v.json !== undefined && !matchesType(t, v.json)) return jsonKind(v.json);
  switch (t.kind) {
    case "struct":
      return "struct";
    case "list":
      return "list";
    case "map":
      return "map";
    case "scalar":
      switch (t.scalar) {
        case "string":
          return "string";
        case "integer":
          return "int";
        case "number":
          return "float";
        case "boolean":
          return "bool";
        default:
          return "leaf";
      }
  }
}

function jsonKind(j: unknown): ValKind {
  if (j === undefined || j === null) return "nil";
  if (Array.isArray(j)) return "list";
  switch (typeof j) {
    case "object":
      return "map";
    case "string":
      return "string";
    case "number":
    case "bigint":
      return "float";
    case "boolean":
      return "bool";
    default:
      return "nil";
  }
}

/** Whether a JSON value has the shape the Go type would decode (otherwise it is taken as free-form JSON). */
function matchesType(t: TypeNode, j: unknown): boolean {
  switch (t.kind) {
    case "struct":
    case "map":
      return isMapping(j);
    case "list":
      return Array.isArray(j);
    case "any":
      return true;
    case "scalar":
      switch (t.scalar) {
        case "string":
          return typeof j === "string";
        case "integer":
        case "number":
          return typeof j === "number" || typeof j === "bigint";
        case "boolean":
          return typeof j === "boolean";
        case "quantity":
        case "intOrString":
          return typeof j === "string" || typeof j === "number" || typeof j === "bigint";
      }
  }
}

/** The Go type name of a value for messages (`%v` of `value.Type()`). */
function valTypeText(v: Val): string {
  if (v.literal !== undefined) return v.literal === "int" ? "int" : v.literal === "float" ? "float64" : v.literal;
  if (v.type.kind === "any" || (v.json !== undefined && !matchesType(v.type, v.json))) {
    const k = jsonKind(v.json);
    return k === "map" ? "map[string]interface {}" : k === "list" ? "[]interface {}" : k === "float" ? "float64" : k;
  }
  return typeText(v.type);
}

class Walker {
  private made = 0;

  constructor(private readonly budget: EvalBudget | undefined) {}

  private count(n = 1): void {
    this.made += n;
    if (this.made > MAX_VALUES) throw new JsonPathEvalError(`the path makes more than ${MAX_VALUES} values`);
    this.budget?.take(n);
  }

  private literal(kind: "string" | "int" | "float" | "bool", json: unknown): Val {
    const type =
      kind === "string"
        ? STRING_LITERAL
        : kind === "int"
          ? INT_LITERAL
          : kind === "float"
            ? FLOAT_LITERAL
            : BOOL_LITERAL;
    this.count();
    return { type, nil: false, json, alloc: false, reference: false, path: null, literal: kind };
  }

  /** The value of a struct field (the struct is not nil). */
  private field(parent: Val, f: FieldType): Val {
    this.count();
    const parentName = parent.type.kind === "struct" ? parent.type.name : "";
    let json = isMapping(parent.json) ? parent.json[f.name] : undefined;
    if (json === null) json = undefined;
    const alloc =
      parent.alloc || (parent.reference && parentName === "v1.VirtualMachineInstanceSpec" && f.name === "domain");
    const allocatedHere =
      alloc || (parent.reference && parentName === "v1.VirtualMachineSpec" && f.name === "template");
    if (json === undefined && allocatedHere && f.type.kind === "struct" && f.type.name === "v1.CDRomTarget") {
      json = CDROM_DEFAULTS;
    }
    const nil = f.pointer && json === undefined && !allocatedHere;
    return { type: f.type, nil, json, alloc, reference: parent.reference, path: childOf(parent.path, f.name) };
  }

  /** The elements of a list value. */
  private items(v: Val): Val[] {
    const item = v.type.kind === "list" ? v.type.item : ANY_TYPE;
    const out: Val[] = [];
    if (Array.isArray(v.json)) {
      this.count(v.json.length);
      v.json.forEach((j, i) => {
        out.push({
          type: item,
          nil: false,
          json: j === null ? undefined : j,
          alloc: v.alloc,
          reference: v.reference,
          path: indexOf(v.path, i),
        });
      });
    } else if (v.json === undefined && v.alloc) {
      const last = v.path?.segment;
      const n = (typeof last === "string" ? REFERENCE_LIST_LENGTHS[last] : undefined) ?? REFERENCE_LIST_DEFAULT;
      this.count(n);
      for (let i = 0; i < n; i++) {
        let json: unknown;
        if (item.kind === "struct" && item.name === "v1.CDRomTarget") json = CDROM_DEFAULTS;
        out.push({ type: item, nil: false, json, alloc: true, reference: v.reference, path: indexOf(v.path, i) });
      }
    }
    return out;
  }

  /** One entry of a map value. */
  private entry(v: Val, key: string, json: unknown): Val {
    this.count();
    const type = v.type.kind === "map" ? v.type.value : ANY_TYPE;
    return {
      type,
      nil: false,
      json: json === null ? undefined : json,
      alloc: v.alloc,
      reference: v.reference,
      path: keyOf(v.path, key),
    };
  }

  /** The entries of a map value, sorted by key (Go's order is random). */
  private entries(v: Val): Val[] {
    if (!isMapping(v.json)) return [];
    const json = v.json;
    return Object.keys(json)
      .sort()
      .map((k) => this.entry(v, k, json[k]));
  }

  /** Every field of a struct, map or list, and every byte of a string (evalWildcard's children). */
  private children(v: Val): Val[] {
    switch (kindOf(v)) {
      case "struct": {
        if (v.type.kind !== "struct") return [];
        const t = v.type;
        return t.fields.names.map((n) => this.field(v, t.fields.get(n)!));
      }
      case "map":
        return this.entries(v);
      case "list":
        return this.items(v);
      case "string": {
        const s = typeof v.json === "string" ? v.json : "";
        const bytes = new TextEncoder().encode(s);
        return [...bytes].map((b) => this.literal("int", b));
      }
      default:
        return [];
    }
  }

  walk(input: Val[], node: JpNode): Result {
    switch (node.type) {
      case "list":
        return this.evalList(input, node);
      case "text":
        return { vals: [this.literal("string", node.text)] };
      case "field":
        return this.evalField(input, node.name);
      case "array":
        return this.evalArray(input, node.params);
      case "filter":
        return this.evalFilter(input, node);
      case "int":
        return { vals: input.map(() => this.literal("int", node.value)) };
      case "float":
        return { vals: input.map(() => this.literal("float", node.value)) };
      case "bool":
        return { vals: input.map(() => this.literal("bool", node.value)) };
      case "wildcard":
        return { vals: input.flatMap((v) => this.children(v)) };
      case "recursive":
        return this.evalRecursive(input);
      case "union":
        return this.evalUnion(input, node.nodes);
      case "identifier":
        if (node.name === "range" || node.name === "end") {
          return { vals: input, err: `{${node.name}} is not supported by tollgate in template validations` };
        }
        return { vals: input, err: `unrecognized identifier ${node.name}` };
    }
  }

  evalList(input: Val[], node: ListNode): Result {
    let cur = input;
    for (const n of node.nodes) {
      const r = this.walk(cur, n);
      if (r.err !== undefined) return r;
      cur = r.vals;
    }
    return { vals: cur };
  }

  private evalField(input: Val[], name: string): Result {
    const results: Val[] = [];
    if (input.length === 0) return { vals: results };
    for (const v of input) {
      const kind = kindOf(v);
      if (kind === "struct" && v.type.kind === "struct") {
        const f = lookupField(v.type, name);
        if (f !== undefined) results.push(this.field(v, f));
      } else if (kind === "map" && isMapping(v.json) && Object.hasOwn(v.json, name)) {
        results.push(this.entry(v, name, v.json[name]));
      }
    }
    if (results.length === 0) return { vals: results, err: `${name} is not found` };
    return { vals: results };
  }

  private evalArray(
    input: Val[],
    params: readonly [
      { known: boolean; value: number; derived: boolean },
      { known: boolean; value: number; derived: boolean },
      { known: boolean; value: number; derived: boolean },
    ],
  ): Result {
    const result: Val[] = [];
    for (const v of input) {
      const kind = kindOf(v);
      if (kind === "nil") continue;
      if (kind !== "list") return { vals: input, err: `${valTypeText(v)} is not array or slice` };
      const items = this.items(v);
      const len = items.length;
      let p0 = params[0].known ? params[0].value : 0;
      if (p0 < 0) p0 += len;
      let p1 = params[1].known ? params[1].value : len;
      if (p1 < 0 || (p1 === 0 && params[1].derived)) p1 += len;
      if (p1 === p0) return { vals: result };
      if (p0 >= len || p0 < 0) return { vals: input, err: `array index out of bounds: index ${p0}, length ${len}` };
      if (p1 > len || p1 < 0) return { vals: input, err: `array index out of bounds: index ${p1 - 1}, length ${len}` };
      if (p0 > p1) return { vals: input, err: `starting index ${p0} is greater than ending index ${p1}` };
      let step = 1;
      if (params[2].known) {
        if (params[2].value <= 0) return { vals: input, err: "step must be > 0" };
        step = params[2].value;
      }
      for (let i = p0; i < p1; i += step) result.push(items[i]!);
    }
    return { vals: result };
  }

  private evalFilter(input: Val[], node: JpNode & { type: "filter" }): Result {
    const results: Val[] = [];
    for (const v of input) {
      if (kindOf(v) !== "list") {
        return { vals: input, err: `${describe(v)} is not array or slice and cannot be filtered` };
      }
      for (const item of this.items(v)) {
        const lefts = this.evalList([item], node.left);
        if (node.operator === "exists") {
          if (lefts.vals.length > 0) results.push(item);
          continue;
        }
        if (lefts.err !== undefined) return { vals: input, err: lefts.err };
        if (lefts.vals.length === 0) continue;
        if (lefts.vals.length > 1) return { vals: input, err: "can only compare one element at a time" };
        const rights = this.evalList([item], node.right);
        if (rights.err !== undefined) return { vals: input, err: rights.err };
        if (rights.vals.length === 0) continue;
        if (rights.vals.length > 1) return { vals: input, err: "can only compare one element at a time" };
        const c = compareValues(node.operator, lefts.vals[0]!, rights.vals[0]!);
        if (typeof c === "string") return { vals: results, err: c };
        if (c) results.push(item);
      }
    }
    return { vals: results };
  }

  private evalRecursive(input: Val[]): Result {
    const result: Val[] = [];
    for (const v of input) {
      if (kindOf(v) === "nil") continue;
      const children = this.children(v);
      if (children.length === 0) continue;
      result.push(v);
      const below = this.evalRecursive(children);
      appendAll(result, below.vals);
    }
    return { vals: result };
  }

  private evalUnion(input: Val[], nodes: readonly ListNode[]): Result {
    const result: Val[] = [];
    for (const n of nodes) {
      const r = this.evalList(input, n);
      if (r.err !== undefined) return { vals: input, err: r.err };
      appendAll(result, r.vals);
    }
    return { vals: result };
  }
}

/** `%v` of a value, shortened, for the filter error. */
function describe(v: Val): string {
  if (v.nil) return "<nil>";
  return valTypeText(v);
}

type Basic =
  | { kind: "bool"; v: boolean }
  | { kind: "int"; v: bigint }
  | { kind: "float"; v: number }
  | { kind: "string"; v: string };

/** text/template's basicKind of a value; undefined for kinds it cannot compare ("invalid type for comparison"). */
function basic(v: Val): Basic | undefined {
  const k = kindOf(v);
  const j = v.json;
  switch (k) {
    case "string":
      return { kind: "string", v: typeof j === "string" ? j : "" };
    case "bool":
      return { kind: "bool", v: j === true };
    case "int":
      if (typeof j === "bigint") return { kind: "int", v: j };
      if (typeof j === "number") {
        return Number.isInteger(j) ? { kind: "int", v: BigInt(j) } : { kind: "float", v: j };
      }
      return { kind: "int", v: 0n };
    case "float":
      return { kind: "float", v: typeof j === "number" ? j : typeof j === "bigint" ? Number(j) : 0 };
    default:
      return undefined;
  }
}

const BAD_TYPE = "invalid type for comparison";
const INCOMPATIBLE = "incompatible types for comparison";

function equal(a: Basic, b: Basic): boolean | string {
  if (a.kind !== b.kind) return INCOMPATIBLE;
  return a.v === b.v;
}

function less(a: Basic, b: Basic): boolean | string {
  if (a.kind !== b.kind) return INCOMPATIBLE;
  if (a.kind === "bool") return BAD_TYPE;
  return a.v < b.v;
}

/** A filter comparison with text/template's eq/ne/lt/le/gt/ge; a string is the error. */
export function compareValues(op: string, left: Val, right: Val): boolean | string {
  const a = basic(left);
  if (a === undefined) return BAD_TYPE;
  const b = basic(right);
  if (b === undefined) return BAD_TYPE;
  const not = (r: boolean | string) => (typeof r === "string" ? r : !r);
  const or = (x: boolean | string, y: () => boolean | string) => (typeof x === "string" ? x : x ? true : y());
  switch (op) {
    case "==":
      return equal(a, b);
    case "!=":
      return not(equal(a, b));
    case "<":
      return less(a, b);
    case "<=":
      return or(less(a, b), () => equal(a, b));
    case ">":
      return not(or(less(a, b), () => equal(a, b)));
    case ">=":
      return not(less(a, b));
    default:
      return `unrecognized filter operator ${op}`;
  }
}

/**
 * client-go's `FindResults` on `root`: every value of every top-level node (actions and text), flattened as the
 * template validator's `Results` are. Throws JsonPathEvalError with client-go's message when the walk fails.
 */
export function findResults(template: ListNode, root: Val, budget?: EvalBudget): Val[] {
  const walker = new Walker(budget);
  const out: Val[] = [];
  for (const node of template.nodes) {
    const r = walker.walk([root], node);
    if (r.err !== undefined) throw new JsonPathEvalError(r.err);
    appendAll(out, r.vals);
  }
  return out;
}
