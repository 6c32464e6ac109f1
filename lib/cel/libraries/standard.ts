/**
 * cel-go's standard library where the engine's built-ins differ from it (common/stdlib/standard.go and
 * common/types): in every environment.
 *
 * - Type conversions (`int`, `uint`, `double`, `bool`, `string`, `duration`, `timestamp`) parse with Go's strconv
 *   and time packages and fail with cel-go's texts (`type conversion error from 'string' to 'int'`,
 *   `integer overflow`, …); with a `dyn` argument of a type no overload takes, `no such overload: int(bool)`.
 * - Timestamps keep nanoseconds and their zone, durations are int64 nanoseconds: arithmetic, comparisons and the
 *   accessors (`getHours()`, `getHours('+02:00')`, …) are cel-go's, with `timestamp overflow` and
 *   `integer overflow` at the range limits.
 * - int division and modulus of the minimum by -1 and negation of the minimum overflow (`integer overflow`).
 * - Overloads cel-go has and the engine lacks: `int(uint)`, `int(timestamp)`, `int(duration)`,
 *   `string(duration)`, `duration(int)`, and the ordering of bytes.
 */
import { ENGINE_HANDLER, type EngineRegistrar, Optional, UnsignedInt } from "../engine.js";
import { celEquals } from "../equality.js";
import {
  boolFromString,
  checkedInt,
  conversionError,
  doubleFromString,
  durationFromString,
  intFromDouble,
  intFromString,
  intFromUint,
  secondsOfTime,
  stringFromBytes,
  stringFromDouble,
  stringFromDuration,
  stringFromTime,
  timeFromSeconds,
  timeFromString,
  uintFromDouble,
  uintFromInt,
  uintFromString,
} from "../implementations/conversions.js";
import { LibraryError } from "../implementations/error.js";
import { compareBytes } from "../implementations/lists.js";
import {
  addToTime,
  compareTimes,
  DURATION_ACCESSORS,
  durationField,
  subtractFromTime,
  TIMESTAMP_ACCESSORS,
  timeDifference,
  timeField,
} from "../implementations/time.js";
import { RAW, StructValue } from "../schema-types.js";
import { Duration, durationNanos, durationValue, goTimeOf, timestampValue } from "../time-values.js";
import { compareIntegerDouble } from "../value-traits.js";
import { type CelLibrary, type LibraryOverride, libraryCall } from "./library.js";

const TIMESTAMP = "google.protobuf.Timestamp";
const DURATION = "google.protobuf.Duration";
const INT64_MIN = -(1n << 63n);

function uint(v: bigint): UnsignedInt {
  return new UnsignedInt(v);
}

/**
 * One conversion function: the result for the argument's runtime type, else the engine's overloads (a library's
 * `string(ip)`, or the engine's no-such-overload error, which cel-go words `no such overload: int(bool)`).
 */
function conversion(convert: (v: unknown) => unknown): LibraryOverride {
  return {
    run: libraryCall((args: readonly unknown[]) =>
      args.length === 1 ? (convert(args[0]) ?? ENGINE_HANDLER) : ENGINE_HANDLER,
    ),
  };
}

function toInt(v: unknown): unknown {
  if (typeof v === "bigint") return v;
  if (v instanceof UnsignedInt) return intFromUint(v.valueOf());
  if (typeof v === "number") return intFromDouble(v);
  if (typeof v === "string") return intFromString(v);
  if (v instanceof Date) return secondsOfTime(goTimeOf(v));
  if (v instanceof Duration) return durationNanos(v);
  return undefined;
}

function toUint(v: unknown): unknown {
  if (v instanceof UnsignedInt) return v;
  if (typeof v === "bigint") return uint(uintFromInt(v));
  if (typeof v === "number") return uint(uintFromDouble(v));
  if (typeof v === "string") return uint(uintFromString(v));
  return undefined;
}

function toDouble(v: unknown): unknown {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof UnsignedInt) return Number(v.valueOf());
  if (typeof v === "string") return doubleFromString(v);
  return undefined;
}

function toBool(v: unknown): unknown {
  if (typeof v === "boolean") return v;
  if (typeof v === "string") return boolFromString(v);
  return undefined;
}

function toStringValue(v: unknown): unknown {
  switch (typeof v) {
    case "string":
      return v;
    case "boolean":
    case "bigint":
      return String(v);
    case "number":
      return stringFromDouble(v);
  }
  if (v instanceof UnsignedInt) return String(v.valueOf());
  if (v instanceof Uint8Array) return stringFromBytes(v);
  if (v instanceof Date) return stringFromTime(goTimeOf(v));
  if (v instanceof Duration) return stringFromDuration(durationNanos(v));
  return undefined;
}

function toDuration(v: unknown): unknown {
  if (v instanceof Duration) return v;
  if (typeof v === "string") return durationValue(durationFromString(v));
  // cel-go declares duration(int), but an int does not convert to a duration.
  if (typeof v === "bigint") throw conversionError("int", DURATION);
  return undefined;
}

function toTimestamp(v: unknown): unknown {
  if (v instanceof Date) return v;
  if (typeof v === "string") return timestampValue(timeFromString(v));
  if (typeof v === "bigint") return timestampValue(timeFromSeconds(v));
  return undefined;
}

/** An override of an operator on timestamps and durations (the engine's handler for any other operands). */
function timeOperator(run: (a: unknown, b: unknown) => unknown): LibraryOverride {
  return {
    operandTypes: [TIMESTAMP, DURATION],
    run: libraryCall((args: readonly unknown[]) => run(args[0], args[1])),
  };
}

function plus(a: unknown, b: unknown): unknown {
  if (a instanceof Date && b instanceof Duration) return timestampValue(addToTime(goTimeOf(a), durationNanos(b)));
  if (a instanceof Duration && b instanceof Date) return timestampValue(addToTime(goTimeOf(b), durationNanos(a)));
  if (a instanceof Duration && b instanceof Duration) return durationValue(durationNanos(a) + durationNanos(b));
  return ENGINE_HANDLER;
}

function minus(a: unknown, b: unknown): unknown {
  if (a instanceof Date && b instanceof Duration)
    return timestampValue(subtractFromTime(goTimeOf(a), durationNanos(b)));
  if (a instanceof Date && b instanceof Date) return durationValue(timeDifference(goTimeOf(a), goTimeOf(b)));
  if (a instanceof Duration && b instanceof Duration) return durationValue(durationNanos(a) - durationNanos(b));
  return ENGINE_HANDLER;
}

/** cel-go `Compare` of two timestamps or two durations; undefined for other operands. */
function compareTime(a: unknown, b: unknown): number | undefined {
  if (a instanceof Date && b instanceof Date) return compareTimes(goTimeOf(a), goTimeOf(b));
  if (a instanceof Duration && b instanceof Duration) {
    const x = durationNanos(a);
    const y = durationNanos(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return undefined;
}

/** An int or uint as a bigint, else undefined. */
function integerValue(v: unknown): bigint | undefined {
  return typeof v === "bigint" ? v : v instanceof UnsignedInt ? v.valueOf() : undefined;
}

/** cel-go's comparison of an integer with a double (compareIntDouble: as doubles); undefined for other operands. */
function compareMixedNumbers(a: unknown, b: unknown): number | undefined {
  const ia = integerValue(a);
  if (ia !== undefined && typeof b === "number") return compareIntegerDouble(ia, b);
  const ib = integerValue(b);
  if (ib !== undefined && typeof a === "number") {
    const c = compareIntegerDouble(ib, a);
    return c === undefined ? undefined : -c;
  }
  return undefined;
}

/** A comparison operator on timestamps, durations, and an integer with a double (the engine's for the others). */
function comparison(test: (c: number) => boolean): LibraryOverride {
  return {
    operandTypes: [TIMESTAMP, DURATION, "double"],
    run: libraryCall((args: readonly unknown[]) => {
      const [a, b] = args;
      const c = compareTime(a, b) ?? compareMixedNumbers(a, b);
      return c === undefined ? ENGINE_HANDLER : test(c);
    }),
  };
}

/** The accessors of timestamps (with an optional zone) and durations. */
function accessor(name: string): LibraryOverride {
  return {
    operandTypes: [TIMESTAMP, DURATION],
    run: libraryCall((args: readonly unknown[]) => {
      const [target, zone] = args;
      if (target instanceof Date && (args.length === 1 || typeof zone === "string")) {
        return timeField(name, goTimeOf(target), zone as string | undefined);
      }
      if (target instanceof Duration && args.length === 1 && DURATION_ACCESSORS.includes(name)) {
        return durationField(name, durationNanos(target));
      }
      return ENGINE_HANDLER;
    }),
  };
}

/** int `/`, `%` and negation with cel-go's overflow checks (the engine's handler for other operands). */
function intOperator(run: (a: bigint, b: bigint) => bigint): LibraryOverride {
  return {
    operandTypes: ["int"],
    run: libraryCall((args: readonly unknown[]) => {
      const [a, b] = args;
      return typeof a === "bigint" && typeof b === "bigint" ? run(a, b) : ENGINE_HANDLER;
    }),
  };
}

/**
 * `x in list` with a dyn operand: cel-go tests the list's elements with its runtime equality, which crosses the
 * numeric types (`dyn(3) in [3u]`); the engine's does not. Maps are left to the engine.
 */
const IN_LIST: LibraryOverride = {
  operandTypes: ["list<dyn>"],
  run: (args: readonly unknown[]) => {
    const [x, list] = args;
    return Array.isArray(list) ? list.some((e) => celEquals(x, e)) : ENGINE_HANDLER;
  },
};

const OVERRIDES: Record<string, LibraryOverride> = {
  _in_: IN_LIST,
  int: conversion(toInt),
  uint: conversion(toUint),
  double: conversion(toDouble),
  bool: conversion(toBool),
  string: conversion(toStringValue),
  duration: conversion(toDuration),
  timestamp: conversion(toTimestamp),
  "_+_": timeOperator(plus),
  "_-_": timeOperator(minus),
  "_<_": comparison((c) => c < 0),
  "_<=_": comparison((c) => c <= 0),
  "_>_": comparison((c) => c > 0),
  "_>=_": comparison((c) => c >= 0),
  "_==_": comparison((c) => c === 0),
  "_!=_": comparison((c) => c !== 0),
  "_/_": intOperator((a, b) => {
    if (b === 0n) throw new LibraryError("division by zero");
    return checkedInt(a / b);
  }),
  "_%_": intOperator((a, b) => {
    if (b === 0n) throw new LibraryError("modulus by zero");
    if (a === INT64_MIN && b === -1n) throw new LibraryError("integer overflow");
    return a % b;
  }),
  "-_": {
    operandTypes: ["int"],
    run: libraryCall((args: readonly unknown[]) =>
      typeof args[0] === "bigint" ? checkedInt(-args[0]) : ENGINE_HANDLER,
    ),
  },
};
for (const name of new Set([...TIMESTAMP_ACCESSORS, ...DURATION_ACCESSORS])) OVERRIDES[`.${name}`] = accessor(name);

/**
 * cel-go `IsZeroValue`: null, false, 0, 0u, 0.0, '', b'', an empty list or map or object, a zero duration, Go's zero
 * time (0001-01-01T00:00:00Z), an empty optional.
 */
function isZeroValue(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0n || v === 0 || v === "") return true;
  if (v instanceof UnsignedInt) return v.valueOf() === 0n;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length === 0;
  // Before Map: a struct value is a Map whose own entries are empty (its fields are read from the object it wraps).
  if (v instanceof StructValue) return Object.keys(v[RAW]).length === 0;
  if (v instanceof Map || v instanceof Set) return v.size === 0;
  if (v instanceof Duration) return durationNanos(v) === 0n;
  if (v instanceof Date) return goTimeOf(v).seconds === GO_ZERO_TIME_SECONDS && goTimeOf(v).nanos === 0;
  if (v instanceof Optional) return !v.hasValue();
  if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) return Object.keys(v).length === 0;
  return false;
}

/** Go's zero time, 0001-01-01T00:00:00Z, in Unix seconds. */
const GO_ZERO_TIME_SECONDS = -62135596800n;

/** Orders two byte strings (cel-go `Bytes.Compare`: bytewise). */
function bytesOrder(test: (c: number) => boolean) {
  return (a: Uint8Array, b: Uint8Array) => test(compareBytes(a, b));
}

/** The overloads cel-go has and the engine lacks (a checked call runs the override above). */
function register(env: EngineRegistrar): void {
  const toIntCall = libraryCall((v: unknown) => toInt(v));
  env.registerFunction("int(uint): int", toIntCall);
  env.registerFunction(`int(${TIMESTAMP}): int`, toIntCall);
  env.registerFunction(`int(${DURATION}): int`, toIntCall);
  env.registerFunction(
    `string(${DURATION}): string`,
    libraryCall((v: unknown) => toStringValue(v)),
  );
  env.registerFunction(
    `string(${TIMESTAMP}): string`,
    libraryCall((v: unknown) => toStringValue(v)),
  );
  env.registerFunction(
    `duration(int): ${DURATION}`,
    libraryCall((v: unknown) => toDuration(v)),
  );
  env.registerFunction(`timestamp(${TIMESTAMP}): ${TIMESTAMP}`, (v: Date) => v);
  env.registerFunction(`duration(${DURATION}): ${DURATION}`, (v: Duration) => v);
  // cel-go's optional library: the value unless it is its type's zero value
  env.registerFunction("OptionalNamespace.ofNonZeroValue(A): optional<A>", (_ns: unknown, v: unknown) =>
    isZeroValue(v) ? Optional.none() : Optional.of(v),
  );
  env.registerOperator(
    "bytes < bytes",
    bytesOrder((c) => c < 0),
  );
  env.registerOperator(
    "bytes <= bytes",
    bytesOrder((c) => c <= 0),
  );
  env.registerOperator(
    "bytes > bytes",
    bytesOrder((c) => c > 0),
  );
  env.registerOperator(
    "bytes >= bytes",
    bytesOrder((c) => c >= 0),
  );
}

export const STANDARD_LIBRARY: CelLibrary = { name: "standard", register, overrides: OVERRIDES };
