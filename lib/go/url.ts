/**
 * Go's `net/url` (Go 1.26 behaviour) as Kubernetes relies on it: `url.Parse` and `url.ParseRequestURI` with their
 * error texts, `URL.String`, `URL.EscapedPath`, `URL.Hostname`/`Port` and `URL.Query`. It works on UTF-8 bytes like
 * Go does (binary strings, see bytes.ts); the exported functions take and return JavaScript strings.
 *
 * Go version details reproduced here (Go 1.26 with its default GODEBUG settings):
 *
 * - only an IPv6 address may appear in brackets (`[1.2.3.4]` is `invalid IP-literal`, an
 *   unparsable one `invalid host: ParseAddr(...): ...`), and a `[` anywhere but at the start of the
 *   host is `invalid IP-literal` (CVE-2025-47912, CVE-2026-25679);
 * - an `http`/`https` host with several colons is checked from its first colon
 *   (`urlstrictcolons=1`, `http://a:1:2/` fails with `invalid port ":1:2" after host`), other schemes
 *   from the last one;
 * - a query with more than 10,000 `&`-separated parameters yields an empty `Query()` map
 *   (`urlmaxqueryparams`).
 *
 * Strings returned are the UTF-8 decoding of Go's bytes; a percent-escape that decodes to invalid UTF-8 (`%FF` in
 * the host) comes back with U+FFFD in its place.
 */

import { fromGoBytes, toGoBytes } from "./bytes.js";
import * as netip from "./netip.js";
import { goQuoteBytes } from "./strconv.js";

type Mode = "path" | "pathSegment" | "host" | "zone" | "userPassword" | "queryComponent" | "fragment";

const UPPER_HEX = "0123456789ABCDEF";
const MAX_QUERY_PARAMS = 10_000;

function isAlnum(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
}

/** `shouldEscape`. */
function shouldEscape(c: number, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  const ch = String.fromCharCode(c);
  if ((mode === "host" || mode === "zone") && "!$&'()*+,;=:[]<>\"".includes(ch)) return false;
  switch (ch) {
    case "-":
    case "_":
    case ".":
    case "~":
      return false;
    case "$":
    case "&":
    case "+":
    case ",":
    case "/":
    case ":":
    case ";":
    case "=":
    case "?":
    case "@":
      switch (mode) {
        case "path":
          return ch === "?";
        case "pathSegment":
          return ch === "/" || ch === ";" || ch === "," || ch === "?";
        case "userPassword":
          return ch === "@" || ch === "/" || ch === "?" || ch === ":";
        case "queryComponent":
          return true;
        case "fragment":
          return false;
      }
  }
  if (mode === "fragment" && "!()*".includes(ch)) return false;
  return true;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

function unhex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return 0;
}

/** A parse result: the value, or Go's error text (a JavaScript string: the input appears in it through strconv.Quote). */
export type Result<T> = { ok: true; value: T } | { ok: false; error: string };

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}

/** `unescape`: percent-decoding of a binary string, with Go's errors. */
function goUnescape(s: string, mode: Mode): Result<string> {
  let n = 0;
  let hasPlus = false;
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      n++;
      if (i + 2 >= s.length || !isHex(s.charCodeAt(i + 1)) || !isHex(s.charCodeAt(i + 2))) {
        return fail(`invalid URL escape ${goQuoteBytes(s.slice(i, i + 3))}`);
      }
      if (mode === "host" && unhex(s.charCodeAt(i + 1)) < 8 && s.slice(i, i + 3) !== "%25") {
        return fail(`invalid URL escape ${goQuoteBytes(s.slice(i, i + 3))}`);
      }
      if (mode === "zone") {
        const v = (unhex(s.charCodeAt(i + 1)) << 4) | unhex(s.charCodeAt(i + 2));
        if (s.slice(i, i + 3) !== "%25" && v !== 0x20 && shouldEscape(v, "host")) {
          return fail(`invalid URL escape ${goQuoteBytes(s.slice(i, i + 3))}`);
        }
      }
      i += 3;
    } else if (c === 0x2b) {
      hasPlus = mode === "queryComponent";
      i++;
    } else {
      if ((mode === "host" || mode === "zone") && c < 0x80 && shouldEscape(c, mode)) {
        return fail(`invalid character ${goQuoteBytes(s[i]!)} in host name`);
      }
      i++;
    }
  }
  if (n === 0 && !hasPlus) return { ok: true, value: s };
  let t = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      t += String.fromCharCode((unhex(s.charCodeAt(i + 1)) << 4) | unhex(s.charCodeAt(i + 2)));
      i += 2;
    } else if (c === 0x2b) {
      t += mode === "queryComponent" ? " " : "+";
    } else {
      t += s[i];
    }
  }
  return { ok: true, value: t };
}

/** `escape`. */
function goEscape(s: string, mode: Mode): string {
  let t = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x20 && mode === "queryComponent") t += "+";
    else if (shouldEscape(c, mode)) t += `%${UPPER_HEX[c >> 4]}${UPPER_HEX[c & 15]}`;
    else t += s[i];
  }
  return t;
}

/** Go's `url.URL` fields, as binary strings (read them through the functions below). */
export interface GoURL {
  scheme: string;
  opaque: string;
  user: { username: string; password: string; passwordSet: boolean } | undefined;
  host: string;
  path: string;
  rawPath: string;
  omitHost: boolean;
  forceQuery: boolean;
  rawQuery: string;
  fragment: string;
  rawFragment: string;
}

function emptyURL(): GoURL {
  return {
    scheme: "",
    opaque: "",
    user: undefined,
    host: "",
    path: "",
    rawPath: "",
    omitHost: false,
    forceQuery: false,
    rawQuery: "",
    fragment: "",
    rawFragment: "",
  };
}

/** `getScheme`. */
function getScheme(raw: string): Result<{ scheme: string; rest: string }> {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) continue;
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) {
      if (i === 0) return { ok: true, value: { scheme: "", rest: raw } };
      continue;
    }
    if (c === 0x3a) {
      if (i === 0) return fail("missing protocol scheme");
      return { ok: true, value: { scheme: raw.slice(0, i), rest: raw.slice(i + 1) } };
    }
    return { ok: true, value: { scheme: "", rest: raw } };
  }
  return { ok: true, value: { scheme: "", rest: raw } };
}

/** `validOptionalPort`: empty, or `:` followed by ASCII digits only. */
function validOptionalPort(port: string): boolean {
  if (port === "") return true;
  if (port[0] !== ":") return false;
  for (let i = 1; i < port.length; i++) {
    const c = port.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

function invalidPort(colonPort: string): { ok: false; error: string } {
  return fail(`invalid port ${goQuoteBytes(colonPort)} after host`);
}

/** `parseHost` (Go 1.26: bracketed hosts must be IPv6, strict colons for http and https). */
function parseHost(scheme: string, host: string): Result<string> {
  const open = host.lastIndexOf("[");
  if (open > 0) return fail("invalid IP-literal");
  if (open === 0) {
    const close = host.lastIndexOf("]");
    if (close < 0) return fail("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) return invalidPort(colonPort);
    const hostname = host.slice(1, close);
    const zone = hostname.indexOf("%25");
    const hostPart = zone >= 0 ? hostname.slice(0, zone) : hostname;
    const h = goUnescape(hostPart, "host");
    if (!h.ok) return h;
    let unescaped = h.value;
    if (zone >= 0) {
      const z = goUnescape(hostname.slice(zone), "zone");
      if (!z.ok) return z;
      unescaped += z.value;
    }
    const addr = netip.parseAddr(unescaped, goQuoteBytes);
    if (!addr.ok) return fail(`invalid host: ${addr.error}`);
    if (netip.is4(addr.value)) return fail("invalid IP-literal");
    return { ok: true, value: `[${unescaped}]${colonPort}` };
  }
  let i = host.indexOf(":");
  if (i >= 0) {
    const last = host.lastIndexOf(":");
    if (last !== i && scheme !== "http" && scheme !== "https") i = last;
    const colonPort = host.slice(i);
    if (!validOptionalPort(colonPort)) return invalidPort(colonPort);
  }
  return goUnescape(host, "host");
}

/** `validUserinfo` (RFC 3986 §3.2.1 characters, `%` and `@`). */
function validUserinfo(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isAlnum(c)) continue;
    if (!"-._:~!$&'()*+,;=%@".includes(s[i]!)) return false;
  }
  return true;
}

/** `parseAuthority`. */
function parseAuthority(u: GoURL, authority: string): string | undefined {
  const at = authority.lastIndexOf("@");
  const host = parseHost(u.scheme, at < 0 ? authority : authority.slice(at + 1));
  if (!host.ok) return host.error;
  u.host = host.value;
  if (at < 0) return undefined;
  const userinfo = authority.slice(0, at);
  if (!validUserinfo(userinfo)) return "net/url: invalid userinfo";
  const colon = userinfo.indexOf(":");
  if (colon < 0) {
    const name = goUnescape(userinfo, "userPassword");
    if (!name.ok) return name.error;
    u.user = { username: name.value, password: "", passwordSet: false };
  } else {
    const name = goUnescape(userinfo.slice(0, colon), "userPassword");
    if (!name.ok) return name.error;
    const pass = goUnescape(userinfo.slice(colon + 1), "userPassword");
    if (!pass.ok) return pass.error;
    u.user = { username: name.value, password: pass.value, passwordSet: true };
  }
  return undefined;
}

/** `parse(rawURL, viaRequest)`: the URL, or the error without its `parse "..."` wrapper. */
function parseURL(raw: string, viaRequest: boolean): Result<GoURL> {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return fail("net/url: invalid control character in URL");
  }
  if (raw === "" && viaRequest) return fail("empty url");
  const u = emptyURL();
  if (raw === "*") {
    u.path = "*";
    return { ok: true, value: u };
  }
  const sch = getScheme(raw);
  if (!sch.ok) return sch;
  u.scheme = sch.value.scheme.toLowerCase();
  let rest = sch.value.rest;
  if (rest.endsWith("?") && rest.indexOf("?") === rest.length - 1) {
    u.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf("?");
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith("/")) {
    if (u.scheme !== "") {
      u.opaque = rest;
      return { ok: true, value: u };
    }
    if (viaRequest) return fail("invalid URI for request");
    const slash = rest.indexOf("/");
    const segment = slash < 0 ? rest : rest.slice(0, slash);
    if (segment.includes(":")) return fail("first path segment in URL cannot contain colon");
  }
  if ((u.scheme !== "" || (!viaRequest && !rest.startsWith("///"))) && rest.startsWith("//")) {
    let authority = rest.slice(2);
    rest = "";
    const slash = authority.indexOf("/");
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const err = parseAuthority(u, authority);
    if (err !== undefined) return fail(err);
  } else if (u.scheme !== "" && rest.startsWith("/")) {
    u.omitHost = true;
  }
  const path = goUnescape(rest, "path");
  if (!path.ok) return path;
  u.path = path.value;
  u.rawPath = goEscape(path.value, "path") === rest ? "" : rest;
  return { ok: true, value: u };
}

function wrap(raw: string, error: string): string {
  return `parse ${goQuoteBytes(raw)}: ${error}`;
}

/** `url.ParseRequestURI` of a binary string: the URL or the full `url.Error` text (a binary string). */
function parseRequestURIBytes(raw: string): Result<GoURL> {
  const r = parseURL(raw, true);
  return r.ok ? r : fail(wrap(raw, r.error));
}

/** `url.Parse` of a binary string: the URL or the full `url.Error` text (a binary string). */
function parseBytes(raw: string): Result<GoURL> {
  const hash = raw.indexOf("#");
  const u = hash < 0 ? raw : raw.slice(0, hash);
  const r = parseURL(u, false);
  if (!r.ok) return fail(wrap(u, r.error));
  if (hash < 0) return r;
  const frag = raw.slice(hash + 1);
  if (frag === "") return r;
  const f = goUnescape(frag, "fragment");
  if (!f.ok) return fail(wrap(raw, f.error));
  r.value.fragment = f.value;
  r.value.rawFragment = goEscape(f.value, "fragment") === frag ? "" : frag;
  return r;
}

/** `validEncoded`: no byte that would need escaping, sub-delims, `:@[]%` allowed. */
function validEncoded(s: string, mode: Mode): boolean {
  for (let i = 0; i < s.length; i++) {
    if ("!$&'()*+,;=:@[]%".includes(s[i]!)) continue;
    if (shouldEscape(s.charCodeAt(i), mode)) return false;
  }
  return true;
}

/** `URL.EscapedPath` (a binary string). */
function escapedPathBytes(u: GoURL): string {
  if (u.rawPath !== "" && validEncoded(u.rawPath, "path")) {
    const p = goUnescape(u.rawPath, "path");
    if (p.ok && p.value === u.path) return u.rawPath;
  }
  if (u.path === "*") return "*";
  return goEscape(u.path, "path");
}

/** `URL.EscapedFragment`. */
function escapedFragment(u: GoURL): string {
  if (u.rawFragment !== "" && validEncoded(u.rawFragment, "fragment")) {
    const f = goUnescape(u.rawFragment, "fragment");
    if (f.ok && f.value === u.fragment) return u.rawFragment;
  }
  return goEscape(u.fragment, "fragment");
}

/** `URL.String` (a binary string). */
function stringBytes(u: GoURL): string {
  let buf = "";
  if (u.scheme !== "") buf += `${u.scheme}:`;
  if (u.opaque !== "") {
    buf += u.opaque;
  } else {
    if (u.scheme !== "" || u.host !== "" || u.user !== undefined) {
      if (!(u.omitHost && u.host === "" && u.user === undefined)) {
        if (u.host !== "" || u.path !== "" || u.user !== undefined) buf += "//";
        if (u.user !== undefined) {
          buf += goEscape(u.user.username, "userPassword");
          if (u.user.passwordSet) buf += `:${goEscape(u.user.password, "userPassword")}`;
          buf += "@";
        }
        if (u.host !== "") buf += goEscape(u.host, "host");
      }
    }
    const path = escapedPathBytes(u);
    if (path !== "" && path[0] !== "/" && u.host !== "") buf += "/";
    if (buf === "") {
      const slash = path.indexOf("/");
      const segment = slash < 0 ? path : path.slice(0, slash);
      if (segment.includes(":")) buf += "./";
    }
    buf += path;
  }
  if (u.forceQuery || u.rawQuery !== "") buf += `?${u.rawQuery}`;
  if (u.fragment !== "") buf += `#${escapedFragment(u)}`;
  return buf;
}

/** `splitHostPort` of net/url: a valid numeric port is split off, brackets are removed. */
function splitHostPort(hostPort: string): { host: string; port: string } {
  let host = hostPort;
  let port = "";
  const colon = host.lastIndexOf(":");
  if (colon !== -1 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  return { host, port };
}

/** `url.ParseQuery` as `URL.Query` uses it: malformed pairs are dropped silently. */
function parseQuery(query: string): Map<string, string[]> {
  const m = new Map<string, string[]>();
  let count = 1;
  for (let i = 0; i < query.length; i++) if (query.charCodeAt(i) === 0x26) count++;
  if (count > MAX_QUERY_PARAMS) return m;
  let rest = query;
  while (rest !== "") {
    const amp = rest.indexOf("&");
    let pair: string;
    if (amp < 0) {
      pair = rest;
      rest = "";
    } else {
      pair = rest.slice(0, amp);
      rest = rest.slice(amp + 1);
    }
    if (pair.includes(";")) continue;
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const k = goUnescape(eq < 0 ? pair : pair.slice(0, eq), "queryComponent");
    if (!k.ok) continue;
    const v = goUnescape(eq < 0 ? "" : pair.slice(eq + 1), "queryComponent");
    if (!v.ok) continue;
    const key = fromGoBytes(k.value);
    const list = m.get(key);
    if (list === undefined) m.set(key, [fromGoBytes(v.value)]);
    else list.push(fromGoBytes(v.value));
  }
  return m;
}

/** `url.ParseRequestURI(s)`: an absolute URI or an absolute path (no relative reference, no fragment split off). */
export function parseRequestURI(s: string): Result<GoURL> {
  return parseRequestURIBytes(toGoBytes(s));
}

/** `url.Parse(s)`. */
export function parse(s: string): Result<GoURL> {
  return parseBytes(toGoBytes(s));
}

/** `URL.Scheme` (lower-cased by the parser). */
export function scheme(u: GoURL): string {
  return fromGoBytes(u.scheme);
}

/** `URL.Host`: host and port as written (IPv6 brackets kept, percent-escapes decoded). */
export function host(u: GoURL): string {
  return fromGoBytes(u.host);
}

/** `URL.Hostname()`: the host without port and without IPv6 brackets. */
export function hostname(u: GoURL): string {
  return fromGoBytes(splitHostPort(u.host).host);
}

/** `URL.Port()`: the numeric port, `""` when absent. */
export function port(u: GoURL): string {
  return fromGoBytes(splitHostPort(u.host).port);
}

/** `URL.EscapedPath()`. */
export function escapedPath(u: GoURL): string {
  return fromGoBytes(escapedPathBytes(u));
}

/** `URL.Query()`: `url.ParseQuery` of the raw query, malformed pairs dropped. */
export function query(u: GoURL): Map<string, string[]> {
  return parseQuery(u.rawQuery);
}

/** `URL.String()`. */
export function urlString(u: GoURL): string {
  return fromGoBytes(stringBytes(u));
}
