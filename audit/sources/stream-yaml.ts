/**
 * Streamed decoding of a YAML file, for `SourceUnit.stream` and `SourceUnit.raw`. YAML is cut at `---` lines exactly
 * as lib's decoder cuts a stream (a line starting with `---` followed by a space, a tab or the end of the line; text
 * before the first marker that holds only comments and directives belongs to the first document), and each piece is
 * decoded with lib's `parseDocuments`, so documents, lines and error texts are what `read()` gives. A piece over the
 * per-document limit (decode.ts) is not buffered: its text is dropped once the bound is passed and only its size is
 * counted up to the next marker. (`...` lines and directives stay inside a piece, as in lib; a piece holding them is
 * decoded between two sentinel documents so the number of documents it counts is known.)
 */
import { type DecodedDocument, parseDocuments } from "#lib";
import type { Location } from "../model.js";
import {
  type DecodeOptions,
  decodeOptionsOnly,
  docPrefix,
  documentLimit,
  documentTooLargeText,
  objectDocs,
  topLevelItemLines,
  yamlParseOptions,
} from "./decode.js";
import { readText, type StreamTuning } from "./stream-text.js";
import type { RawPart, RawYamlPiece, SourceDoc } from "./types.js";

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
  readonly out: RawYamlPiece[] = [];

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
  let index = 0;
  let first = true;
  for await (const pieces of pieceBatches(path, options)) {
    for (const piece of pieces) {
      const { docs, count } = decodePiece(piece, index, first, options);
      first = false;
      index += count;
      for (const doc of docs) yield* toSourceDocs(doc, base, options, piece);
    }
  }
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
  const decodeOptions = decodeOptionsOnly(options);
  let index = 0;
  let first = true;
  for await (const pieces of pieceBatches(path, options)) {
    for (const piece of pieces) {
      const text = piece.text;
      if (text !== undefined && !piece.last && (first || text.includes("\n...") || text.includes("\n%"))) {
        const { docs, count } = decodePiece(piece, index, first, decodeOptions);
        yield { kind: "docs", docs: docs.flatMap((d) => toSourceDocs(d, base, decodeOptions, piece)) };
        index += count;
      } else {
        // decodePiece counts one document for such a piece.
        yield { kind: "yaml", piece, index, first, base, options: decodeOptions };
        index += 1;
      }
      first = false;
    }
  }
}

/** The pieces of a YAML file in order, in batches (the pieces each read chunk completes), as the cutter cuts them. */
async function* pieceBatches(path: string, tuning: StreamTuning & DecodeOptions): AsyncGenerator<RawYamlPiece[]> {
  const cutter = new YamlCutter(documentLimit(tuning));
  for await (const chunk of readText(path, tuning)) {
    cutter.push(chunk, false);
    if (cutter.out.length > 0) yield cutter.out.splice(0);
  }
  cutter.push("", true);
  if (cutter.out.length > 0) yield cutter.out.splice(0);
}

/**
 * The docs of one decoded document of `piece`: an input error, or its object, or the items of a `kind: List` at
 * their own lines, as a file read whole gives them (decode.ts).
 */
export function toSourceDocs(
  doc: DecodedDocument,
  base: Location,
  options: DecodeOptions,
  piece: RawYamlPiece,
): SourceDoc[] {
  const location: Location = { ...base, document: doc.document, line: doc.line };
  if (doc.error !== undefined) return [{ kind: "error", location, error: doc.error }];
  const text = piece.text;
  return objectDocs(doc.object, location, options, () =>
    text === undefined ? [] : topLevelItemLines(text, doc.line, doc.object, piece.line),
  );
}

const SENTINEL = "--- 0\n";

/** Decodes one piece whose first document is document `index`; `count` is how many documents it counts. */
export function decodePiece(
  piece: RawYamlPiece,
  index: number,
  first: boolean,
  options: DecodeOptions,
): { docs: DecodedDocument[]; count: number } {
  if (piece.text === undefined) {
    const line = piece.line + Math.max(piece.contentLine, 0);
    const error = `${docPrefix({ document: index, line })}${documentTooLargeText(options)}`;
    return { docs: [{ error, document: index, line }], count: 1 };
  }
  const parse = yamlParseOptions(options);
  const text = piece.text;
  // A piece starting at a marker holds one document unless a `...` line or a directive starts another; the first
  // piece may hold more (lib joins text without content before the first marker to it).
  if (piece.last || (!first && !(text.includes("\n...") || text.includes("\n%")))) {
    const docs = parseDocuments(text, parse);
    return { docs: shift(docs, index, piece.line - 1), count: 1 };
  }
  // Sentinel documents around the piece: the one after it tells how many documents the piece counted; the one
  // before keeps a piece without content from being joined to the sentinel (lib's rule for a stream's start).
  const prefix = first ? "" : SENTINEL;
  const docs = parseDocuments(prefix + text + SENTINEL, parse);
  const sentinel = docs.pop();
  const skip = first ? 0 : 1;
  const count = (sentinel?.document ?? skip + 1) - skip;
  const own = first ? docs : docs.filter((d) => d.document > 0);
  return { docs: shift(own, index - skip, piece.line - 1 - skip), count };
}

/** Moves documents decoded from a piece to their place in the file: `document + docDelta`, `line + lineDelta`. */
function shift(docs: DecodedDocument[], docDelta: number, lineDelta: number): DecodedDocument[] {
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
