/**
 * OpenAPI `format` support for custom resources, as kube-apiserver 1.36 applies it.
 *
 * Two upstream pieces decide what happens to a `format`:
 *
 * - apiextensions-apiserver `pkg/apiserver/validation/formats.go`
 *   (`StripUnsupportedFormatsPostProcessorForVersion`) drops every format that the CRD's
 *   compatibility version does not support, after normalising the name by removing all `-`
 *   (`date-time` → `datetime`, `k8s-short-name` → `k8sshortname`). Integer schemas keep only
 *   `int32`/`int64`, number schemas only `float`/`double`, other types keep nothing.
 * - kube-openapi `pkg/validation/strfmt` (the `Default` registry) validates the surviving
 *   string formats. Each checker below names the Go function it reproduces; the semantics
 *   are re-implemented here (never copied), including the quirks, because tollgate must
 *   accept and reject exactly what the API server does.
 *
 * Everything runs in time linear in the input: hand-written scanners and the Go ports of lib/go (net, netip,
 * url, mail, time, base64, regexp for the one pattern that needs Unicode classes and nested repetition:
 * hostname), and a few anchored JavaScript regular expressions without nested quantifiers.
 *
 * Strings are JavaScript strings, whereas Go works on UTF-8 bytes. Where Go counts bytes
 * (`len(s)`), the byte length is computed; where Go decodes runes, code points are used. A
 * lone surrogate (which Go's JSON decoder would have turned into U+FFFD) counts as one
 * three-byte rune.
 */

import { isPaddedStdEncoding } from "../go/base64.js";
import { utf8Length } from "../go/bytes.js";
import { isValidAddress } from "../go/mail.js";
import { parseCIDRSloppy, parseIP, parseIPSloppy, parseMAC } from "../go/net.js";
import { type CompiledPattern, mustCompile } from "../go/regexp.js";
import { parseDuration } from "../go/time.js";
import { parseRequestURI } from "../go/url.js";
import { matchesDNS1123Label, matchesDNS1123Subdomain } from "../objects/names.js";

// ---------------------------------------------------------------------------------------------
// Which formats exist
// ---------------------------------------------------------------------------------------------

/**
 * Normalised names of the string formats kube-apiserver 1.36 validates for CRDs.
 *
 * `supportedVersionedFormats` in apiextensions-apiserver `formats.go`: the 1.0 set plus
 * `k8s-short-name` and `k8s-long-name` (introduced at 1.34). kube-apiserver 1.36 builds CRD
 * validators at its default compatibility version (1.35), which includes both.
 */
const STRING_FORMATS: ReadonlySet<string> = new Set([
  "bsonobjectid",
  "uri",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "cidr",
  "mac",
  "uuid",
  "uuid3",
  "uuid4",
  "uuid5",
  "isbn",
  "isbn10",
  "isbn13",
  "creditcard",
  "ssn",
  "hexcolor",
  "rgbcolor",
  "byte",
  "password",
  "date",
  "duration",
  "datetime",
  "k8sshortname",
  "k8slongname",
]);

/**
 * Normalised name of a string format (`"date-time"` → `"datetime"`, as kube-openapi's
 * `DefaultNameNormalizer` removes every `-`), or `undefined` when the format is not supported
 * for CRD validation in 1.36 (the API server then ignores it).
 *
 * Names are case-sensitive (`"UUID"` is not supported) and every dash is removed, so
 * `"d-a-t-e"` is the supported format `date`.
 */
export function supportedStringFormat(format: string): string | undefined {
  const normalised = format.replaceAll("-", "");
  return STRING_FORMATS.has(normalised) ? normalised : undefined;
}

/** Whether an integer schema keeps this format (`int32`, `int64`); others are dropped. */
export function isIntegerFormat(format: string): boolean {
  return format === "int32" || format === "int64";
}

/** Whether a number schema keeps this format (`float`, `double`); others are dropped. */
export function isNumberFormat(format: string): boolean {
  return format === "float" || format === "double";
}

/**
 * The format that survives apiextensions' `StripUnsupportedFormatsPostProcessorForVersion`
 * for a schema of the given `type`, or `undefined` when it is dropped.
 *
 * - no type or `string`: the normalised string format when supported (see
 *   {@link supportedStringFormat});
 * - `integer`: `int32` / `int64` verbatim (no normalisation);
 * - `number`: `float` / `double` verbatim;
 * - any other type: always dropped.
 */
export function keptFormat(type: string | undefined, format: string): string | undefined {
  if (format === "") return undefined;
  switch (type ?? "") {
    case "":
    case "string":
      return supportedStringFormat(format);
    case "integer":
      return isIntegerFormat(format) ? format : undefined;
    case "number":
      return isNumberFormat(format) ? format : undefined;
    default:
      return undefined;
  }
}

/**
 * Whether `value` satisfies the string format `normalised` (a name returned by
 * {@link supportedStringFormat}), as kube-openapi's `strfmt.Default.Validates` decides it.
 *
 * An unknown name returns `true`: such a format never reaches validation, because the API
 * server strips it from the schema first.
 */
export function checkStringFormat(normalised: string, value: string): boolean {
  const check = CHECKERS.get(normalised);
  return check === undefined ? true : check(value);
}

type Checker = (value: string) => boolean;

// ---------------------------------------------------------------------------------------------
// Small character helpers
// ---------------------------------------------------------------------------------------------

function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isAlphaCode(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** Value of an ASCII hex digit, or -1. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** Go's regexp `\s`: `[\t\n\f\r ]` (ASCII only, no vertical tab). */
function isGoSpaceCode(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

// ---------------------------------------------------------------------------------------------
// IP addresses, CIDR, MAC, URI, email: on the Go ports of lib/go
// ---------------------------------------------------------------------------------------------

/**
 * kube-openapi `isIPv4`: `netutils.ParseIPSloppy(s) != nil && strings.Contains(s, ".")`.
 * Leading zeros are tolerated, and any IPv6 address with an embedded IPv4 tail
 * (`::ffff:1.2.3.4`) passes because it contains a dot.
 */
function isIPv4(s: string): boolean {
  return s.includes(".") && parseIPSloppy(s) !== undefined;
}

/** govalidator `IsIPv6`: `net.ParseIP(s) != nil && strings.Contains(s, ":")` (strict, no zone). */
function isIPv6(s: string): boolean {
  return s.includes(":") && parseIP(s) !== undefined;
}

/** kube-openapi `isCIDR`: `netutils.ParseCIDRSloppy` (Go 1.16 `net.ParseCIDR`) succeeds. */
function isCIDR(s: string): boolean {
  return parseCIDRSloppy(s) !== undefined;
}

/** govalidator `IsMAC`: `net.ParseMAC` succeeds. */
function isMAC(s: string): boolean {
  return parseMAC(s) !== undefined;
}

/** govalidator `IsRequestURI`: `url.ParseRequestURI(s)` succeeds (Go 1.26). */
function isRequestURI(s: string): boolean {
  return parseRequestURI(s).ok;
}

/**
 * kube-openapi `IsEmail`: `mail.ParseAddress(s)` succeeds. So display names (`Jane <j@example.com>`), trailing
 * comments, quoted local parts, domain literals and one-address groups (`team: j@example.com;`) are all accepted;
 * dotless domains too.
 */
function isEmail(s: string): boolean {
  return isValidAddress(s);
}

// ---------------------------------------------------------------------------------------------
// hostname
// ---------------------------------------------------------------------------------------------

/**
 * kube-openapi `HostnamePattern`. Either one label (a letter, digit, symbol or Unicode letter,
 * then at most one dash directly after the first character: `x-y` passes, `my-host` does not),
 * or dot-terminated labels followed by a top-level domain of 2 to 63 letters (no digits, so
 * `1.1.1.1` is not a hostname), with Go's regexp semantics (lib/go/regexp.ts). Compiled on first use: its Unicode
 * classes take re2js about 100 ms, which every process start paid before (most never check a hostname).
 */
let hostnamePattern: CompiledPattern | undefined;
function hostnamePatternOnce(): CompiledPattern {
  if (hostnamePattern !== undefined) return hostnamePattern;
  const ch = "[a-zA-Z0-9\\p{S}\\p{L}]";
  const chOrDash = "[a-zA-Z0-9\\p{S}\\p{L}-]";
  const singleLabel = `${ch}(?:-?${ch}{0,62})?`;
  const labels = `(?:${ch}(?:${chOrDash}{0,61}${ch})?\\.)+[a-zA-Z\\p{L}]{2,63}`;
  hostnamePattern = mustCompile(`^(?:${singleLabel}|${labels})$`);
  return hostnamePattern;
}

/**
 * kube-openapi `IsHostname`: the pattern, at most 255 bytes, and no dot-separated part longer
 * than 63 bytes (UTF-8).
 */
function isHostname(s: string): boolean {
  if (utf8Length(s) > 255) return false;
  if (!hostnamePatternOnce().test(s)) return false;
  return s.split(".").every((part) => utf8Length(part) <= 63);
}

// ---------------------------------------------------------------------------------------------
// Kubernetes names
// ---------------------------------------------------------------------------------------------

/** `[a-z0-9]([-a-z0-9]*[a-z0-9])?` over `s[from:to]`, without a length limit. */
/**
 * kube-openapi `IsShortName` (k8s-short-name): `IsDNS1123Label` accepts it (a lower-case RFC 1123 label of at most
 * 63 bytes; a non-ASCII character never matches, so the length in characters is the length in bytes).
 */
function isShortName(s: string): boolean {
  return s.length <= 63 && matchesDNS1123Label(s);
}

/** kube-openapi `IsLongName` (k8s-long-name): `IsDNS1123Subdomain` accepts it (at most 253 bytes). */
function isLongName(s: string): boolean {
  return s.length <= 253 && matchesDNS1123Subdomain(s);
}

// ---------------------------------------------------------------------------------------------
// Dates and times
// ---------------------------------------------------------------------------------------------

function twoDigits(s: string, at: number): number {
  const a = s.charCodeAt(at);
  const b = s.charCodeAt(at + 1);
  return isDigitCode(a) && isDigitCode(b) ? (a - 0x30) * 10 + (b - 0x30) : -1;
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * kube-openapi `IsDate`: `time.Parse("2006-01-02", s)`. Exactly `YYYY-MM-DD` in ASCII digits,
 * month 01–12, day valid for the month in the proleptic Gregorian calendar (year 0000 is a
 * leap year).
 */
function isDate(s: string): boolean {
  if (s.length !== 10 || s.charCodeAt(4) !== 0x2d || s.charCodeAt(7) !== 0x2d) return false;
  const hi = twoDigits(s, 0);
  const lo = twoDigits(s, 2);
  const month = twoDigits(s, 5);
  const day = twoDigits(s, 8);
  if (hi < 0 || lo < 0 || month < 1 || month > 12 || day < 1) return false;
  return day <= daysIn(month, hi * 100 + lo);
}

/** `(z|[+-][0-9]{2}:[0-9]{2})` over the whole of `s[from:]` (after lower-casing, so `Z` too). */
function isZoneSuffix(s: string, from: number): boolean {
  const rest = s.length - from;
  const c = s.charCodeAt(from);
  if (rest === 1) return c === 0x7a || c === 0x5a;
  return (
    rest === 6 &&
    (c === 0x2b || c === 0x2d) &&
    twoDigits(s, from + 1) >= 0 &&
    s.charCodeAt(from + 3) === 0x3a &&
    twoDigits(s, from + 4) >= 0
  );
}

/**
 * kube-openapi `IsDateTime`, which is not `time.Parse`:
 *
 * - the string (lower-cased) is split at every `t`; the part before the first `t` must be a
 *   {@link isDate} date, and only the part between the first and second `t` is checked, so
 *   anything after a second `t` is ignored (`…Zt whatever`);
 * - that part must match `^(\d\d):(\d\d):(\d\d)(.[0-9]+)?(z|[+-]\d\d:\d\d)$` where `.` is any
 *   rune but newline (`10:00:00,5Z` and `10:00:00x5Z` pass); hour ≤ 23, minute and second ≤ 59
 *   (no leap second); the offset's digits are not range-checked;
 * - a time zone is required.
 */
function isDateTime(s: string): boolean {
  const firstT = indexOfT(s, 0);
  if (firstT < 0 || !isDate(s.slice(0, firstT))) return false;
  const secondT = indexOfT(s, firstT + 1);
  const time = s.slice(firstT + 1, secondT < 0 ? s.length : secondT);
  if (time.length < 9 || time.charCodeAt(2) !== 0x3a || time.charCodeAt(5) !== 0x3a) return false;
  const hour = twoDigits(time, 0);
  const minute = twoDigits(time, 3);
  const second = twoDigits(time, 6);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  if (isZoneSuffix(time, 8)) return true;
  // (.[0-9]+): one rune other than newline, then digits, then the zone.
  const cp = time.codePointAt(8) ?? 0;
  if (cp === 0x0a) return false;
  let i = 8 + (cp > 0xffff ? 2 : 1);
  const digitsFrom = i;
  while (i < time.length && isDigitCode(time.charCodeAt(i))) i++;
  return i > digitsFrom && i < time.length && isZoneSuffix(time, i);
}

function indexOfT(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x74 || c === 0x54) return i;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// duration: kube-openapi ParseDuration = time.ParseDuration, else a scala-like scan
// ---------------------------------------------------------------------------------------------

/** kube-openapi `timeUnits`: per unit, its spellings; the last one is also a prefix (`hours`). */
const SCALA_UNITS: readonly (readonly string[])[] = [
  ["ns", "nano"],
  ["us", "\u00b5s", "micro"],
  ["ms", "milli"],
  ["s", "sec"],
  ["m", "min"],
  ["h", "hr", "hour"],
  ["d", "day"],
  ["w", "wk", "week"],
];

function isScalaUnit(unit: string): boolean {
  return SCALA_UNITS.some((variants) =>
    variants.some((variant, i) => variant === unit || (i === variants.length - 1 && unit.startsWith(variant))),
  );
}

/** `[A-Za-zµ]` of kube-openapi's `durationMatcher` (µ is the micro sign, U+00B5). */
function isScalaUnitChar(c: number): boolean {
  return isAlphaCode(c) || c === 0xb5;
}

const MAX_INT64 = (1n << 63n) - 1n;

/**
 * The fallback of kube-openapi `ParseDuration`: every match of
 * `((?:-\s?)?\d+)\s*([A-Za-zµ]+)` anywhere in the string (text around and between matches is
 * ignored, so `abc 3 days!` passes). It succeeds when at least one unit is known (`d`, `day…`,
 * `hours`, `weekz`, …) and no number exceeds the int64 range (`strconv.Atoi` fails).
 */
function isScalaDuration(s: string): boolean {
  let ok = false;
  let p = 0;
  while (p < s.length) {
    const c = s.charCodeAt(p);
    let digitsFrom: number;
    if (c === 0x2d) {
      // '-', one optional \s, then digits.
      let q = p + 1;
      if (q < s.length && isGoSpaceCode(s.charCodeAt(q)) && q + 1 < s.length && isDigitCode(s.charCodeAt(q + 1))) {
        q++;
      }
      if (q >= s.length || !isDigitCode(s.charCodeAt(q))) {
        p++;
        continue;
      }
      digitsFrom = q;
    } else if (isDigitCode(c)) {
      digitsFrom = p;
    } else {
      p++;
      continue;
    }
    let digitsTo = digitsFrom;
    while (digitsTo < s.length && isDigitCode(s.charCodeAt(digitsTo))) digitsTo++;
    let unitFrom = digitsTo;
    while (unitFrom < s.length && isGoSpaceCode(s.charCodeAt(unitFrom))) unitFrom++;
    let unitTo = unitFrom;
    while (unitTo < s.length && isScalaUnitChar(s.charCodeAt(unitTo))) unitTo++;
    if (unitTo === unitFrom) {
      // No match starts anywhere in this run of digits: they all share the same tail.
      p = digitsTo;
      continue;
    }
    if (BigInt(s.slice(digitsFrom, digitsTo)) > MAX_INT64) return false;
    if (isScalaUnit(s.slice(unitFrom, unitTo).toLowerCase())) ok = true;
    p = unitTo;
  }
  return ok;
}

/** kube-openapi `IsDuration`: `time.ParseDuration`, or else the scala-like scan. */
function isDuration(s: string): boolean {
  return parseDuration(s) !== undefined || isScalaDuration(s);
}

// ---------------------------------------------------------------------------------------------
// govalidator patterns and checksums
// ---------------------------------------------------------------------------------------------

/** Removes govalidator's `[\s-]+` (Go `\s`: tab, newline, form feed, carriage return, space). */
function removeSpacesAndDashes(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 0x2d && !isGoSpaceCode(c)) out += s[i];
  }
  return out;
}

/** govalidator `IsISBN10`: 9 digits and a check digit or `X`, weighted sum divisible by 11. */
function isISBN10(s: string): boolean {
  const t = removeSpacesAndDashes(s);
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(t)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * (t.charCodeAt(i) - 0x30);
  sum += 10 * (t[9] === "X" ? 10 : t.charCodeAt(9) - 0x30);
  return sum % 11 === 0;
}

/** govalidator `IsISBN13`: 13 digits with the EAN-13 check digit. */
function isISBN13(s: string): boolean {
  const t = removeSpacesAndDashes(s);
  if (!/^[0-9]{13}$/.test(t)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * (t.charCodeAt(i) - 0x30);
  return t.charCodeAt(12) - 0x30 === (10 - (sum % 10)) % 10;
}

/** govalidator `CreditCard` (2019 revision, vendored by Kubernetes); each branch is fixed-length. */
const CREDIT_CARD =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})$/;

/**
 * govalidator `IsCreditCard`: every non-digit is removed first (so letters and punctuation
 * anywhere are ignored), then the issuer pattern and the Luhn checksum.
 */
function isCreditCard(s: string): boolean {
  const digits = s.replace(/[^0-9]+/g, "");
  if (!CREDIT_CARD.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 0x30;
    if (double) {
      d *= 2;
      if (d >= 10) d = (d % 10) + 1;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/**
 * govalidator `IsSSN`: exactly 11 bytes matching `^\d{3}[- ]?\d{2}[- ]?\d{4}$`, so both
 * separators are in fact required (`123456789` fails).
 */
function isSSN(s: string): boolean {
  return s.length === 11 && /^[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}$/.test(s);
}

/** govalidator `IsHexcolor`: `^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`. */
function isHexColor(s: string): boolean {
  return /^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s);
}

/** One `rgb()` component of govalidator `RGBcolor`: 0–255 without leading zeros. */
const RGB_COMPONENT = "(?:0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])";
/** Go's `\s` inside govalidator `RGBcolor`. */
const GO_SPACES = "[\\t\\n\\f\\r ]*";
const RGB_COLOR = new RegExp(
  `^rgb\\(${GO_SPACES}${RGB_COMPONENT}${GO_SPACES},${GO_SPACES}${RGB_COMPONENT}${GO_SPACES},${GO_SPACES}${RGB_COMPONENT}${GO_SPACES}\\)$`,
);

/** govalidator `IsRGBcolor`: `rgb(r,g,b)`, lower-case `rgb`, Go whitespace around numbers. */
function isRGBColor(s: string): boolean {
  return RGB_COLOR.test(s);
}

/**
 * govalidator `IsBase64` (format `byte`):
 * `^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$`.
 * Standard alphabet, padding required, no whitespace; the empty string fails.
 */
function isBase64(s: string): boolean {
  return s.length > 0 && isPaddedStdEncoding(s);
}

/** kube-openapi `UUIDPattern` family: hex groups 8-4-4-4-12, each dash optional, any case. */
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;

/** kube-openapi `IsBSONObjectID`: `hex.DecodeString` of exactly 12 bytes (24 hex digits). */
function isBSONObjectID(s: string): boolean {
  if (s.length !== 24) return false;
  for (let i = 0; i < 24; i++) if (hexValue(s.charCodeAt(i)) < 0) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// The registry
// ---------------------------------------------------------------------------------------------

const CHECKERS: ReadonlyMap<string, Checker> = new Map<string, Checker>([
  ["bsonobjectid", isBSONObjectID],
  ["uri", isRequestURI],
  ["email", isEmail],
  ["hostname", isHostname],
  ["ipv4", isIPv4],
  ["ipv6", isIPv6],
  ["cidr", isCIDR],
  ["mac", isMAC],
  ["uuid", (s) => UUID.test(s)],
  ["uuid3", (s) => UUID3.test(s)],
  ["uuid4", (s) => UUID4.test(s)],
  ["uuid5", (s) => UUID5.test(s)],
  ["isbn", (s) => isISBN10(s) || isISBN13(s)],
  ["isbn10", isISBN10],
  ["isbn13", isISBN13],
  ["creditcard", isCreditCard],
  ["ssn", isSSN],
  ["hexcolor", isHexColor],
  ["rgbcolor", isRGBColor],
  ["byte", isBase64],
  ["password", () => true],
  ["date", isDate],
  ["duration", isDuration],
  ["datetime", isDateTime],
  ["k8sshortname", isShortName],
  ["k8slongname", isLongName],
]);
