/**
 * Name syntax checks of k8s.io/apimachinery/pkg/util/validation (IsDNS1123Label, IsDNS1123Subdomain,
 * IsDNS1035Label, IsQualifiedName, IsValidLabelValue, IsValidPortName), pkg/api/validation/path
 * (ValidatePathSegmentName) and the generateName prefix rule (maskTrailingDash), with their exact messages: used by
 * object metadata checks, the CEL format library and the `k8s-short-name`/`k8s-long-name` schema formats. The
 * matchers are shared with the newer wording of pkg/api/validate/content (lib/declarative/content.ts).
 *
 * Go checks bytes: lengths are UTF-8 byte counts (`len(s)`, while the messages say "characters"), and every byte of
 * a non-ASCII character is outside the character classes. The checks run on the UTF-8 bytes of the value
 * (lib/go/bytes.ts), hand-written: no regular expressions on untrusted input.
 */
import { toGoBytes } from "../go/bytes.js";

export const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
export const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
export const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
export const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
export const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
export const C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*";

export const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
export const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** `validation.EmptyError`. */
const EMPTY_ERROR = "must be non-empty";

/**
 * `validation.RegexError`: each example is written as `'x', ` and joined with ` or `, which gives the double space
 * of `(e.g. 'my-name',  or '123-abc', regex used for validation is '...')`.
 */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = `${msg} (e.g. `;
  examples.forEach((e, i) => {
    if (i > 0) s += " or ";
    s += `'${e}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

/** `validation.MaxLenError`. */
function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

function isLower(c: number): boolean {
  return c >= 0x61 && c <= 0x7a;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isLowerAlnum(c: number): boolean {
  return isLower(c) || isDigit(c);
}

function isAlnum(c: number): boolean {
  return isLowerAlnum(c) || (c >= 0x41 && c <= 0x5a);
}

/** `^first([-x]*x)?$` over `s[from:to]`, where x is lower-case alphanumeric (any case when `caseless`). */
function matchesLabelRange(
  s: string,
  from: number,
  to: number,
  first: (c: number) => boolean,
  caseless: boolean,
): boolean {
  const ok = caseless ? isAlnum : isLowerAlnum;
  if (to <= from || !first(s.charCodeAt(from)) || !ok(s.charCodeAt(to - 1))) return false;
  for (let i = from + 1; i < to; i++) {
    const c = s.charCodeAt(i);
    if (!ok(c) && c !== 0x2d) return false;
  }
  return true;
}

/**
 * `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$` (any letter case when `caseless`). Works on JavaScript strings and byte
 * strings alike: a character above U+007F (or a byte above 0x7F) matches no class.
 */
export function matchesDNS1123Label(s: string, caseless = false): boolean {
  return matchesLabelRange(s, 0, s.length, caseless ? isAlnum : isLowerAlnum, caseless);
}

/** DNS-1123 labels joined by `.` (any letter case when `caseless`). */
export function matchesDNS1123Subdomain(s: string, caseless = false): boolean {
  if (s.length === 0) return false;
  const first = caseless ? isAlnum : isLowerAlnum;
  let start = 0;
  for (let i = 0; i <= s.length; i++) {
    if (i < s.length && s.charCodeAt(i) !== 0x2e) continue;
    if (!matchesLabelRange(s, start, i, first, caseless)) return false;
    start = i + 1;
  }
  return true;
}

/** `^[a-z]([-a-z0-9]*[a-z0-9])?$`. */
export function matchesDNS1035Label(s: string): boolean {
  return matchesLabelRange(s, 0, s.length, isLower, false);
}

/** `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`: the name part of a qualified name, a non-empty label value. */
export function matchesQualifiedNamePart(s: string): boolean {
  if (s.length === 0 || !isAlnum(s.charCodeAt(0)) || !isAlnum(s.charCodeAt(s.length - 1))) return false;
  for (let i = 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isAlnum(c) && c !== 0x2d && c !== 0x5f && c !== 0x2e) return false;
  }
  return true;
}

/** `^[A-Za-z_][A-Za-z0-9_]*$`. */
export function matchesCIdentifier(s: string): boolean {
  if (s.length === 0) return false;
  const first = s.charCodeAt(0);
  if (!(isAlnum(first) && !isDigit(first)) && first !== 0x5f) return false;
  for (let i = 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isAlnum(c) && c !== 0x5f) return false;
  }
  return true;
}

function dns1123Label(b: string): string[] {
  const errs: string[] = [];
  if (b.length > 63) errs.push(maxLenError(63));
  if (!matchesDNS1123Label(b)) errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  return errs;
}

function dns1123Subdomain(b: string): string[] {
  const errs: string[] = [];
  if (b.length > 253) errs.push(maxLenError(253));
  if (!matchesDNS1123Subdomain(b)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"));
  return errs;
}

function dns1035Label(b: string): string[] {
  const errs: string[] = [];
  if (b.length > 63) errs.push(maxLenError(63));
  if (!matchesDNS1035Label(b)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"));
  return errs;
}

/**
 * `maskTrailingDash` of apimachinery's name validation: a generateName prefix may end with `-`. Go replaces the
 * last *two bytes* of a name of more than one byte that ends with `-` with `a`, so a non-ASCII character before the
 * dash leaves a broken byte sequence, which then fails the check.
 */
function maskTrailingDash(b: string): string {
  return b.length > 1 && b.endsWith("-") ? `${b.slice(0, -2)}a` : b;
}

/** Whether the check is of a full name or of a generateName prefix (`maskTrailingDash` first). */
export type NameCheck = "name" | "prefix";

/** `IsDNS1123Label` (of `maskTrailingDash(value)` for a prefix). */
export function isDNS1123Label(value: string, check: NameCheck = "name"): string[] {
  const b = toGoBytes(value);
  return dns1123Label(check === "prefix" ? maskTrailingDash(b) : b);
}

/** `IsDNS1123Subdomain` (of `maskTrailingDash(value)` for a prefix). */
export function isDNS1123Subdomain(value: string, check: NameCheck = "name"): string[] {
  const b = toGoBytes(value);
  return dns1123Subdomain(check === "prefix" ? maskTrailingDash(b) : b);
}

/** `IsDNS1035Label` (of `maskTrailingDash(value)` for a prefix). */
export function isDNS1035Label(value: string, check: NameCheck = "name"): string[] {
  const b = toGoBytes(value);
  return dns1035Label(check === "prefix" ? maskTrailingDash(b) : b);
}

/** `IsQualifiedName` (label and annotation keys): an optional DNS-subdomain prefix and `/`, a name part. */
export function isQualifiedName(value: string): string[] {
  const b = toGoBytes(value);
  const errs: string[] = [];
  const parts = b.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else for (const m of dns1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!matchesQualifiedNamePart(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`);
  }
  return errs;
}

/** `IsValidLabelValue`: at most 63 bytes, may be empty. */
export function isValidLabelValue(value: string): string[] {
  const b = toGoBytes(value);
  const errs: string[] = [];
  if (b.length > 63) errs.push(maxLenError(63));
  if (b.length > 0 && !matchesQualifiedNamePart(b)) {
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  }
  return errs;
}

/** `IsValidPortName`: at most 15 bytes of `[-a-z0-9]`, a letter, no `--`, no `-` at either end. */
export function isValidPortName(value: string): string[] {
  const b = toGoBytes(value);
  const errs: string[] = [];
  if (b.length > 15) errs.push(maxLenError(15));
  let charsetOk = b.length > 0;
  let hasLetter = false;
  for (let i = 0; i < b.length; i++) {
    const c = b.charCodeAt(i);
    if (isLower(c)) hasLetter = true;
    else if (!isDigit(c) && c !== 0x2d) charsetOk = false;
  }
  if (!charsetOk) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!hasLetter) errs.push("must contain at least one letter or number (a-z, 0-9)");
  if (b.includes("--")) errs.push("must not contain consecutive hyphens");
  if (b.length > 0 && (b[0] === "-" || b[b.length - 1] === "-")) errs.push("must not begin or end with a hyphen");
  return errs;
}

/** `path.IsValidPathSegmentName`: not `.` or `..`, no `/` or `%`. */
export function isValidPathSegmentName(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const illegal of ["/", "%"]) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}
