import { describe, expect, it } from "vitest";
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPortName,
  regexError,
} from "../../../../lib/objects/names.js";
import { nameIsDNSSubdomain } from "../../../../lib/schema/objectmeta.js";

describe("regexError (validation.RegexError)", () => {
  it("puts a double space after each comma but the last", () => {
    expect(regexError("m", "re", "a", "b", "c")).toBe(
      "m (e.g. 'a',  or 'b',  or 'c', regex used for validation is 're')",
    );
    expect(regexError("m", "re")).toBe("m (regex used for validation is 're')");
  });
});

describe("util/validation name checks", () => {
  it.each([
    { check: isDNS1123Label, value: "my-name", valid: true },
    { check: isDNS1123Label, value: "My-name", valid: false },
    { check: isDNS1123Label, value: "a.b", valid: false },
    { check: isDNS1123Subdomain, value: "a.b-c.d", valid: true },
    { check: isDNS1123Subdomain, value: "a..b", valid: false },
    { check: isDNS1035Label, value: "1abc", valid: false },
    { check: isQualifiedName, value: "example.com/My_Name", valid: true },
    { check: isQualifiedName, value: "a/b/c", valid: false },
    { check: isValidLabelValue, value: "", valid: true },
    { check: isValidPortName, value: "http", valid: true },
    { check: isValidPortName, value: "h--p", valid: false },
  ])("$check.name($value)", ({ check, value, valid }) => {
    expect(check(value).length === 0).toBe(valid);
  });

  it("counts bytes, as Go's len does (the messages say characters)", () => {
    // 62 ASCII letters and one two-byte é: 63 characters, 64 bytes.
    const value = `${"a".repeat(62)}é`;
    expect(isDNS1123Label(value)[0]).toBe("must be no more than 63 characters");
  });

  it("masks a generateName prefix's trailing dash as Go does: the last two bytes become 'a'", () => {
    expect(isDNS1123Subdomain("web-", "prefix")).toEqual([]);
    expect(isDNS1123Label("a-", "prefix")).toEqual([]);
    // Before "é-" Go drops the dash and the last byte of é, which leaves a broken character: invalid. The copy in
    // lib/schema/objectmeta.ts dropped the whole character and accepted the prefix.
    expect(isDNS1123Subdomain("aé-", "prefix")).not.toEqual([]);
    expect(nameIsDNSSubdomain("aé-", true)).not.toEqual([]);
  });
});
