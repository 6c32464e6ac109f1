/**
 * CEL timestamps and durations as cel-go has them (common/types/timestamp.go, duration.go, overflow.go;
 * common/stdlib/standard.go), on Go times (`GoTime`: nanosecond precision, with the offset of the zone the time was
 * parsed in) and durations as int64 nanoseconds (`bigint`). The CEL values the engine holds are made in
 * ../time-values.ts.
 *
 * Errors are cel-go's: `timestamp overflow` outside 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999999Z,
 * `integer overflow` for a duration beyond int64 nanoseconds, `unknown time zone <name>` and `strconv.Atoi`'s
 * errors for a bad time zone argument.
 */
import { goQuote, parseInt64 } from "../../go/strconv.js";
import { type CalendarFields, calendarOf, type GoTime, zoneOffsetAt } from "../../go/time.js";
import { LibraryError } from "./error.js";

/** Seconds since the epoch of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z (cel-go minUnixTime, maxUnixTime). */
const MIN_UNIX_SECONDS = -62_135_596_800n;
const MAX_UNIX_SECONDS = 253_402_300_799n;

const NANOS_PER_SECOND = 1_000_000_000n;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** A time within cel-go's timestamp range; throws `timestamp overflow` otherwise. */
export function checkedTimestamp(t: GoTime): GoTime {
  if (t.seconds < MIN_UNIX_SECONDS || t.seconds > MAX_UNIX_SECONDS) throw new LibraryError("timestamp overflow");
  return t;
}

/** A duration within int64 nanoseconds; throws cel-go's `integer overflow` otherwise. */
export function checkedDuration(nanos: bigint): bigint {
  if (nanos < INT64_MIN || nanos > INT64_MAX) throw new LibraryError("integer overflow");
  return nanos;
}

function epochNanos(t: GoTime): bigint {
  return t.seconds * NANOS_PER_SECOND + BigInt(t.nanos);
}

/** cel-go `Timestamp.Compare`: by instant, whatever the zones. */
export function compareTimes(a: GoTime, b: GoTime): number {
  const x = epochNanos(a);
  const y = epochNanos(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** cel-go `addTimeDurationChecked`: the zone is kept; `timestamp overflow` outside the range. */
export function addToTime(t: GoTime, nanos: bigint): GoTime {
  const total = epochNanos(t) + nanos;
  let seconds = total / NANOS_PER_SECOND;
  let rest = total % NANOS_PER_SECOND;
  if (rest < 0n) {
    seconds -= 1n;
    rest += NANOS_PER_SECOND;
  }
  return checkedTimestamp({ seconds, nanos: Number(rest), offset: t.offset });
}

/** cel-go `subtractTimeDurationChecked`: the duration is negated first (`integer overflow` for the minimum). */
export function subtractFromTime(t: GoTime, nanos: bigint): GoTime {
  return addToTime(t, checkedDuration(-nanos));
}

/** cel-go `subtractTimeChecked`: the difference in nanoseconds, `integer overflow` beyond int64. */
export function timeDifference(a: GoTime, b: GoTime): bigint {
  return checkedDuration(epochNanos(a) - epochNanos(b));
}

/** `strconv.Atoi`, with Go's error text. */
function atoi(s: string): number {
  const v = parseInt64(s);
  if (v === undefined) {
    const why = /^[+-]?[0-9]+$/.test(s) ? "value out of range" : "invalid syntax";
    throw new LibraryError(`strconv.Atoi: parsing ${goQuote(s)}: ${why}`);
  }
  return Number(v);
}

/**
 * cel-go `inTimeZone`: a zone name (`time.LoadLocation`: `unknown time zone <name>`), or, when the argument holds
 * a `:`, a numeric offset `[+-]hh:mm` read with `strconv.Atoi` on both sides of the first colon.
 */
function inZone(t: GoTime, zone: string): GoTime {
  const colon = zone.indexOf(":");
  if (colon === -1) {
    const offset = zoneOffsetAt(zone, t.seconds);
    if (offset === undefined) throw new LibraryError(`unknown time zone ${zone}`);
    return { ...t, offset };
  }
  const hours = atoi(zone.slice(0, colon));
  const minutes = atoi(zone.slice(colon + 1));
  const offsetMinutes = zone[0] === "-" ? hours * 60 - minutes : hours * 60 + minutes;
  return { ...t, offset: offsetMinutes * 60 };
}

/** The timestamp accessors (`getFullYear`, …) as fields of the calendar. */
const TIME_FIELDS: Readonly<Record<string, (c: CalendarFields) => number>> = {
  getFullYear: (c) => c.year,
  getMonth: (c) => c.month - 1,
  getDayOfYear: (c) => c.yearDay - 1,
  getDayOfMonth: (c) => c.day - 1,
  getDate: (c) => c.day,
  getDayOfWeek: (c) => c.weekday,
  getHours: (c) => c.hour,
  getMinutes: (c) => c.minute,
  getSeconds: (c) => c.second,
  getMilliseconds: (c) => Math.floor(c.nanos / 1_000_000),
};

/** The names of the timestamp accessors. */
export const TIMESTAMP_ACCESSORS: readonly string[] = Object.keys(TIME_FIELDS);

/** A timestamp accessor; without a zone in UTC (cel-go with DefaultUTCTimeZone, which Kubernetes sets). */
export function timeField(name: string, t: GoTime, zone?: string): bigint {
  const field = TIME_FIELDS[name];
  if (field === undefined) throw new LibraryError("no such overload");
  return BigInt(field(calendarOf(zone === undefined ? { ...t, offset: 0 } : inZone(t, zone))));
}

/** Go's `Duration.Hours()`, `Minutes()`, `Seconds()`: a float64 of the whole units plus the remainder's fraction. */
function durationIn(nanos: bigint, unit: bigint): number {
  return Number(nanos / unit) + Number(nanos % unit) / Number(unit);
}

const DURATION_FIELDS: Readonly<Record<string, (nanos: bigint) => bigint>> = {
  getHours: (n) => BigInt(Math.trunc(durationIn(n, 3_600n * NANOS_PER_SECOND))),
  getMinutes: (n) => BigInt(Math.trunc(durationIn(n, 60n * NANOS_PER_SECOND))),
  getSeconds: (n) => BigInt(Math.trunc(durationIn(n, NANOS_PER_SECOND))),
  getMilliseconds: (n) => n / 1_000_000n,
};

/** The names of the duration accessors. */
export const DURATION_ACCESSORS: readonly string[] = Object.keys(DURATION_FIELDS);

/** A duration accessor: whole hours, minutes and seconds (cel-go truncates Go's float64), or milliseconds. */
export function durationField(name: string, nanos: bigint): bigint {
  const field = DURATION_FIELDS[name];
  if (field === undefined) throw new LibraryError("no such overload");
  return field(nanos);
}
