/**
 * The block reader (lib/objects/yaml-block.ts) against the full decoder: on block-style YAML as the `yaml` package
 * writes it (every string style, folded lines, indentless sequences) and on mutations of it (indentation, comments,
 * indicators, quotes and line breaks inserted or removed), the YAML stream decoder (block reader first) gives
 * exactly what the `yaml` package path gives, errors included.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { DEFAULT_PARSE_OPTIONS } from "../../lib/objects/limits.js";
import { decodeYamlStream, decodeYamlStreamFully } from "../../lib/objects/yaml-decode.js";
import { runs, SEED, timeout } from "./budget.js";

const STRING_TYPES = ["PLAIN", "QUOTE_DOUBLE", "QUOTE_SINGLE", "BLOCK_LITERAL", "BLOCK_FOLDED"] as const;

const blockYaml = fc
  .record({
    value: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 4 }), { minKeys: 1 }),
    lineWidth: fc.integer({ min: 20, max: 80 }),
    stringType: fc.constantFrom(...STRING_TYPES),
    indentSeq: fc.boolean(),
  })
  .map(({ value, lineWidth, stringType, indentSeq }) =>
    stringify(value, { lineWidth, minContentWidth: 10, defaultStringType: stringType, indentSeq }),
  );

const EDITS = [
  " ",
  "  ",
  "\n",
  "# c",
  " #",
  ": ",
  ":",
  "- ",
  "-",
  "'",
  '"',
  "|",
  ">-",
  "\\",
  "{}",
  "[]",
  "~",
  "\n---\n",
];

/** A text with a few edits: an insertion of one of EDITS, or a deletion of a few characters. */
const mutated = fc
  .tuple(
    blockYaml,
    fc.array(fc.tuple(fc.nat(), fc.constantFrom(...EDITS), fc.boolean(), fc.integer({ min: 1, max: 3 })), {
      minLength: 1,
      maxLength: 4,
    }),
  )
  .map(([text, edits]) => {
    let t = text;
    for (const [at, insert, isDelete, n] of edits) {
      const i = t.length === 0 ? 0 : at % t.length;
      t = isDelete ? t.slice(0, i) + t.slice(i + n) : t.slice(0, i) + insert + t.slice(i);
    }
    return t;
  });

describe("block reader fuzz", () => {
  it(
    "reads what the yaml package writes as the full decoder does",
    () => {
      fc.assert(
        fc.property(blockYaml, (text) => {
          expect(decodeYamlStream(text, DEFAULT_PARSE_OPTIONS)).toStrictEqual(
            decodeYamlStreamFully(text, DEFAULT_PARSE_OPTIONS),
          );
        }),
        { seed: SEED, numRuns: runs(300, 50_000) },
      );
    },
    timeout(60_000),
  );

  it(
    "agrees with the full decoder on mutated block YAML, errors included",
    () => {
      fc.assert(
        fc.property(mutated, (text) => {
          expect(decodeYamlStream(text, DEFAULT_PARSE_OPTIONS)).toStrictEqual(
            decodeYamlStreamFully(text, DEFAULT_PARSE_OPTIONS),
          );
        }),
        { seed: SEED, numRuns: runs(500, 100_000) },
      );
    },
    timeout(60_000),
  );
});
