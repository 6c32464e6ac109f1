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
  const unknown: string[] = [];
  prune(obj, schema, "", true, unknown);
  return unknown;
}

function join(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

function keepsMeta(k: string, v: unknown): boolean {
  if (k === "apiVersion" || k === "kind") return typeof v === "string";
  if (k === "metadata") return isRecord(v);
  return false;
}

function prune(x: unknown, s: SchemaNode | null, path: string, isEmbedded: boolean, out: string[]): void {
  if (s?.preserveUnknownFields) {
    skipPrune(x, s, path, isEmbedded || s.embeddedResource, out);
    return;
  }
  if (isRecord(x)) {
    const embedded = isEmbedded || s?.embeddedResource;
    for (const k of Object.keys(x)) {
      const v = x[k];
      if (embedded && keepsMeta(k, v)) continue;
      const prop = s?.properties?.get(k);
      if (prop !== undefined) {
        prune(v, prop, join(path, k), false, out);
      } else if (s !== null && s.additionalProperties !== null) {
        prune(v, s.additionalProperties, join(path, k), false, out);
      } else {
        out.push(join(path, k));
        delete x[k];
      }
    }
  } else if (Array.isArray(x)) {
    const items = s === null ? null : s.items;
    for (let i = 0; i < x.length; i++) prune(x[i], items, `${path}[${i}]`, false, out);
  }
}

function skipPrune(x: unknown, s: SchemaNode, path: string, embedded: boolean, out: string[]): void {
  if (isRecord(x)) {
    for (const k of Object.keys(x)) {
      const v = x[k];
      if (embedded && (k === "apiVersion" || k === "kind" || k === "metadata")) continue;
      const prop = s.properties?.get(k);
      if (prop !== undefined) prune(v, prop, join(path, k), false, out);
      else if (s.additionalProperties !== null) prune(v, s.additionalProperties, join(path, k), false, out);
    }
  } else if (Array.isArray(x) && s.items !== null) {
    for (let i = 0; i < x.length; i++) skipPrune(x[i], s.items, `${path}[${i}]`, false, out);
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
