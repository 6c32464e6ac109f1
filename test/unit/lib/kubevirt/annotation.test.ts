import { describe, expect, it } from "vitest";
import { isParseFailure, parseRules, type Rule } from "../../../../lib/kubevirt/annotation.js";

const CORES = `"name": "c", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores"`;

function rules(text: string): readonly Rule[] {
  const set = parseRules(text);
  if (isParseFailure(set)) throw new Error(`unexpected parse failure: ${set.error}`);
  return set.rules;
}

function failure(text: string): string {
  const set = parseRules(text);
  return isParseFailure(set) ? set.error : "parsed";
}

describe("parseRules: Go encoding/json into the validator's Rule", () => {
  it.each([
    { what: "empty: no rules", text: "", count: 0 },
    { what: "null: no rules", text: "null", count: 0 },
    { what: "an empty array", text: "[]", count: 0 },
    { what: "a null element is an empty rule", text: "[null]", count: 1 },
    { what: "one rule", text: `[{${CORES}, "min": 1}]`, count: 1 },
  ])("$what", ({ text, count }) => {
    expect(rules(text)).toHaveLength(count);
  });

  it.each([
    { what: "whitespace only", text: "  ", error: "not valid JSON: unexpected end of JSON input" },
    { what: "a trailing comma", text: `[{${CORES}},]`, error: "invalid character ']' looking for beginning of value" },
    { what: "a comment", text: "// x\n[]", error: "invalid character '/' looking for beginning of value" },
    { what: "an object", text: `{${CORES}}`, error: "must be a JSON array of rules, not object" },
    { what: "a string", text: `"[]"`, error: "must be a JSON array of rules, not string" },
    { what: "a non-object rule", text: "[1]", error: "rule #0: must be a JSON object, not number" },
    {
      what: "justWarning as a string",
      text: `[{${CORES}, "justWarning": "true"}]`,
      error: `"justWarning": must be a boolean, not string`,
    },
    { what: "name as a number", text: `[{"name": 5}]`, error: `rule #0 "name": must be a string, not number` },
    {
      what: "values of numbers",
      text: `[{${CORES}, "values": [1, 2]}]`,
      error: `"values"[0]: must be a string, not number`,
    },
    { what: "regex as a number", text: `[{${CORES}, "regex": 1}]`, error: `"regex": must be a string, not number` },
    {
      what: "min as a boolean",
      text: `[{${CORES}, "min": true}]`,
      error: `"min": must be a number or a "jsonpath::" string, not bool`,
    },
    {
      what: "min as a quantity",
      text: `[{${CORES}, "min": "2Gi"}]`,
      error: `"2Gi" is neither a number nor a "jsonpath::" reference`,
    },
    { what: "min as a numeric string", text: `[{${CORES}, "min": "4"}]`, error: `"4" is neither a number` },
    {
      what: "a path without the prefix",
      text: `[{"path": ".spec.domain.cpu.cores"}]`,
      error: `it must start with "jsonpath::"`,
    },
    {
      what: "a path with a leading space",
      text: `[{"path": " jsonpath::.spec"}]`,
      error: `it must start with "jsonpath::"`,
    },
    { what: "a null path", text: `[{"path": null}]`, error: "invalid JSONPath" },
    { what: "an empty valid", text: `[{${CORES}, "valid": ""}]`, error: `"valid": invalid JSONPath` },
    {
      what: "an unparsable JSONPath",
      text: `[{"path": "jsonpath::.spec.domain.devices.disks[*.disk"}]`,
      error: "unterminated array",
    },
    {
      what: "a JSONPath argument that does not parse",
      text: `[{${CORES}, "max": "jsonpath::.a[x]"}]`,
      error: "invalid array index x",
    },
    { what: "a huge number", text: `[{${CORES}, "max": 1e300}]`, error: "out of the int64 range" },
    { what: "too many rules", text: `[${"{},".repeat(1000)}{}]`, error: "has 1001 rules; at most 1000" },
    { what: "too deep", text: `[${"[".repeat(100)}${"]".repeat(100)}]`, error: "nested deeper than 64" },
  ])("fails on $what", ({ text, error }) => {
    expect(failure(text)).toContain(error);
  });

  it.each([
    { what: "a number", min: "1.5", want: 2n },
    { what: "half rounds away from zero", min: "2.5", want: 3n },
    { what: "negative half", min: "-2.5", want: -3n },
    { what: "an exponent", min: "1e3", want: 1000n },
    { what: "just below a half", min: "0.49999999999999994", want: 0n },
  ])("rounds numeric arguments: $what ($min)", ({ min, want }) => {
    expect(rules(`[{${CORES}, "min": ${min}}]`)[0]?.min).toEqual({ literal: want });
  });

  it("matches keys case-insensitively, the last one winning", () => {
    const [r] = rules(`[{${CORES}, "Max": 4, "MAX": 6, "JUSTWARNING": true, "RULE": "enum", "max": null}]`);
    expect(r?.max).toBeUndefined();
    expect(r?.justWarning).toBe(true);
    expect(r?.type).toBe("enum");
    const [r2] = rules(`[{${CORES}, "max": 4, "Max": 6}]`);
    expect(r2?.max).toEqual({ literal: 6n });
  });

  it("leaves a key unset by null, keeping an earlier value", () => {
    const [r] = rules(`[{${CORES}, "name": "x", "name": null}]`);
    expect(r?.name).toBe("x");
  });

  it("ignores unknown keys, including misspellings", () => {
    const [r] = rules(`[{${CORES}, "minimum": 1, "extra": {"a": [1]}}]`);
    expect(r?.min).toBeUndefined();
  });

  it("roots paths at spec.template, dropping one leading $", () => {
    const [r] = rules(`[{"path": "jsonpath::$.spec.domain.cpu.cores", "valid": "jsonpath::.spec.domain.cpu"}]`);
    expect(r?.path?.expr).toBe(".spec.domain.cpu.cores");
    expect(r?.valid?.expr).toBe(".spec.domain.cpu");
  });

  it("reads JSONPath arguments and values", () => {
    const [r] = rules(
      `[{${CORES}, "max": "jsonpath::.spec.domain.cpu.sockets", "values": ["virtio", "jsonpath::.spec.domain.devices.disks[0].disk.bus"]}]`,
    );
    expect(r?.max).toMatchObject({ text: "jsonpath::.spec.domain.cpu.sockets" });
    expect(r?.values?.[0]).toEqual({ literal: "virtio" });
    expect(r?.values?.[1]).toMatchObject({ text: "jsonpath::.spec.domain.devices.disks[0].disk.bus" });
  });

  it("marks later duplicates of a name, the empty name included", () => {
    const rs = rules(`[{"name": "a"}, {"name": "b"}, {"name": "a"}, {}, {}]`);
    expect(rs.map((r) => r.duplicateOf)).toEqual([undefined, undefined, 0, undefined, 3]);
  });

  it("compiles the regex of regex rules with RE2", () => {
    const [ok, bad, notRegex] = rules(
      `[{"name": "a", "rule": "regex", "regex": "(?i)^virtio$"}, {"name": "b", "rule": "regex", "regex": "^(?!sata)"}, {"name": "c", "rule": "enum", "regex": "(?!"}]`,
    );
    expect(ok?.compiledRegex && "test" in ok.compiledRegex && ok.compiledRegex.test("VirtIO")).toBe(true);
    expect(bad?.compiledRegex).toEqual({ error: "error parsing regexp: invalid or unsupported Perl syntax: `(?!`" });
    expect(notRegex?.compiledRegex).toBeUndefined();
  });
});
