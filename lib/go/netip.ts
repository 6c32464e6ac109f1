/**
 * The parts of Go's `net/netip` the Kubernetes IP and CIDR libraries rely on: `ParseAddr`,
 * `ParsePrefix` (with their exact error texts), `Addr.String` (RFC 5952 canonical form) and the
 * address classification methods. Hand-written scanners, no regular expressions.
 *
 * `ParseAddr` is strict: IPv4 needs exactly four decimal fields without leading zeros
 * (`010.1.1.1` fails), IPv6 groups have at most four hex digits, an embedded IPv4 may only end an
 * IPv6 address, and a zone (`fe80::1%eth0`) is accepted syntactically (the Kubernetes functions
 * then reject it).
 */

import { goQuote } from "./strconv.js";

/** An IP address as `netip.Addr` holds it: 4 or 16 bytes, and an IPv6 zone (empty when none). */
export interface NetipAddr {
  /** 4 bytes for IPv4, 16 bytes for IPv6 (including IPv4-mapped IPv6). */
  readonly bytes: Uint8Array;
  readonly zone: string;
}

/** A prefix as `netip.Prefix` holds it: the address as written (host bits kept) and the length. */
export interface NetipPrefix {
  readonly addr: NetipAddr;
  readonly bits: number;
}

/** Result of a parse: the value, or Go's error text. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** How error texts quote the input: `goQuote` for JavaScript strings, `goQuoteBytes` for byte strings. */
type Quote = (s: string) => string;

function addrError(q: Quote, input: string, msg: string, at = ""): ParseResult<never> {
  const text = at === "" ? `ParseAddr(${q(input)}): ${msg}` : `ParseAddr(${q(input)}): ${msg} (at ${q(at)})`;
  return { ok: false, error: text };
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** `parseIPv4Fields(in, off, end, fields)`: errors name the whole input `in`. */
function parseIPv4Fields(
  q: Quote,
  input: string,
  off: number,
  end: number,
  out: Uint8Array,
  at: number,
): string | undefined {
  const s = input.slice(off, end);
  let val = 0;
  let pos = 0;
  let digLen = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isDigit(c)) {
      if (digLen === 1 && val === 0) return errorText(q, input, "IPv4 field has octet with leading zero");
      val = val * 10 + (c - 0x30);
      digLen++;
      if (val > 255) return errorText(q, input, "IPv4 field has value >255");
    } else if (c === 0x2e) {
      if (i === 0 || i === s.length - 1 || s.charCodeAt(i - 1) === 0x2e) {
        return errorText(q, input, "IPv4 field must have at least one digit", s.slice(i));
      }
      if (pos === 3) return errorText(q, input, "IPv4 address too long");
      out[at + pos] = val;
      pos++;
      val = 0;
      digLen = 0;
    } else {
      return errorText(q, input, "unexpected character", s.slice(i));
    }
  }
  if (pos < 3) return errorText(q, input, "IPv4 address too short");
  out[at + 3] = val;
  return undefined;
}

function errorText(q: Quote, input: string, msg: string, at = ""): string {
  const r = addrError(q, input, msg, at);
  return r.ok ? "" : r.error;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

function parseIPv6(q: Quote, input: string): ParseResult<NetipAddr> {
  let s = input;
  let zone = "";
  const pct = s.indexOf("%");
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === "") return addrError(q, input, "zone must be a non-empty string");
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ":" && s[1] === ":") {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return { ok: true, value: { bytes: ip, zone } };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const h = hexValue(s.charCodeAt(off));
      if (h < 0) break;
      acc = acc * 16 + h;
      if (off > 3) return addrError(q, input, "each group must have 4 or less digits", s);
      if (acc > 0xffff) return addrError(q, input, "IPv6 field has value >=2^16", s);
    }
    if (off === 0) return addrError(q, input, "each colon-separated field must have at least one digit", s);
    if (off < s.length && s[off] === ".") {
      if (ellipsis < 0 && i !== 12) {
        return addrError(q, input, "embedded IPv4 address must replace the final 2 fields of the address", s);
      }
      if (i + 4 > 16) {
        return addrError(q, input, "too many hex fields to fit an embedded IPv4 at the end of the address", s);
      }
      let end = input.length;
      if (zone.length > 0) end -= zone.length + 1;
      const err = parseIPv4Fields(q, input, end - s.length, end, ip, i);
      if (err !== undefined) return { ok: false, error: err };
      s = "";
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ":") return addrError(q, input, "unexpected character, want colon", s);
    if (s.length === 1) return addrError(q, input, "colon must be followed by more characters", s);
    s = s.slice(1);
    if (s[0] === ":") {
      if (ellipsis >= 0) return addrError(q, input, "multiple :: in address", s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) return addrError(q, input, "trailing garbage after address", s);
  if (i < 16) {
    if (ellipsis < 0) return addrError(q, input, "address string too short");
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    return addrError(q, input, "the :: must expand to at least one field of zeros", s);
  }
  return { ok: true, value: { bytes: ip, zone } };
}

/**
 * `netip.ParseAddr`. `quote` renders the input in error texts: {@link goQuote} (the default) for a
 * JavaScript string, `goQuoteBytes` when `s` is a Go byte string (see bytes.ts).
 */
export function parseAddr(s: string, quote: Quote = goQuote): ParseResult<NetipAddr> {
  const q = quote;
  for (let i = 0; i < s.length; i++) {
    switch (s[i]) {
      case ".": {
        const out = new Uint8Array(4);
        const err = parseIPv4Fields(q, s, 0, s.length, out, 0);
        return err === undefined ? { ok: true, value: { bytes: out, zone: "" } } : { ok: false, error: err };
      }
      case ":":
        return parseIPv6(q, s);
      case "%":
        return addrError(q, s, "missing IPv6 address");
    }
  }
  return addrError(q, s, "unable to parse IP");
}

function prefixError(input: string, msg: string): ParseResult<never> {
  return { ok: false, error: `netip.ParsePrefix(${goQuote(input)}): ${msg}` };
}

/** `netip.ParsePrefix`: the address keeps its host bits. */
export function parsePrefix(s: string): ParseResult<NetipPrefix> {
  const slash = s.lastIndexOf("/");
  if (slash < 0) return prefixError(s, "no '/'");
  const addr = parseAddr(s.slice(0, slash));
  if (!addr.ok) return prefixError(s, addr.error);
  if (addr.value.bytes.length === 16 && addr.value.zone !== "") {
    return prefixError(s, "IPv6 zones cannot be present in a prefix");
  }
  const bitsStr = s.slice(slash + 1);
  const bad = prefixError(s, `bad bits after slash: ${goQuote(bitsStr)}`);
  if (bitsStr.length > 1 && (bitsStr[0]! < "1" || bitsStr[0]! > "9")) return bad;
  if (bitsStr.length === 0) return bad;
  for (let i = 0; i < bitsStr.length; i++) {
    if (!isDigit(bitsStr.charCodeAt(i))) return bad;
  }
  // strconv.Atoi fails (bad bits) beyond int64; a smaller value above maxBits is out of range.
  if (BigInt(bitsStr) > 9223372036854775807n) return bad;
  const bits = Number(bitsStr);
  const maxBits = addr.value.bytes.length === 4 ? 32 : 128;
  if (bits > maxBits) return prefixError(s, "prefix length out of range");
  return { ok: true, value: { addr: addr.value, bits } };
}

/** `Addr.Is4`. */
export function is4(a: NetipAddr): boolean {
  return a.bytes.length === 4;
}

/** `Addr.Is4In6`: `::ffff:a.b.c.d`. */
export function is4In6(a: NetipAddr): boolean {
  if (a.bytes.length !== 16) return false;
  for (let i = 0; i < 10; i++) if (a.bytes[i] !== 0) return false;
  return a.bytes[10] === 0xff && a.bytes[11] === 0xff;
}

/** `Addr.Unmap`. */
export function unmap(a: NetipAddr): NetipAddr {
  return is4In6(a) ? { bytes: a.bytes.slice(12), zone: "" } : a;
}

function u16(a: NetipAddr, i: number): number {
  return (a.bytes[2 * i]! << 8) | a.bytes[2 * i + 1]!;
}

/** `Addr.String`: dotted IPv4, RFC 5952 IPv6 (longest zero run of ≥2 groups as `::`), `%zone`. */
export function addrToString(a: NetipAddr): string {
  if (a.bytes.length === 4) return a.bytes.join(".");
  if (is4In6(a)) {
    const v4 = Array.from(a.bytes.slice(12)).join(".");
    return `::ffff:${v4}${a.zone === "" ? "" : `%${a.zone}`}`;
  }
  let zeroStart = -1;
  let zeroEnd = -1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && u16(a, j) === 0) j++;
    const l = j - i;
    if (l >= 2 && l > zeroEnd - zeroStart) {
      zeroStart = i;
      zeroEnd = j;
    }
  }
  let out = "";
  for (let i = 0; i < 8; i++) {
    if (i === zeroStart) {
      out += "::";
      i = zeroEnd;
      if (i >= 8) break;
    } else if (i > 0) {
      out += ":";
    }
    out += u16(a, i).toString(16);
  }
  if (a.zone !== "") out += `%${a.zone}`;
  return out;
}

/** `Addr == Addr`: same family, bytes and zone. */
export function addrEqual(a: NetipAddr, b: NetipAddr): boolean {
  if (a.bytes.length !== b.bytes.length || a.zone !== b.zone) return false;
  for (let i = 0; i < a.bytes.length; i++) if (a.bytes[i] !== b.bytes[i]) return false;
  return true;
}

function allZero(bytes: Uint8Array): boolean {
  return bytes.every((b) => b === 0);
}

/** `Addr.IsUnspecified`: `0.0.0.0` or `::`. */
export function isUnspecified(a: NetipAddr): boolean {
  return allZero(a.bytes) && a.zone === "";
}

/** `Addr.IsLoopback`: `127.0.0.0/8` (also when IPv4-mapped) or `::1`. */
export function isLoopback(a: NetipAddr): boolean {
  const u = unmap(a);
  if (u.bytes.length === 4) return u.bytes[0] === 127;
  for (let i = 0; i < 15; i++) if (u.bytes[i] !== 0) return false;
  return u.bytes[15] === 1;
}

/** `Addr.IsMulticast`: `224.0.0.0/4` or `ff00::/8`. */
export function isMulticast(a: NetipAddr): boolean {
  const u = unmap(a);
  if (u.bytes.length === 4) return (u.bytes[0]! & 0xf0) === 0xe0;
  return u.bytes[0] === 0xff;
}

/** `Addr.IsLinkLocalMulticast`: `224.0.0.0/24` or `ff02::/16` (any flags nibble: `ffx2::`). */
export function isLinkLocalMulticast(a: NetipAddr): boolean {
  const u = unmap(a);
  if (u.bytes.length === 4) return u.bytes[0] === 224 && u.bytes[1] === 0 && u.bytes[2] === 0;
  return (u16(u, 0) & 0xff0f) === 0xff02;
}

/** `Addr.IsLinkLocalUnicast`: `169.254.0.0/16` or `fe80::/10`. */
export function isLinkLocalUnicast(a: NetipAddr): boolean {
  const u = unmap(a);
  if (u.bytes.length === 4) return u.bytes[0] === 169 && u.bytes[1] === 254;
  return (u16(u, 0) & 0xffc0) === 0xfe80;
}

/**
 * `Addr.IsGlobalUnicast`, which follows package net: everything except the unspecified,
 * broadcast (`255.255.255.255`), loopback, multicast and link-local unicast addresses; private
 * ranges (`10.0.0.0/8`, `fc00::/7`) count as global unicast.
 */
export function isGlobalUnicast(a: NetipAddr): boolean {
  const u = unmap(a);
  if (u.bytes.length === 4 && (allZero(u.bytes) || u.bytes.every((b) => b === 255))) return false;
  if (u.bytes.length === 16 && allZero(u.bytes) && a.zone === "") return false;
  return !isLoopback(u) && !isMulticast(u) && !isLinkLocalUnicast(u);
}

/** `Addr.Prefix(bits)` on a valid length: the address with the host bits cleared, zone dropped. */
export function maskAddr(a: NetipAddr, bits: number): NetipAddr {
  const out = a.bytes.slice();
  for (let i = 0; i < out.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    out[i] = out[i]! & ((0xff << (8 - keep)) & 0xff);
  }
  return { bytes: out, zone: "" };
}

/** `Prefix.Contains(ip)`: same family, no zone on `ip`, equal leading `bits`. */
export function prefixContains(p: NetipPrefix, ip: NetipAddr): boolean {
  if (ip.zone !== "" || ip.bytes.length !== p.addr.bytes.length) return false;
  return addrEqual(maskAddr(ip, p.bits), maskAddr(p.addr, p.bits));
}

/** `Prefix.String`. */
export function prefixToString(p: NetipPrefix): string {
  return `${addrToString(p.addr)}/${p.bits}`;
}
