/**
 * The CEL values of timestamps and durations. The engine holds a timestamp as a JavaScript `Date` (milliseconds)
 * and a duration as its `Duration` (seconds and nanos). A tollgate timestamp is a `Date` of the instant's
 * millisecond that also carries the nanoseconds below it and its zone's offset (symbol-keyed, so the engine still
 * sees a `Date`); a `Date` without them is a UTC time at whole milliseconds. Durations are built from int64
 * nanoseconds. The Go semantics on these values are in implementations/time.ts.
 */
import type { GoTime } from "../go/time.js";
import { Duration } from "./engine.js";
import { checkedDuration } from "./implementations/time.js";

const SUB_MILLI_NANOS = Symbol("subMilliNanos");
const ZONE_OFFSET = Symbol("zoneOffset");

interface TimestampExtras {
  [SUB_MILLI_NANOS]?: number;
  [ZONE_OFFSET]?: number;
}

const NANOS_PER_SECOND = 1_000_000_000n;

/**
 * The CEL timestamp of a Go time. Not range-checked: cel-go's conversions and arithmetic check the range
 * (implementations/time.ts), the API server's values of `date-time` fields are not.
 */
export function timestampValue(t: GoTime): Date {
  const millis = Math.floor(t.nanos / 1_000_000);
  const d: Date & TimestampExtras = new Date(Number(t.seconds) * 1000 + millis);
  const below = t.nanos - millis * 1_000_000;
  if (below !== 0) d[SUB_MILLI_NANOS] = below;
  if (t.offset !== 0) d[ZONE_OFFSET] = t.offset;
  return d;
}

/** The Go time of a CEL timestamp. */
export function goTimeOf(d: Date): GoTime {
  const ms = d.getTime();
  const seconds = Math.floor(ms / 1000);
  const extras: Date & TimestampExtras = d;
  return {
    seconds: BigInt(seconds),
    nanos: (ms - seconds * 1000) * 1_000_000 + (extras[SUB_MILLI_NANOS] ?? 0),
    offset: extras[ZONE_OFFSET] ?? 0,
  };
}

/** The CEL duration of `nanos` nanoseconds; throws `integer overflow` beyond int64. */
export function durationValue(nanos: bigint): Duration {
  const n = checkedDuration(nanos);
  return new Duration(n / NANOS_PER_SECOND, Number(n % NANOS_PER_SECOND));
}

/** The nanoseconds of a CEL duration. */
export function durationNanos(d: Duration): bigint {
  return d.seconds * NANOS_PER_SECOND + BigInt(d.nanos);
}

export { Duration };
