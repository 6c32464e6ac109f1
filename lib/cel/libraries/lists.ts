/**
 * Lists: the Kubernetes lists library (apiserver pkg/cel/library/lists.go: `isSorted`, `sum`, `min`, `max`,
 * `indexOf`, `lastIndexOf`) and cel-go's lists extension v3 (`slice`, `flatten`, `sort`, `distinct`, `reverse`,
 * `first`, `last`, `lists.range`), both in Kubernetes' base environment at compatibility version 1.35.
 */
import { type CallCostEstimator, listElement, sizeOf } from "../cost/operand.js";
import { add, byFactor, mul, ONE, STRING_TRAVERSAL } from "../cost/range.js";
import { type EngineRegistrar, Optional } from "../engine.js";
import { celEquals } from "../equality.js";
import { type CelLibrary, celError } from "./library.js";

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

/** The element types with an ordering (`isSorted`, `min`, `max`, `sort`). */
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

function registerKubernetesLists(env: EngineRegistrar): void {
  for (const t of ELEMENT_TYPES) {
    env.registerFunction(`list<${t}>.isSorted(): bool`, (l: unknown[]) => isSorted(l));
    env.registerFunction(`list<${t}>.min(): ${t}`, (l: unknown[]) => extremum("min", l));
    env.registerFunction(`list<${t}>.max(): ${t}`, (l: unknown[]) => extremum("max", l));
  }
  env.registerFunction("list<int>.sum(): int", (l: bigint[]) => l.reduce((a, b) => a + b, 0n));
  env.registerFunction("list<double>.sum(): double", (l: number[]) => l.reduce((a, b) => a + b, 0));
  env.registerFunction("list<A>.__indexOf(A): int", (l: unknown[], x: unknown) =>
    BigInt(l.findIndex((e) => celEquals(e, x))),
  );
  env.registerFunction("list<A>.__lastIndexOf(A): int", (l: unknown[], x: unknown) => {
    for (let i = l.length - 1; i >= 0; i--) if (celEquals(l[i], x)) return BigInt(i);
    return -1n;
  });
}

/**
 * Kubernetes' estimate of the lists functions: the list's size times the element's cost (1, plus the element's
 * traversal for strings and bytes). Kubernetes estimates by name, so `indexOf`/`lastIndexOf` on a string receiver
 * (strings extension) are estimated here too: the receiver's traversal.
 */
const listFunctionCost: CallCostEstimator = (target) => {
  if (target === undefined) return undefined;
  const el = listElement(target);
  if (el !== undefined) {
    let elCost = ONE;
    if (el.type.kind === "string" || el.type.kind === "bytes") {
      elCost = add(elCost, byFactor(el.size, STRING_TRAVERSAL));
    }
    return { cost: mul(sizeOf(target), elCost) };
  }
  return { cost: byFactor(sizeOf(target), STRING_TRAVERSAL) };
};

export const LISTS_LIBRARY: CelLibrary = {
  name: "lists",
  register: registerKubernetesLists,
  renames: { indexOf: "__indexOf", lastIndexOf: "__lastIndexOf" },
  callCosts: {
    isSorted: listFunctionCost,
    sum: listFunctionCost,
    max: listFunctionCost,
    min: listFunctionCost,
    indexOf: listFunctionCost,
    lastIndexOf: listFunctionCost,
  },
};

/** The `lists` namespace constant (`lists.range`). */
class ListsNamespace {}

function slice(l: unknown[], a: bigint, b: bigint): unknown[] {
  if (a < 0n || b < 0n) throw celError(`cannot slice(${a}, ${b}), negative indexes not supported`);
  if (a > b) throw celError(`cannot slice(${a}, ${b}), start index must be less than or equal to end index`);
  if (b > BigInt(l.length)) throw celError(`cannot slice(${a}, ${b}), list is length ${l.length}`);
  return l.slice(Number(a), Number(b));
}

function flatten(l: unknown[], depth: bigint): unknown[] {
  if (depth < 0n) throw celError("level must be non-negative");
  let out = l;
  for (let d = 0n; d < depth; d++) out = out.flatMap((x) => (Array.isArray(x) ? x : [x]));
  return out;
}

function registerListsExtension(env: EngineRegistrar): void {
  env.registerType("k8s.ListsNamespace", { ctor: ListsNamespace, fields: {} });
  env.registerConstant("lists", "k8s.ListsNamespace", new ListsNamespace());
  env.registerFunction("k8s.ListsNamespace.range(int): list<int>", (_n: ListsNamespace, n: bigint) => {
    const out: bigint[] = [];
    for (let i = 0n; i < n; i++) out.push(i);
    return out;
  });
  env.registerFunction("list<A>.slice(int, int): list<A>", (l: unknown[], a: bigint, b: bigint) => slice(l, a, b));
  env.registerFunction("list<dyn>.flatten(): list<dyn>", (l: unknown[]) =>
    l.flatMap((x) => (Array.isArray(x) ? x : [x])),
  );
  env.registerFunction("list<dyn>.flatten(int): list<dyn>", (l: unknown[], depth: bigint) => flatten(l, depth));
  for (const t of ELEMENT_TYPES) {
    env.registerFunction(`list<${t}>.sort(): list<${t}>`, (l: unknown[]) => [...l].sort(compareValues));
  }
  env.registerFunction("list<A>.distinct(): list<A>", (l: unknown[]) => {
    const out: unknown[] = [];
    for (const x of l) if (!out.some((y) => celEquals(x, y))) out.push(x);
    return out;
  });
  env.registerFunction("list<A>.reverse(): list<A>", (l: unknown[]) => [...l].reverse());
  env.registerFunction("list<A>.first(): optional<A>", (l: unknown[]) =>
    l.length === 0 ? Optional.none() : Optional.of(l[0]),
  );
  env.registerFunction("list<A>.last(): optional<A>", (l: unknown[]) =>
    l.length === 0 ? Optional.none() : Optional.of(l[l.length - 1]),
  );
}

export const LISTS_EXTENSION: CelLibrary = { name: "lists extension", register: registerListsExtension };
