/**
 * `x-kubernetes-list-type` uniqueness (apiextensions-apiserver schema/listtype/validation.go): `set` items must
 * be unique (one Duplicate error per repeated value, at its second occurrence); `map` items must be objects whose
 * key fields are unique (the Duplicate value is the object of key fields). Field paths use `[key]` for map values.
 */
import { duplicate, type ErrorContext, type FieldError, invalid } from "../field/error.js";
import { goJson } from "../field/message.js";
import { childOf, indexOf, keyOf, type Path } from "../field/path.js";
import type { SchemaNode } from "./structural.js";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Validates every set and map list below an object node. */
export function validateListSetsAndMaps(
  path: Path | null,
  s: SchemaNode | null,
  obj: unknown,
  ctx: ErrorContext,
  out: FieldError[],
): void {
  if (s === null || !isRecord(obj)) return;
  if (s.additionalProperties !== null) {
    for (const k of Object.keys(obj)) visit(keyOf(path, k), s.additionalProperties, obj[k], ctx, out);
  }
  if (s.properties !== null) {
    for (const k of Object.keys(obj)) {
      const sub = s.properties.get(k);
      if (sub !== undefined) visit(childOf(path, k), sub, obj[k], ctx, out);
    }
  }
}

function visit(path: Path, s: SchemaNode, obj: unknown, ctx: ErrorContext, out: FieldError[]): void {
  if (Array.isArray(obj)) visitArray(path, s, obj, ctx, out);
  else if (isRecord(obj)) validateListSetsAndMaps(path, s, obj, ctx, out);
}

function visitArray(path: Path, s: SchemaNode, arr: unknown[], ctx: ErrorContext, out: FieldError[]): void {
  if (s.listType === "set") {
    for (const i of nonUniqueSetIndices(arr)) out.push(duplicate(indexOf(path, i), arr[i], ctx));
  } else if (s.listType === "map") {
    validateListMap(path, s, arr, ctx, out);
  }
  if (s.items !== null) {
    for (let i = 0; i < arr.length; i++) visit(indexOf(path, i), s.items, arr[i], ctx, out);
  }
}

/** A comparable key for a set item: scalars by type and value, compounds by their JSON text. */
function setKey(x: unknown): string {
  if (x === null) return "null";
  switch (typeof x) {
    case "string":
      return `s${x}`;
    case "number":
      return `n${x}`;
    case "bigint":
      return `n${x}`;
    case "boolean":
      return `b${x}`;
    default:
      return `j${goJson(x)}`;
  }
}

function nonUniqueSetIndices(arr: unknown[]): number[] {
  if (arr.length <= 1) return [];
  const seen = new Map<string, number>();
  const out: number[] = [];
  for (let i = 0; i < arr.length; i++) {
    const k = setKey(arr[i]);
    const times = seen.get(k);
    if (times === undefined) seen.set(k, 1);
    else {
      seen.set(k, times + 1);
      if (times === 1) out.push(i);
    }
  }
  return out;
}

const UNSPECIFIED = "\u0000unspecified";

function validateListMap(path: Path, s: SchemaNode, arr: unknown[], ctx: ErrorContext, out: FieldError[]): void {
  for (let i = 0; i < arr.length; i++) {
    const x = arr[i];
    if (x !== null && !isRecord(x)) {
      out.push(invalid(indexOf(path, i), x, "must be an object for an array of list-type map", ctx));
      return;
    }
  }
  if (arr.length <= 1) return;
  const keys = s.listMapKeys ?? [];
  // Like sets: one Duplicate error per repeated key, at its second occurrence.
  const seen = new Map<string, number>();
  for (let i = 0; i < arr.length; i++) {
    const x = arr[i];
    if (!isRecord(x)) continue;
    const parts: string[] = [];
    for (const k of keys) parts.push(k in x ? setKey(x[k]) : UNSPECIFIED);
    const id = parts.join("\u0001");
    const times = seen.get(id) ?? 0;
    seen.set(id, times + 1);
    if (times === 1) {
      const keyObj: Record<string, unknown> = {};
      for (const k of keys) if (k in x) keyObj[k] = x[k];
      out.push(duplicate(indexOf(path, i), keyObj, ctx));
    }
  }
}
