import { describe, expect, it } from "vitest";
import { parseOpenAPIDuration } from "../../../../lib/cel/schema-types.js";
import { calendarOf, formatRFC3339Nano, parseDuration, parseRFC3339, zoneOffsetAt } from "../../../../lib/go/time.js";

describe("parseDuration (time.ParseDuration)", () => {
  it.each([
    { input: "0", want: 0n },
    { input: "-0", want: 0n },
    { input: "1h30m", want: 5_400_000_000_000n },
    { input: "1.5s", want: 1_500_000_000n },
    { input: ".5ms", want: 500_000n },
    { input: "1.s", want: 1_000_000_000n },
    { input: "+2us", want: 2_000n },
    { input: "3\u00b5s", want: 3_000n },
    { input: "3\u03bcs", want: 3_000n },
    { input: "-1m1s", want: -61_000_000_000n },
    { input: "9223372036854775807ns", want: 9223372036854775807n },
    { input: "-9223372036854775808ns", want: -9223372036854775808n },
  ])("$input is $want ns", ({ input, want }) => {
    expect(parseDuration(input)).toBe(want);
  });

  it.each([
    { input: "" },
    { input: "-" },
    { input: "1" },
    { input: "s" },
    { input: ".s" },
    { input: "1d" },
    { input: "1 s" },
    { input: "9223372036854775808ns" },
    { input: "2562048h" },
    { input: "99999999999999999999s" },
  ])("$input does not parse", ({ input }) => {
    expect(parseDuration(input)).toBeUndefined();
  });

  it("converts duration fields for CEL as kube-openapi's strfmt.ParseDuration does", () => {
    expect(parseOpenAPIDuration("2562047h")).toBe(9223369200n * 1_000_000_000n);
    // Beyond Go's int64 time.ParseDuration fails; strfmt's fallback multiplies in int64 and wraps.
    expect(parseOpenAPIDuration("2562048h")).toBe(BigInt.asIntN(64, 2562048n * 3_600_000_000_000n));
    expect(parseOpenAPIDuration("3 days")).toBe(3n * 86_400_000_000_000n);
    expect(parseOpenAPIDuration("1w 2hours")).toBe(604_800_000_000_000n + 7_200_000_000_000n);
    expect(parseOpenAPIDuration("99999999999999999999 s")).toBeUndefined();
    expect(parseOpenAPIDuration("3 fortnights")).toBeUndefined();
  });
});

describe("parseRFC3339 / formatRFC3339Nano (time.Parse(time.RFC3339), Format(time.RFC3339Nano))", () => {
  it.each([
    { input: "2009-02-13T23:31:30Z", seconds: 1234567890n, nanos: 0, offset: 0, formatted: "2009-02-13T23:31:30Z" },
    {
      input: "2009-02-13T23:31:30.123456789123Z",
      seconds: 1234567890n,
      nanos: 123456789,
      offset: 0,
      formatted: "2009-02-13T23:31:30.123456789Z",
    },
    {
      input: "2009-02-13T3:31:30,5+01:00",
      seconds: 1234492290n,
      nanos: 500_000_000,
      offset: 3600,
      formatted: "2009-02-13T03:31:30.5+01:00",
    },
    { input: "0001-01-01T00:00:00Z", seconds: -62135596800n, nanos: 0, offset: 0, formatted: "0001-01-01T00:00:00Z" },
    {
      input: "1970-01-01T00:00:00-00:30",
      seconds: 1800n,
      nanos: 0,
      offset: -1800,
      formatted: "1970-01-01T00:00:00-00:30",
    },
    {
      input: "2008-02-29T00:00:00+00:00",
      seconds: 1204243200n,
      nanos: 0,
      offset: 0,
      formatted: "2008-02-29T00:00:00Z",
    },
    {
      input: "2009-02-13T23:31:30+24:00",
      seconds: 1234481490n,
      nanos: 0,
      offset: 86400,
      formatted: "2009-02-13T23:31:30+24:00",
    },
  ])("$input", ({ input, seconds, nanos, offset, formatted }) => {
    const t = parseRFC3339(input);
    expect(t).toEqual({ seconds, nanos, offset });
    expect(t && formatRFC3339Nano(t)).toBe(formatted);
  });

  it.each([
    "2009-02-29T00:00:00Z",
    "2009-13-01T00:00:00Z",
    "2009-02-13T24:00:00Z",
    "2009-02-13T23:60:00Z",
    "2009-02-13T23:31:60Z",
    "2009-02-13t23:31:30Z",
    "2009-02-13T23:31:30z",
    "2009-02-13T23:31:30",
    "2009-02-13T23:31:30+25:00",
    "2009-02-13T23:31:30+0100",
    "2009-02-13 23:31:30Z",
    "09-02-13T23:31:30Z",
    "2009-02-13T23:31:30.Z",
  ])("%s does not parse", (input) => {
    expect(parseRFC3339(input)).toBeUndefined();
  });
});

describe("calendarOf and zoneOffsetAt", () => {
  it("gives the calendar fields at the time's offset", () => {
    expect(calendarOf({ seconds: 1234567890n, nanos: 5, offset: 0 })).toEqual({
      year: 2009,
      month: 2,
      day: 13,
      yearDay: 44,
      weekday: 5,
      hour: 23,
      minute: 31,
      second: 30,
      nanos: 5,
    });
    expect(calendarOf({ seconds: 1234567890n, nanos: 0, offset: 11 * 3600 })).toMatchObject({ day: 14, hour: 10 });
    expect(calendarOf({ seconds: -62135596800n, nanos: 0, offset: 0 })).toMatchObject({
      year: 1,
      month: 1,
      day: 1,
      weekday: 1,
    });
  });

  it("finds IANA zones by their exact name, as Go opens the zone file", () => {
    expect(zoneOffsetAt("America/New_York", 1234567890n)).toBe(-5 * 3600);
    expect(zoneOffsetAt("Asia/Kolkata", 0n)).toBe(19800);
    expect(zoneOffsetAt("UTC", 0n)).toBe(0);
    expect(zoneOffsetAt("", 0n)).toBe(0);
    expect(zoneOffsetAt("america/new_york", 0n)).toBeUndefined();
    expect(zoneOffsetAt("Nowhere/Land", 0n)).toBeUndefined();
  });
});
