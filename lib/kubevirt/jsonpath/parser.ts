/**
 * The kubectl JSONPath dialect (k8s.io/client-go/util/jsonpath, parser.go), ported rule for rule.
 *
 * Why not jsonpath-plus: the real template validator parses every `jsonpath::` value with client-go, and what it
 * accepts, rejects and means differs from the JSONPath of jsonpath-plus (RFC 9535-like) in ways rules depend on:
 * `{...}` actions with text between them, `['a.b']` splitting at the dots, unions `[0,1]`, slices with client-go's
 * bounds errors, filters `[?(@.x=="y")]` compared with Go template semantics, `..` descending into every field of
 * the typed struct, and error messages ("unterminated array", "invalid array index x"). A parse error here is an
 * annotation failure there, so the grammar has to be the same; the evaluator (evaluate.ts) needs typed values that
 * jsonpath-plus cannot walk. Measured by the corpus cases: jsonpath-plus has no way to express typed "found"
 * fields or client-go's `[*]` dropping and "not found" errors.
 *
 * Deviations: positions are UTF-16 code units instead of bytes (only visible in `\x` escapes); the input is bounded
 * (MAX_JSONPATH_LENGTH characters, MAX_NESTING nested sub-expressions).
 */

export interface ListNode {
  readonly type: "list";
  readonly nodes: JpNode[];
}

export interface ArrayParam {
  known: boolean;
  value: number;
  derived: boolean;
}

export type JpNode =
  | ListNode
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "field"; readonly name: string }
  | { readonly type: "array"; readonly params: readonly [ArrayParam, ArrayParam, ArrayParam] }
  | { readonly type: "filter"; readonly left: ListNode; readonly right: ListNode; readonly operator: string }
  | { readonly type: "int"; readonly value: number }
  | { readonly type: "float"; readonly value: number }
  | { readonly type: "bool"; readonly value: boolean }
  | { readonly type: "wildcard" }
  | { readonly type: "recursive" }
  | { readonly type: "union"; readonly nodes: readonly ListNode[] }
  | { readonly type: "identifier"; readonly name: string };

/** A template client-go refuses, with client-go's message. */
export class JsonPathSyntaxError extends Error {
  override readonly name = "JsonPathSyntaxError";
}

/** Longest JSONPath accepted (client-go has no limit). */
const MAX_JSONPATH_LENGTH = 4096;
/** Deepest nesting of unions, filters and quoted keys (each is parsed as a template of its own). */
const MAX_NESTING = 16;
/** Most nodes in one parsed template. */
const MAX_NODES = 2000;

const EOF = -1;

function isSpace(r: number): boolean {
  return r === 0x20 || r === 0x09;
}

function isEndOfLine(r: number): boolean {
  return r === 0x0d || r === 0x0a;
}

const LETTER_OR_DIGIT = /[\p{L}\p{Nd}]/u;
const DIGIT = /\p{Nd}/u;

function isDigit(r: number): boolean {
  return r >= 0 && DIGIT.test(String.fromCodePoint(r));
}

function isAlphaNumeric(r: number): boolean {
  return r === 0x5f || (r >= 0 && LETTER_OR_DIGIT.test(String.fromCodePoint(r)));
}

function isTerminator(r: number): boolean {
  if (isSpace(r) || isEndOfLine(r)) return true;
  switch (r) {
    case EOF:
    case 0x2e: // .
    case 0x2c: // ,
    case 0x5b: // [
    case 0x5d: // ]
    case 0x24: // $
    case 0x40: // @
    case 0x7b: // {
    case 0x7d: // }
      return true;
  }
  return false;
}

/** Go's `%#U`: `U+0021 '!'`. */
function goRuneText(r: number): string {
  const hex = r.toString(16).toUpperCase().padStart(4, "0");
  return `U+${hex} '${String.fromCodePoint(r)}'`;
}

const SLICE = /^(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?$/;
const DICT_KEY = /^'([^']*)'$/;
const FILTER = /^([^!<>=]+)([!<>=]+)([^\n]+?)$/;
const INT = /^[+-]?[0-9]+$/;
const FLOAT = /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/;

class Parser {
  root: ListNode = { type: "list", nodes: [] };
  private pos = 0;
  private start = 0;
  private width = 0;
  private nodes = 0;

  constructor(
    private readonly input: string,
    private readonly depth: number,
  ) {}

  parse(): ListNode {
    this.parseText(this.root);
    return this.root;
  }

  private append(cur: ListNode, node: JpNode): void {
    if (++this.nodes > MAX_NODES) throw new JsonPathSyntaxError(`JSONPath has more than ${MAX_NODES} parts`);
    cur.nodes.push(node);
  }

  private consumeText(): string {
    const value = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return value;
  }

  private next(): number {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    const r = this.input.codePointAt(this.pos)!;
    this.width = r > 0xffff ? 2 : 1;
    this.pos += this.width;
    return r;
  }

  private peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }

  private backup(): void {
    this.pos -= this.width;
  }

  private hasPrefix(prefix: string): boolean {
    return this.input.startsWith(prefix, this.pos);
  }

  /** Text outside actions, and each `{...}` action (parseText, parseLeftDelim and parseRightDelim). */
  private parseText(cur: ListNode): void {
    for (;;) {
      if (this.hasPrefix("{")) {
        if (this.pos > this.start) this.append(cur, { type: "text", text: this.consumeText() });
        this.pos += 1;
        this.consumeText();
        const action: ListNode = { type: "list", nodes: [] };
        this.append(cur, action);
        this.parseInsideAction(action);
        continue;
      }
      if (this.next() === EOF) break;
    }
    if (this.pos > this.start) this.append(cur, { type: "text", text: this.consumeText() });
  }

  /** Everything up to and including the closing `}` of an action (Go recurses once per token; this loops). */
  private parseInsideAction(cur: ListNode): void {
    for (;;) {
      if (this.hasPrefix("}")) {
        this.pos += 1;
        this.consumeText();
        return;
      }
      if (this.hasPrefix("[?(")) {
        this.parseFilter(cur);
        continue;
      }
      if (this.hasPrefix("..")) {
        this.parseRecursive(cur);
        continue;
      }
      const r = this.next();
      if (r === EOF || isEndOfLine(r)) throw new JsonPathSyntaxError("unclosed action");
      if (r === 0x20) this.consumeText();
      else if (r === 0x40 || r === 0x24) this.consumeText();
      else if (r === 0x5b) this.parseArray(cur);
      else if (r === 0x22 || r === 0x27) this.parseQuote(cur, r);
      else if (r === 0x2e) this.parseField(cur);
      else if (r === 0x2b || r === 0x2d || isDigit(r)) {
        this.backup();
        this.parseNumber(cur);
      } else if (isAlphaNumeric(r)) {
        this.backup();
        this.parseIdentifier(cur);
      } else throw new JsonPathSyntaxError(`unrecognized character in action: ${goRuneText(r)}`);
    }
  }

  private parseIdentifier(cur: ListNode): void {
    for (;;) {
      const r = this.next();
      if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    if (value === "true" || value === "false") this.append(cur, { type: "bool", value: value === "true" });
    else this.append(cur, { type: "identifier", name: value });
  }

  private parseRecursive(cur: ListNode): void {
    if (cur.nodes.at(-1)?.type === "recursive") throw new JsonPathSyntaxError("invalid multiple recursive descent");
    this.pos += 2;
    this.consumeText();
    this.append(cur, { type: "recursive" });
    if (isAlphaNumeric(this.peek())) this.parseField(cur);
  }

  private parseNumber(cur: ListNode): void {
    const first = this.peek();
    if (first === 0x2b || first === 0x2d) this.next();
    for (;;) {
      const r = this.next();
      if (r !== 0x2e && !isDigit(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    if (INT.test(value)) {
      const n = BigInt(value);
      if (n >= -(2n ** 63n) && n < 2n ** 63n) {
        this.append(cur, { type: "int", value: Number(n) });
        return;
      }
    }
    if (FLOAT.test(value)) {
      this.append(cur, { type: "float", value: Number(value) });
      return;
    }
    throw new JsonPathSyntaxError(`cannot parse number ${value}`);
  }

  private parseArray(cur: ListNode): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === 0x0a) throw new JsonPathSyntaxError("unterminated array");
      if (r === 0x5d) break;
    }
    let text = this.consumeText();
    text = text.slice(1, -1);
    if (text === "*") text = ":";

    const parts = text.split(",");
    if (parts.length > 1) {
      const union: ListNode[] = [];
      for (const part of parts) union.push(this.parseAction(`[${trimSpaces(part)}]`));
      this.append(cur, { type: "union", nodes: union });
      return;
    }

    const key = DICT_KEY.exec(text);
    if (key !== null) {
      for (const node of this.parseAction(`.${key[1]}`).nodes) this.append(cur, node);
      return;
    }

    const m = SLICE.exec(text);
    if (m === null) throw new JsonPathSyntaxError(`invalid array index ${text}`);
    const params: [ArrayParam, ArrayParam, ArrayParam] = [
      { known: false, value: 0, derived: false },
      { known: false, value: 0, derived: false },
      { known: false, value: 0, derived: false },
    ];
    for (let i = 0; i < 3; i++) {
      let v = m[i + 1] ?? "";
      if (v !== "") {
        if (i > 0) v = v.slice(1);
        if (i > 0 && v === "") params[i]!.known = false;
        else {
          params[i]!.known = true;
          params[i]!.value = atoi(v);
        }
      } else if (i === 1) {
        params[1].known = true;
        params[1].value = params[0].value + 1;
        params[1].derived = true;
      }
    }
    this.append(cur, { type: "array", params });
  }

  private parseFilter(cur: ListNode): void {
    this.pos += 3;
    this.consumeText();
    let begin = false;
    let end = false;
    let pair = 0;
    loop: for (;;) {
      const r = this.next();
      switch (r) {
        case EOF:
        case 0x0a:
          throw new JsonPathSyntaxError("unterminated filter");
        case 0x22:
        case 0x27:
          if (!begin) {
            begin = true;
            pair = r;
            continue;
          }
          if (this.input[this.pos - 2] !== "\\" && r === pair) end = true;
          break;
        case 0x29:
          if (begin === end) break loop;
          break;
      }
    }
    if (this.next() !== 0x5d) throw new JsonPathSyntaxError("unclosed array expect ]");
    let text = this.consumeText();
    text = text.slice(0, -2);
    const m = FILTER.exec(text);
    if (m === null) {
      this.append(cur, { type: "filter", left: this.parseAction(text), right: emptyList(), operator: "exists" });
    } else {
      const left = this.parseAction(m[1]!);
      const right = this.parseAction(m[3]!);
      this.append(cur, { type: "filter", left, right, operator: m[2]! });
    }
  }

  private parseQuote(cur: ListNode, end: number): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === 0x0a) throw new JsonPathSyntaxError("unterminated quoted string");
      if (r === end && this.input[this.pos - 2] !== "\\") break;
    }
    const value = this.consumeText();
    const s = unquoteExtend(value);
    if (s === undefined) throw new JsonPathSyntaxError(`unquote string ${value} error invalid syntax`);
    this.append(cur, { type: "text", text: s });
  }

  private parseField(cur: ListNode): void {
    this.consumeText();
    while (this.advance()) {
      /* scan */
    }
    const value = this.consumeText();
    if (value === "*") this.append(cur, { type: "wildcard" });
    else this.append(cur, { type: "field", name: value.replaceAll("\\", "") });
  }

  private advance(): boolean {
    const r = this.next();
    if (r === 0x5c) this.next();
    else if (isTerminator(r)) {
      this.backup();
      return false;
    }
    return true;
  }

  /** client-go's parseAction: `text` as the inside of one action, parsed on its own. */
  private parseAction(text: string): ListNode {
    if (this.depth + 1 > MAX_NESTING) throw new JsonPathSyntaxError(`JSONPath nested more than ${MAX_NESTING} deep`);
    const sub = new Parser(`{${text}}`, this.depth + 1);
    sub.nodes = this.nodes;
    const root = sub.parse();
    this.nodes = sub.nodes;
    return root.nodes[0] as ListNode;
  }
}

function emptyList(): ListNode {
  return { type: "list", nodes: [] };
}

/** strings.Trim(s, " ") */
function trimSpaces(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s[a] === " ") a++;
  while (b > a && s[b - 1] === " ") b--;
  return s.slice(a, b);
}

/** strconv.Atoi for the slice operator's digits (`-?[0-9]*`). */
function atoi(v: string): number {
  if (!/^-?[0-9]+$/.test(v)) throw new JsonPathSyntaxError(`array index ${v} is not a number`);
  const n = BigInt(v);
  if (n < -(2n ** 63n) || n >= 2n ** 63n) throw new JsonPathSyntaxError(`array index ${v} is not a number`);
  // Indexes beyond ±2^53 are out of bounds of any list anyway.
  return Number(n);
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
};

/** client-go's UnquoteExtend (strconv.Unquote that also takes single quotes); undefined for invalid syntax. */
export function unquoteExtend(s: string): string | undefined {
  const n = s.length;
  if (n < 2) return undefined;
  const quote = s[0]!;
  if (quote !== s[n - 1]) return undefined;
  if (quote !== '"' && quote !== "'") return undefined;
  s = s.slice(1, n - 1);
  if (!s.includes("\\") && !s.includes(quote)) return s;
  let out = "";
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === quote) return undefined;
    if (c !== "\\") {
      const cp = s.codePointAt(i)!;
      out += String.fromCodePoint(cp);
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    if (i + 1 >= s.length) return undefined;
    const e = s[i + 1]!;
    i += 2;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    if (e === "'" || e === '"') {
      if (e !== quote) return undefined;
      out += e;
      continue;
    }
    if (e === "x" || e === "u" || e === "U") {
      const len = e === "x" ? 2 : e === "u" ? 4 : 8;
      const hex = s.slice(i, i + len);
      if (hex.length !== len || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
      const v = Number.parseInt(hex, 16);
      i += len;
      if (e !== "x" && (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))) return undefined;
      out += String.fromCodePoint(v);
      continue;
    }
    if (e >= "0" && e <= "7") {
      const oct = s.slice(i - 1, i + 2);
      if (!/^[0-7]{3}$/.test(oct)) return undefined;
      const v = Number.parseInt(oct, 8);
      if (v > 255) return undefined;
      out += String.fromCharCode(v);
      i += 2;
      continue;
    }
    return undefined;
  }
  return out;
}

/** Parses a client-go JSONPath template (text with `{...}` actions). Throws JsonPathSyntaxError. */
export function parseJsonPath(template: string): ListNode {
  if (template.length > MAX_JSONPATH_LENGTH) {
    throw new JsonPathSyntaxError(`JSONPath longer than ${MAX_JSONPATH_LENGTH} characters`);
  }
  return new Parser(template, 0).parse();
}
