/**
 * A small JSON parser (an explicit stack, no recursion), used when JSON.parse cannot be: when the text has an
 * integer literal outside ±(2^53−1) (which JSON.parse would round), when a bound is exceeded, or
 * to explain a syntax error with a line and column. It accepts exactly RFC 8259 JSON, like
 * JSON.parse, and returns the same values except that int64 literals keep every digit as bigint
 * (see integer.ts). It does not recurse: nesting is an explicit stack bounded by `maxDepth`.
 *
 * Messages follow Go's encoding/json wording ("invalid character 'x' after object key"), which
 * is what kubectl users see for the same mistakes.
 */
import { JSON_ESCAPES, quoteChar, syntaxErrorText } from "../go/json.js";
import { DecodeFailure } from "./document.js";
import { integerValue } from "./integer.js";
import type { ResolvedParseOptions } from "./limits.js";
import { defineEntry } from "./mapping.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Integer literals with at most this many digits are exact as a double. */
const SAFE_DIGITS = 15;

/**
 * A syntax error (Go's json.SyntaxError, or an unexpected end of input), as opposed to a bound or a number out of
 * range: kubectl's YAML-or-JSON decoder may read the text again as YAML after one (see json-stream.ts).
 */
export class JsonSyntaxFailure extends DecodeFailure {}

/**
 * Parses one JSON value that spans `text` from `start` to the end (surrounding whitespace allowed).
 * Throws {@link DecodeFailure} with the offset of the problem ({@link JsonSyntaxFailure} for a syntax error).
 */
export function parseJsonLossless(text: string, start: number, limits: ResolvedParseOptions): unknown {
  const reader = new JsonReader(text, start, limits);
  reader.skipSpace();
  const value = reader.value();
  reader.skipSpace();
  if (reader.pos < text.length) reader.fail("after top-level value");
  return value;
}

/** An object or array being read: its value so far and, for an object, the key of the value being read. */
interface Frame {
  object: Record<string, unknown> | undefined;
  array: unknown[] | undefined;
  key: string;
}

class JsonReader {
  pos: number;
  private nodes = 0;
  private readonly text: string;
  private readonly limits: ResolvedParseOptions;

  constructor(text: string, start: number, limits: ResolvedParseOptions) {
    this.text = text;
    this.pos = start;
    this.limits = limits;
  }

  skipSpace(): void {
    const { text } = this;
    let c = text.charCodeAt(this.pos);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++this.pos);
  }

  /** Throws "invalid character 'x' <context>", or "unexpected end of JSON input" at the end. */
  fail(context: string, at = this.pos): never {
    throw new JsonSyntaxFailure(syntaxErrorText(this.text, at, context), at);
  }

  /**
   * The value starting at `pos`, with everything nested in it. Iterative: the open objects and arrays are an
   * explicit stack, so nesting up to any `maxDepth` cannot overflow the call stack.
   */
  value(): unknown {
    const stack: Frame[] = [];
    for (;;) {
      let value: unknown;
      if (++this.nodes > this.limits.maxNodes) {
        throw new DecodeFailure(`more than ${this.limits.maxNodes} values (the node limit)`, this.pos);
      }
      const c = this.text.charCodeAt(this.pos);
      if (c === OPEN_BRACE) {
        this.enter(stack.length + 1);
        if (this.text.charCodeAt(this.pos) !== CLOSE_BRACE) {
          stack.push({ object: {}, array: undefined, key: this.key() });
          continue;
        }
        this.pos++;
        value = {};
      } else if (c === OPEN_BRACKET) {
        this.enter(stack.length + 1);
        if (this.text.charCodeAt(this.pos) !== CLOSE_BRACKET) {
          stack.push({ object: undefined, array: [], key: "" });
          continue;
        }
        this.pos++;
        value = [];
      } else {
        value = this.scalar(c);
      }
      // Put the value into its collection; close every collection that ends here.
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined) return value;
        if (top.array !== undefined) top.array.push(value);
        else defineEntry(top.object!, top.key, value);
        this.skipSpace();
        const next = this.text.charCodeAt(this.pos);
        this.pos++;
        if (top.array !== undefined) {
          if (next === CLOSE_BRACKET) {
            value = top.array;
            stack.pop();
            continue;
          }
          if (next !== COMMA) this.fail("after array element", this.pos - 1);
          this.skipSpace();
        } else {
          if (next === CLOSE_BRACE) {
            value = top.object;
            stack.pop();
            continue;
          }
          if (next !== COMMA) this.fail("after object key:value pair", this.pos - 1);
          this.skipSpace();
          top.key = this.key();
        }
        break;
      }
    }
  }

  private scalar(c: number): unknown {
    switch (c) {
      case QUOTE:
        return this.string();
      case 0x74: // t
        return this.literal("true", true);
      case 0x66: // f
        return this.literal("false", false);
      case 0x6e: // n
        return this.literal("null", null);
      default:
        if (c === MINUS || (c >= 0x30 && c <= 0x39)) return this.number();
        return this.fail("looking for beginning of value");
    }
  }

  /** Enters a collection at this depth (1 for the top-level one). */
  private enter(depth: number): void {
    if (depth > this.limits.maxDepth) {
      throw new DecodeFailure(`nesting is deeper than the limit of ${this.limits.maxDepth}`, this.pos);
    }
    this.pos++;
    this.skipSpace();
  }

  /** An object key and its colon, leaving `pos` at the value. */
  private key(): string {
    if (this.text.charCodeAt(this.pos) !== QUOTE) this.fail("looking for beginning of object key string");
    const key = this.string();
    this.skipSpace();
    if (this.text.charCodeAt(this.pos) !== COLON) this.fail("after object key");
    this.pos++;
    this.skipSpace();
    return key;
  }

  private string(): string {
    const { text } = this;
    let pos = this.pos + 1;
    let chunkStart = pos;
    let out = "";
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === QUOTE) {
        this.pos = pos + 1;
        return out + text.slice(chunkStart, pos);
      }
      // charCodeAt past the end is NaN: an unterminated string.
      if (Number.isNaN(c) || c < 0x20) this.fail("in string literal", pos);
      if (c !== BACKSLASH) {
        pos++;
        continue;
      }
      out += text.slice(chunkStart, pos);
      const escapeChar = text.charAt(pos + 1);
      if (escapeChar === "u") {
        const hex = text.slice(pos + 2, pos + 6);
        for (let i = 0; i < 4; i++) {
          if (!isHexDigit(hex.charCodeAt(i))) this.fail("in \\u hexadecimal character escape", pos + 2 + i);
        }
        // Lone surrogates are kept, as JSON.parse keeps them.
        out += String.fromCharCode(Number.parseInt(hex, 16));
        pos += 6;
      } else {
        const replacement = JSON_ESCAPES[escapeChar];
        if (replacement === undefined) this.fail("in string escape code", pos + 1);
        out += replacement;
        pos += 2;
      }
      chunkStart = pos;
    }
  }

  private literal<T>(word: string, result: T): T {
    for (let i = 1; i < word.length; i++) {
      if (this.text.charAt(this.pos + i) !== word.charAt(i)) {
        this.fail(`in literal ${word} (expecting ${quoteChar(word.charCodeAt(i))})`, this.pos + i);
      }
    }
    this.pos += word.length;
    return result;
  }

  private number(): number | bigint {
    const { text } = this;
    const start = this.pos;
    let pos = start;
    if (text.charCodeAt(pos) === MINUS) pos++;
    const first = text.charCodeAt(pos);
    if (first === 0x30) {
      pos++;
    } else if (isDigit(first)) {
      while (isDigit(text.charCodeAt(pos))) pos++;
    } else {
      this.fail("in numeric literal", pos);
    }
    let integer = true;
    if (text.charCodeAt(pos) === DOT) {
      integer = false;
      pos++;
      if (!isDigit(text.charCodeAt(pos))) this.fail("after decimal point in numeric literal", pos);
      while (isDigit(text.charCodeAt(pos))) pos++;
    }
    const e = text.charCodeAt(pos);
    if (e === 0x65 || e === 0x45) {
      integer = false;
      pos++;
      const sign = text.charCodeAt(pos);
      if (sign === PLUS || sign === MINUS) pos++;
      if (!isDigit(text.charCodeAt(pos))) this.fail("in exponent of numeric literal", pos);
      while (isDigit(text.charCodeAt(pos))) pos++;
    }
    this.pos = pos;
    const literal = text.slice(start, pos);
    if (integer && pos - start <= SAFE_DIGITS) return Number(literal);
    const value = integer ? integerValue(BigInt(literal)) : Number(literal);
    if (typeof value === "number" && !Number.isFinite(value)) {
      // Go: "cannot unmarshal number 1e400 into Go value of type float64".
      throw new DecodeFailure(`number ${literal} is out of range for a float64`, start);
    }
    return value;
  }
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}
