/**
 * A fast reader for the block-style YAML that tools write (controller-gen's CRDs, kubectl's and Helm's output):
 * block mappings and sequences, plain, quoted and block scalars, comments, and the empty flow collections `{}` and
 * `[]`. For such a document it gives the value the full decoder (yaml-decode.ts) gives, through the same scalar
 * resolution (yaml-scalar.ts) and number rules; for anything else it gives up and returns undefined, and the full
 * decoder reads the document, with its error messages: anchors, aliases, tags, directives, flow collections with
 * content, tabs, carriage returns and other unusual characters, explicit keys, merge keys, block scalar indentation
 * indicators, duplicate keys, anything YAML refuses, and documents near a bound (nesting, values). It never reports
 * an error itself.
 *
 * Why: the `yaml` package's lexer alone takes ~50 ms per MB of CRD YAML, and a bundle of CRDs is megabytes; this
 * reader is one pass over the text.
 */
import type { ResolvedParseOptions } from "./limits.js";
import { defineEntry } from "./mapping.js";
import { isPlainString, keyText, type ResolvedScalar, resolveScalar } from "./yaml-scalar.js";

/** Nesting beyond this goes to the full decoder (this reader recurses once per level). */
const MAX_FAST_DEPTH = 64;
/** YAML limits implicit keys to 1024 characters; longer ones go to the full decoder. */
const MAX_KEY_LENGTH = 1000;

/**
 * Characters that make the whole text go to the full decoder: tabs, carriage returns, C0 and C1 controls, YAML 1.1's
 * extra line breaks (NEL, LS, PS), byte order marks, non-characters and surrogates (lone ones are invalid; pairs are
 * merely rare).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters the reader refuses
const UNUSUAL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/;

const SPACE = 0x20;
const NEWLINE = 0x0a;
const HASH = 0x23;
const DASH = 0x2d;
const COLON = 0x3a;
const DQUOTE = 0x22;
const SQUOTE = 0x27;

/**
 * Plain keys already resolved, by their text (the same few hundred keys make up most of a bundle's CRDs): what
 * keyText gave. Bounded: cleared when full.
 */
const PLAIN_KEYS = new Map<string, string>();
const MAX_PLAIN_KEYS = 4096;

/** Thrown to leave the reader: the text is not in the subset it reads. */
class GiveUp {}
const GIVE_UP = new GiveUp();

/** Characters that cannot start a plain scalar or plain key here (YAML indicators and reserved characters). */
function isIndicator(c: number): boolean {
  switch (c) {
    case 0x2d: // -
    case 0x3f: // ?
    case 0x3a: // :
    case 0x2c: // ,
    case 0x5b: // [
    case 0x5d: // ]
    case 0x7b: // {
    case 0x7d: // }
    case 0x23: // #
    case 0x26: // &
    case 0x2a: // *
    case 0x21: // !
    case 0x7c: // |
    case 0x3e: // >
    case 0x27: // '
    case 0x22: // "
    case 0x25: // %
    case 0x40: // @
    case 0x60: // `
      return true;
    default:
      return false;
  }
}

/**
 * The value of a one-document chunk of YAML in the block subset, or undefined when the full decoder must read it.
 * Only mappings are returned (an object is what every caller wants); `toValue` turns a resolved plain scalar into
 * a decoded value exactly as the full decoder does, and may throw when it would fail.
 */
export function readBlockYaml(
  text: string,
  limits: ResolvedParseOptions,
  toValue: (resolved: ResolvedScalar, text: string) => unknown,
): Record<string, unknown> | undefined {
  if (UNUSUAL.test(text)) return undefined;
  try {
    return new BlockReader(text, limits, toValue).document();
  } catch (e) {
    if (e === GIVE_UP) return undefined;
    // A scalar the full decoder would refuse (toValue threw), or a fault here: the full decoder decides.
    return undefined;
  }
}

class BlockReader {
  private readonly s: string;
  private readonly maxDepth: number;
  private readonly maxNodes: number;
  private readonly toValue: (resolved: ResolvedScalar, text: string) => unknown;
  /** Start of the first line not consumed yet. */
  private at = 0;
  /** Start of the line the reader is on (where columns count from). */
  private line = 0;
  private nodes = 0;
  /** The line end lineEnd() found last, and the offset it was asked for (no line break lies between them). */
  private endFrom = -1;
  private end = -1;
  /** The line peek() found last, and its indentation. */
  private peeked = -1;
  private peekedIndent = 0;
  /** The plain key start plainKeyEnd() was asked for last, and its answer. */
  private keyFrom = -1;
  private keyColon = -1;
  /** Set by key(): the offset after the key's `:`. */
  private keyEnd = 0;
  /** Set by plainLine(): the end of the line, and whether a comment ended the text. */
  private plainEnd = 0;
  private plainComment = false;

  constructor(s: string, limits: ResolvedParseOptions, toValue: (resolved: ResolvedScalar, text: string) => unknown) {
    this.s = s;
    this.maxDepth = Math.min(limits.maxDepth, MAX_FAST_DEPTH);
    this.maxNodes = limits.maxNodes;
    this.toValue = toValue;
  }

  document(): Record<string, unknown> | undefined {
    let start = this.peek(true);
    if (start < 0) return undefined;
    if (this.s.startsWith("---", start)) {
      // The document start marker, alone on its line (or with a comment).
      if (!this.isLineRestBlank(start + 3, true)) throw GIVE_UP;
      this.at = this.nextLine(start);
      start = this.peek();
      if (start < 0) return undefined;
    }
    const indent = this.indentOf(start);
    const p = start + indent;
    this.line = start;
    if (this.isSequenceEntry(p)) throw GIVE_UP;
    const root = this.mapping(indent, p, 1);
    if (this.peek() >= 0) throw GIVE_UP;
    return root;
  }

  // ----- lines ----------------------------------------------------------------------------------

  /** The end of the line holding `p` (its line break, or the text's end). */
  private lineEnd(p: number): number {
    // A line's end is asked for several times (its key, then its value): the last one found is kept.
    if (p >= this.endFrom && p <= this.end) return this.end;
    const e = this.s.indexOf("\n", p);
    this.endFrom = p;
    this.end = e < 0 ? this.s.length : e;
    return this.end;
  }

  /** Start of the line after the one holding `p` (the text's length at the end). */
  private nextLine(p: number): number {
    const e = this.lineEnd(p);
    return e < this.s.length ? e + 1 : e;
  }

  private indentOf(lineStart: number): number {
    // peek() measured the indentation of the line it found.
    if (lineStart === this.peeked) return this.peekedIndent;
    let i = lineStart;
    while (this.s.charCodeAt(i) === SPACE) i++;
    return i - lineStart;
  }

  /**
   * Whether the line from `p` holds only spaces, or (when `comment`) spaces then a comment: a `#` after a space or at
   * the start of the line.
   */
  private isLineRestBlank(p: number, comment: boolean): boolean {
    const s = this.s;
    let i = p;
    while (s.charCodeAt(i) === SPACE) i++;
    if (i >= s.length || s.charCodeAt(i) === NEWLINE) return true;
    if (!comment || s.charCodeAt(i) !== HASH) return false;
    return i === 0 || s.charCodeAt(i - 1) === SPACE || s.charCodeAt(i - 1) === NEWLINE;
  }

  /**
   * Start of the next line with content (not blank, not only a comment) from `this.at`, or -1 at the end. A
   * document marker at the start of a line (a second document, or an end marker) goes to the full decoder, unless
   * `marker` lets a `---` through (the document's first line).
   */
  private peek(marker = false): number {
    const s = this.s;
    let ls = this.at;
    while (ls < s.length) {
      let i = ls;
      while (s.charCodeAt(i) === SPACE) i++;
      const c = s.charCodeAt(i);
      if (i < s.length && c !== NEWLINE && c !== HASH) {
        if (i === ls && (c === DASH || c === 0x2e) && (s.startsWith("---", ls) || s.startsWith("...", ls))) {
          const after = s.charCodeAt(ls + 3);
          const isMarker = ls + 3 >= s.length || after === SPACE || after === NEWLINE;
          if (isMarker && !(marker && c === DASH)) throw GIVE_UP;
        }
        this.peeked = ls;
        this.peekedIndent = i - ls;
        return ls;
      }
      ls = this.nextLine(i);
    }
    return -1;
  }

  private count(depth: number): void {
    if (++this.nodes > this.maxNodes || depth > this.maxDepth) throw GIVE_UP;
  }

  // ----- collections ----------------------------------------------------------------------------

  private isSequenceEntry(p: number): boolean {
    if (this.s.charCodeAt(p) !== DASH) return false;
    const c = this.s.charCodeAt(p + 1);
    return p + 1 >= this.s.length || c === SPACE || c === NEWLINE;
  }

  /** A block mapping whose entries start at column `indent`; the first key starts at `p` on the current line. */
  private mapping(indent: number, p: number, depth: number): Record<string, unknown> {
    this.count(depth);
    const out: Record<string, unknown> = {};
    let keyAt = p;
    for (;;) {
      const key = this.key(keyAt);
      if (Object.hasOwn(out, key)) throw GIVE_UP;
      defineEntry(out, key, this.mappingValue(this.keyEnd, indent, depth));
      const next = this.peek();
      if (next < 0) break;
      const ind = this.indentOf(next);
      if (ind < indent) break;
      if (ind > indent) throw GIVE_UP;
      keyAt = next + ind;
      this.line = next;
      if (this.isSequenceEntry(keyAt)) throw GIVE_UP;
    }
    return out;
  }

  /** The value after a key's `:` (at `p`) in a mapping at column `indent`. */
  private mappingValue(p: number, indent: number, depth: number): unknown {
    let i = p;
    while (this.s.charCodeAt(i) === SPACE) i++;
    if (this.isLineRestBlank(i, true)) {
      this.at = this.nextLine(i);
      const next = this.peek();
      // A sequence at the key's own column is the key's value (an "indentless" sequence).
      if (next >= 0 && this.indentOf(next) === indent && this.isSequenceEntry(next + indent)) {
        this.line = next;
        return this.sequence(indent, next + indent, depth + 1);
      }
      return this.blockNode(indent, depth);
    }
    return this.inlineValue(i, indent, depth);
  }

  /** A node on the lines after the current one, indented more than `parent`; null when there is none. */
  private blockNode(parent: number, depth: number): unknown {
    const next = this.peek();
    if (next < 0 || this.indentOf(next) <= parent) {
      this.count(depth + 1);
      return null;
    }
    const indent = this.indentOf(next);
    const p = next + indent;
    this.line = next;
    if (this.isSequenceEntry(p)) return this.sequence(indent, p, depth + 1);
    if (!this.isKeyLine(p)) throw GIVE_UP;
    return this.mapping(indent, p, depth + 1);
  }

  /** A block sequence whose `-` entries are at column `indent`; the first `-` is at `p` on the current line. */
  private sequence(indent: number, p: number, depth: number): unknown[] {
    this.count(depth);
    const out: unknown[] = [];
    let dash = p;
    for (;;) {
      let r = dash + 1;
      while (this.s.charCodeAt(r) === SPACE) r++;
      if (this.isLineRestBlank(r, true)) {
        this.at = this.nextLine(r);
        out.push(this.blockNode(indent, depth));
      } else if (this.isSequenceEntry(r)) {
        out.push(this.sequence(r - this.line, r, depth + 1));
      } else if (this.isKeyLine(r)) {
        out.push(this.mapping(r - this.line, r, depth + 1));
      } else {
        out.push(this.inlineValue(r, indent, depth));
      }
      const next = this.peek();
      if (next < 0) break;
      const ind = this.indentOf(next);
      if (ind !== indent || !this.isSequenceEntry(next + ind)) {
        // Less indented, or a key of the mapping holding an indentless sequence: the caller decides.
        if (ind > indent) throw GIVE_UP;
        break;
      }
      this.line = next;
      dash = next + ind;
    }
    return out;
  }

  // ----- keys -----------------------------------------------------------------------------------

  /** Whether the line from `p` is a mapping entry (`key:` followed by a space or the end of the line). */
  private isKeyLine(p: number): boolean {
    const s = this.s;
    const c = s.charCodeAt(p);
    if (c === DQUOTE || c === SQUOTE) {
      const close = this.closingQuote(p);
      if (close < 0) return false;
      let i = close + 1;
      while (s.charCodeAt(i) === SPACE) i++;
      return s.charCodeAt(i) === COLON && this.isBlankOrEnd(i + 1);
    }
    return this.plainKeyEnd(p) >= 0;
  }

  private isBlankOrEnd(i: number): boolean {
    const c = this.s.charCodeAt(i);
    return i >= this.s.length || c === SPACE || c === NEWLINE;
  }

  /** The `:` ending a plain key that starts at `p` on this line, or -1 (none, or a comment comes first). */
  private plainKeyEnd(p: number): number {
    // isKeyLine() looks for a key's end first, then key() reads the key: the last answer is kept.
    if (p === this.keyFrom) return this.keyColon;
    const s = this.s;
    const end = this.lineEnd(p);
    let colon = -1;
    for (let i = p; i < end; i++) {
      const c = s.charCodeAt(i);
      if (c === COLON && this.isBlankOrEnd(i + 1)) {
        colon = i;
        break;
      }
      if (c === HASH && i > p && s.charCodeAt(i - 1) === SPACE) break;
    }
    this.keyFrom = p;
    this.keyColon = colon;
    return colon;
  }

  /** The closing quote of a one-line quoted scalar starting at `p`, or -1. */
  private closingQuote(p: number): number {
    const s = this.s;
    const q = s.charCodeAt(p);
    const end = this.lineEnd(p);
    for (let i = p + 1; i < end; i++) {
      const c = s.charCodeAt(i);
      if (q === DQUOTE && c === 0x5c) i++;
      else if (c === q) {
        if (q === SQUOTE && s.charCodeAt(i + 1) === SQUOTE) i++;
        else return i;
      }
    }
    return -1;
  }

  /** The key starting at `p`; `keyEnd` is set to the offset after its `:`. */
  private key(p: number): string {
    const s = this.s;
    const c = s.charCodeAt(p);
    let text: string;
    let isPlain: boolean;
    let colon: number;
    if (c === DQUOTE || c === SQUOTE) {
      const close = this.closingQuote(p);
      if (close < 0) throw GIVE_UP;
      text = c === DQUOTE ? this.doubleQuotedLine(p + 1, close) : s.slice(p + 1, close).replaceAll("''", "'");
      isPlain = false;
      colon = close + 1;
      while (s.charCodeAt(colon) === SPACE) colon++;
      if (s.charCodeAt(colon) !== COLON || !this.isBlankOrEnd(colon + 1)) throw GIVE_UP;
    } else {
      if (isIndicator(c)) throw GIVE_UP;
      colon = this.plainKeyEnd(p);
      if (colon < 0) throw GIVE_UP;
      let e = colon;
      while (s.charCodeAt(e - 1) === SPACE) e--;
      text = s.slice(p, e);
      isPlain = true;
      if (text === "<<") throw GIVE_UP;
    }
    if (colon - p > MAX_KEY_LENGTH) throw GIVE_UP;
    this.keyEnd = colon + 1;
    if (!isPlain) return text;
    const known = PLAIN_KEYS.get(text);
    if (known !== undefined) return known;
    const resolved = resolveScalar(text, undefined, true);
    if (resolved.tag === "error") throw GIVE_UP;
    const key = keyText(resolved);
    if (typeof key !== "string") throw GIVE_UP;
    if (PLAIN_KEYS.size >= MAX_PLAIN_KEYS) PLAIN_KEYS.clear();
    PLAIN_KEYS.set(text, key);
    return key;
  }

  // ----- scalars --------------------------------------------------------------------------------

  /** A value that starts on the current line at `p`, in a collection at column `parent`. */
  private inlineValue(p: number, parent: number, depth: number): unknown {
    const s = this.s;
    const c = s.charCodeAt(p);
    this.count(depth + 1);
    if (c === DQUOTE) return this.quoted(p, parent, true);
    if (c === SQUOTE) return this.quoted(p, parent, false);
    if (c === 0x7c || c === 0x3e) return this.blockScalar(p, parent);
    if (c === 0x7b || c === 0x5b) {
      // Only the empty flow collections `{}` and `[]`.
      if (s.charCodeAt(p + 1) !== (c === 0x7b ? 0x7d : 0x5d) || !this.isLineRestBlank(p + 2, true)) throw GIVE_UP;
      this.at = this.nextLine(p);
      return c === 0x7b ? {} : [];
    }
    if (isIndicator(c)) throw GIVE_UP;
    return this.plain(p, parent);
  }

  /**
   * The text of a plain scalar's line from `p`: up to a comment or the end, trailing spaces removed. A `: ` or a
   * final `:` (a mapping where none may be) goes to the full decoder. `comment` is set when a comment ended it.
   */
  private plainLine(p: number): string {
    const s = this.s;
    const end = this.lineEnd(p);
    let stop = end;
    let comment = false;
    for (let i = p; i < end; i++) {
      const c = s.charCodeAt(i);
      if (c === COLON && this.isBlankOrEnd(i + 1)) throw GIVE_UP;
      if (c === HASH && s.charCodeAt(i - 1) === SPACE) {
        stop = i;
        comment = true;
        break;
      }
    }
    while (stop > p && s.charCodeAt(stop - 1) === SPACE) stop--;
    this.plainEnd = end;
    this.plainComment = comment;
    return s.slice(p, stop);
  }

  private plain(p: number, parent: number): unknown {
    const s = this.s;
    let text = this.plainLine(p);
    let ls = this.plainEnd + 1;
    this.at = ls;
    // Continuation lines (more indented than the collection), folded: one line break is a space, each blank line
    // in between a newline. A comment ends the scalar.
    if (!this.plainComment) {
      let blanks = 0;
      while (ls < s.length) {
        const ind = this.indentOf(ls);
        const i = ls + ind;
        const c = s.charCodeAt(i);
        if (i >= s.length || c === NEWLINE) {
          blanks++;
          ls = this.nextLine(i);
          continue;
        }
        if (ind <= parent || c === HASH) break;
        // Any character may start a continuation line; an entry-looking `- ` or `? ` is left to the full decoder.
        if ((c === DASH || c === 0x3f) && this.isBlankOrEnd(i + 1)) throw GIVE_UP;
        const more = this.plainLine(i);
        text += blanks === 0 ? ` ${more}` : "\n".repeat(blanks) + more;
        blanks = 0;
        ls = this.plainEnd + 1;
        this.at = ls;
        if (this.plainComment) break;
      }
    }
    // Most plain scalars are strings whatever they say (their first character tells): no resolution needed.
    if (isPlainString(text)) return text;
    const resolved = resolveScalar(text, undefined, true);
    if (resolved.tag === "error") throw GIVE_UP;
    return this.toValue(resolved, text);
  }

  /**
   * A quoted scalar from its opening quote at `p`, over one or more lines (each continuation line more indented
   * than `parent`), folded as YAML folds flow scalars; the rest of its last line must be blank or a comment.
   */
  private quoted(p: number, parent: number, double: boolean): string {
    const s = this.s;
    const q = double ? DQUOTE : SQUOTE;
    let out = "";
    let spaces = 0;
    let i = p + 1;
    for (;;) {
      if (i >= s.length) throw GIVE_UP;
      const c = s.charCodeAt(i);
      if (c === q) {
        if (!double && s.charCodeAt(i + 1) === SQUOTE) {
          out += `${" ".repeat(spaces)}'`;
          spaces = 0;
          i += 2;
          continue;
        }
        out += " ".repeat(spaces);
        break;
      }
      if (c === SPACE) {
        spaces++;
        i++;
      } else if (c === NEWLINE) {
        // A line break: trailing spaces dropped, blank lines kept as newlines, one break folded to a space.
        spaces = 0;
        let blanks = 0;
        let ls = i + 1;
        for (;;) {
          if (ls >= s.length) throw GIVE_UP;
          const ind = this.indentOf(ls);
          if (s.charCodeAt(ls + ind) !== NEWLINE) {
            if (ind <= parent) throw GIVE_UP;
            i = ls + ind;
            break;
          }
          blanks++;
          ls = ls + ind + 1;
        }
        out += blanks === 0 ? " " : "\n".repeat(blanks);
      } else if (double && c === 0x5c) {
        out += " ".repeat(spaces);
        spaces = 0;
        const e = s.charCodeAt(i + 1);
        if (e === NEWLINE) {
          // An escaped line break: nothing is added, the next line's indentation is dropped.
          const ls = i + 2;
          if (ls >= s.length) throw GIVE_UP;
          const ind = this.indentOf(ls);
          if (s.charCodeAt(ls + ind) === NEWLINE || ind <= parent) throw GIVE_UP;
          i = ls + ind;
          continue;
        }
        const { text, length } = this.escape(i + 1);
        out += text;
        i += 1 + length;
      } else {
        if (spaces > 0) {
          out += " ".repeat(spaces);
          spaces = 0;
        }
        // Copy the run of ordinary characters at once.
        let j = i + 1;
        for (; j < s.length; j++) {
          const d = s.charCodeAt(j);
          if (d === q || d === SPACE || d === NEWLINE || (double && d === 0x5c)) break;
        }
        out += s.slice(i, j);
        i = j;
      }
    }
    if (!this.isLineRestBlank(i + 1, true)) throw GIVE_UP;
    this.at = this.nextLine(i);
    return out;
  }

  /** The text of a one-line double-quoted scalar between `from` and its closing quote `to`. */
  private doubleQuotedLine(from: number, to: number): string {
    const s = this.s;
    let out = "";
    let i = from;
    while (i < to) {
      const slash = s.indexOf("\\", i);
      if (slash < 0 || slash >= to) {
        out += s.slice(i, to);
        break;
      }
      out += s.slice(i, slash);
      const { text, length } = this.escape(slash + 1);
      out += text;
      i = slash + 1 + length;
    }
    return out;
  }

  /** A double-quoted escape after its backslash (YAML 1.1's set, as go-yaml v2 reads them). */
  private escape(p: number): { text: string; length: number } {
    const c = this.s.charAt(p);
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) return { text: simple, length: 1 };
    const digits = c === "x" ? 2 : c === "u" ? 4 : c === "U" ? 8 : 0;
    if (digits === 0) throw GIVE_UP;
    const hex = this.s.slice(p + 1, p + 1 + digits);
    if (hex.length !== digits || !/^[0-9a-fA-F]+$/.test(hex)) throw GIVE_UP;
    const code = Number.parseInt(hex, 16);
    if ((code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) throw GIVE_UP;
    return { text: String.fromCodePoint(code), length: 1 + digits };
  }

  /**
   * A literal (`|`) or folded (`>`) block scalar whose header is at `p`, with clip, strip (`-`) or keep (`+`)
   * chomping; its content is indented more than `parent`: by the header's indentation indicator (`|2-`: `parent`
   * + 2), or as much as its first line.
   */
  private blockScalar(p: number, parent: number): string {
    const s = this.s;
    const folded = s.charCodeAt(p) === 0x3e;
    let i = p + 1;
    let chomp = s.charAt(i);
    if (chomp === "-" || chomp === "+") i++;
    let explicit = s.charCodeAt(i) - 0x30;
    if (explicit >= 1 && explicit <= 9) {
      i++;
      // The chomping indicator may also follow the indentation indicator.
      if (chomp !== "-" && chomp !== "+") {
        chomp = s.charAt(i);
        if (chomp === "-" || chomp === "+") i++;
      }
    } else {
      explicit = 0;
    }
    if (!this.isLineRestBlank(i, true)) throw GIVE_UP;
    let ls = this.nextLine(i);
    // The content's indentation: the indicator's, else the first non-blank line's. Leading blank lines are line
    // breaks of the content (istio's `|2-` descriptions); of a folded scalar the full decoder reads them.
    let firstLine = ls;
    while (firstLine < s.length && s.charCodeAt(firstLine + this.indentOf(firstLine)) === NEWLINE) {
      firstLine = this.nextLine(firstLine);
    }
    if (firstLine >= s.length || (folded && firstLine !== ls)) throw GIVE_UP;
    const first = this.indentOf(firstLine);
    if (firstLine + first >= s.length) throw GIVE_UP;
    const contentIndent = explicit > 0 ? parent + explicit : first;
    if (contentIndent <= parent || first < contentIndent) throw GIVE_UP;
    const lines: string[] = [];
    let trailing = 0;
    let end = ls;
    while (ls < s.length) {
      const ind = this.indentOf(ls);
      const e = this.lineEnd(ls);
      if (ls + ind === e) {
        // A blank line: part of the scalar (or its trailing line breaks).
        if (ind > contentIndent) throw GIVE_UP;
        if (e >= s.length) break;
        trailing++;
        ls = e + 1;
        continue;
      }
      if (ind < contentIndent) break;
      if (e >= s.length) throw GIVE_UP; // the last line without a line break: rare
      if (folded && ind > contentIndent) throw GIVE_UP;
      for (let k = 0; k < trailing; k++) lines.push("");
      trailing = 0;
      lines.push(s.slice(ls + contentIndent, e));
      ls = e + 1;
      end = ls;
    }
    this.at = end;
    let body: string;
    if (folded) {
      body = lines[0] ?? "";
      let blanks = 0;
      for (let k = 1; k < lines.length; k++) {
        const line = lines[k]!;
        if (line === "") {
          blanks++;
          continue;
        }
        body += blanks === 0 ? ` ${line}` : "\n".repeat(blanks) + line;
        blanks = 0;
      }
    } else {
      body = lines.join("\n");
    }
    if (chomp === "-") return body;
    if (chomp === "+") return `${body}\n${"\n".repeat(trailing)}`;
    return `${body}\n`;
  }
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  "\t": "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
  N: "\x85",
  _: "\xa0",
  L: "\u2028",
  P: "\u2029",
};
