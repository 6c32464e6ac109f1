/**
 * The strings extension (cel-go ext/strings.go, version 2 as Kubernetes uses it), code-point indexed, with Go's
 * ASCII-only case mapping and `TrimSpace`: `charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`, `upperAscii`, `trim`,
 * `replace`, `split`, `substring`, `join`, `format` and `strings.quote`. The engine's own versions of the methods it
 * also has are replaced.
 */
import { type CallCostEstimator, type CostOperand, listElement, sizeOf } from "../cost/operand.js";
import { add, addU, byFactor, mul, mulU, type Range, STRING_TRAVERSAL, U64, ZERO } from "../cost/range.js";
import { firstOperandTraversal, type RuntimeCharge } from "../cost/runtime.js";
import { runeCount } from "../cost/value-size.js";
import { type EngineRegistrar, runtimeTypeName, UnsignedInt } from "../engine.js";
import * as strings from "../implementations/strings.js";
import { Duration, durationNanos, goTimeOf } from "../time-values.js";
import { type CelLibrary, libraryCall } from "./library.js";

/** The `strings` namespace constant (`strings.quote`). */
class StringsNamespace {}

function register(env: EngineRegistrar): void {
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
  if (v instanceof Date) return { kind: "timestamp", ...goTimeOf(v) };
  if (Array.isArray(v)) return { kind: "list", items: v.map(toFormatArg) };
  if (v instanceof Map)
    return { kind: "map", entries: [...v].map(([k, x]) => [toFormatArg(k), toFormatArg(x)] as const) };
  if (v instanceof Duration) return { kind: "duration", nanos: durationNanos(v) };
  if (v instanceof UnsignedInt) return { kind: "uint", value: v.valueOf() };
  return { kind: "other", typeName: runtimeTypeName(v) };
}

// Cost estimates (Kubernetes' EstimateCallCost; `format` and `strings.quote` as cel-go's ext strings estimates them).

/** A traversal of the receiver, whose size the result keeps (`lowerAscii`, `upperAscii`, `substring`, `trim`). */
const receiverTraversalCost: CallCostEstimator = (target) => {
  if (target === undefined) return undefined;
  const sz = sizeOf(target);
  return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: sz };
};

/** Kubernetes' estimate of `replace`. */
function replaceCost(sz: Range, toReplace: Range, replaceWith: Range): { cost: Range; resultSize: Range } {
  const count = { min: 0, max: 0 };
  const retained = { min: 0, max: 0 };
  if (toReplace.min === 0) {
    count.max = sz.max < U64 ? sz.max + 1 : sz.max;
    retained.max = sz.max;
  } else if (replaceWith.max <= toReplace.min) {
    retained.max = sz.max;
  } else {
    count.max = Math.min(Math.ceil(sz.max / toReplace.min), U64);
  }
  if (toReplace.max === 0) {
    count.min = sz.min < U64 ? sz.min + 1 : sz.min;
    retained.min = sz.min;
  } else if (toReplace.max <= replaceWith.min) {
    retained.min = sz.min;
  } else {
    count.min = Math.min(Math.ceil(sz.min / toReplace.max), U64);
  }
  return { cost: byFactor(sz, 2 * STRING_TRAVERSAL), resultSize: add(mul(count, replaceWith), retained) };
}

function splitCost(target: CostOperand | undefined, args: readonly CostOperand[]) {
  if (target === undefined) return undefined;
  const sz = sizeOf(target);
  let max = sz.max;
  const limit = args[1]?.node;
  if (limit !== undefined && limit.op === "value" && typeof limit.args === "bigint") {
    max = Number(BigInt.asUintN(64, limit.args));
  }
  return { cost: byFactor(sz, 2 * STRING_TRAVERSAL), resultSize: { min: 0, max } };
}

function joinCost(target: CostOperand | undefined, args: readonly CostOperand[]) {
  if (target === undefined) return undefined;
  let sz = ZERO;
  const listSize = sizeOf(target);
  const el = listElement(target);
  if (el !== undefined) sz = mul(listSize, el.size);
  if (args.length > 0) {
    const sep = sizeOf(args[0]!);
    const minSep = listSize.min > 0 ? listSize.min - 1 : 0;
    const maxSep = listSize.max > 0 ? listSize.max - 1 : 0;
    sz = add(sz, mul(sep, { min: minSep, max: maxSep }));
  }
  return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: sz };
}

// Runtime costs (Kubernetes' CallCost): traversals of the receiver, twice for replace and split; join traverses
// twice the string it makes, whose size is known before making it.

const receiverTraversal = firstOperandTraversal(1);
const receiverTwice = firstOperandTraversal(2);

const joinCharge: RuntimeCharge = (ops) => {
  const list = ops[0] as readonly string[];
  const sep = typeof ops[1] === "string" ? runeCount(ops[1]) : 0;
  let size = list.length > 0 ? (list.length - 1) * sep : 0;
  for (const s of list) size += runeCount(s);
  return Math.ceil(size * 2 * STRING_TRAVERSAL);
};

export const STRINGS_LIBRARY: CelLibrary = {
  name: "strings",
  register,
  renames: {
    lowerAscii: "__lowerAscii",
    upperAscii: "__upperAscii",
    trim: "__trim",
    indexOf: "__indexOf",
    lastIndexOf: "__lastIndexOf",
    substring: "__substring",
    split: "__split",
    join: "__join",
  },
  callCosts: {
    lowerAscii: receiverTraversalCost,
    upperAscii: receiverTraversalCost,
    substring: receiverTraversalCost,
    trim: receiverTraversalCost,
    replace: (target, args) =>
      target === undefined || args.length < 2
        ? undefined
        : replaceCost(sizeOf(target), sizeOf(args[0]!), sizeOf(args[1]!)),
    split: splitCost,
    join: joinCost,
    // cel-go v0.26: the receiver's traversal, no result size.
    format: (target, args) =>
      target !== undefined && target.type.kind === "string" && args.length === 1
        ? { cost: byFactor(sizeOf(target), STRING_TRAVERSAL) }
        : undefined,
    "strings.quote": (_target, args) => {
      if (args.length !== 1) return undefined;
      const sz = sizeOf(args[0]!);
      return {
        cost: byFactor(sz, STRING_TRAVERSAL),
        resultSize: { min: addU(sz.min, 2), max: addU(mulU(sz.max, 2), 2) },
      };
    },
  },
  runtimeCosts: {
    lowerAscii: () => receiverTraversal,
    upperAscii: () => receiverTraversal,
    substring: () => receiverTraversal,
    trim: () => receiverTraversal,
    replace: () => receiverTwice,
    split: () => receiverTwice,
    join: () => joinCharge,
  },
};
