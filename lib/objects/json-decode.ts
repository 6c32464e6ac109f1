/**
 * JSON input: JSON.parse (native, fast) and one walk over the result, which counts values, checks
 * depth, and looks for numbers JSON.parse may have rounded. Only when the walk finds one (an
 * integer literal outside ±(2^53−1) or a non-finite number), or a bound is exceeded, or
 * JSON.parse fails, is the text parsed again with the lossless parser, which also gives the
 * precise message and place.
 *
 * JSON.parse has no depth limit. V8's is iterative, so it does not overflow the stack, but 8 MiB
 * of `[` builds millions of nested arrays (measured on Node 20: about 1 s and 240 MB, against
 * 40 ms for 8 MiB of ordinary objects). Texts longer than {@link DEPTH_SCAN_MIN_LENGTH} are
 * therefore scanned for depth first, which costs about a third of JSON.parse; below it the worst
 * case is a few milliseconds and a few MB, and the walk bounds the depth of what is returned.
 */
import { DecodeFailure } from "./document.js";
import { parseJsonLossless } from "./json-parser.js";
import type { ResolvedParseOptions } from "./limits.js";

/** Below this length (UTF-16 code units) JSON.parse is trusted with any nesting. */
export const DEPTH_SCAN_MIN_LENGTH = 64 * 1024;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Decodes one JSON value spanning `text` from `start`. Throws {@link DecodeFailure}. */
export function decodeJsonValue(text: string, start: number, limits: ResolvedParseOptions): unknown {
  if (text.length > DEPTH_SCAN_MIN_LENGTH) {
    const tooDeep = findTooDeep(text, start, limits.maxDepth);
    if (tooDeep >= 0) throw new DecodeFailure(`nesting is deeper than the limit of ${limits.maxDepth}`, tooDeep);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The lossless parser explains the error with a line and column.
    return parseJsonLossless(text, start, limits);
  }
  const nodes = countValues(value, limits.maxDepth);
  if (nodes < 0 || nodes > limits.maxNodes) return parseJsonLossless(text, start, limits);
  return value;
}

/**
 * Counts the values in a JSON.parse result. Returns -1 when the result cannot be used as is:
 * nesting deeper than `maxDepth`, or a number outside ±(2^53−1) (an integer JSON.parse may have
 * rounded, a huge float, or an infinity from an out-of-range literal).
 */
function countValues(value: unknown, maxDepth: number): number {
  if (typeof value !== "object" || value === null) return isUnsafeNumber(value) ? -1 : 1;
  // Iterative: each collection is pushed with its depth (parallel stacks: no object per entry, and the members are
  // read in place, not copied out); nothing here recurses on the input's depth or width.
  const collections: object[] = [value];
  const depths: number[] = [1];
  let count = 0;
  while (collections.length > 0) {
    const collection = collections.pop()!;
    const depth = depths.pop()!;
    if (depth > maxDepth) return -1;
    count++;
    if (Array.isArray(collection)) {
      for (let i = 0; i < collection.length; i++) {
        const item: unknown = collection[i];
        if (typeof item === "object" && item !== null) {
          collections.push(item);
          depths.push(depth + 1);
        } else if (isUnsafeNumber(item)) return -1;
        else count++;
      }
      continue;
    }
    // A JSON.parse object has only own enumerable properties (`__proto__` among them when the text has it).
    const record = collection as Record<string, unknown>;
    for (const k in record) {
      const item = record[k];
      if (typeof item === "object" && item !== null) {
        collections.push(item);
        depths.push(depth + 1);
      } else if (isUnsafeNumber(item)) return -1;
      else count++;
    }
  }
  return count;
}

function isUnsafeNumber(v: unknown): boolean {
  return typeof v === "number" && (v > MAX_SAFE || v < -MAX_SAFE);
}

/** Offset of the first `{` or `[` nested deeper than `maxDepth` outside strings, or -1. */
function findTooDeep(text: string, start: number, maxDepth: number): number {
  let depth = 0;
  const end = text.length;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: find a quote preceded by an even number of backslashes.
      let quote = i + 1;
      for (;;) {
        quote = text.indexOf('"', quote);
        if (quote < 0) return -1; // unterminated: JSON.parse reports it
        let slash = quote - 1;
        while (text.charCodeAt(slash) === 0x5c) slash--;
        if ((quote - 1 - slash) % 2 === 0) break;
        quote++;
      }
      i = quote;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return i;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return -1;
}
