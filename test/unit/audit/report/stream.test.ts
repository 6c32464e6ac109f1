/**
 * The JSON layout helpers write exactly what `JSON.stringify(value, null, 2)` writes for the value at its depth in
 * a larger document: here against that definition (indent every line of the value's own text).
 */
import { describe, expect, it } from "vitest";
import { ByteChunker, JsonArrayWriter, jsonArray, nestedJson, textOf } from "../../../../audit/report/stream.js";

const byDefinition = (v: unknown, depth: number): string =>
  (JSON.stringify(v, null, 2) as string).replace(/\n/g, `\n${"  ".repeat(depth)}`);

const arrayByDefinition = (items: unknown[], depth: number): string =>
  items.length === 0
    ? "[]"
    : `[\n${items.map((i) => `${"  ".repeat(depth + 1)}${byDefinition(i, depth + 1)}`).join(",\n")}\n${"  ".repeat(depth)}]`;

const VALUES: unknown[] = [
  1,
  -0.5,
  "x",
  'quote " and \\ and \n',
  null,
  true,
  [],
  {},
  [1, [2, {}], []],
  { a: { b: [1, 2, { c: "é😀\n" }] }, d: [], e: {} },
];

describe("JSON layout", () => {
  it("nestedJson is JSON.stringify(value, null, 2) with every line indented to its depth", () => {
    for (const depth of [0, 1, 2, 3, 6])
      for (const v of VALUES) expect(nestedJson(v, depth)).toBe(byDefinition(v, depth));
  });

  it("an array written in groups is the array JSON.stringify writes, at any depth and length", () => {
    for (const depth of [0, 1, 3]) {
      for (const n of [0, 1, 2, 255, 256, 257, 700]) {
        const items = Array.from({ length: n }, (_, i) => VALUES[i % VALUES.length]);
        expect([...jsonArray(items, depth)].join("")).toBe(arrayByDefinition(items, depth));
        const writer = new JsonArrayWriter(depth);
        let text = "";
        for (const item of items) text += writer.push(item) ?? "";
        expect(text + writer.end()).toBe(arrayByDefinition(items, depth));
      }
    }
  });
});

describe("ByteChunker", () => {
  it("gathers small pieces into chunks and passes large ones through, in order", async () => {
    const chunker = new ByteChunker(64 * 1024);
    const out: Uint8Array[] = [];
    const want: string[] = [];
    for (let i = 0; i < 5000; i++) {
      const piece = i % 1000 === 999 ? "€".repeat(40_000) : `${i} é\n`;
      want.push(piece);
      out.push(...chunker.push(i % 2 === 0 ? piece : Buffer.from(piece)));
    }
    out.push(chunker.take());
    expect(out.length).toBeLessThan(100);
    expect(
      await textOf(
        (async function* () {
          yield* out;
        })(),
      ),
    ).toBe(want.join(""));
  });
});
