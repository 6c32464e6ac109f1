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

/** The per-document limit of a command, from `args` and `env`, or the first line of its usage error. */
function maxDocumentBytes(args: readonly string[], env: Record<string, string>): number | undefined | string {
  const parsed = parseArgs(args, env, "0.0.0");
  if (parsed.kind === "validate" || parsed.kind === "lint" || parsed.kind === "audit") {
    return parsed.config.maxDocumentBytes;
  }
  return parsed.kind === "usage-error" ? parsed.message.split("\n")[0]! : parsed.kind;
}

describe("--max-document-bytes and TOLLGATE_MAX_DOCUMENT_BYTES: one setting for validate, lint and audit", () => {
  const commands = [
    ["validate", "--bundle", "b", "x.yaml"],
    ["lint", "--bundle", "b"],
    ["audit", "--bundle", "b", "x.yaml"],
  ];

  it.each(commands)("%s: the flag, else the variable, else lib's default (undefined here)", (...args) => {
    expect(maxDocumentBytes([...args, "--max-document-bytes", "2Mi"], {})).toBe(2 * 1024 * 1024);
    expect(maxDocumentBytes(args, { TOLLGATE_MAX_DOCUMENT_BYTES: "270000" })).toBe(270_000);
    expect(maxDocumentBytes([...args, "--max-document-bytes", "1Ki"], { TOLLGATE_MAX_DOCUMENT_BYTES: "2Ki" })).toBe(
      1024,
    );
    expect(maxDocumentBytes(args, {})).toBeUndefined();
  });

  it.each(commands)("%s: a value that is not a size is a usage error naming the flag or the variable", (...args) => {
    expect(maxDocumentBytes([...args, "--max-document-bytes", "8MB"], {})).toMatch(
      /--max-document-bytes must be a size in bytes, optionally with Ki, Mi or Gi/,
    );
    expect(maxDocumentBytes(args, { TOLLGATE_MAX_DOCUMENT_BYTES: "lots" })).toMatch(
      /TOLLGATE_MAX_DOCUMENT_BYTES must be a size in bytes, optionally with Ki, Mi or Gi/,
    );
  });
});
