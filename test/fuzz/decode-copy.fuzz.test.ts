/**
 * lib/schema/decode.ts decodedCopy against the API server's passes as separate in-place steps (written out below as
 * the reference: a deep copy, then pruning, then the null pass, then defaulting), on fuzzed schemas and objects:
 * the same value, the same key order, the same pruned paths, and the input left as it was.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodedCopy } from "../../lib/schema/decode.js";
import { deepCopyJson, hasNonNullDefault } from "../../lib/schema/default.js";
import { compileSchema, type SchemaNode } from "../../lib/schema/structural.js";
import { runs, SEED, timeout } from "./budget.js";

// The reference: apiextensions-apiserver's pruning and null pass, each a walk that deletes in place.

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const join = (parent: string, key: string) => (parent === "" ? key : `${parent}.${key}`);
const keepsMeta = (k: string, v: unknown) =>
  k === "apiVersion" || k === "kind" ? typeof v === "string" : k === "metadata" && isRecord(v);

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
      if (prop !== undefined) prune(v, prop, join(path, k), false, out);
      else if (s !== null && s.additionalProperties !== null)
        prune(v, s.additionalProperties, join(path, k), false, out);
      else {
        out.push(join(path, k));
        delete x[k];
      }
    }
  } else if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) prune(x[i], s === null ? null : s.items, `${path}[${i}]`, false, out);
  }
}

function skipPrune(x: unknown, s: SchemaNode, path: string, embedded: boolean, out: string[]): void {
  if (isRecord(x)) {
    for (const k of Object.keys(x)) {
      if (embedded && (k === "apiVersion" || k === "kind" || k === "metadata")) continue;
      const prop = s.properties?.get(k);
      if (prop !== undefined) prune(x[k], prop, join(path, k), false, out);
      else if (s.additionalProperties !== null) prune(x[k], s.additionalProperties, join(path, k), false, out);
    }
  } else if (Array.isArray(x) && s.items !== null) {
    for (let i = 0; i < x.length; i++) skipPrune(x[i], s.items, `${path}[${i}]`, false, out);
  }
}

function pruneNulls(x: unknown, s: SchemaNode | null): void {
  if (s === null) return;
  if (isRecord(x)) {
    for (const k of Object.keys(x)) {
      const prop = s.properties?.get(k) ?? s.additionalProperties;
      if (prop === null || prop === undefined) continue;
      if (x[k] === null && !prop.nullable && !hasNonNullDefault(prop)) delete x[k];
      else pruneNulls(x[k], prop);
    }
  } else if (Array.isArray(x)) for (const v of x) pruneNulls(v, s.items);
}

function applyDefaults(x: unknown, s: SchemaNode | null): void {
  if (s === null) return;
  const nonNullableNull = (v: unknown, t: SchemaNode) => v === null && !t.nullable;
  if (isRecord(x)) {
    for (const [k, prop] of s.properties ?? []) {
      if (hasNonNullDefault(prop) && (!(k in x) || nonNullableNull(x[k], prop))) x[k] = deepCopyJson(prop.default);
    }
    for (const k of Object.keys(x)) {
      const prop = s.properties?.get(k);
      if (prop !== undefined) applyDefaults(x[k], prop);
      else if (s.additionalProperties !== null) {
        const ap = s.additionalProperties;
        if (nonNullableNull(x[k], ap) && hasNonNullDefault(ap)) x[k] = deepCopyJson(ap.default);
        applyDefaults(x[k], ap);
      }
    }
  } else if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      if (s.items !== null && nonNullableNull(x[i], s.items) && hasNonNullDefault(s.items))
        x[i] = deepCopyJson(s.items.default);
      applyDefaults(x[i], s.items);
    }
  }
}

// Fuzzed schemas (objects, maps, lists, scalars; preserved unknown fields, embedded resources, nullable, defaults)
// and values made from them: the declared fields, unknown ones, and nulls.

const names = fc.constantFrom("a", "b", "apiVersion", "kind", "metadata", "spec");

const schema: fc.Arbitrary<Record<string, unknown>> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({
      type: fc.constantFrom("string", "integer"),
      nullable: fc.boolean(),
      default: fc.constantFrom(undefined, "d", null),
    }),
    fc.record(
      {
        type: fc.constant("object"),
        properties: fc.dictionary(names, tie("node"), { minKeys: 1, maxKeys: 4 }),
        nullable: fc.boolean(),
        default: fc.constantFrom(undefined, {}, null, { a: "d" }, { spec: null }),
        "x-kubernetes-preserve-unknown-fields": fc.boolean(),
        "x-kubernetes-embedded-resource": fc.boolean(),
      },
      { requiredKeys: ["type", "properties"] },
    ),
    fc.record({ type: fc.constant("object"), additionalProperties: tie("node"), nullable: fc.boolean() }),
    fc.record({ type: fc.constant("array"), items: tie("node"), default: fc.constantFrom(undefined, [], ["d"]) }),
    fc.record({ type: fc.constant("array"), "x-kubernetes-preserve-unknown-fields": fc.constant(true) }),
  ),
})).node as fc.Arbitrary<Record<string, unknown>>;

const anyValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(null, 1, "s", "v1"),
    fc.dictionary(names, tie("v"), { maxKeys: 3 }),
    fc.array(tie("v"), { maxLength: 2 }),
  ),
})).v;

/** A value for a raw schema: mostly its shape, with unknown fields, nulls and values of another kind mixed in. */
function valueFor(raw: Record<string, unknown>, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 4) return anyValue;
  const props = raw.properties as Record<string, Record<string, unknown>> | undefined;
  const ap = raw.additionalProperties as Record<string, unknown> | undefined;
  const items = raw.items as Record<string, unknown> | undefined;
  let shaped: fc.Arbitrary<unknown>;
  if (props !== undefined) {
    const known = Object.entries(props).map(([k, p]) =>
      fc.tuple(fc.constant(k), fc.option(valueFor(p, depth + 1), { nil: undefined })),
    );
    shaped = fc
      .tuple(fc.tuple(...known), fc.dictionary(fc.constantFrom("x", "y", "metadata", "kind"), anyValue, { maxKeys: 2 }))
      .map(([kv, extra]) => {
        const o: Record<string, unknown> = { ...extra };
        for (const [k, v] of kv) if (v !== undefined) o[k] = v;
        return o;
      });
  } else if (ap !== undefined) {
    shaped = fc.dictionary(fc.constantFrom("m", "n", "kind"), valueFor(ap, depth + 1), { maxKeys: 3 });
  } else if (raw.type === "array") {
    shaped = fc.array(items === undefined ? anyValue : valueFor(items, depth + 1), { maxLength: 3 });
  } else {
    shaped = fc.constantFrom("s", 1, "v1");
  }
  return fc.oneof(
    { weight: 6, arbitrary: shaped },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: anyValue },
  );
}

describe("decodedCopy", () => {
  it(
    "gives what a deep copy, the pruning pass, the null pass and the default pass give",
    () => {
      fc.assert(
        fc.property(
          schema.chain((raw) => fc.tuple(fc.constant(raw), valueFor(raw))),
          ([raw, x]) => {
            const s = compileSchema(raw, []);
            const before = JSON.stringify(x);
            const want = deepCopyJson(x);
            const wantPruned: string[] = [];
            prune(want, s, "", true, wantPruned);
            pruneNulls(want, s);
            applyDefaults(want, s);
            const got = decodedCopy(x, s);
            expect(JSON.stringify(got.value)).toBe(JSON.stringify(want));
            expect(got.pruned).toEqual(wantPruned);
            expect(JSON.stringify(x)).toBe(before);
          },
        ),
        { seed: SEED, numRuns: runs(3000, 200_000) },
      );
    },
    timeout(60_000),
  );
});
