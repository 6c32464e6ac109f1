/**
 * Go strings are byte strings; code that must reproduce Go's byte-level behaviour (URL parsing,
 * percent-decoding that can produce invalid UTF-8, `%q` of a partial escape) works on a "binary
 * string": a JavaScript string with one char per byte (0x00–0xFF). `toGoBytes` and `fromGoBytes`
 * convert at the boundary: lone surrogates in the input become U+FFFD, as Go's JSON decoder makes
 * them; invalid UTF-8 in the output becomes U+FFFD, as a JSON encoder would. Also `len(s)` of a
 * JavaScript string (`utf8Length`) and `utf8.DecodeRuneInString` on a binary string (`decodeRune`).
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8");

/** UTF-8 bytes of `s`, as a binary string. */
export function toGoBytes(s: string): string {
  // ASCII fast path: the binary string is the string itself.
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return s;
  const bytes = encoder.encode(s);
  let out = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return out;
}

/** The JavaScript string of a binary string's UTF-8 bytes. */
export function fromGoBytes(b: string): string {
  let ascii = true;
  for (let i = 0; i < b.length; i++) {
    if (b.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return b;
  const bytes = new Uint8Array(b.length);
  for (let i = 0; i < b.length; i++) bytes[i] = b.charCodeAt(i);
  return decoder.decode(bytes);
}

/**
 * Decodes one UTF-8 rune of a binary string at `i` as Go's `utf8.DecodeRuneInString` does:
 * `{ cp: -1, width: 1 }` for an invalid or truncated sequence.
 */
export function decodeRune(b: string, i: number): { cp: number; width: number } {
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

/** Go's `len(s)`: the length of `s` in UTF-8 bytes (a lone surrogate counts as U+FFFD, three bytes). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}
