import { describe, expect, it } from "vitest";
import { quoteChar, syntaxErrorText } from "../../../../lib/go/json.js";
import { readJson } from "../../../../lib/kubevirt/json-reader.js";
import { parseJsonLossless } from "../../../../lib/objects/json-parser.js";
import { resolveParseOptions } from "../../../../lib/objects/limits.js";

describe("encoding/json syntax errors", () => {
  it.each([
    { byte: 0x78, want: "'x'" },
    { byte: 0x27, want: "'\\''" },
    { byte: 0x22, want: "'\"'" },
    { byte: 0x0a, want: "'\\n'" },
    { byte: 0x01, want: "'\\x01'" },
    { byte: 0x7f, want: "'\\x7f'" },
    { byte: 0xc3, want: "'Ã'" },
    { byte: 0x85, want: "'\\u0085'" },
  ])("quoteChar($byte) is $want", ({ byte, want }) => {
    expect(quoteChar(byte)).toBe(want);
  });

  it.each([
    { text: "[1,", at: 3, want: "unexpected end of JSON input" },
    { text: "]", at: 0, want: "invalid character ']' looking for beginning of value" },
    // Go names the first UTF-8 byte of the character, read as a rune: C3 of é is Ã.
    { text: "é", at: 0, want: "invalid character 'Ã' looking for beginning of value" },
    { text: "\u0001", at: 0, want: "invalid character '\\x01' looking for beginning of value" },
    { text: "\u{1F600}", at: 0, want: "invalid character 'ð' looking for beginning of value" },
  ])("$want", ({ text, at, want }) => {
    expect(syntaxErrorText(text, at, "looking for beginning of value")).toBe(want);
  });

  it("words the objects decoder's and the KubeVirt reader's errors alike (they used to differ from Go)", () => {
    // Prepare
    const bad = '{"a": é}';
    const want = "invalid character 'Ã' looking for beginning of value";
    // Act
    const objects = () => parseJsonLossless(bad, 0, resolveParseOptions({}));
    const kubevirt = () => readJson(bad);
    // Assess
    expect(objects).toThrow(want);
    expect(kubevirt).toThrow(want);
    expect(() => readJson("[\u007f]")).toThrow("invalid character '\\x7f' looking for beginning of value");
    expect(() => parseJsonLossless("[\u0001]", 0, resolveParseOptions({}))).toThrow(
      "invalid character '\\x01' looking for beginning of value",
    );
  });
});
