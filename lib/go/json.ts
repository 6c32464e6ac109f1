/**
 * The wording of Go's `encoding/json` syntax errors (what kube-apiserver, kubectl and the KubeVirt validator
 * report for malformed JSON): `invalid character 'x' <context>` and `unexpected end of JSON input`.
 *
 * Go's scanner reads bytes, so the character it names is the first UTF-8 byte at the error, printed as the
 * rune of that byte's value (`quoteChar(c byte)` quotes `string(c)`): for `é` (bytes C3 A9) Go says
 * `invalid character 'Ã'`, for a control character `'\x01'`, for a byte of the C1 range `'\u0085'`.
 */
import { goQuote } from "./strconv.js";

/** The one-character escapes of a JSON string (`\n`, `\"`, …) and what they stand for; `\u` is separate. */
export const JSON_ESCAPES: Readonly<Record<string, string>> = Object.freeze({
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
});

/** The first UTF-8 byte of the character at `at` (a lone surrogate counts as U+FFFD). */
function firstUtf8Byte(text: string, at: number): number {
  const cp = text.codePointAt(at) ?? 0;
  if (cp < 0x80) return cp;
  if (cp < 0x800) return 0xc0 | (cp >> 6);
  if (cp >= 0xd800 && cp <= 0xdfff) return 0xef;
  if (cp < 0x10000) return 0xe0 | (cp >> 12);
  return 0xf0 | (cp >> 18);
}

/** Go's `quoteChar(c byte)`: `'x'`, `'\''`, `'"'`, otherwise strconv.Quote of the byte's rune in single quotes. */
export function quoteChar(byte: number): string {
  if (byte === 0x27) return "'\\''";
  if (byte === 0x22) return "'\"'";
  return `'${goQuote(String.fromCharCode(byte)).slice(1, -1)}'`;
}

/**
 * The text of Go's syntax error at offset `at` of `text`: `unexpected end of JSON input` past the end, else
 * `invalid character <c> <context>` (contexts as Go's scanner words them: `looking for beginning of value`,
 * `after object key`, `in string literal`, …).
 */
export function syntaxErrorText(text: string, at: number, context: string): string {
  if (at >= text.length) return "unexpected end of JSON input";
  return `invalid character ${quoteChar(firstUtf8Byte(text, at))} ${context}`;
}
