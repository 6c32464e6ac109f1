/**
 * How kubectl 1.36 reads a text whose first character (after white space) is `{`: apimachinery's
 * `YAMLOrJSONDecoder` (k8s.io/apimachinery pkg/util/yaml/decoder.go, since 1.33) reads it as a stream of JSON
 * values (Go's json.Decoder: `{...}{...}` and `{...}\n{...}` are two values). When a value fails with a syntax
 * error after at most one value was read, the text is still ambiguous, and the decoder switches to YAML for the
 * rest: from the end of the last value read (or from the start), after white space up to and including the first
 * line break. A stream of two or more JSON values stays JSON, and a later syntax error ends it. So
 * `{...}\n---\n{...}` is a JSON document followed by YAML documents, and `{a: 1}` is YAML.
 *
 * When the first YAML document read after the switch fails too, kubectl reports the JSON error, not the YAML one.
 * Each JSON value is one document here: `null` is an empty document, anything but a mapping an error, and the
 * document bounds apply to each value.
 */
import { type DecodedDocument, DecodeFailure, failedDocument, notAnObject } from "./document.js";
import { decodeJsonValue } from "./json-decode.js";
import { JsonSyntaxFailure } from "./json-parser.js";
import { documentTooLarge, isOverBytes, type ResolvedParseOptions } from "./limits.js";
import { isMapping } from "./mapping.js";
import { decodeYamlStream } from "./yaml-decode.js";

/** Decodes `text`, whose first value starts at `start` with `{`, as kubectl's YAML-or-JSON decoder does. */
export function decodeJsonOrYaml(text: string, start: number, limits: ResolvedParseOptions): DecodedDocument[] {
  return decodeOne(text, start, limits) ?? decodeStream(text, start, limits);
}

/** The usual case, parsed in one go: the whole text is one JSON value within the bounds. */
function decodeOne(text: string, start: number, limits: ResolvedParseOptions): DecodedDocument[] | undefined {
  if (isOverBytes(text, limits.maxBytes)) return undefined;
  let value: unknown;
  try {
    value = decodeJsonValue(text, start, limits);
  } catch (error) {
    if (error instanceof DecodeFailure) return undefined;
    throw error;
  }
  const doc = valueDocument(value, 0, lineAt(text, start));
  return doc === undefined ? [] : [doc];
}

function decodeStream(text: string, start: number, limits: ResolvedParseOptions): DecodedDocument[] {
  const out: DecodedDocument[] = [];
  /** Values read so far (the decoder's `count`), which is also the next document's index. */
  let count = 0;
  /** Where the last value read ends: YAML starts there after a syntax error. */
  let consumed = 0;
  const lines = new LineCursor(text);
  for (let pos = skipJsonSpace(text, start); pos < text.length; pos = skipJsonSpace(text, pos)) {
    const end = jsonValueEnd(text, pos);
    const line = lines.lineAt(pos);
    let value: unknown;
    if (end - pos > limits.maxBytes / 3 && isOverBytes(text.slice(pos, end), limits.maxBytes)) {
      out.push(failedDocument(count, line, documentTooLarge(limits.maxBytes, limits.maxBytesSetting)));
      value = null;
    } else {
      try {
        value = decodeJsonValue(text.slice(pos, end), 0, limits);
      } catch (error) {
        if (!(error instanceof DecodeFailure)) throw error;
        const at = error.offset === undefined ? "" : `${position(text, pos + error.offset)}: `;
        const failed = failedDocument(count, line, `${at}${error.message}`);
        if (error instanceof JsonSyntaxFailure) {
          if (count > 1) return [...out, failed];
          return [...out, ...readRestAsYaml(text, consumed, count, failed, limits)];
        }
        // A bound or a number out of range: the value itself was read, so the stream goes on.
        out.push(failed);
        value = null;
      }
    }
    const doc = valueDocument(value, count, line);
    if (doc !== undefined) out.push(doc);
    count++;
    consumed = pos = end;
  }
  return out;
}

/** One decoded value as a document: `null` is an empty document (kubectl skips it). */
function valueDocument(value: unknown, document: number, line: number): DecodedDocument | undefined {
  if (value === null) return undefined;
  if (!isMapping(value)) return failedDocument(document, line, notAnObject(value));
  return { object: value, document, line };
}

/**
 * The rest of the text from `from`, read as YAML after a JSON syntax error (`failed`, the error of document
 * `count`), as the decoder does after `consumeWhitespace`; kubectl reports the JSON error when that first YAML
 * document fails too, or when it gives up before reading YAML.
 */
function readRestAsYaml(
  text: string,
  from: number,
  count: number,
  failed: DecodedDocument,
  limits: ResolvedParseOptions,
): DecodedDocument[] {
  const yamlStart = consumeWhitespace(text, from);
  if (yamlStart === undefined) return [failed];
  const docs = decodeYamlStream(text.slice(yamlStart), limits, { document: count, line: lineAt(text, yamlStart) });
  const first = docs[0];
  if (first !== undefined && first.document === count && first.error !== undefined) docs[0] = failed;
  return docs;
}

/**
 * The decoder's consumeWhitespace: white space (Go's unicode.IsSpace) up to and including the first line break
 * is skipped. It reads four bytes at a time and gives up at the end of the text when fewer than four are left,
 * and on U+FFFD (Go's utf8.RuneError): undefined then.
 */
function consumeWhitespace(text: string, from: number): number | undefined {
  let i = from;
  for (;;) {
    if (!hasBytes(text, i, 4)) return undefined;
    const c = text.codePointAt(i) as number;
    if (c === 0xfffd) return undefined;
    if (!isGoSpace(c)) return i;
    i += c > 0xffff ? 2 : 1;
    if (c === 0x0a) return i;
  }
}

/** Whether at least `n` bytes of UTF-8 are left from `i`. */
function hasBytes(text: string, i: number, n: number): boolean {
  let bytes = 0;
  for (let j = i; j < text.length && bytes < n; j++) {
    const c = text.charCodeAt(j);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : c >= 0xdc00 && c <= 0xdfff ? 0 : 3;
  }
  return bytes >= n;
}

/** Go's unicode.IsSpace. */
export function isGoSpace(c: number): boolean {
  if (c <= 0xff) return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0x85 || c === 0xa0;
  return (
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

function skipJsonSpace(text: string, pos: number): number {
  let c = text.charCodeAt(pos);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++pos);
  return pos;
}

const SCALAR_CHAR = /[-+.0-9A-Za-z]/;

/**
 * Where the JSON value starting at `pos` ends, found by following strings and brackets only (the parser then
 * checks it): after its closing bracket or quote, after a scalar's last character, or the end of the text.
 */
function jsonValueEnd(text: string, pos: number): number {
  const first = text.charAt(pos);
  if (first !== "{" && first !== "[" && first !== '"') {
    let end = pos;
    while (end < text.length && SCALAR_CHAR.test(text.charAt(end))) end++;
    return Math.max(end, pos + 1);
  }
  let depth = 0;
  let inString = false;
  for (let i = pos; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) {
        inString = false;
        if (depth === 0) return i + 1;
      }
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
  }
  return text.length;
}

/** Lines of offsets that only grow, counted once. */
class LineCursor {
  private offset = 0;
  private line = 1;
  constructor(private readonly text: string) {}

  lineAt(offset: number): number {
    for (let i = this.text.indexOf("\n", this.offset); i >= 0 && i < offset; i = this.text.indexOf("\n", i + 1)) {
      this.line++;
      this.offset = i + 1;
    }
    return this.line;
  }
}

export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

export function position(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return `line ${lineAt(text, offset)}, column ${offset - lineStart + 1}`;
}
