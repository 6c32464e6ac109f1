/**
 * cel-go's type conversions (`int()`, `uint()`, `double()`, `bool()`, `string()`, `duration()`, `timestamp()`;
 * common/types `ConvertToType` and overflow.go), on plain values: int and uint as bigint, double as number, bytes
 * as Uint8Array, timestamps as Go times, durations as int64 nanoseconds. Strings are parsed with Go's strconv
 * (`ParseInt`, `ParseUint`, `ParseFloat` with hexadecimal floats, `ParseBool` with `T`, `F`, `TRUE`, …),
 * `time.ParseDuration` and `time.Parse(time.RFC3339, …)`.
 *
 * Failures carry cel-go's texts: `type conversion error from 'string' to 'int'` for text that does not parse (the
 * type names are cel-go's: `google.protobuf.Duration`, `google.protobuf.Timestamp`), `integer overflow` /
 * `unsigned integer overflow` for numbers out of range, `timestamp overflow`, `invalid UTF-8 in bytes, cannot
 * convert to string`.
 */
import {
  formatFloatShortestF,
  formatFloatShortestG,
  parseBool,
  parseFloat64,
  parseInt64,
  parseUint64,
} from "../../go/strconv.js";
import { formatRFC3339Nano, type GoTime, parseDuration, parseRFC3339 } from "../../go/time.js";
import { LibraryError } from "./error.js";
import { checkedTimestamp } from "./time.js";

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const TWO_POW_63 = 2 ** 63;
const TWO_POW_64 = 2 ** 64;

/** cel-go's `type conversion error from '<from>' to '<to>'`. */
export function conversionError(from: string, to: string): LibraryError {
  return new LibraryError(`type conversion error from '${from}' to '${to}'`);
}

/** `int(string)`: `strconv.ParseInt(s, 10, 64)`. */
export function intFromString(s: string): bigint {
  const v = parseInt64(s);
  if (v === undefined) throw conversionError("string", "int");
  return v;
}

/** `int(double)`: truncation; `integer overflow` for NaN, infinities and values outside (-2^63, 2^63). */
export function intFromDouble(d: number): bigint {
  if (Number.isNaN(d) || d <= -TWO_POW_63 || d >= TWO_POW_63) throw new LibraryError("integer overflow");
  return BigInt(Math.trunc(d));
}

/** `int(uint)`: `integer overflow` above 2^63-1. */
export function intFromUint(u: bigint): bigint {
  if (u > INT64_MAX) throw new LibraryError("integer overflow");
  return u;
}

/** `uint(string)`: `strconv.ParseUint(s, 10, 64)`. */
export function uintFromString(s: string): bigint {
  const v = parseUint64(s);
  if (v === undefined) throw conversionError("string", "uint");
  return v;
}

/** `uint(int)`: `unsigned integer overflow` below 0. */
export function uintFromInt(i: bigint): bigint {
  if (i < 0n) throw new LibraryError("unsigned integer overflow");
  return i;
}

/** `uint(double)`: truncation; `unsigned integer overflow` for NaN, infinities and values outside [0, 2^64). */
export function uintFromDouble(d: number): bigint {
  if (Number.isNaN(d) || d < 0 || d >= TWO_POW_64) throw new LibraryError("unsigned integer overflow");
  return BigInt(Math.trunc(d));
}

/** `double(string)`: `strconv.ParseFloat(s, 64)` (hexadecimal floats, `inf`, `NaN`; out of range is an error). */
export function doubleFromString(s: string): number {
  const v = parseFloat64(s);
  if (v === undefined) throw conversionError("string", "double");
  return v;
}

/** `bool(string)`: `strconv.ParseBool`. */
export function boolFromString(s: string): boolean {
  const v = parseBool(s);
  if (v === undefined) throw conversionError("string", "bool");
  return v;
}

/** `string(double)`: Go's `%g` (shortest digits, exponent from 1e+21 and below 1e-4: `1e+06`, `+Inf`). */
export function stringFromDouble(d: number): string {
  return formatFloatShortestG(d);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** `string(bytes)`: the bytes as UTF-8 text; `invalid UTF-8 in bytes, cannot convert to string`. */
export function stringFromBytes(b: Uint8Array): string {
  try {
    return utf8.decode(b);
  } catch {
    throw new LibraryError("invalid UTF-8 in bytes, cannot convert to string");
  }
}

/** `string(timestamp)`: `t.Format(time.RFC3339Nano)`, in the zone the timestamp was parsed in. */
export function stringFromTime(t: GoTime): string {
  return formatRFC3339Nano(t);
}

/** `string(duration)`: `strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"`. */
export function stringFromDuration(nanos: bigint): string {
  const seconds = Number(nanos / 1_000_000_000n) + Number(nanos % 1_000_000_000n) / 1e9;
  return `${formatFloatShortestF(seconds)}s`;
}

/** `duration(string)`: `time.ParseDuration`. */
export function durationFromString(s: string): bigint {
  const v = parseDuration(s);
  if (v === undefined) throw conversionError("string", "google.protobuf.Duration");
  return v;
}

/** `timestamp(string)`: `time.Parse(time.RFC3339, s)`, then cel-go's range check (`timestamp overflow`). */
export function timeFromString(s: string): GoTime {
  const t = parseRFC3339(s);
  if (t === undefined) throw conversionError("string", "google.protobuf.Timestamp");
  return checkedTimestamp(t);
}

/** `timestamp(int)`: seconds since the epoch, in UTC (`timestamp overflow` outside the range). */
export function timeFromSeconds(seconds: bigint): GoTime {
  return checkedTimestamp({ seconds, nanos: 0, offset: 0 });
}

/** `int(timestamp)`: `t.Unix()`. */
export function secondsOfTime(t: GoTime): bigint {
  return t.seconds;
}

/** The int64 range check of cel-go's int arithmetic (`integer overflow`). */
export function checkedInt(v: bigint): bigint {
  if (v < INT64_MIN || v > INT64_MAX) throw new LibraryError("integer overflow");
  return v;
}
