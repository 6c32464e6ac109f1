/**
 * Structural defaulting (apiextensions-apiserver schema/defaulting/algorithm.go): absent properties, and
 * non-nullable null properties, array items and map values, receive a deep copy of their schema's default;
 * defaults inside defaulted values apply too. Mutates in place.
 */
import type { SchemaNode } from "./structural.js";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A deep copy of a decoded JSON value. */
export function deepCopyJson<T>(v: T): T {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(deepCopyJson) as T;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v as Record<string, unknown>)) out[k] = deepCopyJson((v as Record<string, unknown>)[k]);
  return out as T;
}

export function hasNonNullDefault(s: SchemaNode): boolean {
  return s.hasDefault && s.default !== null && s.default !== undefined;
}

/** A deep copy of a schema's default, with the defaults inside it applied (`s` has a non-null default). */
export function defaultedValue(s: SchemaNode): unknown {
  const v = deepCopyJson(s.default);
  applyDefaults(v, s);
  return v;
}

/**
 * Applies a node's property defaults to an object whose properties are defaulted already: an absent property, or a
 * non-nullable null one, gets its default (as applyDefaults does before it goes down into the properties).
 */
export function applyPropertyDefaults(x: Record<string, unknown>, s: SchemaNode): void {
  for (const [k, prop] of defaultsPlan(s).defaulted) {
    if (!(k in x) || isNonNullableNull(x[k], prop)) x[k] = defaultedValue(prop);
  }
}

export function isNonNullableNull(x: unknown, s: SchemaNode | null): boolean {
  return x === null && s !== null && !s.nullable;
}

/** What defaulting needs of a schema node: its properties with a default, and whether anything below has one. */
interface DefaultsPlan {
  readonly defaulted: readonly (readonly [string, SchemaNode])[];
  /** Whether a property, map value or item schema at any depth below the node has a non-null default. */
  readonly below: boolean;
}

const plans = new WeakMap<SchemaNode, DefaultsPlan>();

function defaultsPlan(s: SchemaNode): DefaultsPlan {
  let plan = plans.get(s);
  if (plan !== undefined) return plan;
  const defaulted: (readonly [string, SchemaNode])[] = [];
  let below = false;
  const child = (c: SchemaNode | null) => {
    if (c !== null && (hasNonNullDefault(c) || defaultsPlan(c).below)) below = true;
  };
  if (s.properties !== null) {
    for (const [k, prop] of s.properties) {
      if (hasNonNullDefault(prop)) defaulted.push([k, prop]);
      child(prop);
    }
  }
  child(s.additionalProperties);
  child(s.items);
  plan = { defaulted, below };
  plans.set(s, plan);
  return plan;
}

export function applyDefaults(x: unknown, s: SchemaNode | null): void {
  if (s === null) return;
  const plan = defaultsPlan(s);
  // Nothing below the node has a default: nothing in the value changes.
  if (!plan.below) return;
  if (isRecord(x)) {
    for (const [k, prop] of plan.defaulted) {
      if (!(k in x) || isNonNullableNull(x[k], prop)) x[k] = deepCopyJson(prop.default);
    }
    for (const k of Object.keys(x)) {
      const prop = s.properties?.get(k);
      if (prop !== undefined) {
        applyDefaults(x[k], prop);
      } else if (s.additionalProperties !== null) {
        const ap = s.additionalProperties;
        if (isNonNullableNull(x[k], ap) && hasNonNullDefault(ap)) x[k] = deepCopyJson(ap.default);
        applyDefaults(x[k], ap);
      }
    }
  } else if (Array.isArray(x)) {
    const items = s.items;
    for (let i = 0; i < x.length; i++) {
      if (items !== null && isNonNullableNull(x[i], items) && hasNonNullDefault(items))
        x[i] = deepCopyJson(items.default);
      applyDefaults(x[i], items);
    }
  }
}
