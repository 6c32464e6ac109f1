/**
 * cel-go's `traits.Comparer` and `traits.Adder` over tollgate's CEL values, as the list functions use them
 * (cel-go common/types: `Int.Compare`, `Double.Compare`, ..., `Int.Add`, `Duration.Add`): comparisons cross the
 * numeric types (int and uint exactly, an integer and a double as doubles), a NaN double cannot be ordered,
 * strings order by their UTF-8 bytes, timestamps and durations to the nanosecond; additions fail on int64 / uint64
 * overflow.
 */
import { Duration, runtimeTypeName, UnsignedInt } from "./engine.js";
import { noSuchOverload } from "./implementations/error.js";
import {
  addDouble,
  addInt,
  addUint,
  compareBigint,
  compareBool,
  compareBytes,
  compareDouble,
  compareString,
} from "./implementations/lists.js";
import { compareTimes } from "./implementations/time.js";
import { durationNanos, durationValue, goTimeOf } from "./time-values.js";

/** An int or uint value as a bigint; undefined for other values. */
function integer(v: unknown): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (v instanceof UnsignedInt) return v.valueOf();
  return undefined;
}

/**
 * An integer compared with a double as cel-go compares them (common/types/compare.go compareDoubleInt): outside the
 * int64 / uint64 range the double decides, else the integer is converted to a double, rounding to the nearest as
 * Go's float64() does (9223372036854775807 equals 9223372036854775808.0). Undefined for NaN.
 */
export function compareIntegerDouble(i: bigint, d: number): number | undefined {
  if (Number.isNaN(d)) return undefined;
  const x = Number(i);
  return x < d ? -1 : x > d ? 1 : 0;
}

/** cel-go `Compare`: -1, 0 or 1, or undefined when the two values cannot be ordered (a NaN, unlike types). */
export function celCompare(a: unknown, b: unknown): number | undefined {
  const ia = integer(a);
  const ib = integer(b);
  if (ia !== undefined && ib !== undefined) return compareBigint(ia, ib);
  if (ia !== undefined && typeof b === "number") return compareIntegerDouble(ia, b);
  if (typeof a === "number" && ib !== undefined) {
    const c = compareIntegerDouble(ib, a);
    return c === undefined ? undefined : -c;
  }
  if (typeof a === "number" && typeof b === "number") return compareDouble(a, b);
  if (typeof a === "string" && typeof b === "string") return compareString(a, b);
  if (typeof a === "boolean" && typeof b === "boolean") return compareBool(a, b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a instanceof Date && b instanceof Date) return compareTimes(goTimeOf(a), goTimeOf(b));
  if (a instanceof Duration && b instanceof Duration) return compareBigint(durationNanos(a), durationNanos(b));
  return undefined;
}

/** Whether a value has an ordering at all (cel-go `traits.Comparer`). */
export function celOrderable(v: unknown): boolean {
  return (
    typeof v === "bigint" ||
    typeof v === "number" ||
    typeof v === "string" ||
    typeof v === "boolean" ||
    v instanceof UnsignedInt ||
    v instanceof Uint8Array ||
    v instanceof Date ||
    v instanceof Duration
  );
}

/** How the lists extension's sort sees its keys. */
export const CEL_KEY_ORDERING = { compare: celCompare, typeName: runtimeTypeName, comparable: celOrderable };

/** cel-go `Add` of two values of one summable type (int, uint, double, duration), with its overflow errors. */
export function celAdd(a: unknown, b: unknown): unknown {
  if (typeof a === "bigint" && typeof b === "bigint") return addInt(a, b);
  if (a instanceof UnsignedInt && b instanceof UnsignedInt) return new UnsignedInt(addUint(a.valueOf(), b.valueOf()));
  if (typeof a === "number" && typeof b === "number") return addDouble(a, b);
  if (a instanceof Duration && b instanceof Duration) return durationValue(durationNanos(a) + durationNanos(b));
  throw noSuchOverload();
}

/** The zero of the summable types, as `list.sum()` starts from it. */
export const SUM_ZERO = {
  int: 0n,
  uint: new UnsignedInt(0n),
  double: 0,
  "google.protobuf.Duration": new Duration(0n, 0),
} as const;
