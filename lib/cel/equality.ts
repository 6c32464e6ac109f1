/**
 * CEL equality over tollgate's CEL values, and Kubernetes list-type semantics for `==` and `+`
 * (apiserver pkg/cel/common/values.go): a `set` list on the left compares ignoring order (every right element in
 * the left set, sizes equal); a `map` list compares by key then value; atomic lists element by element. Set `+`
 * is a union keeping the left order; map-list `+` merges by key, keeping left positions and taking right values.
 * See spec/k8s-cel-semantics.md §7.
 */
import { goJson } from "../field/message.js";
import { deepEqualJson } from "../schema/equality.js";
import { UnsignedInt } from "./engine.js";
import type { ListOperatorHooks } from "./evaluation.js";
import { LIST_TYPES, RAW, StructValue } from "./schema-types.js";
import { goTimeOf } from "./time-values.js";

/** A timestamp's instant as text, to the nanosecond. */
function instantKey(d: Date): string {
  const t = goTimeOf(d);
  return `${t.seconds}.${t.nanos}`;
}

/** An int or uint as a bigint, a double as a number; undefined for other values. */
function numeric(v: unknown): bigint | number | undefined {
  if (typeof v === "bigint" || typeof v === "number") return v;
  return v instanceof UnsignedInt ? v.valueOf() : undefined;
}

/**
 * CEL equality of two values. Numbers compare across int, uint and double as cel-go does at run time (Int.Equal,
 * Uint.Equal, Double.Equal): integers exactly, an integer and a double as doubles.
 */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) {
    return typeof na === "bigint" && typeof nb === "bigint" ? na === nb : Number(na) === Number(nb);
  }
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (Array.isArray(a)) return Array.isArray(b) && listEquals(a, b);
  if (a instanceof StructValue)
    return b instanceof StructValue && deepEqualJson(stripNulls(a[RAW]), stripNulls(b[RAW]));
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !celEquals(v, b.get(k))) return false;
    return true;
  }
  if (a instanceof Date) return b instanceof Date && instantKey(a) === instantKey(b);
  if (a instanceof Uint8Array) return b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  const eq = (a as { equals?: (o: unknown) => boolean }).equals;
  if (typeof eq === "function" && typeof b === "object" && b.constructor === (a as object).constructor)
    return eq.call(a, b);
  if (typeof a === "object" && typeof b === "object" && typeof (a as { valueOf(): unknown }).valueOf === "function") {
    const av = (a as { valueOf(): unknown }).valueOf();
    const bv = (b as { valueOf(): unknown }).valueOf();
    if (av !== a && bv !== b) return av === bv;
  }
  return false;
}

function stripNulls(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) if (o[k] !== null) out[k] = o[k];
  return out;
}

function listEquals(a: unknown[], b: unknown[]): boolean {
  const tag = LIST_TYPES.get(a);
  if (tag?.listType === "set") {
    if (a.length !== b.length) return false;
    const keys = new Set(a.map(setKey));
    return b.every((e) => keys.has(setKey(e)));
  }
  if (tag?.listType === "map") {
    if (a.length !== b.length) return false;
    const byKey = new Map(a.map((e) => [mapKey(e, tag.keys), e]));
    return b.every((e) => {
      const l = byKey.get(mapKey(e, tag.keys));
      return l !== undefined && celEquals(l, e);
    });
  }
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!celEquals(a[i], b[i])) return false;
  return true;
}

/** A comparable key for a set element. */
function setKey(e: unknown): string {
  if (e instanceof StructValue) return `s${goJson(stripNulls(e[RAW]))}`;
  if (typeof e === "bigint" || typeof e === "number") return `n${Number(e)}`;
  if (typeof e === "string") return `t${e}`;
  if (e instanceof Date) return `d${instantKey(e)}`;
  if (e instanceof Map) return `m${goJson(Object.fromEntries(e))}`;
  return `j${goJson(e)}`;
}

function mapKey(e: unknown, keys: string[]): string {
  if (!(e instanceof StructValue)) return setKey(e);
  const raw = e[RAW];
  return keys.map((k) => goJson(raw[k] ?? null)).join("\u0000");
}

function concat(a: unknown[], b: unknown): unknown[] {
  if (!Array.isArray(b)) return a;
  const tag = LIST_TYPES.get(a);
  let out: unknown[];
  if (tag?.listType === "set") {
    const keys = new Set(a.map(setKey));
    out = [...a];
    for (const e of b) {
      const k = setKey(e);
      if (!keys.has(k)) {
        keys.add(k);
        out.push(e);
      }
    }
  } else if (tag?.listType === "map") {
    out = [...a];
    const index = new Map(out.map((e, i) => [mapKey(e, tag.keys), i]));
    for (const e of b) {
      const k = mapKey(e, tag.keys);
      const i = index.get(k);
      if (i === undefined) {
        index.set(k, out.length);
        out.push(e);
      } else out[i] = e;
    }
  } else {
    return [...a, ...b];
  }
  LIST_TYPES.set(out, tag);
  return out;
}

export const KUBERNETES_LIST_OPERATORS: ListOperatorHooks = { equals: listEquals, concat };
