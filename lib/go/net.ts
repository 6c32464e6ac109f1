/**
 * The parts of Go's `net` package Kubernetes' format checks rely on:
 *
 * - `net.ParseIP` as of Go 1.22 (on `netip.ParseAddr`: strict, no zone), as 16 bytes like a `net.IP`;
 * - Go 1.16's `net.ParseIP` and `net.ParseCIDR`, which k8s.io/utils/net keeps as `ParseIPSloppy` and
 *   `ParseCIDRSloppy`: IPv4 fields with leading zeros (`010.001.002.003` is 10.1.2.3), IPv6 groups with more than
 *   four hex digits when the value fits 16 bits (`00001::`);
 * - `net.ParseMAC`.
 *
 * Hand-written scanners, linear in the input.
 */
import { is4, parseAddr } from "./netip.js";

function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Value of an ASCII hex digit, or -1. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** `net.ParseIP` (Go ≥ 1.22): `netip.ParseAddr` without a zone, as 16 bytes (IPv4 as IPv4-mapped IPv6). */
export function parseIP(s: string): Uint8Array | undefined {
  const a = parseAddr(s);
  if (!a.ok || a.value.zone !== "") return undefined;
  if (!is4(a.value)) return a.value.bytes;
  const out = new Uint8Array(16);
  out[10] = 0xff;
  out[11] = 0xff;
  out.set(a.value.bytes, 12);
  return out;
}

/** `net.IP.To4() != nil`: an IPv4 address, or an IPv6 one in the `::ffff:0:0/96` block. */
export function isIPv4(ip: Uint8Array): boolean {
  if (ip.length === 4) return true;
  for (let i = 0; i < 10; i++) if (ip[i] !== 0) return false;
  return ip[10] === 0xff && ip[11] === 0xff;
}

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

/** Go 1.16 `net.ParseIP` (k8s.io/utils/net `ParseIPSloppy`): the first `.` or `:` decides; 4 bytes for IPv4, 16 for IPv6. */
export function parseIPSloppy(s: string): Uint8Array | undefined {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2e) return parseIPv4Sloppy(s);
    if (c === 0x3a) return parseIPv6Sloppy(s);
  }
  return undefined;
}

/**
 * Go 1.16 `net.ParseCIDR` (k8s.io/utils/net `ParseCIDRSloppy`): the address before the first `/` is tried as
 * IPv4, then IPv6 (both sloppy); the prefix length is decimal (leading zeros allowed) and at most 32 or 128.
 * Returns the address as written (host bits kept) and the prefix length.
 */
export function parseCIDRSloppy(s: string): { ip: Uint8Array; bits: number } | undefined {
  const slash = s.indexOf("/");
  if (slash < 0) return undefined;
  const addr = s.slice(0, slash);
  const mask = s.slice(slash + 1);
  let maxBits = 32;
  let ip = parseIPv4Sloppy(addr);
  if (ip === undefined) {
    maxBits = 128;
    ip = parseIPv6Sloppy(addr);
    if (ip === undefined) return undefined;
  }
  let n = 0;
  let i = 0;
  while (i < mask.length && isDigitCode(mask.charCodeAt(i))) {
    n = n * 10 + (mask.charCodeAt(i) - 0x30);
    if (n >= 0xffffff) return undefined;
    i++;
  }
  return i > 0 && i === mask.length && n <= maxBits ? { ip, bits: n } : undefined;
}

/**
 * `net.ParseMAC`: 6, 8 or 20 octets, written as pairs of hex digits separated by one consistent `:` or `-`, or as
 * groups of four hex digits separated by `.`. Returns the octets.
 */
export function parseMAC(s: string): Uint8Array | undefined {
  if (s.length < 14) return undefined;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return undefined;
  const octet = (at: number) => {
    const hi = hexValue(s.charCodeAt(at));
    const lo = hexValue(s.charCodeAt(at + 1));
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
  };
  const out: number[] = [];
  const sep = s.charCodeAt(2);
  if (sep === 0x3a || sep === 0x2d) {
    if ((s.length + 1) % 3 !== 0) return undefined;
    const n = (s.length + 1) / 3;
    if (n !== 6 && n !== 8 && n !== 20) return undefined;
    for (let x = 0; x < s.length; x += 3) {
      const o = octet(x);
      if (o < 0) return undefined;
      out.push(o);
      if (x + 2 < s.length && s.charCodeAt(x + 2) !== sep) return undefined;
    }
    return Uint8Array.from(out);
  }
  if (s.charCodeAt(4) === 0x2e) {
    if ((s.length + 1) % 5 !== 0) return undefined;
    const n = (2 * (s.length + 1)) / 5;
    if (n !== 6 && n !== 8 && n !== 20) return undefined;
    for (let x = 0; x < s.length; x += 5) {
      const hi = octet(x);
      const lo = octet(x + 2);
      if (hi < 0 || lo < 0) return undefined;
      out.push(hi, lo);
      if (x + 4 < s.length && s.charCodeAt(x + 4) !== 0x2e) return undefined;
    }
    return Uint8Array.from(out);
  }
  return undefined;
}
