/**
 * What every tollgate environment has besides the engine's base language: the functions the source rewrites call
 * (../rewrite.ts: `has()` on any operand, two-variable comprehensions), and Go-exact versions of standard functions
 * the engine gets wrong (`matches` with RE2 semantics, equality of optionals; the others are in standard.ts).
 */
import { type EngineRegistrar, Optional } from "../engine.js";
import { celEquals } from "../equality.js";
import { type CelLibrary, celError } from "./library.js";
import { regex } from "./regex.js";

/**
 * What `__optElement` / `__optEntry` give for a value that is not to be in the literal (optionals, which the engine
 * takes as values of any type): OMITTED for an empty optional; for a value that is not an optional, an optional
 * holding it in a NotOptional box, which `__optMap` reports naming the entry's key.
 */
const OMITTED = Optional.of(Symbol("omitted"));

class NotOptional {
  constructor(readonly value: unknown) {}
}

function notOptional(v: unknown): unknown {
  return v instanceof Optional && v !== OMITTED && v.hasValue() && v.value() instanceof NotOptional
    ? (v.value() as NotOptional).value
    : undefined;
}

/** Go's `%v` of a CEL value in cel-go's runtime errors (scalars only; others as their type). */
function goValue(v: unknown): string {
  if (typeof v === "string" || typeof v === "bigint" || typeof v === "number" || typeof v === "boolean")
    return String(v);
  return v === null ? "null" : typeof v;
}

/** `[?x]`: x's value, or OMITTED (see ../pre-parse.ts). */
function optionalElement(v: unknown): unknown {
  if (v instanceof Optional) return v.hasValue() ? v.value() : OMITTED;
  throw celError(`cannot initialize optional list element from non-optional value ${goValue(v)}`);
}

/** `{?k: v}`: v's value, OMITTED, or NotOptional for `__optMap` to report with its key. */
function optionalEntry(v: unknown): unknown {
  if (v instanceof Optional) return v.hasValue() ? v.value() : OMITTED;
  return Optional.of(new NotOptional(v));
}

function optionalList(l: unknown[]): unknown[] {
  return l.includes(OMITTED) ? l.filter((v) => v !== OMITTED) : l;
}

function optionalMap(m: unknown): unknown {
  const out = new Map<unknown, unknown>();
  for (const [k, v] of entries(m)) {
    const bad = notOptional(v);
    if (bad !== undefined) {
      throw celError(`cannot initialize optional entry '${goValue(k)}' from non-optional value ${goValue(bad)}`);
    }
    if (v === OMITTED) out.delete(k);
    else out.set(k, v);
  }
  return m instanceof Map ? out : Object.fromEntries(out);
}

/** `has()` on an arbitrary operand (see ../rewrite.ts). */
function hasField(target: unknown, field: string): boolean {
  // cel-go: a field of an optional (`has(x.?a.b)`) is present when the optional holds a value that has it
  if (target instanceof Optional) return target.hasValue() && hasField(target.value(), field);
  if (target instanceof Map) return target.has(field);
  if (typeof target === "object" && target !== null) return Object.hasOwn(target, field);
  throw celError("no such overload");
}

/** Optional equality (cel-go: equal when both are empty or both hold equal values; never equal to null). */
function optionalEquals(a: Optional, b: Optional): boolean {
  if (a.hasValue() !== b.hasValue()) return false;
  return !a.hasValue() || celEquals(a.value(), b.value());
}

/** Index/key and value pairs of a list or map, for two-variable comprehensions (see ../rewrite.ts). */
function entries(x: unknown): unknown[][] {
  if (Array.isArray(x)) return x.map((v, i) => [BigInt(i), v]);
  if (x instanceof Map) return [...x].map(([k, v]) => [k, v]);
  if (typeof x === "object" && x !== null) return Object.entries(x);
  throw celError("no such overload");
}

function mergeMaps(maps: unknown[]): Map<unknown, unknown> {
  const out = new Map<unknown, unknown>();
  for (const m of maps) {
    for (const [k, v] of entries(m)) {
      if (out.has(k)) throw celError(`insert failed: key ${String(k)} already exists`);
      out.set(k, v);
    }
  }
  return out;
}

function register(env: EngineRegistrar): void {
  env.registerFunction("__entries(dyn): list<list<dyn>>", (x: unknown) => entries(x));
  env.registerFunction(
    "__fromEntries(list<list<dyn>>): map<dyn, dyn>",
    (l: unknown[][]) => new Map(l.map((e) => [e[0], e[1]])),
  );
  env.registerFunction("__mergeMaps(list<dyn>): map<dyn, dyn>", (l: unknown[]) => mergeMaps(l));
  env.registerOperator("optional<A> == optional<A>", (a: Optional, b: Optional) => optionalEquals(a, b));
  env.registerOperator("optional<dyn> == null", () => false);
  // optional entries of literals (../pre-parse.ts): typed as optionals so that the engine checks them
  env.registerFunction("__optElement(optional<A>): optional<A>", (v: unknown) => optionalElement(v));
  env.registerFunction("__optEntry(optional<A>): optional<A>", (v: unknown) => optionalEntry(v));
  env.registerFunction("__optPlain(A): optional<A>", (v: unknown) => v);
  env.registerFunction("__optList(list<optional<A>>): list<A>", (l: unknown[]) => optionalList(l));
  env.registerFunction("__optMap(map<K, optional<V>>): map<K, V>", (m: unknown) => optionalMap(m));
  env.registerFunction("__has(dyn, string): bool", (t: unknown, f: string) => hasField(t, f));
  env.registerFunction("string.__re2matches(string): bool", (s: string, p: string) => regex(p).test(s));
  env.registerFunction("__re2matchesFn(string, string): bool", (s: string, p: string) => regex(p).test(s));
}

export const CORE_LIBRARY: CelLibrary = {
  name: "core",
  register,
  renames: { matches: "__re2matches", "global:matches": "__re2matchesFn" },
  // A dyn value marked optional reaches these at run time whatever it holds (the engine would find no overload).
  overrides: {
    __optElement: { run: (args) => optionalElement(args[0]) },
    __optEntry: { run: (args) => optionalEntry(args[0]) },
  },
};
