/**
 * The decoders (lib/objects parseDocuments) under fuzzed text: never a throw, one result per document, JSON objects
 * decoded to what JSON.parse gives (integers within 2^53), nesting beyond the bound refused, not overflowed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDocuments } from "../../lib/index.js";
import { runs, SEED, timeout } from "./budget.js";

const yamlish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "a: 1",
        "- x",
        "---",
        "  b: [1, 2",
        "{",
        "}",
        "&a [*a, *a]",
        "key: !!binary x",
        ": :",
        "? a",
        "'",
        '"\\x"',
      ),
      fc.string({ maxLength: 20, unit: "binary" }),
    ),
    { maxLength: 12 },
  )
  .map((lines) => lines.join("\n"));

const text = fc.oneof(
  fc.string({ maxLength: 200, unit: "binary" }),
  fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v) ?? ""),
  yamlish,
  fc
    .record({ depth: fc.integer({ min: 100, max: 20_000 }), open: fc.constantFrom("[", '{"a":') })
    .map(({ depth, open }) => `${open.repeat(depth)}1${(open === "[" ? "]" : "}").repeat(depth)}`),
);

describe("decoder fuzz", () => {
  it(
    "never throws, whatever the text",
    () => {
      fc.assert(
        fc.property(text, fc.integer({ min: 1, max: 10_000 }), (t, maxDepth) => {
          const docs = parseDocuments(t, { maxDepth });
          expect(Array.isArray(docs)).toBe(true);
          for (const d of docs) {
            if (d.error !== undefined) expect(d.error).not.toMatch(/internal error|Maximum call stack/);
          }
        }),
        { seed: SEED, numRuns: runs(300, 50_000) },
      );
    },
    timeout(60_000),
  );

  it(
    "decodes a JSON object as JSON.parse does",
    () => {
      const safe = fc.jsonValue({ maxDepth: 5 }).filter((v) => !JSON.stringify(v).match(/\d{16,}|e\+?\d{3}/));
      fc.assert(
        fc.property(fc.dictionary(fc.string({ maxLength: 5 }), safe), (o) => {
          const docs = parseDocuments(JSON.stringify(o));
          expect(docs).toHaveLength(1);
          expect(docs[0]?.object).toEqual(JSON.parse(JSON.stringify(o)));
        }),
        { seed: SEED, numRuns: runs(300, 20_000) },
      );
    },
    timeout(60_000),
  );
});
