import { describe, expect, it } from "vitest";
import { parseGoDuration } from "../../../../lib/cel/schema-types.js";
import { parseDuration } from "../../../../lib/go/time.js";

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

  it("keeps CEL durations within Go's int64 range (the CEL copy used to accept any size)", () => {
    // 2562048h is more than 2^63 - 1 ns: Go refuses it, so the value stays a string in CEL.
    expect(parseGoDuration("2562048h")).toBeUndefined();
    expect(parseGoDuration("2562047h")).toMatchObject({ seconds: 9223369200n, nanos: 0 });
  });
});
