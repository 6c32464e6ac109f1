/**
 * Output bounds (lib/field/bounds.ts): texts cut with a marker, error lists capped with a last error, and warnings
 * kept as kube-apiserver's warning recorder keeps them.
 */
import { describe, expect, it } from "vitest";
import {
  isValidWarningText,
  MAX_WARNINGS,
  recordWarnings,
  truncateText,
  WARNING_ITEM_RUNES,
  WARNING_TOTAL_RUNES,
} from "../../../../lib/field/bounds.js";

describe("truncateText", () => {
  it("keeps a short text and cuts a long one with a marker", () => {
    expect(truncateText("abc", 5)).toBe("abc");
    expect(truncateText("abcdefgh", 5)).toBe("abcde... (3 more characters)");
  });

  it("never cuts inside a surrogate pair", () => {
    expect(truncateText("abcd🙂xyz", 5)).toBe("abcd... (5 more characters)");
  });
});

describe("recordWarnings", () => {
  it("drops duplicates and texts a Warning header cannot carry", () => {
    expect(recordWarnings(["a", "a", "b\u0000", "c\ud800", "d\u0085", "é€🙂"])).toEqual(["a", "é€🙂"]);
  });

  it("keeps texts whole while they fit the total, then cuts every one to the item limit", () => {
    const long = "x".repeat(WARNING_TOTAL_RUNES - 10);
    expect(recordWarnings([long])).toEqual([long]);
    const out = recordWarnings([long, "y".repeat(300), "short"]);
    expect(out).toEqual(["x".repeat(WARNING_ITEM_RUNES), "y".repeat(WARNING_ITEM_RUNES), "short"]);
  });

  it("drops warnings once the cut texts reach the total, and says how many", () => {
    const texts = Array.from({ length: 40 }, (_, i) => `${i}`.padEnd(300, "z"));
    const out = recordWarnings(texts);
    expect(out.at(-1)).toMatch(/^\d+ more warnings not shown$/);
    const dropped = Number(/^(\d+)/.exec(out.at(-1)!)![1]);
    expect(out.length - 1 + dropped).toBe(40);
  });

  it(`returns at most ${MAX_WARNINGS} texts`, () => {
    const out = recordWarnings(Array.from({ length: 500 }, (_, i) => `w${i}`));
    expect(out).toHaveLength(MAX_WARNINGS);
    expect(out.at(-1)).toBe("401 more warnings not shown");
  });

  it("accepts what Go's NewWarningHeader accepts", () => {
    expect(isValidWarningText("tab\tis control")).toBe(false);
    expect(isValidWarningText("ünïcödé 🙂")).toBe(true);
  });
});
