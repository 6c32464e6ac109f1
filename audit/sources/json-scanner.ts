/**
 * A small JSON scanner for the top-level object of a List, for streaming a JSON file too large to parse whole
 * (stream-json.ts): it follows strings (with escapes) and nesting, reads the top-level keys, and cuts top-level
 * values and the elements of `items`. Values are not decoded here; lib's decoder checks what is cut.
 */
import { readText, type StreamTuning } from "./stream-text.js";

export class ScanError extends Error {}

/** The scanner's states. */
const S = {
  Top: 0,
  ObjFirst: 1,
  Key: 2,
  KeyString: 3,
  Colon: 4,
  Value: 5,
  ValueScan: 6,
  AfterValue: 7,
  ItemsFirst: 8,
  Element: 9,
  ElementScan: 10,
  AfterElement: 11,
  End: 12,
} as const;
type S = (typeof S)[keyof typeof S];

export interface ScanEvents {
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
export class ListScanner {
  private state: S = S.Top;
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

export class NotAList extends Error {}

export class MoreThanAList extends NotAList {}

function quote(c: number): string {
  return c < 0x20 ? `'\\u${c.toString(16).padStart(4, "0")}'` : `'${String.fromCharCode(c)}'`;
}

/** The first pass over a streamed List: values over `maxBytes` (the per-document limit) are cut as undefined. */
export async function scan(
  path: string,
  events: ScanEvents,
  tuning: StreamTuning,
  maxBytes: number,
): Promise<ListScanner> {
  const scanner = new ListScanner(events, maxBytes);
  // The structure pass is not progress: the items pass reads the same bytes again.
  for await (const chunk of readText(path, { readBuffer: tuning.readBuffer })) scanner.push(chunk);
  scanner.end();
  return scanner;
}
