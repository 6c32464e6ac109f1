/**
 * Go's `time` package, the parts CEL and kube-openapi rely on: `time.ParseDuration`, `time.Parse` with the RFC 3339
 * layout, `Time.Format(time.RFC3339Nano)`, the calendar fields of an instant in a zone (`Year`, `YearDay`,
 * `Weekday`, …), fixed zones and `time.LoadLocation` (the IANA database through Intl).
 *
 * `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with the units ns, us, µs (micro sign), μs (Greek
 * mu), ms, s, m, h (a unit is everything up to the next digit or `.`), `0` alone, and no value beyond the int64
 * range of nanoseconds. Fractions are added as Go adds them, through a float64 (`v += uint64(float64(f) *
 * (float64(unit) / scale))`), and a fraction's digits stop counting once they would overflow.
 */

const NANOS_PER_UNIT: ReadonlyMap<string, bigint> = new Map([
  ["ns", 1n],
  ["us", 1_000n],
  ["\u00b5s", 1_000n], // micro sign
  ["\u03bcs", 1_000n], // Greek small letter mu
  ["ms", 1_000_000n],
  ["s", 1_000_000_000n],
  ["m", 60_000_000_000n],
  ["h", 3_600_000_000_000n],
]);

const TWO_POW_63 = 1n << 63n;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** `leadingInt`: the integer at `s[i:]` and where it ends; undefined beyond 2^63. */
function leadingInt(s: string, i: number): { value: bigint; end: number } | undefined {
  let v = 0n;
  while (i < s.length && isDigit(s.charCodeAt(i))) {
    if (v > TWO_POW_63 / 10n) return undefined;
    v = v * 10n + BigInt(s.charCodeAt(i) - 0x30);
    if (v > TWO_POW_63) return undefined;
    i++;
  }
  return { value: v, end: i };
}

/** `leadingFraction`: the digits at `s[i:]` as an integer and its scale (accumulation stops on overflow). */
function leadingFraction(s: string, i: number): { value: bigint; scale: number; end: number } {
  let f = 0n;
  let scale = 1;
  let overflow = false;
  while (i < s.length && isDigit(s.charCodeAt(i))) {
    if (!overflow) {
      if (f > (TWO_POW_63 - 1n) / 10n) overflow = true;
      else {
        const y = f * 10n + BigInt(s.charCodeAt(i) - 0x30);
        if (y > TWO_POW_63) overflow = true;
        else {
          f = y;
          scale *= 10;
        }
      }
    }
    i++;
  }
  return { value: f, scale, end: i };
}

/** `time.ParseDuration(s)` in nanoseconds, or undefined where Go returns an error. */
export function parseDuration(input: string): bigint | undefined {
  let s = input;
  let negative = false;
  if (s.startsWith("-") || s.startsWith("+")) {
    negative = s.startsWith("-");
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") return undefined;
  let total = 0n;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (!(c === 0x2e || isDigit(c))) return undefined;
    const int = leadingInt(s, i);
    if (int === undefined) return undefined;
    const hasInt = int.end > i;
    i = int.end;
    let fraction = { value: 0n, scale: 1, end: i };
    if (i < s.length && s.charCodeAt(i) === 0x2e) fraction = leadingFraction(s, i + 1);
    const hasFraction = fraction.end > i + 1;
    i = fraction.end;
    if (!hasInt && !hasFraction) return undefined;
    const unitFrom = i;
    while (i < s.length && !(s.charCodeAt(i) === 0x2e || isDigit(s.charCodeAt(i)))) i++;
    const unit = NANOS_PER_UNIT.get(s.slice(unitFrom, i));
    if (unit === undefined) return undefined;
    let v = int.value;
    if (v > TWO_POW_63 / unit) return undefined;
    v *= unit;
    if (fraction.value > 0n) {
      v += BigInt(Math.trunc(Number(fraction.value) * (Number(unit) / fraction.scale)));
      if (v > TWO_POW_63) return undefined;
    }
    total += v;
    if (total > TWO_POW_63) return undefined;
  }
  if (negative) return -total;
  return total <= TWO_POW_63 - 1n ? total : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Instants, RFC 3339 and calendars

/** A Go `time.Time`: seconds since the Unix epoch, nanoseconds in [0, 1e9), and its zone's offset east of UTC. */
export interface GoTime {
  readonly seconds: bigint;
  readonly nanos: number;
  /** The offset of the time's location, in seconds east of UTC (0 for UTC). */
  readonly offset: number;
}

const SECONDS_PER_DAY = 86_400;

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** Go's `daysIn`: the days of a month (1-12) of a year of the proleptic Gregorian calendar. */
export function daysIn(month: number, year: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days since 1970-01-01 of a civil date (month 1-12). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The civil date of a count of days since 1970-01-01. */
function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** The calendar fields of a time in its zone (`t.Year()`, `t.Month()`, … of Go; month 1-12, weekday 0 = Sunday). */
export interface CalendarFields {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  /** `t.YearDay()`: 1-366. */
  readonly yearDay: number;
  readonly weekday: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly nanos: number;
}

/** The calendar fields of `t` at its offset. */
export function calendarOf(t: GoTime): CalendarFields {
  const local = Number(t.seconds) + t.offset;
  const days = Math.floor(local / SECONDS_PER_DAY);
  const secondOfDay = local - days * SECONDS_PER_DAY;
  const { year, month, day } = civilFromDays(days);
  return {
    year,
    month,
    day,
    yearDay: days - daysFromCivil(year, 1, 1) + 1,
    weekday: (((days + 4) % 7) + 7) % 7,
    hour: Math.floor(secondOfDay / 3600),
    minute: Math.floor((secondOfDay % 3600) / 60),
    second: secondOfDay % 60,
    nanos: t.nanos,
  };
}

function digitsAt(s: string, from: number, count: number): number | undefined {
  if (from + count > s.length) return undefined;
  let v = 0;
  for (let i = from; i < from + count; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return undefined;
    v = v * 10 + (c - 0x30);
  }
  return v;
}

/**
 * `time.Parse(time.RFC3339, s)` ("2006-01-02T15:04:05Z07:00"): a four-digit year, two-digit month, day, minute and
 * second, a one- or two-digit hour, an optional fraction after the seconds (`.` or `,`, any number of digits, the
 * first nine kept), then `Z` or `±hh:mm` (hours up to 24, minutes up to 60, as Go's general parser allows). The
 * month and day are checked against the calendar; the instant is not range-checked. Undefined where Go fails.
 */
export function parseRFC3339(s: string): GoTime | undefined {
  const year = digitsAt(s, 0, 4);
  if (year === undefined || s[4] !== "-") return undefined;
  const month = digitsAt(s, 5, 2);
  if (month === undefined || month < 1 || month > 12 || s[7] !== "-") return undefined;
  const day = digitsAt(s, 8, 2);
  if (day === undefined || s[10] !== "T") return undefined;
  let i = 11;
  const hourWidth = isDigit(s.charCodeAt(i + 1)) ? 2 : 1;
  const hour = digitsAt(s, i, hourWidth);
  if (hour === undefined || hour >= 24) return undefined;
  i += hourWidth;
  if (s[i] !== ":") return undefined;
  const minute = digitsAt(s, i + 1, 2);
  if (minute === undefined || minute >= 60 || s[i + 3] !== ":") return undefined;
  const second = digitsAt(s, i + 4, 2);
  if (second === undefined || second >= 60) return undefined;
  i += 6;
  let nanos = 0;
  if ((s[i] === "." || s[i] === ",") && isDigit(s.charCodeAt(i + 1))) {
    let end = i + 1;
    while (end < s.length && isDigit(s.charCodeAt(end))) end++;
    nanos = Number(s.slice(i + 1, Math.min(end, i + 10)).padEnd(9, "0"));
    i = end;
  }
  let offset = 0;
  if (s[i] === "Z") {
    i++;
  } else {
    const sign = s[i];
    const oh = digitsAt(s, i + 1, 2);
    const om = digitsAt(s, i + 4, 2);
    if ((sign !== "+" && sign !== "-") || oh === undefined || s[i + 3] !== ":" || om === undefined) return undefined;
    if (oh > 24 || om > 60) return undefined;
    offset = (sign === "-" ? -1 : 1) * (oh * 3600 + om * 60);
    i += 6;
  }
  if (i !== s.length || day < 1 || day > daysIn(month, year)) return undefined;
  const local = daysFromCivil(year, month, day) * SECONDS_PER_DAY + hour * 3600 + minute * 60 + second;
  return { seconds: BigInt(local - offset), nanos, offset };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/** `t.Format(time.RFC3339Nano)`: the local date and time, the fraction without trailing zeros, `Z` or `±hh:mm`. */
export function formatRFC3339Nano(t: GoTime): string {
  const c = calendarOf(t);
  let out = `${pad(c.year, 4)}-${pad(c.month, 2)}-${pad(c.day, 2)}T${pad(c.hour, 2)}:${pad(c.minute, 2)}:${pad(c.second, 2)}`;
  if (t.nanos !== 0) out += `.${pad(t.nanos, 9).replace(/0+$/, "")}`;
  if (t.offset === 0) return `${out}Z`;
  // Go prints the zone in whole minutes.
  const minutes = Math.trunc(t.offset / 60);
  const abs = Math.abs(minutes);
  return `${out}${minutes < 0 ? "-" : "+"}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}`;
}

const zoneFormats = new Map<string, Intl.DateTimeFormat | null>();

function zoneFormat(name: string): Intl.DateTimeFormat | null {
  let f = zoneFormats.get(name);
  if (f !== undefined) return f;
  try {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: name,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      era: "short",
    });
    // Go opens the zone file by name, so the name is case-sensitive; Intl is not.
    const resolved = f.resolvedOptions().timeZone;
    if (resolved !== name && resolved.toLowerCase() === name.toLowerCase()) f = null;
  } catch {
    f = null;
  }
  if (zoneFormats.size < 1000) zoneFormats.set(name, f);
  return f;
}

/**
 * `time.LoadLocation(name)` applied at an instant: the zone's offset east of UTC in seconds at `seconds` (Unix),
 * or undefined for an unknown zone (Go: `unknown time zone <name>`). `""` and `UTC` are UTC; `Local` is the
 * API server's local zone, taken as UTC.
 */
export function zoneOffsetAt(name: string, seconds: bigint): number | undefined {
  if (name === "" || name === "UTC" || name === "Local") return 0;
  const f = zoneFormat(name);
  if (f === null) return undefined;
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(new Date(Number(seconds) * 1000))) parts[p.type] = p.value;
  const yearOfEra = Number(parts.year);
  const year = parts.era === "BC" || parts.era === "B" ? 1 - yearOfEra : yearOfEra;
  const local =
    daysFromCivil(year, Number(parts.month), Number(parts.day)) * SECONDS_PER_DAY +
    Number(parts.hour) * 3600 +
    Number(parts.minute) * 60 +
    Number(parts.second);
  return local - Number(seconds);
}
