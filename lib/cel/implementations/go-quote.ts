/**
 * Go's `strconv.Quote` (and therefore `fmt`'s `%q` on strings), which Kubernetes uses in many
 * CEL library error messages (`parse "../relative": ...`, `IP Address "x" parse error ...`).
 *
 * Go quotes the UTF-8 bytes of a string: printable runes (`unicode.IsPrint`: letters, marks,
 * numbers, punctuation, symbols and the ASCII space) are kept, `"` and `\` are backslash-escaped,
 * `\a \b \f \n \r \t \v` use their short escapes, other runes below U+0080 and bytes that are not
 * valid UTF-8 use `\xhh`, other non-printable runes `\uhhhh` or `\Uhhhhhhhh` (lower-case hex).
 *
 * Two entry points: {@link goQuote} for a JavaScript string (lone surrogates count as U+FFFD, as
 * Go's JSON decoder would have made them), and {@link goQuoteBytes} for a Go byte string held as a
 * "binary string" (one char per byte, see go-bytes.ts), which may hold invalid UTF-8.
 */

import { toGoBytes } from "./go-bytes.js";

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** `unicode.IsPrint` for one code point. */
export function isGoPrint(cp: number): boolean {
  if (cp === 0x20) return true;
  if (cp < 0x20 || cp === 0x7f) return false;
  if (cp < 0x7f) return true;
  return PRINTABLE.test(String.fromCodePoint(cp));
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

/**
 * Decodes one UTF-8 rune of a binary string at `i` as Go's `utf8.DecodeRuneInString` does:
 * `{ cp: -1, width: 1 }` for an invalid or truncated sequence.
 */
export function decodeGoRune(b: string, i: number): { cp: number; width: number } {
  const c0 = b.charCodeAt(i);
  if (c0 < 0x80) return { cp: c0, width: 1 };
  const cont = (k: number): number => {
    const c = b.charCodeAt(i + k);
    return c >= 0x80 && c <= 0xbf ? c & 0x3f : -1;
  };
  if (c0 >= 0xc2 && c0 <= 0xdf) {
    const c1 = cont(1);
    if (c1 >= 0) return { cp: ((c0 & 0x1f) << 6) | c1, width: 2 };
  } else if (c0 >= 0xe0 && c0 <= 0xef) {
    const c1 = cont(1);
    const c2 = cont(2);
    if (c1 >= 0 && c2 >= 0) {
      const cp = ((c0 & 0x0f) << 12) | (c1 << 6) | c2;
      if (cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff)) return { cp, width: 3 };
    }
  } else if (c0 >= 0xf0 && c0 <= 0xf4) {
    const c1 = cont(1);
    const c2 = cont(2);
    const c3 = cont(3);
    if (c1 >= 0 && c2 >= 0 && c3 >= 0) {
      const cp = ((c0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
      if (cp >= 0x10000 && cp <= 0x10ffff) return { cp, width: 4 };
    }
  }
  return { cp: -1, width: 1 };
}

/** `strconv.Quote` of a Go byte string held as a binary string. */
export function goQuoteBytes(b: string): string {
  let out = '"';
  for (let i = 0; i < b.length; ) {
    const { cp, width } = decodeGoRune(b, i);
    if (cp < 0) out += `\\x${hex(b.charCodeAt(i), 2)}`;
    else if (cp === 0x22) out += '\\"';
    else if (cp === 0x5c) out += "\\\\";
    else if (isGoPrint(cp)) out += String.fromCodePoint(cp);
    else if (cp === 0x07) out += "\\a";
    else if (cp === 0x08) out += "\\b";
    else if (cp === 0x0c) out += "\\f";
    else if (cp === 0x0a) out += "\\n";
    else if (cp === 0x0d) out += "\\r";
    else if (cp === 0x09) out += "\\t";
    else if (cp === 0x0b) out += "\\v";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
    i += width;
  }
  return `${out}"`;
}

/** `strconv.Quote(s)` of a JavaScript string. */
export function goQuote(s: string): string {
  return goQuoteBytes(toGoBytes(s));
}
