import { describe, expect, it } from "vitest";
import { goQuote, goQuoteBytes } from "../../../../../lib/cel/implementations/go-quote.js";

describe("goQuote (strconv.Quote)", () => {
  it.each([
    { input: "abc", want: '"abc"' },
    { input: "", want: '""' },
    { input: 'a"b\\c', want: '"a\\"b\\\\c"' },
    { input: "\n\t\r\u0007\b\f\v", want: '"\\n\\t\\r\\a\\b\\f\\v"' },
    { input: "\u0000\u001f\u007f", want: '"\\x00\\x1f\\x7f"' },
    { input: "é日本", want: '"é日本"' },
    { input: "\u0080\u00ad", want: '"\\u0080\\u00ad"' },
    { input: "\u2028", want: '"\\u2028"' },
    { input: "😀", want: '"😀"' },
    { input: "\u{e0001}", want: '"\\U000e0001"' },
    { input: " ", want: '" "' },
    { input: "\u00a0", want: '"\\u00a0"' },
    { input: "\ud800", want: '"�"' },
  ])("$input", ({ input, want }) => {
    expect(goQuote(input)).toBe(want);
  });

  it("quotes invalid UTF-8 bytes as \\x escapes", () => {
    expect(goQuoteBytes("%z\xc3")).toBe('"%z\\xc3"');
    expect(goQuoteBytes("\xff\xfe")).toBe('"\\xff\\xfe"');
    expect(goQuoteBytes("\xc3\xa9")).toBe('"é"');
  });
});
