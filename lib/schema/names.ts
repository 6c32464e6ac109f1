/**
 * Name syntax checks of k8s.io/apimachinery/pkg/util/validation (IsDNS1123Subdomain, IsDNS1123Label,
 * IsDNS1035Label, IsQualifiedName, IsValidLabelValue) and pkg/api/validation/path (ValidatePathSegmentName), with
 * their exact messages. Hand-written checks: no regular expressions on untrusted input.
 */

const DNS1123_LABEL_MAX = 63;
const DNS1123_SUBDOMAIN_MAX = 253;
const DNS1035_LABEL_MAX = 63;

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

function isLowerAlnum(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
}

function isAlnum(c: number): boolean {
  return isLowerAlnum(c) || (c >= 0x41 && c <= 0x5a);
}

function matchesLabel(s: string, first: (c: number) => boolean): boolean {
  if (s.length === 0) return false;
  if (!first(s.charCodeAt(0)) || !isLowerAlnum(s.charCodeAt(s.length - 1))) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isLowerAlnum(c) && c !== 0x2d) return false;
  }
  return true;
}

function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

/**
 * apimachinery RegexError: each example is written as `'x', ` and joined with ` or `, which gives the double space
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

/** IsDNS1123Label */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!matchesLabel(value, isLowerAlnum)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL_FMT,
        "my-name",
        "123-abc",
      ),
    );
  }
  return errs;
}

/** IsDNS1123Subdomain */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  const ok = value.length > 0 && value.split(".").every((l) => matchesLabel(l, isLowerAlnum));
  if (!ok) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        "example.com",
      ),
    );
  }
  return errs;
}

/** IsDNS1035Label */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > DNS1035_LABEL_MAX) errs.push(maxLenError(DNS1035_LABEL_MAX));
  if (!matchesLabel(value, (c) => c >= 0x61 && c <= 0x7a)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        "my-name",
        "abc-123",
      ),
    );
  }
  return errs;
}

function isQualifiedNamePart(s: string): boolean {
  if (s.length === 0) return false;
  if (!isAlnum(s.charCodeAt(0)) || !isAlnum(s.charCodeAt(s.length - 1))) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isAlnum(c) && c !== 0x2d && c !== 0x5f && c !== 0x2e) return false;
  }
  return true;
}

/** IsQualifiedName (label and annotation keys). */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${"must be non-empty"}`);
    else for (const e of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${e}`);
  } else {
    return [
      `a qualified name ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${"must be non-empty"}`);
  else if (Buffer.byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!isQualifiedNamePart(name)) {
    errs.push(
      `name part ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`,
    );
  }
  return errs;
}

/** IsValidLabelValue */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > 63) errs.push(maxLenError(63));
  if (value.length > 0 && !isQualifiedNamePart(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        "MyValue",
        "my_value",
        "12345",
      ),
    );
  }
  return errs;
}

/** path.IsValidPathSegmentName */
export function isValidPathSegmentName(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const illegal of ["/", "%"]) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}
