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
 * Everything runs in time linear in the input: hand-written scanners, a few anchored
 * JavaScript regular expressions without nested quantifiers, and re2js (RE2 semantics) for the
 * one pattern that needs Unicode classes and nested repetition (hostname).
 *
 * Strings are JavaScript strings, whereas Go works on UTF-8 bytes. Where Go counts bytes
 * (`len(s)`), the byte length is computed; where Go decodes runes, code points are used. A
 * lone surrogate (which Go's JSON decoder would have turned into U+FFFD) counts as one
 * three-byte rune.
 */

import { RE2JS } from "re2js";

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

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) return false;
  }
  return true;
}

/** Length of `s` in UTF-8 bytes, as Go's `len(s)` sees it. */
function utf8Length(s: string): number {
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

/** Go's regexp `\s`: `[\t\n\f\r ]` (ASCII only, no vertical tab). */
function isGoSpaceCode(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

// ---------------------------------------------------------------------------------------------
// IP addresses
// ---------------------------------------------------------------------------------------------

/**
 * Go 1.16 `net.parseIPv4`, kept by k8s.io/utils/net `ParseIPSloppy`: four decimal fields,
 * leading zeros allowed (`010.001.002.003` is 10.1.2.3), each below 256.
 */
function parseIPv4Sloppy(s: string): Uint8Array | undefined {
  const out = new Uint8Array(4);
  let pos = 0;
  for (let field = 0; field < 4; field++) {
    if (pos >= s.length) return undefined;
    if (field > 0) {
      if (s.charCodeAt(pos) !== 0x2e) return undefined;
      pos++;
    }
    // dtoi: decimal digits; gives up once the value reaches 0xFFFFFF.
    let n = 0;
    let end = pos;
    while (end < s.length && isDigitCode(s.charCodeAt(end))) {
      n = n * 10 + (s.charCodeAt(end) - 0x30);
      if (n >= 0xffffff) return undefined;
      end++;
    }
    if (end === pos || n > 0xff) return undefined;
    out[field] = n;
    pos = end;
  }
  return pos === s.length ? out : undefined;
}

/**
 * Go 1.16 `net.parseIPv6` (no zone), kept by `ParseIPSloppy`/`ParseCIDRSloppy`: hex groups
 * may have more than four digits as long as the value fits 16 bits (`00001::`), and an
 * embedded IPv4 tail is parsed sloppily.
 */
function parseIPv6Sloppy(s: string): Uint8Array | undefined {
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  let pos = 0;
  if (s.length >= 2 && s.charCodeAt(0) === 0x3a && s.charCodeAt(1) === 0x3a) {
    ellipsis = 0;
    pos = 2;
    if (pos === s.length) return ip;
  }
  let i = 0;
  while (i < 16) {
    // xtoi
    let n = 0;
    let c = 0;
    while (pos + c < s.length) {
      const d = hexValue(s.charCodeAt(pos + c));
      if (d < 0) break;
      n = n * 16 + d;
      if (n >= 0xffffff) return undefined;
      c++;
    }
    if (c === 0 || n > 0xffff) return undefined;
    if (pos + c < s.length && s.charCodeAt(pos + c) === 0x2e) {
      if (ellipsis < 0 && i !== 12) return undefined;
      if (i + 4 > 16) return undefined;
      const v4 = parseIPv4Sloppy(s.slice(pos));
      if (v4 === undefined) return undefined;
      ip.set(v4, i);
      i += 4;
      pos = s.length;
      break;
    }
    ip[i] = n >> 8;
    ip[i + 1] = n & 0xff;
    i += 2;
    pos += c;
    if (pos === s.length) break;
    if (s.charCodeAt(pos) !== 0x3a || pos + 1 === s.length) return undefined;
    pos++;
    if (s.charCodeAt(pos) === 0x3a) {
      if (ellipsis >= 0) return undefined;
      ellipsis = i;
      pos++;
      if (pos === s.length) break;
    }
  }
  if (pos !== s.length) return undefined;
  return expandEllipsis(ip, i, ellipsis);
}

/** Moves the groups after `::` to the end; `undefined` when the address has the wrong size. */
function expandEllipsis(ip: Uint8Array, filled: number, ellipsis: number): Uint8Array | undefined {
  if (filled < 16) {
    if (ellipsis < 0) return undefined;
    const n = 16 - filled;
    for (let j = filled - 1; j >= ellipsis; j--) ip[j + n] = ip[j] ?? 0;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    // The :: must stand for at least one group of zeros.
    return undefined;
  }
  return ip;
}

/** Go 1.16 `net.ParseIP` (k8s.io/utils/net `ParseIPSloppy`): the first `.` or `:` decides. */
function parseIPSloppy(s: string): Uint8Array | undefined {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2e) return parseIPv4Sloppy(s);
    if (c === 0x3a) return parseIPv6Sloppy(s);
  }
  return undefined;
}

/** A parsed `netip.Addr`: 16 bytes (IPv4 as IPv4-mapped), whether it is IPv4, and the zone. */
interface NetipAddr {
  readonly bytes: Uint8Array;
  readonly is4: boolean;
  readonly zone: string;
}

/**
 * netip `parseIPv4Fields`: exactly four decimal fields in `s[from:to]`, no leading zeros,
 * each at most 255, written to `out[at..at+4]`.
 */
function parseIPv4Fields(s: string, from: number, to: number, out: Uint8Array, at: number): boolean {
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (isDigitCode(c)) {
      if (digits === 1 && val === 0) return false;
      val = val * 10 + (c - 0x30);
      digits++;
      if (val > 255) return false;
    } else if (c === 0x2e) {
      if (i === from || i === to - 1 || s.charCodeAt(i - 1) === 0x2e) return false;
      if (pos === 3) return false;
      out[at + pos] = val;
      pos++;
      val = 0;
      digits = 0;
    } else {
      return false;
    }
  }
  if (pos < 3) return false;
  out[at + 3] = val;
  return true;
}

/** netip `parseIPv6`: at most four hex digits a group, strict embedded IPv4, optional zone. */
function parseIPv6Strict(input: string): NetipAddr | undefined {
  let end = input.length;
  let zone = "";
  const percent = input.indexOf("%");
  if (percent !== -1) {
    zone = input.slice(percent + 1);
    if (zone === "") return undefined;
    end = percent;
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  let pos = 0;
  if (end >= 2 && input.charCodeAt(0) === 0x3a && input.charCodeAt(1) === 0x3a) {
    ellipsis = 0;
    pos = 2;
    if (pos === end) return { bytes: ip, is4: false, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    while (pos + off < end) {
      const d = hexValue(input.charCodeAt(pos + off));
      if (d < 0) break;
      acc = acc * 16 + d;
      if (off > 3 || acc > 0xffff) return undefined;
      off++;
    }
    if (off === 0) return undefined;
    if (pos + off < end && input.charCodeAt(pos + off) === 0x2e) {
      if (ellipsis < 0 && i !== 12) return undefined;
      if (i + 4 > 16) return undefined;
      if (!parseIPv4Fields(input, pos, end, ip, i)) return undefined;
      i += 4;
      pos = end;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    pos += off;
    if (pos === end) break;
    if (input.charCodeAt(pos) !== 0x3a || pos + 1 === end) return undefined;
    pos++;
    if (input.charCodeAt(pos) === 0x3a) {
      if (ellipsis >= 0) return undefined;
      ellipsis = i;
      pos++;
      if (pos === end) break;
    }
  }
  if (pos !== end) return undefined;
  const bytes = expandEllipsis(ip, i, ellipsis);
  return bytes === undefined ? undefined : { bytes, is4: false, zone };
}

/** `netip.ParseAddr`, the parser behind `net.ParseIP` since Go 1.22: strict, zones allowed. */
function parseAddr(s: string): NetipAddr | undefined {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2e) {
      const bytes = new Uint8Array(16);
      bytes[10] = 0xff;
      bytes[11] = 0xff;
      return parseIPv4Fields(s, 0, s.length, bytes, 12) ? { bytes, is4: true, zone: "" } : undefined;
    }
    if (c === 0x3a) return parseIPv6Strict(s);
    if (c === 0x25) return undefined;
  }
  return undefined;
}

/** `net.ParseIP` (Go ≥ 1.22): `netip.ParseAddr` without a zone, as 16 bytes. */
function parseIP(s: string): Uint8Array | undefined {
  const addr = parseAddr(s);
  return addr === undefined || addr.zone !== "" ? undefined : addr.bytes;
}

/** `net.IP.To4() != nil`: an IPv4 address, or an IPv6 one in the `::ffff:0:0/96` block. */
function isV4Mapped(ip: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (ip[i] !== 0) return false;
  return ip[10] === 0xff && ip[11] === 0xff;
}

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

/**
 * kube-openapi `isCIDR`: `netutils.ParseCIDRSloppy` (Go 1.16 `net.ParseCIDR`). The address
 * before the first `/` is tried as IPv4, then IPv6 (both sloppy); the prefix length is decimal
 * (leading zeros allowed) and at most 32 or 128.
 */
function isCIDR(s: string): boolean {
  const slash = s.indexOf("/");
  if (slash < 0) return false;
  const addr = s.slice(0, slash);
  const mask = s.slice(slash + 1);
  let bits = 32;
  if (parseIPv4Sloppy(addr) === undefined) {
    bits = 128;
    if (parseIPv6Sloppy(addr) === undefined) return false;
  }
  let n = 0;
  let i = 0;
  while (i < mask.length && isDigitCode(mask.charCodeAt(i))) {
    n = n * 10 + (mask.charCodeAt(i) - 0x30);
    if (n >= 0xffffff) return false;
    i++;
  }
  return i > 0 && i === mask.length && n <= bits;
}

/**
 * govalidator `IsMAC` → `net.ParseMAC`: 6, 8 or 20 octets, written as pairs of hex digits
 * separated by one consistent `:` or `-`, or as groups of four hex digits separated by `.`.
 */
function isMAC(s: string): boolean {
  if (s.length < 14 || !isAscii(s)) return false;
  const hexPair = (at: number) => hexValue(s.charCodeAt(at)) >= 0 && hexValue(s.charCodeAt(at + 1)) >= 0;
  const sep = s.charCodeAt(2);
  if (sep === 0x3a || sep === 0x2d) {
    if ((s.length + 1) % 3 !== 0) return false;
    const n = (s.length + 1) / 3;
    if (n !== 6 && n !== 8 && n !== 20) return false;
    for (let x = 0; x < s.length; x += 3) {
      if (!hexPair(x)) return false;
      if (x + 2 < s.length && s.charCodeAt(x + 2) !== sep) return false;
    }
    return true;
  }
  if (s.charCodeAt(4) === 0x2e) {
    if ((s.length + 1) % 5 !== 0) return false;
    const n = (2 * (s.length + 1)) / 5;
    if (n !== 6 && n !== 8 && n !== 20) return false;
    for (let x = 0; x < s.length; x += 5) {
      if (!hexPair(x) || !hexPair(x + 2)) return false;
      if (x + 4 < s.length && s.charCodeAt(x + 4) !== 0x2e) return false;
    }
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// uri: govalidator IsRequestURI → url.ParseRequestURI
// ---------------------------------------------------------------------------------------------

/**
 * `url.ParseRequestURI(s)` succeeds (govalidator `IsRequestURI`), as in Go 1.26:
 *
 * - no ASCII control character; not empty; `*` alone is fine;
 * - an optional scheme `[A-Za-z][A-Za-z0-9+.-]*:` (a leading `:` is an error);
 * - without a scheme the rest (before `?`) must start with `/`; with a scheme and no `/`, the
 *   rest is opaque and not checked (`mailto:x`, `urn:a:b`);
 * - the query is never checked, nor is a `#fragment` split off (it stays in the path);
 * - `scheme://authority` is checked as Go does (userinfo characters, port digits, IP literals
 *   in brackets must be IPv6, `%` escapes), and the path's `%` escapes must be well-formed.
 *
 * Go 1.26 rejects hosts with a `[` anywhere but first (CVE-2026-25679) and, for http and
 * https (`urlstrictcolons=1`, the default for a go1.26 module), any colon in a host that is
 * not the one before the port. Other schemes keep the lax rule: the last colon starts the port.
 */
function isRequestURI(raw: string): boolean {
  if (raw === "") return false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return false;
  }
  if (raw === "*") return true;

  let scheme = "";
  let rest = raw;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (isAlphaCode(c)) continue;
    if (isDigitCode(c) || c === 0x2b || c === 0x2d || c === 0x2e) {
      if (i === 0) break;
      continue;
    }
    if (c === 0x3a) {
      if (i === 0) return false; // missing protocol scheme
      scheme = raw.slice(0, i).toLowerCase();
      rest = raw.slice(i + 1);
    }
    break;
  }

  if (rest.endsWith("?") && rest.indexOf("?") === rest.length - 1) {
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf("?");
    if (q >= 0) rest = rest.slice(0, q);
  }

  if (!rest.startsWith("/")) {
    // With a scheme: an opaque URI, not checked further. Without: "invalid URI for request".
    return scheme !== "";
  }

  if (scheme !== "" && rest.startsWith("//")) {
    let authority = rest.slice(2);
    rest = "";
    const slash = authority.indexOf("/");
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    if (!isValidAuthority(scheme, authority)) return false;
  }
  return unescapeUrl(rest, "path") !== undefined;
}

type UrlEscapeMode = "path" | "host" | "zone" | "userinfo";

/** url `shouldEscape(c, encodeHost)` for an ASCII byte: whether it may not appear in a host. */
function isForbiddenInHost(c: number): boolean {
  if (isAlphaCode(c) || isDigitCode(c)) return false;
  // sub-delims, ':' for the port, '[' ']' for IP literals, '<' '>' '"', and unreserved marks.
  return !"!$&'()*+,;=:[]<>\"-_.~".includes(String.fromCharCode(c));
}

/**
 * url `unescape`: the unescaped text, or `undefined` when a `%` escape is malformed or, in a
 * host, a character is not allowed (`%` escapes of ASCII bytes other than `%25` are refused
 * in hosts; zones accept escapes of bytes allowed in hosts, space, and `%25`).
 */
function unescapeUrl(s: string, mode: UrlEscapeMode): string | undefined {
  let out = "";
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      const hi = i + 1 < s.length ? hexValue(s.charCodeAt(i + 1)) : -1;
      const lo = i + 2 < s.length ? hexValue(s.charCodeAt(i + 2)) : -1;
      if (hi < 0 || lo < 0) return undefined;
      const isPercent25 = hi === 2 && lo === 5;
      if (mode === "host" && hi < 8 && !isPercent25) return undefined;
      const v = hi * 16 + lo;
      if (mode === "zone" && !isPercent25 && v !== 0x20 && (v >= 0x80 || isForbiddenInHost(v))) return undefined;
      out += String.fromCharCode(v);
      i += 3;
      continue;
    }
    if ((mode === "host" || mode === "zone") && c < 0x80 && isForbiddenInHost(c)) return undefined;
    out += s[i];
    i++;
  }
  return out;
}

/** url `validOptionalPort`: empty, or `:` followed by digits only (possibly none). */
function isValidOptionalPort(port: string): boolean {
  if (port === "") return true;
  if (port.charCodeAt(0) !== 0x3a) return false;
  for (let i = 1; i < port.length; i++) if (!isDigitCode(port.charCodeAt(i))) return false;
  return true;
}

/** url `validUserinfo`: RFC 3986 userinfo characters (ASCII only) plus `@`. */
function isValidUserinfo(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isAlphaCode(c) || isDigitCode(c)) continue;
    if (!"-._:~!$&'()*+,;=%@".includes(s[i] ?? "")) return false;
  }
  return true;
}

/** url `parseAuthority`: `[userinfo@]host[:port]`, split at the last `@`. */
function isValidAuthority(scheme: string, authority: string): boolean {
  const at = authority.lastIndexOf("@");
  if (!isValidHost(scheme, at < 0 ? authority : authority.slice(at + 1))) return false;
  if (at < 0) return true;
  const userinfo = authority.slice(0, at);
  if (!isValidUserinfo(userinfo)) return false;
  const colon = userinfo.indexOf(":");
  if (colon < 0) return unescapeUrl(userinfo, "userinfo") !== undefined;
  return (
    unescapeUrl(userinfo.slice(0, colon), "userinfo") !== undefined &&
    unescapeUrl(userinfo.slice(colon + 1), "userinfo") !== undefined
  );
}

/** url `parseHost` (Go 1.26.1). */
function isValidHost(scheme: string, host: string): boolean {
  const open = host.lastIndexOf("[");
  if (open > 0) return false; // invalid IP-literal
  if (open === 0) {
    const close = host.lastIndexOf("]");
    if (close < 0) return false;
    if (!isValidOptionalPort(host.slice(close + 1))) return false;
    const hostname = host.slice(1, close);
    const zoneAt = hostname.indexOf("%25");
    let unescaped: string | undefined;
    if (zoneAt >= 0) {
      const address = unescapeUrl(hostname.slice(0, zoneAt), "host");
      const zone = unescapeUrl(hostname.slice(zoneAt), "zone");
      unescaped = address === undefined || zone === undefined ? undefined : address + zone;
    } else {
      unescaped = unescapeUrl(hostname, "host");
    }
    if (unescaped === undefined) return false;
    // Only an IPv6 address (IPv4-mapped allowed) may be written in brackets.
    const addr = parseAddr(unescaped);
    return addr !== undefined && !addr.is4;
  }
  const strictColons = scheme === "http" || scheme === "https";
  const colon = strictColons ? host.indexOf(":") : host.lastIndexOf(":");
  if (colon !== -1 && !isValidOptionalPort(host.slice(colon))) return false;
  return unescapeUrl(host, "host") !== undefined;
}

// ---------------------------------------------------------------------------------------------
// email: kube-openapi IsEmail → net/mail.ParseAddress
// ---------------------------------------------------------------------------------------------

/** A parse failure inside the mail address parser; caught by {@link isEmail}. */
class MailSyntaxError extends Error {
  override readonly name = "MailSyntaxError";
}

/**
 * The parser backtracks through exceptions (as Go's does through error returns); one shared
 * instance keeps that cheap, since the stack is captured only once.
 */
const MAIL_SYNTAX_ERROR = new MailSyntaxError("mail: invalid address");

function failMail(): never {
  throw MAIL_SYNTAX_ERROR;
}

/** net/mail `isVchar`: printable ASCII or any non-ASCII rune (RFC 6532). */
function isVchar(cp: number): boolean {
  return (cp >= 0x21 && cp <= 0x7e) || cp >= 0x80;
}

function isWSP(cp: number): boolean {
  return cp === 0x20 || cp === 0x09;
}

/** net/mail `isAtext`: VCHAR except the RFC 5322 specials; `.` only when `dot`. */
function isAtext(cp: number, dot: boolean): boolean {
  if (cp === 0x2e) return dot;
  if (cp < 0x80 && '()<>[]:;@\\,"'.includes(String.fromCharCode(cp))) return false;
  return isVchar(cp);
}

function isQtext(cp: number): boolean {
  return cp !== 0x5c && cp !== 0x22 && isVchar(cp);
}

function isDtext(cp: number): boolean {
  return cp !== 0x5b && cp !== 0x5d && cp !== 0x5c && isVchar(cp);
}

/** Code point at `i` and its length in UTF-16 units (a lone surrogate is one rune). */
function codePointAt(s: string, i: number): [cp: number, size: number] {
  const cp = s.codePointAt(i) ?? 0;
  return [cp, cp > 0xffff ? 2 : 1];
}

/**
 * mime `WordDecoder.Decode` for the one outcome that matters to address validity: a
 * well-formed RFC 2047 encoded-word whose text decodes but whose charset is not utf-8,
 * iso-8859-1 or us-ascii. net/mail's default decoder has no CharsetReader, so that is an
 * error (which fails a display-name comment, and ends a phrase).
 */
function hasUnsupportedCharset(word: string): boolean {
  if (utf8Length(word) < 8 || !word.startsWith("=?") || !word.endsWith("?=")) return false;
  let questionMarks = 0;
  for (const ch of word) if (ch === "?") questionMarks++;
  if (questionMarks !== 4) return false;
  const inner = word.slice(2, -2);
  const q1 = inner.indexOf("?");
  const charset = inner.slice(0, q1);
  if (charset === "") return false;
  const afterCharset = inner.slice(q1 + 1);
  const q2 = afterCharset.indexOf("?");
  const encoding = afterCharset.slice(0, q2);
  const text = afterCharset.slice(q2 + 1);
  if (encoding.length !== 1) return false;
  let decodes: boolean;
  if (encoding === "B" || encoding === "b") decodes = isStdBase64Decodable(text);
  else if (encoding === "Q" || encoding === "q") decodes = isQDecodable(text);
  else return false;
  if (!decodes) return false;
  const name = foldCharsetName(charset);
  return name !== "utf-8" && name !== "iso-8859-1" && name !== "us-ascii";
}

/**
 * Lower-cases a charset name the way `strings.EqualFold` compares it with the known names:
 * ASCII letters fold, and U+017F (long s) folds to `s`. Other non-ASCII stays and never matches.
 */
function foldCharsetName(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (c >= 0x41 && c <= 0x5a) out += String.fromCharCode(c + 0x20);
    else if (c === 0x17f) out += "s";
    else out += ch;
  }
  return out;
}

/** `base64.StdEncoding.DecodeString` succeeds: padding required, `\r` `\n` ignored. */
function isStdBase64Decodable(text: string): boolean {
  const s = text.replace(/[\r\n]/g, "");
  if (s.length % 4 !== 0) return false;
  return s === "" || isPaddedBase64Body(s);
}

/** mime `qDecode` succeeds: `=XX` escapes, `_`, printable ASCII, tab, CR, LF. */
function isQDecodable(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3d) {
      if (i + 2 >= text.length) return false;
      if (hexValue(text.charCodeAt(i + 1)) < 0 || hexValue(text.charCodeAt(i + 2)) < 0) return false;
      i += 2;
    } else if (!((c >= 0x20 && c <= 0x7e) || c === 0x0a || c === 0x0d || c === 0x09)) {
      return false;
    }
  }
  return true;
}

/** net/mail `addrParser`, reduced to deciding whether `ParseAddress` succeeds. */
class AddressParser {
  private s: string;

  constructor(s: string) {
    this.s = s;
  }

  /** `parseSingleAddress`. */
  parseSingleAddress(): void {
    const count = this.parseAddress(true);
    if (!this.skipCFWS()) failMail();
    if (this.s !== "") failMail();
    if (count !== 1) failMail(); // empty group, or group with several addresses
  }

  /** `parseAddress`: the number of addresses parsed (a group may hold several). */
  private parseAddress(handleGroup: boolean): number {
    this.skipSpace();
    if (this.s === "") failMail();

    // addr-spec is tried first; on failure the input is left as it was.
    if (this.tryAddrSpec()) {
      this.skipSpace();
      if (this.s.startsWith("(")) this.consumeDisplayNameComment();
      return 1;
    }

    if (!this.s.startsWith("<")) this.consumePhrase();
    this.skipSpace();
    if (handleGroup && this.consume(":")) return this.consumeGroupList();
    if (!this.consume("<")) failMail();
    this.consumeAddrSpec();
    if (!this.consume(">")) failMail();
    return 1;
  }

  private consumeGroupList(): number {
    let count = 0;
    this.skipSpace();
    if (this.consume(";")) {
      if (!this.skipCFWS()) failMail();
      return 0;
    }
    for (;;) {
      this.skipSpace();
      count += this.parseAddress(false);
      if (!this.skipCFWS()) failMail();
      if (this.consume(";")) {
        if (!this.skipCFWS()) failMail();
        return count;
      }
      if (!this.consume(",")) failMail();
    }
  }

  private tryAddrSpec(): boolean {
    const saved = this.s;
    try {
      this.consumeAddrSpec();
      return true;
    } catch (e) {
      if (!(e instanceof MailSyntaxError)) throw e;
      this.s = saved;
      return false;
    }
  }

  /** `consumeAddrSpec`: local-part `@` domain. */
  private consumeAddrSpec(): void {
    const saved = this.s;
    try {
      this.skipSpace();
      if (this.s === "") failMail();
      if (this.s.startsWith('"')) {
        if (this.consumeQuotedString() === "") failMail(); // empty quoted string in addr-spec
      } else {
        this.consumeAtom(true, false);
      }
      if (!this.consume("@")) failMail();
      this.skipSpace();
      if (this.s === "") failMail();
      if (this.s.startsWith("[")) this.consumeDomainLiteral();
      else this.consumeAtom(true, false);
    } catch (e) {
      this.s = saved;
      throw e;
    }
  }

  /** `consumePhrase`: one or more words; stops at the first word that does not parse. */
  private consumePhrase(): void {
    let words = 0;
    for (;;) {
      if (words > 0 && !this.skipCFWS()) failMail();
      this.skipSpace();
      if (this.s === "") break;
      if (this.s.startsWith('"')) {
        const saved = this.s;
        try {
          this.consumeQuotedString();
        } catch (e) {
          if (!(e instanceof MailSyntaxError)) throw e;
          this.s = saved;
          break;
        }
      } else {
        const atom = this.tryConsumeAtom(true, true);
        if (atom === undefined) break;
        // The atom stays consumed even when its encoded-word charset is refused.
        if (hasUnsupportedCharset(atom)) break;
      }
      words++;
    }
    if (words === 0) failMail();
  }

  /** `consumeQuotedString` (the input starts with `"`): the unquoted content. */
  private consumeQuotedString(): string {
    let i = 1;
    let content = "";
    let escaped = false;
    for (;;) {
      if (i >= this.s.length) failMail(); // unclosed quoted-string
      const [cp, size] = codePointAt(this.s, i);
      if (escaped) {
        if (!isVchar(cp) && !isWSP(cp)) failMail();
        content += this.s.slice(i, i + size);
        escaped = false;
      } else if (isQtext(cp) || isWSP(cp)) {
        content += this.s.slice(i, i + size);
      } else if (cp === 0x22) {
        break;
      } else if (cp === 0x5c) {
        escaped = true;
      } else {
        failMail();
      }
      i += size;
    }
    this.s = this.s.slice(i + 1);
    return content;
  }

  private tryConsumeAtom(dot: boolean, permissive: boolean): string | undefined {
    try {
      return this.consumeAtom(dot, permissive);
    } catch (e) {
      if (!(e instanceof MailSyntaxError)) throw e;
      return undefined;
    }
  }

  /** `consumeAtom`: a (dot-)atom; unless permissive, no leading, trailing or double dot. */
  private consumeAtom(dot: boolean, permissive: boolean): string {
    let i = 0;
    while (i < this.s.length) {
      const [cp, size] = codePointAt(this.s, i);
      if (!isAtext(cp, dot)) break;
      i += size;
    }
    if (i === 0) failMail();
    const atom = this.s.slice(0, i);
    this.s = this.s.slice(i);
    if (!permissive && (atom.startsWith(".") || atom.includes("..") || atom.endsWith("."))) failMail();
    return atom;
  }

  /**
   * `consumeDomainLiteral`: `[dtext]`, which must be an IPv4 address (or IPv4-mapped IPv6),
   * or `IPv6:` followed by anything `net.ParseIP` accepts (even an IPv4 address).
   */
  private consumeDomainLiteral(): void {
    if (!this.consume("[")) failMail();
    let dtext = "";
    for (;;) {
      if (this.s === "") failMail();
      if (this.s.startsWith("]")) break;
      const [cp, size] = codePointAt(this.s, 0);
      if (!isDtext(cp)) failMail();
      dtext += this.s.slice(0, size);
      this.s = this.s.slice(size);
    }
    if (!this.consume("]")) failMail();
    if (dtext.startsWith("IPv6:")) {
      if (parseIP(dtext.slice(5)) === undefined) failMail();
    } else {
      const ip = parseIP(dtext);
      if (ip === undefined || !isV4Mapped(ip)) failMail();
    }
  }

  /** `consumeDisplayNameComment`: a comment after an addr-spec, read as a display name. */
  private consumeDisplayNameComment(): void {
    if (!this.consume("(")) failMail();
    const comment = this.consumeComment();
    if (comment === undefined) failMail();
    for (const word of comment.split(/[ \t]+/)) {
      if (word !== "" && hasUnsupportedCharset(word)) failMail();
    }
  }

  private consume(c: string): boolean {
    if (!this.s.startsWith(c)) return false;
    this.s = this.s.slice(1);
    return true;
  }

  /** `skipSpace`: spaces and tabs only. */
  private skipSpace(): void {
    let i = 0;
    while (i < this.s.length && isWSP(this.s.charCodeAt(i))) i++;
    if (i > 0) this.s = this.s.slice(i);
  }

  /** `skipCFWS`: spaces, tabs and balanced comments; false for an unbalanced comment. */
  private skipCFWS(): boolean {
    this.skipSpace();
    while (this.consume("(")) {
      if (this.consumeComment() === undefined) return false;
      this.skipSpace();
    }
    return true;
  }

  /** `consumeComment` (after `(`): the comment text, or undefined when unbalanced. */
  private consumeComment(): string | undefined {
    let depth = 1;
    let i = 0;
    let comment = "";
    while (i < this.s.length && depth > 0) {
      if (this.s.charCodeAt(i) === 0x5c && this.s.length - i > 1) {
        i++;
      } else if (this.s.charCodeAt(i) === 0x28) {
        depth++;
      } else if (this.s.charCodeAt(i) === 0x29) {
        depth--;
      }
      if (depth > 0) comment += this.s[i];
      i++;
    }
    this.s = this.s.slice(i);
    return depth === 0 ? comment : undefined;
  }
}

/**
 * kube-openapi `IsEmail`: `mail.ParseAddress(s)` succeeds with a non-empty address. So display
 * names (`Jane <j@example.com>`), trailing comments, quoted local parts, domain literals and
 * one-address groups (`team: j@example.com;`) are all accepted; dotless domains too.
 */
function isEmail(s: string): boolean {
  try {
    new AddressParser(s).parseSingleAddress();
    return true;
  } catch (e) {
    if (e instanceof MailSyntaxError) return false;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// hostname
// ---------------------------------------------------------------------------------------------

/**
 * kube-openapi `HostnamePattern`. Either one label (a letter, digit, symbol or Unicode letter,
 * then at most one dash directly after the first character: `x-y` passes, `my-host` does not),
 * or dot-terminated labels followed by a top-level domain of 2 to 63 letters (no digits, so
 * `1.1.1.1` is not a hostname). RE2 semantics through re2js.
 */
const HOSTNAME_PATTERN = (() => {
  const ch = "[a-zA-Z0-9\\p{S}\\p{L}]";
  const chOrDash = "[a-zA-Z0-9\\p{S}\\p{L}-]";
  const singleLabel = `${ch}(?:-?${ch}{0,62})?`;
  const labels = `(?:${ch}(?:${chOrDash}{0,61}${ch})?\\.)+[a-zA-Z\\p{L}]{2,63}`;
  return RE2JS.compile(`^(?:${singleLabel}|${labels})$`);
})();

/**
 * kube-openapi `IsHostname`: the pattern, at most 255 bytes, and no dot-separated part longer
 * than 63 bytes (UTF-8).
 */
function isHostname(s: string): boolean {
  if (utf8Length(s) > 255) return false;
  if (!HOSTNAME_PATTERN.testExact(s)) return false;
  return s.split(".").every((part) => utf8Length(part) <= 63);
}

// ---------------------------------------------------------------------------------------------
// Kubernetes names
// ---------------------------------------------------------------------------------------------

/** `[a-z0-9]([-a-z0-9]*[a-z0-9])?` over `s[from:to]`, without a length limit. */
function isLowerDnsLabel(s: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    const alnum = (c >= 0x61 && c <= 0x7a) || isDigitCode(c);
    if (alnum) continue;
    if (c === 0x2d && i !== from && i !== to - 1) continue;
    return false;
  }
  return true;
}

/** kube-openapi `IsShortName` (k8s-short-name): an RFC 1123 label, lower case, ≤ 63 chars. */
function isShortName(s: string): boolean {
  return s.length <= 63 && isLowerDnsLabel(s, 0, s.length);
}

/**
 * kube-openapi `IsLongName` (k8s-long-name): an RFC 1123 subdomain, lower case, ≤ 253
 * chars, with no 63-character limit on its labels.
 */
function isLongName(s: string): boolean {
  if (s.length > 253) return false;
  let from = 0;
  for (;;) {
    const dot = s.indexOf(".", from);
    const to = dot === -1 ? s.length : dot;
    if (!isLowerDnsLabel(s, from, to)) return false;
    if (dot === -1) return true;
    from = dot + 1;
  }
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
  const [cp, size] = codePointAt(time, 8);
  if (cp === 0x0a) return false;
  let i = 8 + size;
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

const NANOS_PER_UNIT: ReadonlyMap<string, bigint> = new Map([
  ["ns", 1n],
  ["us", 1_000n],
  ["\u00b5s", 1_000n], // micro sign
  ["\u03bcs", 1_000n], // Greek small letter mu
  ["ms", 1_000_000n],
  ["s", 1_000_000_000n],
  ["m", 60_000_000_000n],
  ["h", 3_600_000_000_000n],
]);

const TWO_POW_63 = 1n << 63n;

/**
 * `time.ParseDuration` succeeds: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with units ns, us, µs, μs,
 * ms, s, m, h (a unit is everything up to the next digit or `.`), `0` alone, and no overflow
 * beyond ±2^63 ns.
 */
function isGoDuration(input: string): boolean {
  let s = input;
  let negative = false;
  if (s.startsWith("-") || s.startsWith("+")) {
    negative = s.startsWith("-");
    s = s.slice(1);
  }
  if (s === "0") return true;
  if (s === "") return false;
  let total = 0n;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (!(c === 0x2e || isDigitCode(c))) return false;
    // leadingInt: fails beyond 2^63.
    let v = 0n;
    const intFrom = i;
    while (i < s.length && isDigitCode(s.charCodeAt(i))) {
      if (v > TWO_POW_63 / 10n) return false;
      v = v * 10n + BigInt(s.charCodeAt(i) - 0x30);
      if (v > TWO_POW_63) return false;
      i++;
    }
    const hasInt = i > intFrom;
    // leadingFraction: stops accumulating precision on overflow.
    let f = 0n;
    let scale = 1;
    let hasFraction = false;
    if (i < s.length && s.charCodeAt(i) === 0x2e) {
      i++;
      const fracFrom = i;
      let overflow = false;
      while (i < s.length && isDigitCode(s.charCodeAt(i))) {
        if (!overflow) {
          if (f > (TWO_POW_63 - 1n) / 10n) overflow = true;
          else {
            const y = f * 10n + BigInt(s.charCodeAt(i) - 0x30);
            if (y > TWO_POW_63) overflow = true;
            else {
              f = y;
              scale *= 10;
            }
          }
        }
        i++;
      }
      hasFraction = i > fracFrom;
    }
    if (!hasInt && !hasFraction) return false;
    const unitFrom = i;
    while (i < s.length && !(s.charCodeAt(i) === 0x2e || isDigitCode(s.charCodeAt(i)))) i++;
    const unit = NANOS_PER_UNIT.get(s.slice(unitFrom, i));
    if (unit === undefined) return false;
    if (v > TWO_POW_63 / unit) return false;
    v *= unit;
    if (f > 0n) {
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > TWO_POW_63) return false;
    }
    total += v;
    if (total > TWO_POW_63) return false;
  }
  return negative || total <= TWO_POW_63 - 1n;
}

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

const MAX_INT64 = TWO_POW_63 - 1n;

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
  return isGoDuration(s) || isScalaDuration(s);
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

function isBase64AlphabetCode(c: number): boolean {
  return isAlphaCode(c) || isDigitCode(c) || c === 0x2b || c === 0x2f;
}

/**
 * govalidator `Base64` pattern over a string whose length is a positive multiple of 4:
 * alphabet characters, with `=` or `==` padding allowed only at the very end.
 */
function isPaddedBase64Body(s: string): boolean {
  const n = s.length;
  for (let i = 0; i < n - 2; i++) if (!isBase64AlphabetCode(s.charCodeAt(i))) return false;
  const a = s.charCodeAt(n - 2);
  const b = s.charCodeAt(n - 1);
  if (isBase64AlphabetCode(a)) return isBase64AlphabetCode(b) || b === 0x3d;
  return a === 0x3d && b === 0x3d;
}

/**
 * govalidator `IsBase64` (format `byte`):
 * `^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$`.
 * Standard alphabet, padding required, no whitespace; the empty string fails.
 */
function isBase64(s: string): boolean {
  return s.length > 0 && s.length % 4 === 0 && isPaddedBase64Body(s);
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
