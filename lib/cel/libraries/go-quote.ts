/**
 * Go's `strconv.Quote` (and therefore `fmt`'s `%q` on strings), which Kubernetes uses in many
 * CEL library error messages (`parse "../relative": ...`, `IP Address "x" parse error ...`).
 *
 * Go quotes the UTF-8 bytes of a string: printable runes (`unicode.IsPrint`: letters, marks,
 * numbers, punctuation, symbols and the ASCII space) are kept, `"` and `\` are backslash-escaped,
 * `\a \b \f \n \r \t \v` use their short escapes, other runes below U+0080 use `\xhh`, other
 * non-printable runes `\uhhhh` or `\Uhhhhhhhh` (lower-case hex). JavaScript strings can hold lone
 * surrogates, which a Go string decoded from JSON never does (Go's decoder replaces them with
 * U+FFFD); they are quoted as U+FFFD, which is printable.
 */

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

/** `strconv.Quote(s)`. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    let cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (cp === 0x22) out += '\\"';
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
  }
  return `${out}"`;
}
