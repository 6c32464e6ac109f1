/**
 * Streamed decoding of one file, for {@link SourceUnit.stream}: memory holds one document (one YAML document, one
 * `kind: List` item) and a read buffer, not the file.
 *
 * - YAML is cut at `---` lines exactly as lib's decoder cuts a stream (a line starting with `---` followed by a
 *   space, a tab or the end of the line; text before the first marker that holds only comments and directives
 *   belongs to the first document), and each piece is decoded with lib's `parseDocuments`, so documents, lines and
 *   error texts are what `read()` gives. A piece over the per-document bound (8 MiB) is not buffered: its text is
 *   dropped once the bound is passed and only its size is counted up to the next marker. (`...` lines and
 *   directives stay inside a piece, as in lib; a piece holding them is decoded between two sentinel documents so
 *   the number of documents it counts is known.)
 * - A JSON text over `maxJsonParseBytes` is streamed only when it is a List: a first pass checks the structure and
 *   reads the top-level keys (so `kind` may come after `items`, as `kubectl get -o json` writes it), a second pass
 *   cuts the elements of `items` and decodes each one alone. See {@link streamJsonList} for how it differs from a
 *   whole parse.
 */
import { Buffer } from "node:buffer";
import { createReadStream } from "node:fs";
import { type DecodedDocument, type ParseOptions, parseDocuments } from "#lib";
import type { Location } from "../model.js";
import { type DecodeOptions, decodeText, jsonParseOptions, objectDoc } from "./decode.js";
import type { RawJsonList, RawPart, ReadMeter, SourceDoc } from "./types.js";

/** lib's default bound on one document (`ParseOptions.maxBytes`), which YAML documents and List items keep. */
export const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;
/** lib's default nesting bound; a List item sits at depth 3 of its List. */
const MAX_DEPTH = 128;
const READ_BUFFER = 1024 * 1024;

/** Tests set a small read buffer so that markers, strings and values fall across chunk boundaries. */
export interface StreamTuning extends ReadMeter {
  readBuffer?: number;
}

function readText(path: string, tuning: StreamTuning | undefined): AsyncIterable<string> {
  const stream = createReadStream(path, { encoding: "utf8", highWaterMark: tuning?.readBuffer ?? READ_BUFFER });
  const onRead = tuning?.onRead;
  if (onRead === undefined) return stream;
  return (async function* () {
    for await (const chunk of stream as AsyncIterable<string>) {
      onRead(Buffer.byteLength(chunk, "utf8"));
      yield chunk;
    }
  })();
}

// ---------------------------------------------------------------------------------------------------------------
// YAML

/** One piece of a YAML stream between markers, as lib's splitter makes it. */
interface YamlPiece {
  /** Undefined when the piece is over the bound (its text was dropped). */
  text: string | undefined;
  /** UTF-8 bytes, counted once the piece may be over the bound. */
  bytes: number;
  /** 1-based line of the piece's first character. */
  line: number;
  /** 0-based index of the piece's first line with content, or -1. */
  contentLine: number;
  last: boolean;
}

const MARKER = /\n---(?=[ \t\r\n]|$)/g;
const WHITESPACE = /\s/;

/** Finds the first line with content as lib's `firstContentLine` does, fed piece by piece, stopping when found. */
class ContentFinder {
  found = -1;
  private line = 0;
  private head = "";
  private state: "head" | "space" | "skip" = "head";

  feed(text: string): void {
    if (this.found >= 0) return;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charAt(i);
      if (ch === "\n") {
        if (this.state === "head" && this.spaceLogic(this.head)) return;
        this.line++;
        this.head = "";
        this.state = "head";
        continue;
      }
      if (this.state === "skip") continue;
      if (this.state === "head") {
        this.head += ch;
        if (this.head.length < 3) continue;
        this.state = "space";
        if (this.head === "---" || this.head === "...") continue;
        if (this.spaceLogic(this.head)) return;
        continue;
      }
      if (this.spaceLogic(ch)) return;
    }
  }

  /** At the end of the text: a last line shorter than three characters. */
  end(): void {
    if (this.found < 0 && this.state === "head") this.spaceLogic(this.head);
  }

  /** Feeds characters after the marker prefix; true when the line has content. */
  private spaceLogic(chars: string): boolean {
    for (const ch of chars) {
      if (this.state === "skip") return false;
      if (WHITESPACE.test(ch)) continue;
      if (ch === "#" || ch === "%") {
        this.state = "skip";
        return false;
      }
      this.found = this.line;
      return true;
    }
    this.state = "space";
    return false;
  }
}

/** Cuts a YAML text read piece by piece into lib's pieces; at most one piece (bounded) is held. */
class YamlCutter {
  private parts: string[] = [];
  private length = 0;
  private bytes = -1;
  private over = false;
  private line = 1;
  private pieceLine = 1;
  private empty = true;
  private first = true;
  private finder = new ContentFinder();
  private held = "";
  private atLineStart = true;
  private bom = true;
  readonly out: YamlPiece[] = [];

  constructor(private readonly maxBytes: number) {}

  push(chunk: string, eof: boolean): void {
    let text = this.held + chunk;
    this.held = "";
    if (this.bom) {
      if (text === "" && !eof) return;
      this.bom = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (!eof) {
      // A line start with fewer than four characters waits: it may be a marker.
      const nl = text.lastIndexOf("\n");
      const tail = nl >= 0 ? nl + 1 : this.atLineStart ? 0 : -1;
      if (tail >= 0 && text.length - tail < 4) {
        this.held = text.slice(tail);
        text = text.slice(0, tail);
      }
    }
    if (text !== "") {
      let from = 0;
      if (
        this.atLineStart &&
        text.startsWith("---") &&
        (text.length === 3 ? eof : " \t\r\n".includes(text.charAt(3)))
      ) {
        this.cut(text, 0);
      }
      MARKER.lastIndex = 0;
      for (let m = MARKER.exec(text); m !== null; m = MARKER.exec(text)) {
        const at = m.index + 1;
        this.append(text.slice(from, at));
        this.cut(text, at);
        from = at;
      }
      this.append(from === 0 ? text : text.slice(from));
      this.atLineStart = text.endsWith("\n");
    }
    if (eof) {
      this.finder.end();
      this.emit(true);
    }
  }

  private cut(_text: string, _at: number): void {
    if (this.empty) return; // a marker at the very start is no cut (lib: a start at 0 is not pushed)
    if (this.first) {
      this.first = false;
      // Text before the first marker without content belongs to the first document.
      if (this.finder.found < 0) return;
    }
    this.emit(false);
  }

  private emit(last: boolean): void {
    this.out.push({
      text: this.over ? undefined : this.parts.join(""),
      bytes: this.bytes,
      line: this.pieceLine,
      contentLine: this.finder.found,
      last,
    });
    this.parts = [];
    this.length = 0;
    this.bytes = -1;
    this.over = false;
    this.empty = true;
    this.first = false;
    this.finder = new ContentFinder();
    this.pieceLine = this.line;
  }

  private append(text: string): void {
    if (text === "") return;
    this.empty = false;
    this.finder.feed(text);
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) this.line++;
    if (this.over) {
      this.bytes += Buffer.byteLength(text, "utf8");
      return;
    }
    this.parts.push(text);
    this.length += text.length;
    if (this.bytes >= 0) {
      this.bytes += Buffer.byteLength(text, "utf8");
    } else if (this.length * 3 > this.maxBytes) {
      this.bytes = 0;
      for (const p of this.parts) this.bytes += Buffer.byteLength(p, "utf8");
    }
    if (this.bytes > this.maxBytes) {
      this.over = true;
      this.parts = [];
    }
  }
}

/** The YAML documents of a file, one piece at a time; the same docs as `decodeText` on the whole text. */
export async function* streamYaml(
  path: string,
  base: Location,
  options: DecodeOptions & StreamTuning,
): AsyncGenerator<SourceDoc> {
  const cutter = new YamlCutter(MAX_DOCUMENT_BYTES);
  let index = 0;
  let first = true;
  const drain = function* (): Generator<SourceDoc> {
    for (const piece of cutter.out) {
      const { docs, count } = decodePiece(piece, index, first);
      first = false;
      index += count;
      for (const doc of docs) yield* toSourceDocs(doc, base, options);
    }
    cutter.out.length = 0;
  };
  for await (const chunk of readText(path, options)) {
    cutter.push(chunk, false);
    yield* drain();
  }
  cutter.push("", true);
  yield* drain();
}

/**
 * The same file as {@link streamYaml}, undecoded: one `yaml` part per piece, for {@link decodeRawPart} to decode
 * elsewhere. A piece whose number of documents is known only by decoding it (the first piece, a piece holding `...`
 * lines or directives) is decoded here and given as a `docs` part, so that every part's document index is known.
 */
export async function* streamYamlParts(
  path: string,
  base: Location,
  options: DecodeOptions & StreamTuning,
): AsyncGenerator<RawPart> {
  const decodeOptions: DecodeOptions = { nonKubernetes: options.nonKubernetes, maxJsonBytes: options.maxJsonBytes };
  const cutter = new YamlCutter(MAX_DOCUMENT_BYTES);
  let index = 0;
  let first = true;
  const drain = function* (): Generator<RawPart> {
    for (const piece of cutter.out) {
      const text = piece.text;
      if (text !== undefined && !piece.last && (first || text.includes("\n...") || text.includes("\n%"))) {
        const { docs, count } = decodePiece(piece, index, first);
        yield { kind: "docs", docs: docs.flatMap((d) => toSourceDocs(d, base, decodeOptions)) };
        index += count;
      } else {
        // decodePiece counts one document for such a piece.
        yield { kind: "yaml", piece, index, first, base, options: decodeOptions };
        index += 1;
      }
      first = false;
    }
    cutter.out.length = 0;
  };
  for await (const chunk of readText(path, options)) {
    cutter.push(chunk, false);
    yield* drain();
  }
  cutter.push("", true);
  yield* drain();
}

/**
 * The docs of a part of {@link SourceUnit.raw}, as the unit's `stream()` gives them; `nested` for a List item that
 * is itself a List (its items are numbered after the top-level ones: the caller decodes that unit again with
 * `stream()`, which holds nested Lists until the end).
 */
export function decodeRawPart(part: RawPart): SourceDoc[] | "nested" | "reparse" {
  switch (part.kind) {
    case "reparse":
      return "reparse";
    case "docs":
      return part.docs;
    case "text":
      return decodeText(part.text, part.base, part.options);
    case "yaml": {
      const { docs } = decodePiece(part.piece, part.index, part.first);
      return docs.flatMap((d) => toSourceDocs(d, part.base, part.options));
    }
    case "json-item": {
      const r = decodeJsonItem(part.raw, part.elementLine, part.column, part.list, part.item);
      if ("nested" in r) return part.list.whole === true ? "reparse" : "nested";
      if ("bad" in r) return part.list.whole === true ? "reparse" : [r.bad];
      return [r];
    }
  }
}

function toSourceDocs(doc: DecodedDocument, base: Location, options: DecodeOptions): SourceDoc[] {
  const location: Location = { ...base, document: doc.document, line: doc.line };
  if (doc.error !== undefined) return [{ kind: "error", location, error: doc.error }];
  return [objectDoc(doc.object, location, options)];
}

const SENTINEL = "--- 0\n";

/** Decodes one piece whose first document is document `index`; `count` is how many documents it counts. */
function decodePiece(piece: YamlPiece, index: number, first: boolean): { docs: DecodedDocument[]; count: number } {
  if (piece.text === undefined) {
    const line = piece.line + Math.max(piece.contentLine, 0);
    const error = `document ${index} (line ${line}): document is ${piece.bytes} bytes, over the limit of ${MAX_DOCUMENT_BYTES}`;
    return { docs: [{ error, document: index, line }], count: 1 };
  }
  const text = piece.text;
  // A piece starting at a marker holds one document unless a `...` line or a directive starts another; the first
  // piece may hold more (lib joins text without content before the first marker to it).
  if (piece.last || (!first && !(text.includes("\n...") || text.includes("\n%")))) {
    const docs = parseDocuments(text);
    return { docs: shift(docs, index, piece.line - 1, 0), count: 1 };
  }
  // Sentinel documents around the piece: the one after it tells how many documents the piece counted; the one
  // before keeps a piece without content from being joined to the sentinel (lib's rule for a stream's start).
  const prefix = first ? "" : SENTINEL;
  const docs = parseDocuments(prefix + text + SENTINEL);
  const sentinel = docs.pop();
  const skip = first ? 0 : 1;
  const count = (sentinel?.document ?? skip + 1) - skip;
  const own = first ? docs : docs.filter((d) => d.document > 0);
  return { docs: shift(own, index - skip, piece.line - 1 - skip, skip), count };
}

/** Moves documents decoded from a piece to their place in the file: `document + docDelta`, `line + lineDelta`. */
function shift(docs: DecodedDocument[], docDelta: number, lineDelta: number, _skip: number): DecodedDocument[] {
  if (docDelta === 0 && lineDelta === 0) return docs;
  return docs.map((d) => {
    const document = d.document + docDelta;
    const line = d.line + lineDelta;
    if (d.error === undefined) return { ...d, document, line };
    return { error: shiftError(d.error, d, document, line, lineDelta), document, line };
  });
}

const LINE_AT = /^line (\d+)(, column \d+)?: /;
const DEFINED_AT = / already defined at line (\d+)$/;

/** Rewrites the places in lib's error text: the `document N (line L): ` prefix and the lines after it. */
function shiftError(error: string, from: DecodedDocument, document: number, line: number, lineDelta: number): string {
  const prefix = `document ${from.document} (line ${from.line}): `;
  if (!error.startsWith(prefix)) return error;
  let rest = error.slice(prefix.length);
  const at = LINE_AT.exec(rest);
  if (at !== null) {
    const detail = rest.slice(at[0].length);
    const fixed = detail.startsWith("mapping key ")
      ? detail.replace(DEFINED_AT, (_m, n: string) => ` already defined at line ${Number(n) + lineDelta}`)
      : detail;
    rest = `line ${Number(at[1]) + lineDelta}${at[2] ?? ""}: ${fixed}`;
  }
  return `document ${document} (line ${line}): ${rest}`;
}

// ---------------------------------------------------------------------------------------------------------------
// JSON

class ScanError extends Error {}

enum S {
  Top,
  ObjFirst,
  Key,
  KeyString,
  Colon,
  Value,
  ValueScan,
  AfterValue,
  ItemsFirst,
  Element,
  ElementScan,
  AfterElement,
  End,
}

interface ScanEvents {
  /** A top-level value other than an items array: its raw text (undefined when over the bound). */
  value(key: string, raw: string | undefined): void;
  /** The `items` array number `occurrence` (0-based) starts; return true to have its elements cut. */
  items(occurrence: number): boolean;
  /** An element of a wanted items array, with its place; raw is undefined when over the bound. */
  element(raw: string | undefined, line: number, column: number): void;
}

/**
 * A small JSON scanner for the top-level object of a List: it follows strings (with escapes) and nesting, reads
 * the top-level keys, and cuts top-level values and the elements of `items`. Values are not decoded here; lib's
 * decoder checks what is cut.
 */
class ListScanner {
  private state = S.Top;
  private depth = 0; // nesting inside the value being scanned
  private inString = false;
  private escape = false;
  private scalar = false;
  private key = "";
  private keyParts: string[] = [];
  private parts: string[] = [];
  private partsLength = 0;
  private over = false;
  private capture = false;
  private itemsCount = 0;
  private elementLine = 0;
  private elementColumn = 0;
  line = 1;
  private lineStart = 0; // offset (in the stream) of the current line's start
  private offset = 0; // offset of the current chunk's start
  /** 1-based line of the top-level value's first character. */
  startLine = 1;

  constructor(
    private readonly events: ScanEvents,
    private readonly maxBytes: number,
  ) {}

  private fail(message: string, i: number): never {
    throw new ScanError(`line ${this.line}, column ${this.offset + i - this.lineStart + 1}: ${message}`);
  }

  push(text: string): void {
    let start = 0;
    if (this.offset === 0 && text.charCodeAt(0) === 0xfeff) start = 1;
    let captureFrom = this.state === S.ValueScan || this.state === S.ElementScan || this.state === S.KeyString ? 0 : -1;
    const n = text.length;
    for (let i = start; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x0a) {
        this.line++;
        this.lineStart = this.offset + i + 1;
      }
      switch (this.state) {
        case S.ValueScan:
        case S.ElementScan: {
          // The hot loop: find where the value ends.
          let inString = this.inString;
          let escaped = this.escape;
          let depth = this.depth;
          const scalar = this.scalar;
          let ended = -1;
          for (let j = i; j < n; j++) {
            const d = text.charCodeAt(j);
            if (scalar) {
              if (d === 0x2c || d === 0x5d || d === 0x7d || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) {
                ended = j;
                break;
              }
              continue;
            }
            if (d === 0x0a && j > i) {
              this.line++;
              this.lineStart = this.offset + j + 1;
            }
            if (inString) {
              if (escaped) escaped = false;
              else if (d === 0x5c) escaped = true;
              else if (d === 0x22) {
                inString = false;
                if (depth === 0) {
                  ended = j + 1;
                  break;
                }
              }
            } else if (d === 0x22) inString = true;
            else if (d === 0x7b || d === 0x5b) depth++;
            else if ((d === 0x7d || d === 0x5d) && --depth === 0) {
              ended = j + 1;
              break;
            }
          }
          this.inString = inString;
          this.escape = escaped;
          this.depth = depth;
          if (ended < 0) {
            i = n - 1;
            break;
          }
          this.take(text, captureFrom, ended);
          captureFrom = -1;
          this.endValue();
          i = ended - 1;
          break;
        }
        case S.KeyString: {
          if (this.escape) this.escape = false;
          else if (c === 0x5c) this.escape = true;
          else if (c === 0x22) {
            this.keyParts.push(text.slice(captureFrom, i + 1));
            captureFrom = -1;
            this.key = this.keyParts.join("");
            this.keyParts = [];
            this.state = S.Colon;
          } else if (c < 0x20) this.fail("invalid character in string literal", i);
          break;
        }
        default: {
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) break;
          captureFrom = this.structural(c, i);
        }
      }
    }
    if (captureFrom >= 0) {
      if (this.state === S.KeyString) this.keyParts.push(text.slice(captureFrom));
      else this.take(text, captureFrom, n);
    }
    this.offset += n;
  }

  /** A character outside values and keys; returns where a capture starts in this chunk, or -1. */
  private structural(c: number, i: number): number {
    switch (this.state) {
      case S.Top:
        if (c !== 0x7b) throw new NotAList();
        this.startLine = this.line;
        this.state = S.ObjFirst;
        return -1;
      case S.ObjFirst:
      case S.Key:
        if (c === 0x7d && this.state === S.ObjFirst) {
          this.state = S.End;
          return -1;
        }
        if (c !== 0x22) this.fail(`invalid character ${quote(c)} looking for beginning of object key string`, i);
        this.state = S.KeyString;
        return i;
      case S.Colon:
        if (c !== 0x3a) this.fail(`invalid character ${quote(c)} after object key`, i);
        this.state = S.Value;
        return -1;
      case S.Value:
        if (this.decodedKey() === "items" && c === 0x5b) {
          this.capture = this.events.items(this.itemsCount++);
          this.state = S.ItemsFirst;
          return -1;
        }
        this.capture = true;
        this.state = S.ValueScan;
        return this.startValue(c, i);
      case S.AfterValue:
        if (c === 0x2c) this.state = S.Key;
        else if (c === 0x7d) this.state = S.End;
        else this.fail(`invalid character ${quote(c)} after object key:value pair`, i);
        return -1;
      case S.ItemsFirst:
      case S.Element:
        if (c === 0x5d && this.state === S.ItemsFirst) {
          this.state = S.AfterValue;
          return -1;
        }
        this.state = S.ElementScan;
        this.elementLine = this.line;
        this.elementColumn = this.offset + i - this.lineStart + 1;
        return this.startValue(c, i);
      case S.AfterElement:
        if (c === 0x2c) this.state = S.Element;
        else if (c === 0x5d) this.state = S.AfterValue;
        else this.fail(`invalid character ${quote(c)} after array element`, i);
        return -1;
      default:
        // More after the List: lib reads further JSON values, or YAML (kubectl's YAML-or-JSON decoder); this
        // reader streams a List only when it is the whole text.
        throw new MoreThanAList();
    }
  }

  /** A value starts at `i`; the value scan begins at the next character. */
  private startValue(c: number, i: number): number {
    this.parts = [];
    this.partsLength = 0;
    this.over = false;
    this.depth = 0;
    this.scalar = false;
    this.inString = false;
    this.escape = false;
    if (c === 0x7b || c === 0x5b) this.depth = 1;
    else if (c === 0x22) this.inString = true;
    else if (c === 0x7d || c === 0x5d || c === 0x2c || c === 0x3a)
      this.fail(`invalid character ${quote(c)} looking for beginning of value`, i);
    else this.scalar = true;
    // The loop goes on at i + 1; a scalar's first character is taken here.
    return i;
  }

  private take(text: string, from: number, to: number): void {
    if (!this.capture || from < 0 || this.over || to <= from) return;
    this.partsLength += to - from;
    if (this.partsLength > this.maxBytes) {
      this.over = true;
      this.parts = [];
      return;
    }
    this.parts.push(text.slice(from, to));
  }

  private endValue(): void {
    let raw: string | undefined;
    if (this.capture && !this.over) {
      raw = this.parts.join("");
      if (raw.length * 3 > this.maxBytes && Buffer.byteLength(raw, "utf8") > this.maxBytes) raw = undefined;
    }
    this.parts = [];
    if (this.state === S.ValueScan) {
      this.events.value(this.decodedKey(), raw);
      this.state = S.AfterValue;
    } else {
      if (this.capture) this.events.element(raw, this.elementLine, this.elementColumn);
      this.state = S.AfterElement;
    }
  }

  private decodedKey(): string {
    try {
      return JSON.parse(this.key) as string;
    } catch {
      throw new ScanError(`invalid object key ${this.key.slice(0, 40)}`);
    }
  }

  end(): void {
    if (this.state === S.Top) throw new NotAList();
    if (this.state !== S.End) throw new ScanError(`line ${this.line}: unexpected end of JSON input`);
  }
}

class NotAList extends Error {}

class MoreThanAList extends NotAList {}

function quote(c: number): string {
  return c < 0x20 ? `'\\u${c.toString(16).padStart(4, "0")}'` : `'${String.fromCharCode(c)}'`;
}

async function scan(path: string, events: ScanEvents, tuning: StreamTuning): Promise<ListScanner> {
  const scanner = new ListScanner(events, MAX_DOCUMENT_BYTES);
  // The structure pass is not progress: the items pass reads the same bytes again.
  for await (const chunk of readText(path, { readBuffer: tuning.readBuffer })) scanner.push(chunk);
  scanner.end();
  return scanner;
}

interface ListObject extends Record<string, unknown> {
  kind: string;
  items: unknown[];
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isList(value: unknown): value is ListObject {
  return (
    isMapping(value) && typeof value.kind === "string" && value.kind.endsWith("List") && Array.isArray(value.items)
  );
}

/** lib's list.ts: an item without kind and apiVersion takes them from a typed list. */
function withListKind(item: unknown, kind: string, apiVersion: unknown): unknown {
  if (!isMapping(item) || item.kind !== undefined || item.apiVersion !== undefined) return item;
  const itemKind = kind.slice(0, -"List".length);
  if (itemKind === "" || typeof apiVersion !== "string") return item;
  return { apiVersion, kind: itemKind, ...item };
}

/** Decodes one cut value with lib's decoder (integers keep every digit); `depth` is where it sits. */
function decodeValue(
  raw: string,
  depth: number,
  parse: ParseOptions,
  line: number,
  column: number,
): { value: unknown } | { error: string } {
  const object = raw.charCodeAt(0) === 0x7b;
  const text = object ? raw : `{"v":${raw}}`;
  const maxDepth = MAX_DEPTH - depth + (object ? 1 : 2);
  const [doc] = parseDocuments(text, { ...parse, maxBytes: Number.MAX_SAFE_INTEGER, maxDepth });
  if (doc === undefined) return { error: "internal error: nothing decoded" };
  if (doc.error === undefined) return { value: object ? doc.object : (doc.object as { v: unknown }).v };
  let detail = doc.error.replace(/^document 0 \(line 1\): /, "");
  const at = /^line (\d+), column (\d+): /.exec(detail);
  if (at !== null) {
    const l = Number(at[1]);
    const col = l === 1 ? Number(at[2]) - (object ? 0 : 5) + column - 1 : Number(at[2]);
    detail = `line ${l + line - 1}, column ${col}: ${detail.slice(at[0].length)}`;
  }
  return { error: detail };
}

/**
 * A JSON file too large to parse whole, streamed when it is a List (an object whose `kind` ends in "List" and
 * whose `items` is an array): one doc per item, at `{file, document: 0, line: <the List's line>, item: i}` as
 * `read()` gives them, with typed lists' kinds given to their items and nested Lists flattened in kubectl's
 * breadth-first order (nested Lists are held until the top-level items are done).
 *
 * Two passes over the file: the first checks the structure (strings, nesting, commas and colons), decodes the
 * top-level values other than `items` and reads `kind` and `apiVersion` wherever they are in the object; a text
 * that is not a List, or is malformed there, is one input error and nothing else. The second pass decodes each
 * item alone, with the per-document bound (8 MiB) on its text and lib's depth bound counted from the List. Unlike
 * a whole parse, a bad item (a syntax error inside it, too deep, too large) is an input error of that item and the
 * other items are still read.
 */
export async function* streamJsonList(
  path: string,
  base: Location,
  options: DecodeOptions & StreamTuning & { size: number; maxJsonParseBytes: number },
): AsyncGenerator<SourceDoc> {
  const head = await jsonListHead(path, base, options);
  if ("error" in head) {
    yield head.error;
    return;
  }
  const { list, lastItems } = head;
  let item = 0;
  const nested: unknown[] = [];
  try {
    yield* itemsPass(path, options, lastItems, (raw, elementLine, column, push: (d: SourceDoc) => void) => {
      const r = decodeJsonItem(raw, elementLine, column, list, item);
      if ("nested" in r) {
        nested.push(r.nested);
        return;
      }
      item++;
      push("bad" in r ? r.bad : r);
    });
  } catch (error) {
    // The file changed between the passes.
    yield secondPassError(error, list);
    return;
  }
  // Nested Lists after the top-level items, breadth first, as lib's unwrapList orders them.
  const location = (): Location => ({ ...base, document: 0, line: list.line, item: item++ });
  for (let i = 0; i < nested.length; i++) {
    const current = nested[i];
    if (!isList(current)) {
      yield objectDoc(current, location(), list.options);
      continue;
    }
    for (const it of current.items) nested.push(withListKind(it, current.kind, current.apiVersion));
    nested[i] = undefined;
  }
}

/**
 * The same file as {@link streamJsonList}, undecoded: the first pass runs here, then one `json-item` part per
 * element of `items` (numbered in order: an element that is itself a List makes {@link decodeRawPart} answer
 * `nested`, and the caller then reads the unit again with `stream()`). With `whole` (a file `read()` parses whole),
 * anything a whole parse would give otherwise (a malformed file, an item that does not decode alone, a nested
 * List) decodes as `reparse` instead: the caller then decodes the unit with `read()`.
 */
export async function* streamJsonListParts(
  path: string,
  base: Location,
  options: DecodeOptions & StreamTuning & { size: number; maxJsonParseBytes: number; whole?: boolean },
): AsyncGenerator<RawPart> {
  const head = await jsonListHead(path, base, options);
  if ("error" in head) {
    yield options.whole === true ? { kind: "reparse" } : { kind: "docs", docs: [head.error] };
    return;
  }
  const { lastItems } = head;
  const list: RawJsonList = options.whole === true ? { ...head.list, whole: true } : head.list;
  let item = 0;
  try {
    yield* itemsPass(path, options, lastItems, (raw, elementLine, column, push: (p: RawPart) => void) =>
      push({ kind: "json-item", raw, elementLine, column, item: item++, list }),
    );
  } catch (error) {
    yield options.whole === true ? { kind: "reparse" } : { kind: "docs", docs: [secondPassError(error, list)] };
  }
}

/**
 * The second pass over a JSON List: the elements of its `lastItems`-th `items` member, each handed to `element`,
 * which pushes what it makes of it; those are yielded after each chunk read. Throws what reading or scanning throws
 * (the file changed between the passes).
 */
async function* itemsPass<T>(
  path: string,
  tuning: StreamTuning,
  lastItems: number,
  element: (raw: string | undefined, elementLine: number, column: number, push: (value: T) => void) => void,
): AsyncGenerator<T> {
  const out: T[] = [];
  const push = (value: T): void => {
    out.push(value);
  };
  const scanner = new ListScanner(
    {
      value() {},
      items: (occurrence) => occurrence === lastItems,
      element: (raw, elementLine, column) => element(raw, elementLine, column, push),
    },
    MAX_DOCUMENT_BYTES,
  );
  for await (const chunk of readText(path, tuning)) {
    scanner.push(chunk);
    yield* out;
    out.length = 0;
  }
  scanner.end();
  yield* out;
}

function secondPassError(error: unknown, list: RawJsonList): SourceDoc {
  return {
    kind: "error",
    location: { ...list.base, document: 0, line: list.line },
    error: `document 0 (line ${list.line}): ${error instanceof ScanError ? error.message : readError(error)}`,
  };
}

/** The first pass of a streamed List: the List's kind, apiVersion and place, or the one input error of the file. */
async function jsonListHead(
  path: string,
  base: Location,
  options: DecodeOptions & StreamTuning & { size: number; maxJsonParseBytes: number },
): Promise<{ error: SourceDoc } | { list: RawJsonList; lastItems: number }> {
  const parse = jsonParseOptions(options.maxJsonBytes);
  const top: Record<string, unknown> = {};
  let lastItems = -1;
  let problem: string | undefined;
  let line = 1;
  const notList = `document is ${options.size} bytes, over the limit of ${options.maxJsonParseBytes} for JSON parsed whole, and is not a List whose items can be streamed`;
  try {
    const first = await scan(
      path,
      {
        value(key, raw) {
          if (problem !== undefined) return;
          if (raw === undefined) {
            problem = `the value of ${JSON.stringify(key)} is over the limit of ${MAX_DOCUMENT_BYTES} bytes`;
            return;
          }
          const decoded = decodeValue(raw, 2, parse, 1, 1);
          if ("error" in decoded) problem = `the value of ${JSON.stringify(key)}: ${decoded.error}`;
          else if (key === "kind" || key === "apiVersion" || key === "items") top[key] = decoded.value;
        },
        items(occurrence) {
          lastItems = occurrence;
          top.items = [];
          return false;
        },
        element() {},
      },
      options,
    );
    line = first.startLine;
  } catch (error) {
    if (error instanceof MoreThanAList) problem = `${notList}: more follows the List`;
    else if (error instanceof NotAList) problem = notList;
    else if (error instanceof ScanError) problem = error.message;
    else return { error: { kind: "error", location: { ...base }, error: readError(error) } };
  }
  if (problem === undefined && !isList(top)) problem = notList;
  if (problem !== undefined) {
    return {
      error: {
        kind: "error",
        location: { ...base, document: 0, line },
        error: `document 0 (line ${line}): ${problem}`,
      },
    };
  }
  const list = top as ListObject;
  const decodeOptions: DecodeOptions = { nonKubernetes: options.nonKubernetes, maxJsonBytes: options.maxJsonBytes };
  return { list: { base, line, kind: list.kind, apiVersion: list.apiVersion, options: decodeOptions }, lastItems };
}

/**
 * One element of a List's `items`, decoded as item `item`; a List (nested) is given back whole, and an element that
 * does not decode alone (`bad`) as its input error.
 */
function decodeJsonItem(
  raw: string | undefined,
  elementLine: number,
  column: number,
  list: RawJsonList,
  item: number,
): SourceDoc | { nested: unknown } | { bad: SourceDoc } {
  const location: Location = { ...list.base, document: 0, line: list.line, item };
  if (raw === undefined) {
    return {
      bad: {
        kind: "error",
        location,
        error: `document 0 (line ${list.line}): item ${item}: item is over the limit of ${MAX_DOCUMENT_BYTES} bytes`,
      },
    };
  }
  const decoded = decodeValue(raw, 3, jsonParseOptions(list.options.maxJsonBytes), elementLine, column);
  if ("error" in decoded) {
    return {
      bad: { kind: "error", location, error: `document 0 (line ${list.line}): item ${item}: ${decoded.error}` },
    };
  }
  const value = withListKind(decoded.value, list.kind, list.apiVersion);
  if (isList(value)) return { nested: value };
  return objectDoc(value, location, list.options);
}

function readError(error: unknown): string {
  return `cannot be read: ${error instanceof Error ? error.message : String(error)}`;
}
