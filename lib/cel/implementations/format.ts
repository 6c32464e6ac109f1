/**
 * The Kubernetes CEL format library (k8s.io/apiserver/pkg/cel/library/format.go, type
 * `kubernetes.NamedFormat`): `format.named(name)` and `format.<name>()` return a format whose
 * `validate(s)` is `optional.none()` when `s` is valid, otherwise `optional.of(list of messages)`.
 *
 * The formats and their messages (apimachinery 1.36, `k8s.io/apimachinery/pkg/util/validation`
 * and `pkg/api/validation`; kube-openapi strfmt for the CRD formats):
 *
 * | name | check |
 * |---|---|
 * | `dns1123Label` | `IsDNS1123Label` (≤ 63 bytes, `[a-z0-9]([-a-z0-9]*[a-z0-9])?`) |
 * | `dns1123Subdomain` | `IsDNS1123Subdomain` (≤ 253 bytes, labels joined by `.`) |
 * | `dns1035Label` | `IsDNS1035Label` (≤ 63 bytes, starts with a letter) |
 * | `qualifiedName` | `IsQualifiedName` (optional DNS-subdomain prefix and `/`, name ≤ 63 bytes) |
 * | `portName` | `IsValidPortName` (≤ 15 bytes, `[-a-z0-9]`, a letter, no `--`, no edge `-`) |
 * | `dns1123LabelPrefix`, `dns1123SubdomainPrefix`, `dns1035LabelPrefix` | the same on a name prefix: a trailing `-` is allowed (`maskTrailingDash`) |
 * | `labelValue` | `IsValidLabelValue` (≤ 63 bytes, may be empty) |
 * | `uri` | Go `url.ParseRequestURI`; the message is its error text |
 * | `uuid` | strfmt `uuid` → `does not match the UUID format` |
 * | `byte` | strfmt `byte` (base64) → `invalid base64` |
 * | `date` | strfmt `date` → `invalid date` |
 * | `datetime` | strfmt `datetime` → `invalid datetime` |
 *
 * Messages use `RegexError`, whose example list has a double space after each comma
 * (`(e.g. 'my-name',  or '123-abc', regex used for validation is '...')`), and count lengths in
 * UTF-8 bytes as Go's `len` does while saying "characters". Matching is hand-written.
 */

import { toGoBytes } from "../../go/bytes.js";
import { parseRequestURI } from "../../go/url.js";
import { checkStringFormat } from "../../schema/formats.js";

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;

const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** `validation.RegexError`: note the double space that `"', " + " or "` produces. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = `${msg} (e.g. `;
  for (let i = 0; i < examples.length; i++) {
    if (i > 0) s += " or ";
    s += `'${examples[i]}', `;
  }
  return `${s}regex used for validation is '${fmt}')`;
}

/** `validation.MaxLenError`. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** `validation.EmptyError`. */
const EMPTY_ERROR = "must be non-empty";

// The matchers below work on Go byte strings (see lib/go/bytes.ts): any byte ≥ 0x80 is outside
// every character class, as in Go's regexp on UTF-8.

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

/** `^first([-a-z0-9]*[a-z0-9])?$`. */
function matchesLabel(b: string, first: (c: number) => boolean): boolean {
  if (b.length === 0 || !first(b.charCodeAt(0)) || !isLowerAlnum(b.charCodeAt(b.length - 1))) return false;
  for (let i = 1; i < b.length; i++) {
    const c = b.charCodeAt(i);
    if (!isLowerAlnum(c) && c !== 0x2d) return false;
  }
  return true;
}

function matchesDNS1123Label(b: string): boolean {
  return matchesLabel(b, isLowerAlnum);
}

function matchesDNS1123Subdomain(b: string): boolean {
  return b.length > 0 && b.split(".").every(matchesDNS1123Label);
}

/** `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`. */
function matchesQualifiedNamePart(b: string): boolean {
  if (b.length === 0 || !isAlnum(b.charCodeAt(0)) || !isAlnum(b.charCodeAt(b.length - 1))) return false;
  for (let i = 1; i < b.length; i++) {
    const c = b.charCodeAt(i);
    if (!isAlnum(c) && c !== 0x2d && c !== 0x5f && c !== 0x2e) return false;
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
  if (!matchesLabel(b, isLower)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"));
  return errs;
}

function qualifiedName(b: string): string[] {
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

function labelValue(b: string): string[] {
  const errs: string[] = [];
  if (b.length > 63) errs.push(maxLenError(63));
  if (b.length > 0 && !matchesQualifiedNamePart(b)) {
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  }
  return errs;
}

function portName(b: string): string[] {
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

/**
 * `maskTrailingDash` of apimachinery's name validation: a trailing `-` (on a name of more than
 * one byte) is allowed in a prefix. Go replaces the last *two* bytes with `a`.
 */
function maskTrailingDash(b: string): string {
  return b.length > 1 && b.endsWith("-") ? `${b.slice(0, -2)}a` : b;
}

function strfmt(format: string, message: string): (s: string) => string[] {
  return (s) => (checkStringFormat(format, s) ? [] : [message]);
}

/** A CEL `kubernetes.NamedFormat` value. */
export class NamedFormat {
  /** The Go `Format.Name` (`DNS1123Label`, `uri`, ...). */
  readonly name: string;
  readonly #validate: (s: string) => string[];

  constructor(name: string, validate: (s: string) => string[]) {
    this.name = name;
    this.#validate = validate;
  }

  /**
   * CEL `f.validate(s)`: `undefined` when `s` is valid (CEL `optional.none()`), otherwise the
   * messages (CEL `optional.of([...])`).
   */
  validate(s: string): string[] | undefined {
    const errs = this.#validate(s);
    return errs.length === 0 ? undefined : errs;
  }
}

function onBytes(fn: (b: string) => string[]): (s: string) => string[] {
  return (s) => fn(toGoBytes(s));
}

/** The named formats of Kubernetes 1.36 (`ConstantFormats`), by the name CEL uses. */
export const NAMED_FORMATS: ReadonlyMap<string, NamedFormat> = new Map<string, NamedFormat>([
  ["dns1123Label", new NamedFormat("DNS1123Label", onBytes(dns1123Label))],
  ["dns1123Subdomain", new NamedFormat("DNS1123Subdomain", onBytes(dns1123Subdomain))],
  ["dns1035Label", new NamedFormat("DNS1035Label", onBytes(dns1035Label))],
  ["qualifiedName", new NamedFormat("QualifiedName", onBytes(qualifiedName))],
  ["portName", new NamedFormat("PortName", onBytes(portName))],
  [
    "dns1123LabelPrefix",
    new NamedFormat(
      "DNS1123LabelPrefix",
      onBytes((b) => dns1123Label(maskTrailingDash(b))),
    ),
  ],
  [
    "dns1123SubdomainPrefix",
    new NamedFormat(
      "DNS1123SubdomainPrefix",
      onBytes((b) => dns1123Subdomain(maskTrailingDash(b))),
    ),
  ],
  [
    "dns1035LabelPrefix",
    new NamedFormat(
      "DNS1035LabelPrefix",
      onBytes((b) => dns1035Label(maskTrailingDash(b))),
    ),
  ],
  ["labelValue", new NamedFormat("LabelValue", onBytes(labelValue))],
  [
    "uri",
    new NamedFormat("URI", (s) => {
      const r = parseRequestURI(s);
      return r.ok ? [] : [r.error];
    }),
  ],
  ["uuid", new NamedFormat("uuid", strfmt("uuid", "does not match the UUID format"))],
  ["byte", new NamedFormat("byte", strfmt("byte", "invalid base64"))],
  ["date", new NamedFormat("date", strfmt("date", "invalid date"))],
  ["datetime", new NamedFormat("datetime", strfmt("datetime", "invalid datetime"))],
]);

/** CEL `format.named(name)`: the format, or `undefined` (CEL `optional.none()`) for an unknown name. */
export function namedFormat(name: string): NamedFormat | undefined {
  return NAMED_FORMATS.get(name);
}
