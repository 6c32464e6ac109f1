/**
 * The line of each item of a `kind: List` document, so a finding about an item points at the item, not at the first
 * line of the List. lib's decoder gives a document's first line only; the items' lines are found in the text:
 *
 * - YAML: after the top-level `items:` key, each `- ` entry at the indentation of the first one, up to the next
 *   top-level key or the end of the document;
 * - JSON: each value that starts directly in the top-level object's `items` array.
 *
 * When the entries found are not exactly the decoded items (a flow sequence, a nested List, an unusual layout), the
 * answer is undefined and the items keep the List's line.
 */

/** The 1-based line of each item, or undefined when they cannot be told apart. */
export function listItemLines(text: string, startLine: number, count: number): number[] | undefined {
  if (count === 0) return [];
  const start = offsetOfLine(text, startLine);
  if (start === undefined) return undefined;
  const lines = /^\s*[{[]/.test(text.slice(start, start + 4096))
    ? jsonItemLines(text, start, startLine)
    : yamlItemLines(text, start, startLine);
  return lines !== undefined && lines.length === count ? lines : undefined;
}

function offsetOfLine(text: string, line: number): number | undefined {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const next = text.indexOf("\n", offset);
    if (next < 0) return undefined;
    offset = next + 1;
  }
  return offset;
}

function yamlItemLines(text: string, start: number, startLine: number): number[] | undefined {
  const out: number[] = [];
  let inItems = false;
  let indent = -1;
  let line = startLine;
  let offset = start;
  while (offset <= text.length) {
    const end = text.indexOf("\n", offset);
    const row = text.slice(offset, end < 0 ? text.length : end).replace(/\r$/, "");
    if ((row === "---" || row.startsWith("--- ") || row === "...") && line > startLine) break;
    const trimmed = row.trimStart();
    const at = row.length - trimmed.length;
    if (trimmed !== "" && !trimmed.startsWith("#")) {
      if (!inItems) {
        if (at === 0 && /^items:\s*(#.*)?$/.test(row)) inItems = true;
      } else if (at === 0 && !trimmed.startsWith("-")) {
        inItems = false;
      } else if (/^-(\s|$)/.test(trimmed) && (indent < 0 || at === indent)) {
        indent = at;
        out.push(line);
      }
    }
    if (end < 0) break;
    offset = end + 1;
    line++;
  }
  return out;
}

/** Walks the JSON text of one document, noting where each element of the top-level `items` array starts. */
function jsonItemLines(text: string, start: number, startLine: number): number[] | undefined {
  return jsonItems(text, start, startLine)?.map((s) => s.line);
}

/** Where one element of a JSON List's `items` is: its first line, and its text (`start` to `end`, no blanks). */
export interface JsonItemSpan {
  line: number;
  start: number;
  end: number;
}

/**
 * The text of each element of the top-level `items` array of the JSON document at `startLine` (the text a streamed
 * read cuts for each item), or undefined when the text does not show them.
 */
export function jsonItemSpans(text: string, startLine: number): JsonItemSpan[] | undefined {
  const start = offsetOfLine(text, startLine);
  return start === undefined ? undefined : jsonItems(text, start, startLine);
}

function jsonItems(text: string, start: number, startLine: number): JsonItemSpan[] | undefined {
  const out: JsonItemSpan[] = [];
  let depth = 0;
  let line = startLine;
  let lastKey = "";
  let inItems = false;
  let expecting = false;
  /** One past the last character of the current element seen so far. */
  let last = -1;
  const close = () => {
    const current = out[out.length - 1];
    if (current !== undefined && current.end < 0) current.end = last;
  };
  // Character codes: this walks every character of an export of hundreds of megabytes.
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === LF) {
      line++;
      continue;
    }
    if (c === SPACE || c === TAB || c === CR) continue;
    if (inItems && depth === 2) {
      if (c === COMMA) {
        close();
        expecting = true;
        continue;
      }
      if (c === CLOSE_BRACKET) {
        close();
        return out;
      }
      if (expecting) {
        out.push({ line, start: i, end: -1 });
        expecting = false;
      }
    }
    if (c === QUOTE) {
      const closing = endOfString(text, i);
      if (closing < 0) return undefined;
      if (depth === 1) lastKey = text.slice(i + 1, closing);
      i = closing;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth === 2 && c === OPEN_BRACKET && lastKey === "items" && !inItems) {
        inItems = true;
        expecting = true;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return out;
    }
    last = i + 1;
  }
  return undefined;
}

const LF = 0x0a;
const CR = 0x0d;
const TAB = 0x09;
const SPACE = 0x20;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The index of the quote that closes the string opening at `open`; -1 when it does not close. */
function endOfString(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
    else if (c === LF) return -1;
  }
  return -1;
}
