/**
 * Decoding a custom resource's body as the API server does (apiextensions-apiserver schema/pruning,
 * schema/defaulting/prunenulls and schema/defaulting): pruning of unknown fields, dropping of non-nullable nulls,
 * defaulting, on a private copy that is decoded as it is made: in one pass, what a deep copy, then the pruning
 * pass, then the null pass, then the default pass give, without deleting from the copy (which would leave its
 * objects in V8's slow dictionary form).
 *
 * The pruning pass removes fields the schema does not know and names them (`spec.x`, `spec.items[0].y`,
 * `spec.map.key.z`) for the `unknown field "<path>"` warnings; under `x-kubernetes-preserve-unknown-fields` they
 * stay (their known fields are still pruned inside); the resource root and every embedded resource keep string
 * `apiVersion`/`kind` and an object `metadata` as they are. The null pass drops object properties and map values
 * that are null where the schema is not nullable and has no (non-null) default; null array items stay (they fail
 * the type check later). The default pass (default.ts) gives an absent or non-nullable null property, map value or
 * item its schema's default, with the defaults inside it. Each value is visited once with the schema the passes
 * give it (they give the same one: the property's, else the map value's, else the item's).
 */
import { applyPropertyDefaults, defaultedValue, hasNonNullDefault } from "./default.js";
import type { SchemaNode } from "./structural.js";

/** How the pruning pass treats a value: prune() (unknown fields go), skipPrune() (they stay), or not at all. */
type Mode = "prune" | "skip" | "none";

/** The copy, and the paths of the fields pruned (in the order the pruning pass finds them). */
export function decodedCopy(x: unknown, schema: SchemaNode | null): { value: unknown; pruned: string[] } {
  const w: PruneWalk = { segments: [], out: [] };
  const value = copy(x, schema, "prune", true, w);
  return { value, pruned: w.out };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The copy of `x`: `s` is the schema of both passes where the pruning pass runs (`mode` prune or skip), the null
 * pass's otherwise (null: no schema, nothing dropped).
 */
function copy(x: unknown, s: SchemaNode | null, mode: Mode, isEmbedded: boolean, w: PruneWalk): unknown {
  if (typeof x !== "object" || x === null) return x;
  let embedded = isEmbedded;
  if (mode === "prune" && s?.preserveUnknownFields === true) {
    mode = "skip";
    embedded = isEmbedded || s.embeddedResource;
  }
  if (Array.isArray(x)) return copyItems(x, s, mode, w);
  if (mode === "prune") embedded = isEmbedded || s?.embeddedResource === true;
  const out: Record<string, unknown> = {};
  const obj = x as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    const prop = s?.properties?.get(k);
    const ap = s === null ? null : s.additionalProperties;
    let childMode: Mode;
    const child: SchemaNode | null = prop ?? ap;
    if (mode === "prune") {
      if (embedded && keepsMeta(k, v)) childMode = "none";
      else if (child !== null) childMode = "prune";
      else {
        w.out.push(fieldPath(w, k));
        continue;
      }
    } else if (mode === "skip") {
      childMode =
        embedded && (k === "apiVersion" || k === "kind" || k === "metadata")
          ? "none"
          : child !== null
            ? "prune"
            : "none";
    } else childMode = "none";
    if (v === null && child !== null && !child.nullable) {
      // The null pass drops it unless it has a default; the default pass gives a map value its default here (a
      // property's below, with the absent ones).
      if (!hasNonNullDefault(child)) continue;
      if (prop === undefined) {
        out[k] = defaultedValue(child);
        continue;
      }
    }
    if (childMode === "none") {
      out[k] = copy(v, child, "none", false, w);
      continue;
    }
    w.segments.push(k);
    out[k] = copy(v, child, childMode, false, w);
    w.segments.pop();
  }
  if (s !== null) applyPropertyDefaults(out, s);
  return out;
}

function copyItems(x: unknown[], s: SchemaNode | null, mode: Mode, w: PruneWalk): unknown[] {
  const out = new Array<unknown>(x.length);
  // prune(): the items schema or none; skipPrune(): the items schema, or the items stay as they are
  const items = s === null ? null : s.items;
  const itemMode: Mode = mode === "skip" && items === null ? "none" : mode;
  for (let i = 0; i < x.length; i++) {
    if (x[i] === null && items !== null && !items.nullable && hasNonNullDefault(items)) {
      out[i] = defaultedValue(items);
      continue;
    }
    if (itemMode === "none") {
      out[i] = copy(x[i], items, "none", false, w);
      continue;
    }
    w.segments.push(i);
    out[i] = copy(x[i], items, itemMode, false, w);
    w.segments.pop();
  }
  return out;
}

/** Where the copy is: the path of the current value as segments (a key, or an item's index), and the pruned fields. */
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
