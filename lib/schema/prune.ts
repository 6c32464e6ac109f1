/**
 * Pruning of unknown fields and dropping of non-nullable nulls, as the API server does while decoding a custom
 * resource (apiextensions-apiserver schema/pruning and schema/defaulting/prunenulls). Both mutate the object in
 * place; callers pass a private copy.
 */
import type { SchemaNode } from "./structural.js";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Removes fields the schema does not know and returns their paths (`spec.x`, `spec.items[0].y`, `spec.map.key.z`)
 * for the `unknown field "<path>"` warnings. The resource root (and every embedded resource) keeps string
 * `apiVersion`/`kind` and an object `metadata` untouched.
 */
export function pruneUnknownFields(obj: unknown, schema: SchemaNode | null): string[] {
  const out: string[] = [];
  prune(obj, schema, { segments: [], out }, true);
  return out;
}

/**
 * Where a walk is: the segments of the path to the current value (a key, or an item's index), turned into text
 * only for a pruned field, and the pruned fields found so far.
 */
interface PruneWalk {
  readonly segments: (string | number)[];
  readonly out: string[];
}

/** The path of the field `k` of the current value: `spec.x`, `spec.items[0].y`, `spec.map.key.z`. */
function fieldPath(w: PruneWalk, k: string): string {
  let path = "";
  for (const s of w.segments) path = typeof s === "number" ? `${path}[${s}]` : path === "" ? s : `${path}.${s}`;
  return path === "" ? k : `${path}.${k}`;
}

function keepsMeta(k: string, v: unknown): boolean {
  if (k === "apiVersion" || k === "kind") return typeof v === "string";
  if (k === "metadata") return isRecord(v);
  return false;
}

/** Prunes the value of the field `k` of the current value, under its schema. */
function pruneChild(v: unknown, s: SchemaNode, w: PruneWalk, segment: string | number, skip: boolean): void {
  w.segments.push(segment);
  if (skip) skipPrune(v, s, w, false);
  else prune(v, s, w, false);
  w.segments.pop();
}

function prune(x: unknown, s: SchemaNode | null, w: PruneWalk, isEmbedded: boolean): void {
  if (s?.preserveUnknownFields) {
    skipPrune(x, s, w, isEmbedded || s.embeddedResource);
    return;
  }
  if (isRecord(x)) {
    const embedded = isEmbedded || s?.embeddedResource;
    for (const k of Object.keys(x)) {
      const v = x[k];
      if (embedded && keepsMeta(k, v)) continue;
      const prop = s?.properties?.get(k);
      if (prop !== undefined) {
        pruneChild(v, prop, w, k, false);
      } else if (s !== null && s.additionalProperties !== null) {
        pruneChild(v, s.additionalProperties, w, k, false);
      } else {
        w.out.push(fieldPath(w, k));
        delete x[k];
      }
    }
  } else if (Array.isArray(x)) {
    const items = s === null ? null : s.items;
    for (let i = 0; i < x.length; i++) {
      w.segments.push(i);
      prune(x[i], items, w, false);
      w.segments.pop();
    }
  }
}

function skipPrune(x: unknown, s: SchemaNode, w: PruneWalk, embedded: boolean): void {
  if (isRecord(x)) {
    for (const k of Object.keys(x)) {
      const v = x[k];
      if (embedded && (k === "apiVersion" || k === "kind" || k === "metadata")) continue;
      const prop = s.properties?.get(k);
      if (prop !== undefined) pruneChild(v, prop, w, k, false);
      else if (s.additionalProperties !== null) pruneChild(v, s.additionalProperties, w, k, false);
    }
  } else if (Array.isArray(x) && s.items !== null) {
    for (let i = 0; i < x.length; i++) pruneChild(x[i], s.items, w, i, true);
  }
}

/**
 * Drops object properties (and map values) whose value is null, whose schema is not nullable and has no (non-null)
 * default. Null array items are kept (they fail the type check later).
 */
export function pruneNonNullableNulls(x: unknown, s: SchemaNode | null): void {
  if (s === null) return;
  if (isRecord(x)) {
    for (const k of Object.keys(x)) {
      const v = x[k];
      const prop = s.properties?.get(k) ?? s.additionalProperties;
      if (prop === null || prop === undefined) continue;
      if (v === null && !prop.nullable && !hasNonNullDefault(prop)) delete x[k];
      else pruneNonNullableNulls(v, prop);
    }
  } else if (Array.isArray(x)) {
    for (const v of x) pruneNonNullableNulls(v, s.items);
  }
}

export function hasNonNullDefault(s: SchemaNode): boolean {
  return s.hasDefault && s.default !== null && s.default !== undefined;
}
