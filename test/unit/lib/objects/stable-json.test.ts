import { describe, expect, it } from "vitest";
import { sameJson, stableJson } from "../../../../lib/objects/stable-json.js";

describe("sameJson is stableJson equality without the texts", () => {
  it.each([
    { name: "keys in another order", a: { a: 1, b: [1, { c: "x" }] }, b: { b: [1, { c: "x" }], a: 1 } },
    { name: "a bigint and the number of its digits", a: { n: 2n ** 60n }, b: { n: 2n ** 60n } },
    { name: "nested empty collections", a: { a: {}, b: [] }, b: { b: [], a: {} } },
    { name: "null values", a: { a: null }, b: { a: null } },
  ])("equal: $name", ({ a, b }) => {
    expect(sameJson(a, b)).toBe(true);
    expect(stableJson(a)).toBe(stableJson(b));
  });

  it.each([
    { name: "a missing key", a: { a: 1, b: 2 }, b: { a: 1, c: 2 } },
    { name: "an extra key", a: { a: 1 }, b: { a: 1, b: 2 } },
    { name: "items in another order", a: [1, 2], b: [2, 1] },
    { name: "an array against a mapping", a: { a: [] }, b: { a: {} } },
    { name: "a string against a number", a: { a: "1" }, b: { a: 1 } },
    { name: "null against a mapping", a: { a: null }, b: { a: {} } },
    {
      name: "a deeper difference",
      a: { a: { b: { c: [1, 2, { d: true }] } } },
      b: { a: { b: { c: [1, 2, { d: false }] } } },
    },
  ])("different: $name", ({ a, b }) => {
    expect(sameJson(a, b)).toBe(false);
    expect(stableJson(a)).not.toBe(stableJson(b));
  });

  it("does not recurse on the input's depth", () => {
    let a: unknown = 1;
    let b: unknown = 1;
    for (let i = 0; i < 100_000; i++) {
      a = { x: a };
      b = { x: b };
    }
    expect(sameJson(a, b)).toBe(true);
  });
});
