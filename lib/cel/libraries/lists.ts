/**
 * Lists: the Kubernetes lists library (apiserver pkg/cel/library/lists.go: `isSorted`, `sum`, `min`, `max`,
 * `indexOf`, `lastIndexOf`) and cel-go's lists extension v3 (`slice`, `flatten`, `sort`, `distinct`, `reverse`,
 * `first`, `last`, `lists.range`), both in Kubernetes' base environment at compatibility version 1.35.
 */
import { type CallCostEstimator, type CostOperand, listElement, sizeOf } from "../cost/operand.js";
import { add, byFactor, fixed, mul, ONE, type Range, STRING_TRAVERSAL, U64, union } from "../cost/range.js";
import { always, firstOperandTree, type RuntimeCharge } from "../cost/runtime.js";
import { actualSize } from "../cost/value-size.js";
import { type EngineRegistrar, Optional, runtimeTypeName } from "../engine.js";
import { celEquals } from "../equality.js";
import { LibraryError } from "../implementations/error.js";
import {
  isSorted,
  listDistinct,
  listFlatten,
  listIndexOf,
  listLastIndexOf,
  listMax,
  listMin,
  listRange,
  listReverse,
  listSlice,
  listSum,
  sortByKeys,
} from "../implementations/lists.js";
import { CEL_KEY_ORDERING, celAdd, celCompare, SUM_ZERO } from "../value-traits.js";
import { type CelLibrary, libraryCall } from "./library.js";

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
    env.registerFunction(`list<${t}>.isSorted(): bool`, (l: unknown[]) => isSorted(l, celCompare));
    env.registerFunction(
      `list<${t}>.min(): ${t}`,
      libraryCall((l: unknown[]) => listMin(l, celCompare)),
    );
    env.registerFunction(
      `list<${t}>.max(): ${t}`,
      libraryCall((l: unknown[]) => listMax(l, celCompare)),
    );
  }
  for (const [t, zero] of Object.entries(SUM_ZERO)) {
    env.registerFunction(
      `list<${t}>.sum(): ${t}`,
      libraryCall((l: unknown[]) => listSum<unknown>(l, zero, celAdd)),
    );
  }
  env.registerFunction("list<A>.__indexOf(A): int", (l: unknown[], x: unknown) => listIndexOf(l, x, celEquals));
  env.registerFunction("list<A>.__lastIndexOf(A): int", (l: unknown[], x: unknown) => listLastIndexOf(l, x, celEquals));
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
  // Kubernetes' CallCost: one traversal of the receiver as a data tree (by name: a string receiver too).
  runtimeCosts: {
    isSorted: always(firstOperandTree),
    sum: always(firstOperandTree),
    max: always(firstOperandTree),
    min: always(firstOperandTree),
    indexOf: always(firstOperandTree),
    lastIndexOf: always(firstOperandTree),
  },
};

/** The `lists` namespace constant (`lists.range`). */
class ListsNamespace {}

function registerListsExtension(env: EngineRegistrar): void {
  env.registerType("k8s.ListsNamespace", { ctor: ListsNamespace, fields: {} });
  env.registerConstant("lists", "k8s.ListsNamespace", new ListsNamespace());
  env.registerFunction("k8s.ListsNamespace.range(int): list<int>", (_n: ListsNamespace, n: bigint) => listRange(n));
  env.registerFunction(
    "list<A>.slice(int, int): list<A>",
    libraryCall((l: unknown[], a: bigint, b: bigint) => listSlice(l, a, b)),
  );
  // cel-go: list(list(T)).flatten() -> list(T), and list(dyn).flatten(int) -> list(dyn)
  env.registerFunction("list<list<A>>.flatten(): list<A>", (l: unknown[]) => listFlatten(l, 1n));
  env.registerFunction(
    "list<dyn>.flatten(int): list<dyn>",
    libraryCall((l: unknown[], depth: bigint) => listFlatten(l, depth)),
  );
  const sortByOwnKeys = libraryCall((l: unknown[]) => sortByKeys(l, l, CEL_KEY_ORDERING));
  const sortByAssociatedKeys = libraryCall((l: unknown[], keys: unknown[]) => sortByKeys(l, keys, CEL_KEY_ORDERING));
  for (const t of ELEMENT_TYPES) {
    env.registerFunction(`list<${t}>.sort(): list<${t}>`, sortByOwnKeys);
    // the target of the sortBy macro (rewrite.ts): cel-go's @sortByAssociatedKeys
    env.registerFunction(`list<A>.__sortByAssociatedKeys(list<${t}>): list<A>`, sortByAssociatedKeys);
  }
  env.registerFunction("list<A>.distinct(): list<A>", (l: unknown[]) => listDistinct(l, celEquals));
  env.registerFunction("list<A>.reverse(): list<A>", (l: unknown[]) => listReverse(l));
  env.registerFunction("list<A>.first(): optional<A>", (l: unknown[]) =>
    l.length === 0 ? Optional.none() : Optional.of(l[0]),
  );
  env.registerFunction("list<A>.last(): optional<A>", (l: unknown[]) =>
    l.length === 0 ? Optional.none() : Optional.of(l[l.length - 1]),
  );
}

// Cost estimates of the lists extension (cel-go ext/lists.go at version 3: its overload estimators).

/** cel-go `ListCreateBaseCost`. */
const LIST_CREATE_COST = 10;

/** cel-go estimateAllocatingListCall: the result's size × a factor, plus the call and the new list. */
function allocatingListCost(factor: number, size: Range) {
  return { cost: add(byFactor(size, factor), fixed(1 + LIST_CREATE_COST)), resultSize: size };
}

/** cel-go nodeAsIntValue: an int literal argument (negative ones count as 0), else `otherwise`. */
function intLiteral(arg: CostOperand | undefined, otherwise: number): number {
  const node = arg?.node;
  if (node?.op === "value" && typeof node.args === "bigint") return node.args < 0n ? 0 : Number(node.args);
  if (node?.op === "-_" && node.args.op === "value" && typeof node.args.args === "bigint") return 0;
  return otherwise;
}

/** `start` and `end` subtracted as Go's uint64 (a start past the end wraps around to a huge size). */
function sliceSize(start: number, end: number): number {
  return end >= start ? end - start : U64;
}

/** `sort()`: the size squared × 2, plus 0.1 for string and bytes elements (the union of both for dyn). */
const sortCost: CallCostEstimator = (target, args) => {
  if (target === undefined || args.length !== 0) return undefined;
  const sz = sizeOf(target);
  const squared = mul(sz, sz);
  const kind = target.type.params[0]?.kind;
  if (kind === "string" || kind === "bytes") return allocatingListCost(2 + STRING_TRAVERSAL, squared);
  if (kind === "dyn" || kind === undefined || kind === "unknown" || kind === "param") {
    const a = allocatingListCost(2, squared);
    return { cost: union(a.cost, allocatingListCost(2 + STRING_TRAVERSAL, squared).cost), resultSize: squared };
  }
  return allocatingListCost(2, squared);
};

// Runtime costs of the lists extension (cel-go ext/lists.go at version 3: its overload cost trackers). They are
// computed from the operands before the call runs (cel-go computes them after, from the result where it uses one,
// whose size is known in advance), so a list that would exceed the limit is never made.

/** cel-go trackAllocatingListCall: `uint64(size × factor)` plus the call and the new list. */
function allocatingListCharge(factor: number, size: number): number {
  return Math.floor(size * factor) + 1 + LIST_CREATE_COST;
}

/** cel-go trackListSelfCompare (`distinct`, `sort`): the size squared × 2, plus 0.1 for string and bytes elements. */
const selfCompareCharge: RuntimeCharge = (ops) => {
  const l = ops[0] as readonly unknown[];
  const sz = l.length;
  if (sz === 0) return allocatingListCharge(2, 0);
  const first = l[0];
  const factor = typeof first === "string" || first instanceof Uint8Array ? 2 + STRING_TRAVERSAL : 2;
  return allocatingListCharge(factor, sz * sz);
};

/** `l.slice(a, b)`: the result's size (an error result has size 1). */
const sliceCharge: RuntimeCharge = (ops) => {
  const n = BigInt((ops[0] as readonly unknown[]).length);
  const [a, b] = [ops[1] as bigint, ops[2] as bigint];
  return allocatingListCharge(1, a >= 0n && a <= b && b <= n ? Number(b - a) : 1);
};

/**
 * `l.flatten([depth])`: the input's size × the depth. A negative depth fails, and cel-go's tracker converts the
 * negative product to a huge uint64 (the limit is exceeded) unless the list is empty.
 */
const flattenCharge: RuntimeCharge = (ops) => {
  const size = actualSize(ops[0]);
  const depth = ops.length === 2 ? Number(ops[1] as bigint) : 1;
  if (depth < 0 && size > 0) return U64;
  return allocatingListCharge(depth, size);
};

/**
 * `flatten()` on a dyn receiver, which the engine dispatches on the element types: cel-go's overloads have their
 * type guards disabled (ext/lists.go), so any list is flattened, its elements that are not lists kept as they are,
 * and any other value fails with `no such overload: string.flatten()`.
 */
const dynFlatten = libraryCall((args: readonly unknown[]) => {
  const [l, depth] = args;
  if (Array.isArray(l) && (depth === undefined || typeof depth === "bigint")) return listFlatten(l, depth ?? 1n);
  const types = args.slice(1).map(runtimeTypeName).join(", ");
  throw new LibraryError(`no such overload: ${runtimeTypeName(l)}.flatten(${types})`, "no_such_overload");
});

export const LISTS_EXTENSION: CelLibrary = {
  name: "lists extension",
  register: registerListsExtension,
  overrides: { ".flatten": { operandTypes: [], run: dynFlatten } },
  callCosts: {
    slice: (target, args) => {
      if (target === undefined || args.length !== 2) return undefined;
      const start = intLiteral(args[0], 0);
      const end = intLiteral(args[1], sizeOf(target).max);
      return allocatingListCost(1, fixed(sliceSize(start, end)));
    },
    "lists.range": (target, args) =>
      target === undefined && args.length === 1 ? allocatingListCost(1, fixed(intLiteral(args[0], U64))) : undefined,
    reverse: (target, args) =>
      target !== undefined && args.length === 0 ? allocatingListCost(1, sizeOf(target)) : undefined,
    flatten: (target, args) => {
      if (target === undefined || args.length > 1) return undefined;
      const depth = args.length === 1 ? intLiteral(args[0], U64) : 1;
      return allocatingListCost(depth, sizeOf(target));
    },
    // O(n²) with a factor of 2, like sets.contains with a result list of up to the list's size.
    distinct: (target, args) => {
      if (target === undefined || args.length !== 0) return undefined;
      const sz = sizeOf(target);
      return allocatingListCost(2, mul(sz, sz));
    },
    sort: sortCost,
  },
  runtimeCosts: {
    slice: always(sliceCharge),
    "lists.range": always((ops) => allocatingListCharge(1, Math.max(0, Number(ops[0] as bigint)))),
    reverse: always((ops) => allocatingListCharge(1, actualSize(ops[0]))),
    flatten: always(flattenCharge),
    distinct: always(selfCompareCharge),
    sort: always(selfCompareCharge),
  },
};
