/**
 * Go strings are byte strings; code that must reproduce Go's byte-level behaviour (URL parsing,
 * percent-decoding that can produce invalid UTF-8, `%q` of a partial escape) works on a "binary
 * string": a JavaScript string with one char per byte (0x00–0xFF). These two functions convert
 * at the boundary. Lone surrogates in the input become U+FFFD, as Go's JSON decoder makes them;
 * invalid UTF-8 in the output becomes U+FFFD, as a JSON encoder would.
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
