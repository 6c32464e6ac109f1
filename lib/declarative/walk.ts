/**
 * The runtime of declarative validation: the compiled validator tree (one TypeNode per Go type that has rules,
 * one FieldNode per struct field that has rules) and the walk that mirrors what validation-gen's generated
 * `Validate_<Type>` functions do (spec/declarative-validation-behaviour.md sections 1, 6 and 7):
 *
 *   field block: skip when the old parent exists and the value is unchanged (ratcheting); run the field's
 *   validators (short-circuit ones first; any failure stops the field); run item/subfield groups; validate the
 *   field's named type; iterate elements of unnamed lists and maps of named types.
 *
 *   type function: run the type's validators (a short-circuit failure stops the type); its groups; iterate the
 *   elements of a named list or map type; stop for an opaque type; visit the fields in declaration order.
 *
 * Pure and synchronous. Values are Go views (values.ts); `undefined` as an old value means "no correlated old
 * value" (or a nil pointer, which every validator treats the same way).
 */
import type { FieldErrorType } from "../field/error.js";
import { childOf, indexOf, keyOf, type Path } from "../field/path.js";
import { isMapping } from "../objects/mapping.js";
import type { GoType, StructField } from "./go-types.js";
import { decodes, fieldRaw, goEqual, view } from "./values.js";

export type Level = "standard" | "beta" | "alpha";

/** One result of a validator, turned into a FieldError when the walk is done. */
export interface Issue {
  type: FieldErrorType;
  path: Path | null;
  /** The bad value; `NO_VALUE` when the error type shows none. */
  value: unknown;
  detail: string;
  origin: string | undefined;
  level: Level;
  /** The tag (as written) that produced the issue. */
  rule: string;
}

/** Marks an issue without a bad value. */
export const NO_VALUE: unique symbol = Symbol("no-value");

/** The state of one validation call. */
export interface Run {
  readonly update: boolean;
  readonly gates: Readonly<Record<string, boolean>>;
  readonly issues: Issue[];
}

/**
 * A compiled validator. `check` appends the issues it reports to `out` and returns true when it failed, also when
 * the failure is silent (`+k8s:optional` on an unset value): short-circuiting counts silent failures too.
 */
export interface Validator {
  readonly sc: boolean;
  readonly rule: string;
  check(r: Run, path: Path | null, v: unknown, ov: unknown, out: Issue[]): boolean;
}

/** The validators of one context, split by their short-circuit flag. */
export interface VList {
  sc: Validator[];
  rest: Validator[];
}

export const EMPTY_VLIST: VList = Object.freeze({ sc: [], rest: [] }) as unknown as VList;

/** An item(...) or subfield(...) cohort: its own short-circuit scope, run after the ordinary validators. */
export type Group = (r: Run, path: Path | null, v: unknown, ov: unknown, out: Issue[]) => void;

/** How list elements are told apart: nothing (atomic), the whole value (set), or key fields (map). */
export interface ListSem {
  kind: "none" | "set" | "map";
  /** The element type as declared (may be a pointer). */
  elem: GoType;
  /** Key fields of the element struct, for map semantics. */
  keys: StructField[];
}

/** Iteration of the elements (or keys) of a list or map whose element type has rules. */
export interface Iter {
  kind: "list" | "mapValues" | "mapKeys";
  node: TypeNode;
  /** The element (or key) type as declared, maybe a pointer. */
  elem: GoType;
  sem: ListSem | undefined;
}

export interface TypeNode {
  label: string;
  list: VList;
  groups: Group[];
  iters: Iter[];
  /** `+k8s:opaqueType` on the type: its fields are not visited. */
  opaque: boolean;
  fields: FieldNode[];
  /** Whether anything is validated at or below this node. */
  live: boolean;
}

export interface FieldNode {
  field: StructField;
  list: VList;
  groups: Group[];
  /** The named (or anonymous struct) type of the field, after one pointer, when it has rules. */
  target: TypeNode | undefined;
  iters: Iter[];
  live: boolean;
}

/** Runs a validator list: all short-circuit validators, then (if none failed) the others. Returns true if stopped. */
export function runList(r: Run, list: VList, path: Path | null, v: unknown, ov: unknown, out: Issue[]): boolean {
  let stop = false;
  for (const x of list.sc) if (x.check(r, path, v, ov, out)) stop = true;
  if (stop) return true;
  for (const x of list.rest) x.check(r, path, v, ov, out);
  return false;
}

/** Like runList, but reports whether anything failed (for wrappers that must pass failures on). */
export function runListFailed(r: Run, list: VList, path: Path | null, v: unknown, ov: unknown, out: Issue[]): boolean {
  let failed = false;
  for (const x of list.sc) if (x.check(r, path, v, ov, out)) failed = true;
  if (failed) return true;
  for (const x of list.rest) if (x.check(r, path, v, ov, out)) failed = true;
  return failed;
}

/** Validate_<Type>: the type's validators, groups, element iteration, then its fields. */
export function runType(r: Run, node: TypeNode, path: Path | null, v: unknown, ov: unknown): void {
  if (runList(r, node.list, path, v, ov, r.issues)) return;
  for (const g of node.groups) g(r, path, v, ov, r.issues);
  for (const it of node.iters) runIter(r, it, path, v, ov);
  if (node.opaque || node.fields.length === 0 || !isMapping(v)) return;
  const old = isMapping(ov) ? ov : undefined;
  for (const f of node.fields) runField(r, f, path, v, old);
}

/** The path of a field: the parent's for inline and `json:"-"` fields (`<TypeName>` when the parent is the root). */
export function fieldPath(f: StructField, parent: Path | null): Path | null {
  if (f.inline) return parent === null ? childOf(null, f.goName) : parent;
  if (f.omitted) return parent;
  return childOf(parent, f.jsonName);
}

function runField(
  r: Run,
  node: FieldNode,
  parentPath: Path | null,
  sv: Record<string, unknown>,
  osv: Record<string, unknown> | undefined,
): void {
  const f = node.field;
  const raw = fieldRaw(f, sv);
  const path = fieldPath(f, parentPath);
  const v = view(f.type, raw);
  const ov = osv === undefined ? undefined : view(f.type, fieldRaw(f, osv));
  // Ratcheting: an unchanged field is not validated again (section 7.1).
  if (osv !== undefined && r.update && goEqual(f.type, v, ov)) return;
  if (runList(r, node.list, path, v, ov, r.issues)) return;
  for (const g of node.groups) g(r, path, v, ov, r.issues);
  if (node.target !== undefined && v !== undefined) runType(r, node.target, path, v, ov);
  for (const it of node.iters) runIter(r, it, path, v, ov);
}

/** The JSON type a Go type decodes from, for decode errors. */
function jsonTypeName(t: GoType): string {
  switch (t.t) {
    case "basic":
      return t.kind === "bytes"
        ? "string"
        : t.kind === "int"
          ? `integer (${t.name})`
          : t.kind === "float"
            ? "number"
            : t.kind;
    case "named":
      return jsonTypeName(t.named.underlying());
    case "pointer":
      return jsonTypeName(t.elem);
    case "slice":
      return "array";
    case "map":
    case "struct":
      return "object";
    default:
      return "any";
  }
}

/**
 * What json.Unmarshal into the root Go type would reject (a string for an int32, a fraction or an out-of-range
 * number for an integer, an array for a struct...): the API server fails such a request before any validation
 * runs, so the walk does not start. Unknown keys are ignored, as by the API server's decoder. At most `max`.
 */
export function decodeIssues(t: GoType, raw: unknown, path: Path | null, out: Issue[], max: number): void {
  if (out.length >= max || raw === null || raw === undefined) return;
  if (!decodes(t, raw)) {
    out.push({
      type: "FieldValueTypeInvalid",
      path,
      value: raw,
      detail: `must be of type ${jsonTypeName(t)}`,
      origin: undefined,
      level: "standard",
      rule: "json",
    });
    return;
  }
  switch (t.t) {
    case "named":
      decodeIssues(t.named.underlying(), raw, path, out, max);
      return;
    case "pointer":
      decodeIssues(t.elem, raw, path, out, max);
      return;
    case "slice":
      (raw as unknown[]).forEach((e, i) => {
        decodeIssues(t.elem, e, indexOf(path, i), out, max);
      });
      return;
    case "map":
      for (const [k, e] of Object.entries(raw as Record<string, unknown>))
        decodeIssues(t.elem, e, keyOf(path, k), out, max);
      return;
    case "struct":
      for (const f of t.struct.fields) {
        if (f.omitted) continue;
        decodeIssues(f.type, fieldRaw(f, raw as Record<string, unknown>), fieldPath(f, path), out, max);
      }
      return;
    default:
      return;
  }
}

/** Finds the old element correlated with `elem` (a Go view) under the list semantics; undefined when none. */
export function correlate(sem: ListSem | undefined, oldList: unknown, elem: unknown): unknown {
  if (sem === undefined || sem.kind === "none" || !Array.isArray(oldList) || oldList.length === 0) return undefined;
  for (const raw of oldList) {
    const o = view(sem.elem, raw);
    if (o !== undefined && listMatch(sem, elem, o)) return o;
  }
  return undefined;
}

/** Whether two elements (Go views) are the same item: equal for a set, same keys for a map. */
export function listMatch(sem: ListSem, a: unknown, b: unknown): boolean {
  if (sem.kind === "set") return goEqual(sem.elem, a, b);
  if (!isMapping(a) || !isMapping(b)) return false;
  for (const k of sem.keys) {
    if (!goEqual(k.type, view(k.type, fieldRaw(k, a)), view(k.type, fieldRaw(k, b)))) return false;
  }
  return true;
}

/**
 * EachSliceVal / EachMapVal / EachMapKey: calls `each` for every element that ratcheting does not skip, with the
 * correlated old element (or undefined). Returns whether any call reported failure.
 */
export function forEachElement(
  r: Run,
  kind: Iter["kind"],
  elemType: GoType,
  sem: ListSem | undefined,
  path: Path | null,
  v: unknown,
  ov: unknown,
  each: (p: Path | null, ev: unknown, oev: unknown) => boolean,
): boolean {
  let failed = false;
  if (kind === "list") {
    if (!Array.isArray(v)) return false;
    for (let i = 0; i < v.length; i++) {
      const ev = view(elemType, v[i]);
      if (ev === undefined) continue; // nil entries of []*T are reported by their own validator
      const oev = correlate(sem, ov, ev);
      if (r.update && oev !== undefined && (sem?.kind === "set" || goEqual(elemType, ev, oev))) continue;
      if (each(indexOf(path, i), ev, oev)) failed = true;
    }
    return failed;
  }
  if (!isMapping(v)) return false;
  const old = isMapping(ov) ? ov : undefined;
  for (const key of Object.keys(v)) {
    const inOld = old !== undefined && Object.hasOwn(old, key);
    if (kind === "mapKeys") {
      if (r.update && inOld) continue;
      // Key errors are reported at the map's path, not at [key].
      if (each(path, key, undefined)) failed = true;
      continue;
    }
    const ev = view(elemType, v[key]);
    if (ev === undefined) continue;
    const oev = inOld ? view(elemType, old[key]) : undefined;
    if (r.update && oev !== undefined && goEqual(elemType, ev, oev)) continue;
    if (each(keyOf(path, key), ev, oev)) failed = true;
  }
  return failed;
}

function runIter(r: Run, it: Iter, path: Path | null, v: unknown, ov: unknown): void {
  forEachElement(r, it.kind, it.elem, it.sem, path, v, ov, (p, ev, oev) => {
    runType(r, it.node, p, ev, oev);
    return false;
  });
}
