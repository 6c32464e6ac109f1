/**
 * What tollgate changes in an expression's text before the engine parses it, where the engine's parser reads
 * cel-go's language differently (the rewritten text maps back to the original, source-map.ts, so compile errors
 * point where cel-go points):
 *
 * - Optional entries of list and map literals (cel-go's optional syntax, which Kubernetes enables with
 *   `cel.OptionalTypes()`): `[a, ?b]` holds b's value when the optional b has one and leaves the element out when it
 *   is none; `{?k: v}` likewise holds or leaves out the entry `k`. The engine's parser does not know the `?` marker;
 *   a literal with marked values becomes calls of tollgate's own functions (libraries/core.ts):
 *
 *       [a, ?b]        →  __optList([__optPlain(a), __optElement(b)])
 *       {?k: v, x: y}  →  __optMap({k: __optEntry(v), x: __optPlain(y)})
 *
 *   Every value is typed as an optional (`__optPlain: A → optional<A>`, the marked ones must already be optionals),
 *   so the engine's homogeneous-literal check compares the values' types as cel-go's checker does, and
 *   `__optList` / `__optMap` give `list<A>` / `map<K, V>`. At run time the wrappers unwrap a present optional and
 *   mark an empty one, which the literal leaves out (cel-go interpreter evalList, evalMap); a marked dyn value that
 *   is not an optional fails with cel-go's text. The cost estimator and the runtime meter see through the calls:
 *   cel-go charges the literal only.
 * - Bytes literals: characters beyond ASCII are the UTF-8 bytes of their text in cel-go (`b'ÿ'` is two bytes); the
 *   engine took each character as one byte, so they are written as `\x` escapes. Raw bytes literals (`br'...'`),
 *   which the engine does not parse, become plain ones with their backslashes escaped.
 * - Doubles without a leading zero (`.5`), which the engine does not parse, get one.
 *
 * The scan knows CEL's tokens where it matters: string and bytes literals (quoted, triple-quoted, raw), comments,
 * and whether a `[` opens a list literal (after an operator or at the start) or an index (after an operand, where
 * `[?` is the optional index the engine parses itself). A `?` marks an entry only right after the literal's opening
 * bracket or a comma; elsewhere it is the conditional operator.
 */
import { applyEdits, type MappedText, type TextEdit, unmapped } from "./source-map.js";

/** The internal functions of the rewrite (libraries/core.ts registers them). */
export const OPTIONAL_LITERAL_FUNCTIONS = Object.freeze({
  list: "__optList",
  map: "__optMap",
  /** A marked list element's value. */
  element: "__optElement",
  /** A marked map entry's value. */
  entry: "__optEntry",
  /** An unmarked element's or entry's value in a literal that has marked ones. */
  plain: "__optPlain",
});

/** An element of a list literal, or the value of a map literal's entry. */
interface Value {
  readonly start: number;
  end: number;
  readonly marked: boolean;
}

interface Frame {
  readonly kind: "list" | "map" | "other";
  readonly open: number;
  readonly depth: number;
  readonly values: Value[];
  /** What the next token starts: an element (lists), an entry's key or its value (maps). */
  expect: "element" | "key" | "value" | undefined;
  /** The value being scanned. */
  current: Value | undefined;
  /** Map literals: whether the entry being scanned is marked, and the conditionals open in its key. */
  entryMarked: boolean;
  conditionals: number;
}

type Previous = "none" | "open" | "operand" | "operator" | "dot";

const STRING_PREFIX = /^(?:[rR][bB]?|[bB][rR]?)$/;
const IDENTIFIER = /[A-Za-z0-9_]/;
const BEYOND_ASCII = /[\u0080-\uffff]/;
/** What may need an edit besides characters beyond ASCII (see preParse). */
const NEEDS_SCAN = /[?]|\.[0-9]|[bB][rR]?['"]|[rR][bB]['"]/;

/** The offset after a string literal that starts at `i` (its quote), raw or not. */
function skipString(text: string, i: number, raw: boolean): number {
  const q = text[i]!;
  const triple = text.startsWith(q.repeat(3), i);
  const close = triple ? q.repeat(3) : q;
  let j = i + close.length;
  while (j < text.length) {
    if (!raw && text[j] === "\\") {
      j += 2;
      continue;
    }
    if (text.startsWith(close, j)) return j + close.length;
    if (!triple && text[j] === "\n") return j;
    j++;
  }
  return j;
}

/** The first offset at or after `i` that is not blank or inside a comment. */
function skipBlank(text: string, i: number): number {
  let j = i;
  while (j < text.length) {
    if (/\s/.test(text[j]!)) j++;
    else if (text.startsWith("//", j)) {
      const nl = text.indexOf("\n", j);
      j = nl === -1 ? text.length : nl + 1;
    } else break;
  }
  return j;
}

/**
 * Where the operand token at `i` ends (a string or bytes literal, a quoted or plain identifier, a number), if one
 * starts there; `in` is the operator.
 */
function operandEnd(text: string, i: number): { end: number; in: boolean; edit?: TextEdit } | undefined {
  const c = text[i]!;
  if (c === "'" || c === '"') return { end: skipString(text, i, false), in: false };
  if (c === "`") {
    const end = text.indexOf("`", i + 1);
    return { end: end === -1 ? text.length : end + 1, in: false };
  }
  if (!IDENTIFIER.test(c)) return undefined;
  let j = i;
  while (j < text.length && (IDENTIFIER.test(text[j]!) || (/[0-9]/.test(c) && text[j] === "."))) j++;
  const word = text.slice(i, j);
  if (STRING_PREFIX.test(word) && (text[j] === "'" || text[j] === '"')) {
    const raw = /[rR]/.test(word);
    const end = skipString(text, j, raw);
    const edit = /[bB]/.test(word) ? bytesLiteralEdit(text, i, j, end, raw) : undefined;
    return edit === undefined ? { end, in: false } : { end, in: false, edit };
  }
  return { end: j, in: word === "in" };
}

/**
 * A bytes literal as the engine reads it right: its characters beyond ASCII as the `\x` escapes of their UTF-8
 * bytes (cel-go encodes a bytes literal's text in UTF-8; the engine took each character as one byte), and a raw
 * one (`br'...'`, which the engine does not parse) with its backslashes escaped. Undefined when it needs neither.
 */
function bytesLiteralEdit(text: string, start: number, quote: number, end: number, raw: boolean): TextEdit | undefined {
  const q = text[quote]!;
  const delimiter = text.startsWith(q.repeat(3), quote) ? q.repeat(3) : q;
  const content = text.slice(quote + delimiter.length, Math.max(quote + delimiter.length, end - delimiter.length));
  if (!raw && !BEYOND_ASCII.test(content)) return undefined;
  let out = "";
  for (const ch of content) {
    if (raw && ch === "\\") out += "\\\\";
    else if (ch.charCodeAt(0) > 0x7f) {
      for (const byte of new TextEncoder().encode(ch)) out += `\\x${byte.toString(16).padStart(2, "0")}`;
    } else out += ch;
  }
  return { at: start, remove: end - start, insert: `b${delimiter}${out}${delimiter}` };
}

function newFrame(kind: Frame["kind"], open: number, depth: number): Frame {
  return {
    kind,
    open,
    depth,
    values: [],
    expect: kind === "list" ? "element" : kind === "map" ? "key" : undefined,
    current: undefined,
    entryMarked: false,
    conditionals: 0,
  };
}

/**
 * The edits of a literal with marked values: every value wrapped (so that the engine checks the literal's values as
 * optionals of one type), the literal wrapped in `__optList` / `__optMap`. Openings at one place come outermost
 * first, closings innermost first (`rank`).
 */
function literalEdits(frame: Frame, close: number, edits: RankedEdit[]): void {
  const open = (at: number, insert: string) => edits.push({ at, remove: 0, insert, rank: 2000 + frame.depth });
  const closing = (at: number) => edits.push({ at, remove: 0, insert: ")", rank: 1000 - frame.depth });
  const F = OPTIONAL_LITERAL_FUNCTIONS;
  open(frame.open, `${frame.kind === "list" ? F.list : F.map}(`);
  for (const v of frame.values) {
    open(v.start, `${v.marked ? (frame.kind === "list" ? F.element : F.entry) : F.plain}(`);
    closing(v.end);
  }
  closing(close + 1);
}

interface RankedEdit extends TextEdit {
  readonly rank: number;
}

/**
 * The text the engine parses: optional entries of list and map literals rewritten, bytes literals and doubles
 * written as the engine reads them (see the module comment); a text that needs none of it maps to itself.
 */
export function preParse(text: string): MappedText {
  const source = unmapped(text);
  // The scan below edits only at a `?` (a marked entry), a `.` before a digit (a double without its leading zero)
  // and bytes literals (a b prefix, or characters beyond ASCII): a text with none of them needs no scan.
  if (!NEEDS_SCAN.test(text) && !BEYOND_ASCII.test(text)) return source;
  const edits: RankedEdit[] = [];
  const stack: Frame[] = [];
  let previous: Previous = "none";

  const push = (kind: Frame["kind"], open: number) => stack.push(newFrame(kind, open, stack.length));
  const endValue = (frame: Frame, at: number) => {
    if (frame.current === undefined) return;
    frame.current.end = at;
    frame.values.push(frame.current);
    frame.current = undefined;
  };
  const close = (closing: string, at: number) => {
    const frame = stack.pop();
    if (frame === undefined) return;
    const kind = closing === "]" ? "list" : closing === "}" ? "map" : "other";
    if (frame.kind !== kind) return;
    endValue(frame, at);
    if (frame.values.some((v) => v.marked)) literalEdits(frame, at, edits);
  };
  /** The `?` that marks an element or entry at `i`, if it is one (then its removal is an edit). */
  const marker = (i: number): boolean => {
    const next = text[skipBlank(text, i + 1)];
    if (next === undefined || next === "," || next === "]" || next === "}" || next === ":") return false;
    edits.push({ at: i, remove: 1, insert: "", rank: 0 });
    return true;
  };

  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c) || text.startsWith("//", i)) {
      i = skipBlank(text, i);
      continue;
    }
    const top = stack[stack.length - 1];
    if (top?.expect !== undefined && c !== "," && c !== "]" && c !== "}") {
      const expect = top.expect;
      top.expect = undefined;
      if (expect === "key") {
        top.entryMarked = c === "?" && marker(i);
        if (top.entryMarked) {
          i++;
          continue;
        }
      } else if (expect === "value") {
        top.current = { start: i, end: i, marked: top.entryMarked };
      } else if (c === "?" && marker(i)) {
        top.current = { start: skipBlank(text, i + 1), end: i, marked: true };
        i++;
        continue;
      } else top.current = { start: i, end: i, marked: false };
    }
    // A double written without its leading zero (`.5`), which the engine does not parse: `0.5`.
    const leadingDot = c === "." && previous !== "operand" && /[0-9]/.test(text[i + 1] ?? "");
    if (leadingDot) edits.push({ at: i, remove: 0, insert: "0", rank: 0 });
    const operand = operandEnd(text, leadingDot ? i + 1 : i);
    if (operand !== undefined) {
      // after every insertion at its place (rank)
      if (operand.edit !== undefined) edits.push({ ...operand.edit, rank: 5000 });
      previous = operand.in ? "operator" : "operand";
      i = operand.end;
      continue;
    }
    switch (c) {
      case "[":
        push(previous === "operand" ? "other" : "list", i);
        previous = "open";
        break;
      case "{":
        push(previous === "operand" ? "other" : "map", i);
        previous = "open";
        break;
      case "(":
        push("other", i);
        previous = "open";
        break;
      case "]":
      case "}":
      case ")":
        close(c, i);
        previous = "operand";
        break;
      case ",":
        if (top !== undefined && top.kind !== "other") {
          endValue(top, i);
          top.expect = top.kind === "list" ? "element" : "key";
          top.entryMarked = false;
          top.conditionals = 0;
        }
        previous = "operator";
        break;
      case "?":
        if (top?.kind === "map" && top.expect === undefined && top.current === undefined && previous !== "dot") {
          top.conditionals++;
        }
        previous = "operator";
        break;
      case ":":
        if (top?.kind === "map" && top.current === undefined && top.expect === undefined) {
          if (top.conditionals > 0) top.conditionals--;
          else top.expect = "value";
        }
        previous = "operator";
        break;
      default:
        previous = c === "." ? "dot" : "operator";
    }
    i++;
  }
  const sorted = edits.sort((a, b) => a.at - b.at || a.rank - b.rank);
  return sorted.length === 0 ? source : applyEdits(source, sorted);
}
