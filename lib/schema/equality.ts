/**
 * Equality of decoded JSON values as apiextensions compares them: reflect.DeepEqual on unstructured data, and the
 * correlated equality that decides ratcheting on UPDATE (apiextensions-apiserver pkg/apiserver/validation/
 * ratcheting.go, CorrelatedObject), with list-type map items matched by their keys.
 */

import { GoFloat } from "../field/message.js";
import { NO_OLD, type Old } from "./result.js";
import type { SchemaNode } from "./structural.js";

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Deep equality of decoded JSON values (reflect.DeepEqual on unstructured data). */
export function deepEqualJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b) {
    return false;
  }
  if (typeof a !== "object" || a === null || b === null) {
    return false;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqualJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  if (a instanceof GoFloat || b instanceof GoFloat) {
    return a instanceof GoFloat && b instanceof GoFloat && a.value === b.value;
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  const bo = b as Record<string, unknown>;
  for (const k of ka) {
    if (!Object.hasOwn(bo, k)) return false;
    if (!deepEqualJson((a as Record<string, unknown>)[k], bo[k])) return false;
  }
  return true;
}

/**
 * CorrelatedObject.CachedDeepEqual: equality that only holds through correlatable parts. An object is equal to its
 * old value only when every key is a declared property (or the node has an additionalProperties schema) and every
 * value is equal; list-type map items are matched by key; other lists compare as a whole.
 */
export function correlatedEqual(node: SchemaNode | null, a: unknown, b: unknown): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) {
      if (!Object.hasOwn(b, k)) return false;
      const sub = node?.properties?.get(k) ?? node?.additionalProperties ?? null;
      if (sub === null) return false;
      if (!correlatedEqual(sub, a[k], b[k])) return false;
    }
    return true;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    if (node !== null && node.listType === "map" && node.items !== null) {
      for (const item of a) {
        const o = correlateListMapItem(node, item, b);
        if (o === NO_OLD || !correlatedEqual(node.items, item, o)) return false;
      }
      return true;
    }
    return deepEqualJson(a, b);
  }
  return deepEqualJson(a, b);
}

/** Finds the old item of a list-type map with the same key fields. */
export function correlateListMapItem(node: SchemaNode, item: unknown, oldList: unknown): Old {
  if (!Array.isArray(oldList) || !isRecord(item)) return NO_OLD;
  const keys = node.listMapKeys ?? [];
  for (const o of oldList) {
    if (!isRecord(o)) continue;
    let same = true;
    for (const k of keys) {
      if (!deepEqualJson(item[k], o[k])) {
        same = false;
        break;
      }
    }
    if (same) return o;
  }
  return NO_OLD;
}
