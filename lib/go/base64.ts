/**
 * Go's `encoding/base64` with the standard alphabet and padding (`base64.StdEncoding`): whether `DecodeString`
 * accepts a text. Like Go's decoder, `\r` and `\n` are skipped; padding (`=` or `==`) may only end the text.
 */

function isAlphabetCode(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
}

/**
 * Whether `s` (without line breaks) is whole quanta of four alphabet characters, the last one possibly padded:
 * `^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})?$`.
 */
export function isPaddedStdEncoding(s: string): boolean {
  const n = s.length;
  if (n % 4 !== 0) return false;
  if (n === 0) return true;
  for (let i = 0; i < n - 2; i++) if (!isAlphabetCode(s.charCodeAt(i))) return false;
  const a = s.charCodeAt(n - 2);
  const b = s.charCodeAt(n - 1);
  if (isAlphabetCode(a)) return isAlphabetCode(b) || b === 0x3d;
  return a === 0x3d && b === 0x3d;
}

/** Whether `base64.StdEncoding.DecodeString(s)` succeeds. */
export function isStdEncoding(s: string): boolean {
  return isPaddedStdEncoding(s.replace(/[\r\n]/g, ""));
}
