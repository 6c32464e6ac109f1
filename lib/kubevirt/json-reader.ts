/**
 * A small, bounded JSON reader for validation annotations that keeps what JSON.parse throws away: the order of an
 * object's keys including repeated ones (Go's decoder applies every key in order, so with case-insensitive matching
 * `"max"`, `"Max"`, `"max"` ends with the third), and the literal text of numbers. Syntax errors use Go's
 * encoding/json wording ("invalid character ']' looking for beginning of value"), which is what the real validator
 * reports.
 */

import { JSON_ESCAPES, quoteChar, syntaxErrorText } from "../go/json.js";

export type JsonNode =
  | { readonly t: "null" }
  | { readonly t: "bool"; readonly v: boolean }
  | { readonly t: "number"; readonly v: number; readonly text: string }
  | { readonly t: "string"; readonly v: string }
  | { readonly t: "array"; readonly items: readonly JsonNode[] }
  | { readonly t: "object"; readonly entries: readonly (readonly [string, JsonNode])[] };

/** Deepest nesting accepted. */
export const MAX_JSON_DEPTH = 64;
/** Most values in one document. */
export const MAX_JSON_NODES = 200_000;

export class JsonSyntaxError extends Error {
  override readonly name = "JsonSyntaxError";
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

class Reader {
  pos = 0;
  private nodes = 0;
  constructor(private readonly text: string) {}

  fail(context: string): never {
    throw new JsonSyntaxError(syntaxErrorText(this.text, this.pos, context));
  }

  space(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else return;
    }
  }

  value(depth: number): JsonNode {
    if (++this.nodes > MAX_JSON_NODES) throw new JsonSyntaxError(`more than ${MAX_JSON_NODES} JSON values`);
    if (depth > MAX_JSON_DEPTH) throw new JsonSyntaxError(`JSON nested deeper than ${MAX_JSON_DEPTH}`);
    this.space();
    const c = this.text[this.pos];
    switch (c) {
      case "{":
        return this.object(depth);
      case "[":
        return this.array(depth);
      case '"':
        return { t: "string", v: this.string() };
      case "t":
        return this.word("true", { t: "bool", v: true });
      case "f":
        return this.word("false", { t: "bool", v: false });
      case "n":
        return this.word("null", { t: "null" });
      default: {
        if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
        return this.fail("looking for beginning of value");
      }
    }
  }

  private word(w: string, node: JsonNode): JsonNode {
    for (let i = 0; i < w.length; i++) {
      if (this.text[this.pos] !== w[i]) this.fail(`in literal ${w} (expecting ${quoteChar(w.charCodeAt(i))})`);
      this.pos++;
    }
    return node;
  }

  private number(): JsonNode {
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.text);
    if (m === null) {
      this.pos++;
      return this.fail("in numeric literal");
    }
    const text = m[0];
    this.pos += text.length;
    const next = this.text[this.pos];
    if (next === "." || next === "e" || next === "E") this.fail("in numeric literal");
    return { t: "number", v: Number(text), text };
  }

  private string(): string {
    this.pos++; // opening quote
    let out = "";
    let run = this.pos;
    for (;;) {
      if (this.pos >= this.text.length) this.fail("in string literal");
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x22) {
        out += this.text.slice(run, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) this.fail("in string literal");
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += this.text.slice(run, this.pos);
      this.pos++;
      const e = this.text[this.pos];
      const simple = e === undefined ? undefined : JSON_ESCAPES[e];
      if (simple !== undefined) {
        out += simple;
        this.pos++;
      } else if (e === "u") {
        const hex = this.text.slice(this.pos + 1, this.pos + 5);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
          this.pos++;
          while (/[0-9a-fA-F]/.test(this.text[this.pos] ?? "")) this.pos++;
          this.fail("in \\u hexadecimal character escape");
        }
        out += String.fromCharCode(Number.parseInt(hex, 16));
        this.pos += 5;
      } else this.fail("in string escape code");
      run = this.pos;
    }
  }

  private array(depth: number): JsonNode {
    this.pos++;
    const items: JsonNode[] = [];
    this.space();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return { t: "array", items };
    }
    for (;;) {
      items.push(this.value(depth + 1));
      this.space();
      const c = this.text[this.pos];
      if (c === ",") {
        this.pos++;
        continue;
      }
      if (c === "]") {
        this.pos++;
        return { t: "array", items };
      }
      this.fail("after array element");
    }
  }

  private object(depth: number): JsonNode {
    this.pos++;
    const entries: (readonly [string, JsonNode])[] = [];
    this.space();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return { t: "object", entries };
    }
    for (;;) {
      this.space();
      if (this.text[this.pos] !== '"') this.fail("looking for beginning of object key string");
      const key = this.string();
      this.space();
      if (this.text[this.pos] !== ":") this.fail("after object key");
      this.pos++;
      entries.push([key, this.value(depth + 1)]);
      this.space();
      const c = this.text[this.pos];
      if (c === ",") {
        this.pos++;
        continue;
      }
      if (c === "}") {
        this.pos++;
        return { t: "object", entries };
      }
      this.fail("after object key:value pair");
    }
  }
}

/** Reads one JSON document. Throws JsonSyntaxError with Go's wording. */
export function readJson(text: string): JsonNode {
  const r = new Reader(text);
  const v = r.value(0);
  r.space();
  if (r.pos < text.length) r.fail("after top-level value");
  return v;
}

/** The JSON type of a node as Go names it in unmarshal errors: `string`, `number`, `bool`, `object`, `array`. */
export function jsonTypeName(n: JsonNode): string {
  switch (n.t) {
    case "bool":
      return "bool";
    default:
      return n.t;
  }
}
