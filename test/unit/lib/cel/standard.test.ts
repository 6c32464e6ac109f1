/**
 * cel-go's standard library where the engine's built-ins differ (lib/cel/libraries/standard.ts): conversions with
 * Go's strconv and time parsers and cel-go's error texts, timestamps with nanoseconds and zones, durations as int64
 * nanoseconds, int overflow, and the runtime "no such overload" texts.
 */
import { describe, expect, it } from "vitest";
import { runCel } from "../../../helpers/cel-run.js";

const run = runCel;

describe("conversions", () => {
  it.each([
    { expr: "int('abc')", want: "error: type conversion error from 'string' to 'int'" },
    { expr: "int('')", want: "error: type conversion error from 'string' to 'int'" },
    { expr: "int(' 5')", want: "error: type conversion error from 'string' to 'int'" },
    { expr: "int('9223372036854775808')", want: "error: type conversion error from 'string' to 'int'" },
    { expr: "int('+5')", want: 5n },
    { expr: "int(-2.9)", want: -2n },
    { expr: "int(1e19)", want: "error: integer overflow" },
    { expr: "int(9223372036854775807u)", want: 9223372036854775807n },
    { expr: "int(9223372036854775808u)", want: "error: integer overflow" },
    { expr: "int(timestamp('2009-02-13T23:31:30.9Z'))", want: 1234567890n },
    { expr: "int(duration('1.5s'))", want: 1_500_000_000n },
    { expr: "uint('x')", want: "error: type conversion error from 'string' to 'uint'" },
    { expr: "uint('-1')", want: "error: type conversion error from 'string' to 'uint'" },
    { expr: "uint(-1)", want: "error: unsigned integer overflow" },
    { expr: "uint(-0.5)", want: "error: unsigned integer overflow" },
    { expr: "double('x')", want: "error: type conversion error from 'string' to 'double'" },
    { expr: "double('1e400')", want: "error: type conversion error from 'string' to 'double'" },
    { expr: "double('0x1p-2')", want: 0.25 },
    { expr: "double('1_000.5')", want: 1000.5 },
    { expr: "bool('T')", want: true },
    { expr: "bool('F')", want: false },
    { expr: "bool('TRUE')", want: true },
    { expr: "bool('1')", want: true },
    { expr: "bool('yes')", want: "error: type conversion error from 'string' to 'bool'" },
    { expr: "string(1000000.0)", want: "1e+06" },
    { expr: "string(0.00001)", want: "1e-05" },
    { expr: "string(b'\\xff')", want: "error: invalid UTF-8 in bytes, cannot convert to string" },
    { expr: "string(duration('1h1.5s'))", want: "3601.5s" },
    { expr: "duration('x')", want: "error: type conversion error from 'string' to 'google.protobuf.Duration'" },
    { expr: "duration('2562048h')", want: "error: type conversion error from 'string' to 'google.protobuf.Duration'" },
    { expr: "duration(5)", want: "error: type conversion error from 'int' to 'google.protobuf.Duration'" },
    { expr: "timestamp('x')", want: "error: type conversion error from 'string' to 'google.protobuf.Timestamp'" },
    {
      expr: "timestamp('2009-02-13T23:31:30')",
      want: "error: type conversion error from 'string' to 'google.protobuf.Timestamp'",
    },
    { expr: "timestamp('0000-12-31T23:59:59Z')", want: "error: timestamp overflow" },
    { expr: "timestamp(253402300800)", want: "error: timestamp overflow" },
  ])("$expr", ({ expr, want }) => {
    expect(run(expr)).toEqual(want);
  });

  it("a dyn argument of a type no overload takes is 'no such overload: <fn>(<types>)'", () => {
    expect(run("int(x)", true)).toBe("error: no such overload: int(bool)");
    expect(run("x.startsWith('a')", 1n)).toBe("error: no such overload: startsWith(int, string)");
    expect(run("size(x)", 1n)).toBe("error: no such overload: size(int)");
  });
});

describe("timestamps and durations", () => {
  it.each([
    // Nanoseconds are kept.
    { expr: "timestamp('2020-01-01T00:00:00.000000001Z') > timestamp('2020-01-01T00:00:00Z')", want: true },
    { expr: "timestamp('2020-01-01T00:00:00.000000001Z') == timestamp('2020-01-01T00:00:00Z')", want: false },
    { expr: "timestamp('2020-01-01T01:00:00+01:00') == timestamp('2020-01-01T00:00:00Z')", want: true },
    { expr: "string(timestamp('2009-02-13T23:31:30.123456789Z'))", want: "2009-02-13T23:31:30.123456789Z" },
    // The zone the timestamp was written in is kept for string(); accessors are in UTC unless given a zone.
    { expr: "string(timestamp('2009-02-13T23:31:30+01:00'))", want: "2009-02-13T23:31:30+01:00" },
    { expr: "timestamp('2009-02-13T23:31:30+01:00').getHours()", want: 22n },
    { expr: "timestamp('2009-02-13T23:31:30Z').getHours('+02:00')", want: 1n },
    { expr: "timestamp('2009-02-13T02:00:00Z').getDayOfMonth('-02:30')", want: 11n },
    { expr: "timestamp('2009-02-13T23:31:30Z').getHours('America/New_York')", want: 18n },
    {
      expr: "timestamp('2009-02-13T23:31:30Z').getHours('Nowhere/Land')",
      want: "error: unknown time zone Nowhere/Land",
    },
    {
      expr: "timestamp('2009-02-13T23:31:30Z').getHours('x:00')",
      want: 'error: strconv.Atoi: parsing "x": invalid syntax',
    },
    { expr: "timestamp('2009-02-13T23:31:30.123456Z').getMilliseconds()", want: 123n },
    { expr: "timestamp('9999-12-31T23:59:59Z') + duration('1s')", want: "error: timestamp overflow" },
    { expr: "timestamp('0001-01-01T00:00:00Z') - duration('1ns')", want: "error: timestamp overflow" },
    { expr: "timestamp('9999-12-31T23:59:59Z') - timestamp('0001-01-01T00:00:00Z')", want: "error: integer overflow" },
    { expr: "duration('2562047h') + duration('2562047h')", want: "error: integer overflow" },
    { expr: "duration('1ns') < duration('2ns')", want: true },
    { expr: "duration('-1h30m').getMinutes()", want: -90n },
    { expr: "duration('1.5ms').getMilliseconds()", want: 1n },
    {
      expr: "timestamp('2020-01-01T00:00:00.999999999Z') + duration('1ns') == timestamp('2020-01-01T00:00:01Z')",
      want: true,
    },
    // duration + timestamp is a timestamp (cel-go add_duration_timestamp), however the operands are written
    {
      expr: "duration('1ns') + timestamp('2020-01-01T00:00:00.999999999Z') == timestamp('2020-01-01T00:00:01Z')",
      want: true,
    },
    { expr: "(duration('1h') + timestamp('2020-01-01T00:00:00Z')).getHours()", want: 1n },
    {
      expr: "string(duration('1s') + ((duration('1s')) + (timestamp('2020-01-01T00:00:00Z'))))",
      want: "2020-01-01T00:00:02Z",
    },
    { expr: "duration('1s') + timestamp('9999-12-31T23:59:59Z')", want: "error: timestamp overflow" },
  ])("$expr", ({ expr, want }) => {
    expect(run(expr)).toEqual(want);
  });
});

describe("integer overflow and runtime errors in cel-go's words", () => {
  it.each([
    { expr: "(-9223372036854775807 - 1) / -1", want: "error: integer overflow" },
    { expr: "(-9223372036854775807 - 1) % -1", want: "error: integer overflow" },
    { expr: "-(x)", x: -9223372036854775808n, want: "error: integer overflow" },
    { expr: "1 / 0", want: "error: division by zero" },
    { expr: "1 % 0", want: "error: modulus by zero" },
    { expr: "1u - 2u", want: "error: unsigned integer overflow" },
    { expr: "[1][3]", want: "error: index out of bounds: 3" },
    { expr: "{'a': 1}['b']", want: "error: no such key: b" },
    // A left operand with the operator's trait answers "no such overload"; one without it names the operator.
    { expr: "x > 1", x: "a", want: "error: no such overload" },
    { expr: "x * 2", x: "a", want: "error: no such overload" },
    { expr: "x + 1", x: true, want: "error: no such overload: _+_" },
    { expr: "x * 2", x: new Map(), want: "error: no such overload: _*_" },
    // cel-go's interpreter names the Go type of a range that cannot be iterated
    { expr: "x.exists(e, e)", x: "a", want: "error: got 'types.String', expected iterable type" },
    { expr: "x.all(e, e > 0)", x: 1n, want: "error: got 'types.Int', expected iterable type" },
  ])("$expr", ({ expr, x, want }) => {
    expect(run(expr, x)).toEqual(want);
  });
});

describe("an integer compared with a double, as cel-go compares them (compareIntDouble: as doubles)", () => {
  it.each([
    // 9223372036854775807 and 9223372036854775806.0 are both 2^63 as doubles
    { expr: "9223372036854775807 > 9223372036854775806.0", want: false },
    { expr: "dyn(9223372036854775808.0) > 9223372036854775807", want: false },
    { expr: "dyn(9223372036854775808.0) <= 9223372036854775807", want: true },
    { expr: "dyn(9223372036854775807) >= 9223372036854775808.0", want: true },
    { expr: "dyn(9223372036854775807) < 9223372036854775808.0", want: false },
    { expr: "dyn(18446744073709551615u) >= 18446744073709551616.0", want: true },
    { expr: "x < 2.5", x: 2n, want: true },
    { expr: "x > 1.0", x: 1n, want: false },
    { expr: "-9223372036854775808 < -9223372036854775809.0", want: false },
  ])("$expr", ({ expr, x, want }) => {
    expect(run(expr, x)).toEqual(want);
  });
});

describe("equality across numeric types at run time (dyn), as cel-go's Int.Equal, Uint.Equal, Double.Equal", () => {
  it.each([
    { expr: "dyn(3) in [5u, 4u, 3u]", want: true },
    { expr: "dyn(3u) in [5, 4, 3]", want: true },
    { expr: "dyn(3.0) in [5u, 3u]", want: true },
    { expr: "dyn(3u) in [5.0, 3.0]", want: true },
    { expr: "x in [1.0, 2.0]", x: 2n, want: true },
    { expr: "dyn(2u) in [3, 4]", want: false },
    { expr: "dyn([1]) == [1.0]", want: true },
    { expr: "dyn(2u) == 2", want: true },
    { expr: "dyn(9223372036854775807) == 9223372036854775806", want: false },
  ])("$expr", ({ expr, x, want }) => {
    expect(run(expr, x)).toEqual(want);
  });
});

describe("bytes ordering", () => {
  it.each([
    { expr: "b'a' < b'b'", want: true },
    { expr: "b'\\x01' > b''", want: true },
    { expr: "b'ab' <= b'a'", want: false },
    { expr: "b'\\xff' >= b'\\x7f'", want: true },
  ])("$expr", ({ expr, want }) => {
    expect(run(expr)).toBe(want);
  });
});

describe("optional library: ofNonZeroValue, optMap, optFlatMap", () => {
  it.each([
    { expr: "optional.ofNonZeroValue(null).hasValue()", want: false },
    { expr: "optional.ofNonZeroValue('').hasValue()", want: false },
    { expr: "optional.ofNonZeroValue(0u).hasValue()", want: false },
    { expr: "optional.ofNonZeroValue(duration('0s')).hasValue()", want: false },
    { expr: "optional.ofNonZeroValue(timestamp('0001-01-01T00:00:00Z')).hasValue()", want: false },
    { expr: "optional.ofNonZeroValue(timestamp('1970-01-01T00:00:00Z')).hasValue()", want: true },
    { expr: "optional.ofNonZeroValue([0]).value()", want: [0n] },
    { expr: "optional.of(42).optMap(y, y + 1).value()", want: 43n },
    { expr: "optional.none().optMap(y, y + 1).hasValue()", want: false },
    { expr: "{'k': {'s': 'v'}}.?k.optFlatMap(m, m.?s).value()", want: "v" },
    { expr: "{'k': {'s': ''}}.?k.optFlatMap(m, optional.ofNonZeroValue(m.s)).hasValue()", want: false },
    { expr: "duration(duration('100s')) == duration('100s')", want: true },
  ])("$expr", ({ expr, want }) => {
    expect(run(expr)).toEqual(want);
  });

  it("refuses optMap whose variable is not a name, as cel-go's macro does", () => {
    expect(run("optional.of(1).optMap(1, 2)")).toMatch(/^compile: /);
  });
});
