/**
 * `tollgate validate`'s environment: TOLLGATE_MAX_INPUT_BYTES takes a size as --max-json-bytes does.
 */
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../../../audit/cli/args.js";

function maxInputBytes(value: string): number | string {
  const parsed = parseArgs(["validate", "--bundle", "b", "x.yaml"], { TOLLGATE_MAX_INPUT_BYTES: value }, "0.0.0");
  if (parsed.kind === "validate") return parsed.config.maxInputBytes;
  return parsed.kind === "usage-error" ? parsed.message.split("\n")[0]! : parsed.kind;
}

describe("TOLLGATE_MAX_INPUT_BYTES", () => {
  it.each([
    { value: "200Mi", bytes: 200 * 1024 * 1024 },
    { value: "1GiB", bytes: 1024 ** 3 },
    { value: "67108864", bytes: 67108864 },
    { value: "", bytes: 64 * 1024 * 1024 },
  ])("$value is $bytes bytes", ({ value, bytes }) => {
    expect(maxInputBytes(value)).toBe(bytes);
  });

  it("refuses what is not a size, naming the variable", () => {
    expect(maxInputBytes("200MB")).toMatch(
      /TOLLGATE_MAX_INPUT_BYTES must be a size in bytes, optionally with Ki, Mi or Gi/,
    );
  });
});
