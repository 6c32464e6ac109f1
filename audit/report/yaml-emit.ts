/**
 * A small block-style YAML emitter for the policy reports' plain data (mappings, sequences, strings, numbers,
 * booleans, null): the `yaml` package's stringify costs about 100 µs per result entry, which made the two policy
 * reports the slowest files of a large run. Strings are written plain only when no YAML 1.1 or 1.2 reader (kubectl's
 * sigs.k8s.io/yaml included) could take them for anything but that string; otherwise as JSON strings, which are
 * valid YAML double-quoted scalars.
 */

/** Starts that make a plain scalar something else (indicators, quotes, numbers, dots, signs). */
const UNSAFE_START = /[-?:,[\]{}#&*!|>'"%@`0-9+.~ ]/;
/** Anything but these characters is quoted; `: ` and ` #` and a trailing `:` or space are quoted too. */
const PLAIN = /[A-Za-z0-9_./\-:@()<>=,;+*'"[\]{}$^!?%&|~ ]/;
/** Words YAML 1.1 (go-yaml v2, under sigs.k8s.io/yaml) or 1.2 resolve to booleans or null (five characters at most). */
const RESERVED =
  /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|<<|=)$/;

/** The two character classes as tables by ASCII code (every other character is quoted): one scan per string. */
function asciiTable(cls: RegExp): Uint8Array {
  const t = new Uint8Array(128);
  for (let c = 0; c < 128; c++) t[c] = cls.test(String.fromCharCode(c)) ? 1 : 0;
  return t;
}
const UNSAFE_START_CHARS = asciiTable(UNSAFE_START);
const PLAIN_CHARS = asciiTable(PLAIN);
const COLON = 0x3a;
const SPACE = 0x20;

/** Whether `s` can be written plain: PLAIN characters only, a safe start, no `: `, no trailing `:` or space. */
function isPlain(s: string): boolean {
  const n = s.length;
  if (n === 0 || UNSAFE_START_CHARS[s.charCodeAt(0)] === 1) return false;
  let prev = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    // `#` is not a PLAIN character, so ` #` never gets past this.
    if (c >= 128 || PLAIN_CHARS[c] === 0 || (c === SPACE && prev === COLON)) return false;
    prev = c;
  }
  return prev !== COLON && prev !== SPACE && (n > 5 || !RESERVED.test(s));
}

export function yamlString(s: string): string {
  if (isPlain(s)) return s;
  // Single quotes read best for one-line printable text; anything else as a JSON (double-quoted) string.
  return singleQuotable(s) ? `'${s.replaceAll("'", "''")}'` : JSON.stringify(s);
}

/** Printable one-line text: no control characters (C0, DEL, C1), no line or paragraph separators, no BOM. */
function singleQuotable(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029 || c === 0xfeff) return false;
  }
  return true;
}

/** A number as a YAML scalar (`.inf`, `-.inf`, `.nan` for the values JSON has no text for). */
export function yamlNumber(v: number): string {
  return Number.isFinite(v) ? String(v) : v > 0 ? ".inf" : v < 0 ? "-.inf" : ".nan";
}

function scalar(v: unknown): string | undefined {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return yamlString(v);
  if (typeof v === "number") return yamlNumber(v);
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return v.length === 0 ? "[]" : undefined;
  if (typeof v === "object") return Object.keys(v).length === 0 ? "{}" : undefined;
  return JSON.stringify(String(v));
}

/** The lines of a mapping's members at `indent` spaces (the first line's indent left to the caller when `hang`). */
function mapping(o: Record<string, unknown>, indent: number, out: string[], hang: boolean): void {
  let first = true;
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined) continue;
    const pad = first && hang ? "" : " ".repeat(indent);
    first = false;
    const key = yamlString(k);
    const s = scalar(v);
    if (s !== undefined) {
      out.push(`${pad}${key}: ${s}\n`);
    } else if (Array.isArray(v)) {
      out.push(`${pad}${key}:\n`);
      sequence(v, indent + 2, out);
    } else {
      out.push(`${pad}${key}:\n`);
      mapping(v as Record<string, unknown>, indent + 2, out, false);
    }
  }
}

function sequence(a: readonly unknown[], indent: number, out: string[]): void {
  const pad = " ".repeat(indent);
  for (const v of a) {
    const s = scalar(v);
    if (s !== undefined) out.push(`${pad}- ${s}\n`);
    else if (Array.isArray(v)) {
      out.push(`${pad}-\n`);
      sequence(v, indent + 2, out);
    } else {
      out.push(`${pad}- `);
      mapping(v as Record<string, unknown>, indent + 2, out, true);
    }
  }
}

/** One YAML document (no `---`) for a mapping of plain data. */
export function yamlDocument(o: Record<string, unknown>): string {
  const out: string[] = [];
  mapping(o, 0, out, false);
  return out.join("");
}
