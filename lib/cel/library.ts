/**
 * The Kubernetes CEL environment (apiserver pkg/cel/environment/base.go at compatibility version 1.35, evaluated
 * with everything a 1.36 binary knows): the base CEL language of the engine, with tollgate's Go-exact versions of
 * the built-ins the engine gets wrong (RE2 `matches`, ASCII-only case mapping, Go `TrimSpace`), and the Kubernetes
 * libraries (regex find/findAll, lists, strings extension additions). See spec/k8s-cel-semantics.md §9.
 */
import { compilePattern } from "../schema/regex.js";
import {
  type Environment,
  EvaluationError,
  newEnvironment,
  type Optional,
  Optional as OptionalValue,
} from "./engine.js";
import { celEquals } from "./equality.js";
import { libraryCall, registerKubernetesLibraries } from "./k8s-library.js";
import * as strings from "./libraries/strings.js";

/** Built-in methods renamed to tollgate's versions before the type check. */
export const METHOD_RENAMES: Readonly<Record<string, string>> = Object.freeze({
  matches: "__re2matches",
  lowerAscii: "__lowerAscii",
  upperAscii: "__upperAscii",
  trim: "__trim",
  indexOf: "__indexOf",
  lastIndexOf: "__lastIndexOf",
  substring: "__substring",
  split: "__split",
  join: "__join",
  "global:matches": "__re2matchesFn",
});

/** A CEL runtime error with cel-go's text. */
export function celError(message: string): EvaluationError {
  return new EvaluationError(message);
}

function regex(pattern: string) {
  const c = compilePattern(pattern);
  if ("error" in c) throw celError(c.error);
  return c;
}

/** Compiles a literal regular expression at rule-compile time (an error message when it does not compile). */
export function checkLiteralPattern(pattern: string): string | undefined {
  const c = compilePattern(pattern);
  return "error" in c ? c.error : undefined;
}

function findAll(s: string, pattern: string, limit: bigint): string[] {
  const re = regex(pattern);
  const out: string[] = [];
  if (limit === 0n) return out;
  for (const m of re.findAll(s)) {
    out.push(m);
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}

type Cmp = (a: unknown, b: unknown) => number;

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  const av = Number(a as number);
  const bv = Number(b as number);
  return av < bv ? -1 : av > bv ? 1 : 0;
}

function isSorted(l: unknown[], cmp: Cmp = compareValues): boolean {
  for (let i = 1; i < l.length; i++) if (cmp(l[i - 1], l[i]) > 0) return false;
  return true;
}

function extremum(name: "min" | "max", l: unknown[]): unknown {
  if (l.length === 0) throw celError(`${name} called on empty list`);
  let best = l[0];
  for (const x of l) {
    const c = compareValues(x, best);
    if ((name === "min" && c < 0) || (name === "max" && c > 0)) best = x;
  }
  return best;
}

const ELEMENT_TYPES = [
  "int",
  "uint",
  "double",
  "bool",
  "string",
  "bytes",
  "google.protobuf.Duration",
  "google.protobuf.Timestamp",
];

/** `has()` on an arbitrary operand (see compile.ts rewriteHas). */
function hasField(target: unknown, field: string): boolean {
  if (target instanceof Map) return target.has(field);
  if (typeof target === "object" && target !== null) return Object.hasOwn(target, field);
  throw celError("no such overload");
}

/** Go's time.Time.Format(time.RFC3339Nano) in UTC, as cel-go prints `string(timestamp)`. */
function timestampString(d: Date): string {
  return d
    .toISOString()
    .replace(/\.000Z$/, "Z")
    .replace(/(\.\d*?)0+Z$/, "$1Z");
}

/** Optional equality (cel-go: equal when both are empty or both hold equal values; never equal to null). */
function optionalEquals(a: Optional, b: Optional): boolean {
  if (a.hasValue() !== b.hasValue()) return false;
  return !a.hasValue() || celEquals(a.value(), b.value());
}

/** Index/key and value pairs of a list or map, for two-variable comprehensions (see compile.ts). */
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

function registerLibrary(env: Environment): void {
  env.registerFunction("__entries(dyn): list<list<dyn>>", (x: unknown) => entries(x));
  env.registerFunction(
    "__fromEntries(list<list<dyn>>): map<dyn, dyn>",
    (l: unknown[][]) => new Map(l.map((e) => [e[0], e[1]])),
  );
  env.registerFunction("__mergeMaps(list<dyn>): map<dyn, dyn>", (l: unknown[]) => mergeMaps(l));
  env.registerOperator("optional<A> == optional<A>", (a: Optional, b: Optional) => optionalEquals(a, b));
  env.registerOperator("optional<dyn> == null", () => false);
  env.registerFunction("__has(dyn, string): bool", (t: unknown, f: string) => hasField(t, f));
  env.registerFunction("timestamp(google.protobuf.Timestamp): google.protobuf.Timestamp", (d: Date) => d);
  env.registerFunction("string(google.protobuf.Timestamp): string", (d: Date) => timestampString(d));
  env.registerFunction("string.__re2matches(string): bool", (s: string, p: string) => regex(p).test(s));
  env.registerFunction("__re2matchesFn(string, string): bool", (s: string, p: string) => regex(p).test(s));
  env.registerFunction("string.find(string): string", (s: string, p: string) => regex(p).find(s) ?? "");
  env.registerFunction("string.findAll(string): list<string>", (s: string, p: string) => findAll(s, p, -1n));
  env.registerFunction("string.findAll(string, int): list<string>", (s: string, p: string, n: bigint) =>
    findAll(s, p, n),
  );
  registerStrings(env);
  for (const t of ELEMENT_TYPES) {
    env.registerFunction(`list<${t}>.isSorted(): bool`, (l: unknown[]) => isSorted(l));
    env.registerFunction(`list<${t}>.min(): ${t}`, (l: unknown[]) => extremum("min", l));
    env.registerFunction(`list<${t}>.max(): ${t}`, (l: unknown[]) => extremum("max", l));
  }
  env.registerFunction("list<int>.sum(): int", (l: bigint[]) => l.reduce((a, b) => a + b, 0n));
  env.registerFunction("list<double>.sum(): double", (l: number[]) => l.reduce((a, b) => a + b, 0));
  registerSetsAndLists(env);
  env.registerFunction("list<A>.__indexOf(A): int", (l: unknown[], x: unknown) =>
    BigInt(l.findIndex((e) => celEquals(e, x))),
  );
  env.registerFunction("list<A>.__lastIndexOf(A): int", (l: unknown[], x: unknown) => {
    for (let i = l.length - 1; i >= 0; i--) if (celEquals(l[i], x)) return BigInt(i);
    return -1n;
  });
}

/** Namespace constants of the sets and lists extensions. */
class SetsNamespace {}
class ListsNamespace {}

function containsAll(a: unknown[], b: unknown[]): boolean {
  return b.every((x) => a.some((y) => celEquals(x, y)));
}

/**
 * cel-go's sets extension (`sets.contains`, `sets.equivalent`, `sets.intersects`) and lists extension v3
 * (`slice`, `flatten`, `sort`, `distinct`, `reverse`, `first`, `last`, `lists.range`), both in Kubernetes' base
 * environment at compatibility version 1.35.
 */
function registerSetsAndLists(env: Environment): void {
  env.registerType("k8s.SetsNamespace", { ctor: SetsNamespace, fields: {} });
  env.registerConstant("sets", "k8s.SetsNamespace", new SetsNamespace());
  env.registerFunction(
    "k8s.SetsNamespace.contains(list<A>, list<A>): bool",
    (_n: SetsNamespace, a: unknown[], b: unknown[]) => containsAll(a, b),
  );
  env.registerFunction(
    "k8s.SetsNamespace.equivalent(list<A>, list<A>): bool",
    (_n: SetsNamespace, a: unknown[], b: unknown[]) => containsAll(a, b) && containsAll(b, a),
  );
  env.registerFunction(
    "k8s.SetsNamespace.intersects(list<A>, list<A>): bool",
    (_n: SetsNamespace, a: unknown[], b: unknown[]) => a.some((x) => b.some((y) => celEquals(x, y))),
  );
  env.registerType("k8s.ListsNamespace", { ctor: ListsNamespace, fields: {} });
  env.registerConstant("lists", "k8s.ListsNamespace", new ListsNamespace());
  env.registerFunction("k8s.ListsNamespace.range(int): list<int>", (_n: ListsNamespace, n: bigint) => {
    const out: bigint[] = [];
    for (let i = 0n; i < n; i++) out.push(i);
    return out;
  });
  env.registerFunction("list<A>.slice(int, int): list<A>", (l: unknown[], a: bigint, b: bigint) => {
    if (a < 0n || b < 0n) throw celError(`cannot slice(${a}, ${b}), negative indexes not supported`);
    if (a > b) throw celError(`cannot slice(${a}, ${b}), start index must be less than or equal to end index`);
    if (b > BigInt(l.length)) throw celError(`cannot slice(${a}, ${b}), list is length ${l.length}`);
    return l.slice(Number(a), Number(b));
  });
  env.registerFunction("list<dyn>.flatten(): list<dyn>", (l: unknown[]) =>
    l.flatMap((x) => (Array.isArray(x) ? x : [x])),
  );
  env.registerFunction("list<dyn>.flatten(int): list<dyn>", (l: unknown[], depth: bigint) => {
    if (depth < 0n) throw celError("level must be non-negative");
    let out = l;
    for (let d = 0n; d < depth; d++) out = out.flatMap((x) => (Array.isArray(x) ? x : [x]));
    return out;
  });
  for (const t of [
    "int",
    "uint",
    "double",
    "bool",
    "string",
    "bytes",
    "google.protobuf.Duration",
    "google.protobuf.Timestamp",
  ]) {
    env.registerFunction(`list<${t}>.sort(): list<${t}>`, (l: unknown[]) => [...l].sort(compareValues));
  }
  env.registerFunction("list<A>.distinct(): list<A>", (l: unknown[]) => {
    const out: unknown[] = [];
    for (const x of l) if (!out.some((y) => celEquals(x, y))) out.push(x);
    return out;
  });
  env.registerFunction("list<A>.reverse(): list<A>", (l: unknown[]) => [...l].reverse());
  env.registerFunction("list<A>.first(): optional<A>", (l: unknown[]) =>
    l.length === 0 ? OptionalValue.none() : OptionalValue.of(l[0]),
  );
  env.registerFunction("list<A>.last(): optional<A>", (l: unknown[]) =>
    l.length === 0 ? OptionalValue.none() : OptionalValue.of(l[l.length - 1]),
  );
}

/** The `strings` namespace constant (`strings.quote`). */
class StringsNamespace {}

/** The strings extension (cel-go ext/strings.go, version 2 as Kubernetes uses it), code-point indexed. */
function registerStrings(env: Environment): void {
  env.registerFunction(
    "string.charAt(int): string",
    libraryCall((s: string, i: bigint) => strings.charAt(s, i)),
  );
  env.registerFunction(
    "string.__indexOf(string): int",
    libraryCall((s: string, x: string) => strings.indexOf(s, x)),
  );
  env.registerFunction(
    "string.__indexOf(string, int): int",
    libraryCall((s: string, x: string, o: bigint) => strings.indexOf(s, x, o)),
  );
  env.registerFunction(
    "string.__lastIndexOf(string): int",
    libraryCall((s: string, x: string) => strings.lastIndexOf(s, x)),
  );
  env.registerFunction(
    "string.__lastIndexOf(string, int): int",
    libraryCall((s: string, x: string, o: bigint) => strings.lastIndexOf(s, x, o)),
  );
  env.registerFunction("string.__lowerAscii(): string", (s: string) => strings.lowerAscii(s));
  env.registerFunction("string.__upperAscii(): string", (s: string) => strings.upperAscii(s));
  env.registerFunction("string.__trim(): string", (s: string) => strings.trim(s));
  env.registerFunction(
    "string.replace(string, string): string",
    libraryCall((s: string, a: string, b: string) => strings.replace(s, a, b)),
  );
  env.registerFunction(
    "string.replace(string, string, int): string",
    libraryCall((s: string, a: string, b: string, n: bigint) => strings.replace(s, a, b, n)),
  );
  env.registerFunction(
    "string.__split(string): list<string>",
    libraryCall((s: string, sep: string) => strings.split(s, sep)),
  );
  env.registerFunction(
    "string.__split(string, int): list<string>",
    libraryCall((s: string, sep: string, n: bigint) => strings.split(s, sep, n)),
  );
  env.registerFunction(
    "string.__substring(int): string",
    libraryCall((s: string, a: bigint) => strings.substring(s, a)),
  );
  env.registerFunction(
    "string.__substring(int, int): string",
    libraryCall((s: string, a: bigint, b: bigint) => strings.substring(s, a, b)),
  );
  env.registerFunction("list<string>.__join(): string", (l: string[]) => strings.join(l));
  env.registerFunction("list<string>.__join(string): string", (l: string[], sep: string) => strings.join(l, sep));
  env.registerFunction(
    "string.format(list<dyn>): string",
    libraryCall((f: string, args: unknown[]) => strings.format(f, args.map(toFormatArg))),
  );
  env.registerType("k8s.StringsNamespace", { ctor: StringsNamespace, fields: {} });
  env.registerConstant("strings", "k8s.StringsNamespace", new StringsNamespace());
  env.registerFunction("k8s.StringsNamespace.quote(string): string", (_ns: StringsNamespace, s: string) =>
    strings.quote(s),
  );
}

/** Converts a CEL value into the strings library's tagged format argument. */
function toFormatArg(v: unknown): strings.FormatArg {
  if (v === null || v === undefined) return { kind: "null" };
  switch (typeof v) {
    case "bigint":
      return { kind: "int", value: v };
    case "number":
      return { kind: "double", value: v };
    case "boolean":
      return { kind: "bool", value: v };
    case "string":
      return { kind: "string", value: v };
  }
  if (v instanceof Uint8Array) return { kind: "bytes", value: v };
  if (v instanceof Date) {
    const ms = BigInt(v.getTime());
    const seconds = ms >= 0n ? ms / 1000n : -((-ms + 999n) / 1000n);
    return { kind: "timestamp", seconds, nanos: Number(ms - seconds * 1000n) * 1_000_000 };
  }
  if (Array.isArray(v)) return { kind: "list", items: v.map(toFormatArg) };
  if (v instanceof Map)
    return { kind: "map", entries: [...v].map(([k, x]) => [toFormatArg(k), toFormatArg(x)] as const) };
  const d = v as { seconds?: unknown; nanos?: unknown; constructor?: { name?: string } };
  if (d.constructor?.name === "Duration" && typeof d.seconds === "bigint" && typeof d.nanos === "number") {
    return { kind: "duration", nanos: d.seconds * 1_000_000_000n + BigInt(d.nanos) };
  }
  if (d.constructor?.name === "UnsignedInt")
    return { kind: "uint", value: BigInt((v as { valueOf(): bigint }).valueOf()) };
  return { kind: "other", typeName: d.constructor?.name ?? "object" };
}

let base: Environment | undefined;

/** The shared base environment with the Kubernetes library registered (frozen by its first clone). */
export function kubernetesBaseEnvironment(): Environment {
  if (base === undefined) {
    base = newEnvironment();
    registerLibrary(base);
    registerKubernetesLibraries(base);
  }
  return base;
}
