/**
 * The Kubernetes CEL IP library (k8s.io/apiserver/pkg/cel/library/ip.go, type `net.IP`), on
 * Go `net/netip` semantics (see netip.ts).
 *
 * `ip(s)`, `isIP(s)` and `ip.isCanonical(s)` share one parser that rejects what `netip.ParseAddr`
 * rejects (leading zeros in IPv4 fields, more than four hex digits in a group, ...) and, in
 * addition, zones (`fe80::1%eth0`) and IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`). Error texts
 * are Kubernetes':
 *
 * - `IP Address "x" parse error during conversion from string: ParseAddr("x"): unable to parse IP`
 * - `IP address "fe80::1%eth0" with zone value is not allowed`
 * - `IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed`
 *
 * Equality (`==`) compares addresses, so `ip('2001:db8:0:0:0:0:0:1') == ip('2001:db8::1')`.
 */

import * as netip from "../../go/netip.js";
import { goQuote } from "../../go/strconv.js";
import { LibraryError } from "./error.js";

/** A CEL `net.IP` value. Immutable. */
export class IPAddress {
  readonly #addr: netip.NetipAddr;

  /** Wraps a parsed address; use {@link parseIP} to create one from a string. */
  constructor(addr: netip.NetipAddr) {
    this.#addr = addr;
  }

  /** The `net/netip` address (4 or 16 bytes, never a zone when created by this library). */
  get addr(): netip.NetipAddr {
    return this.#addr;
  }

  /** CEL `ip.family()`: 4 or 6. */
  family(): bigint {
    return netip.is4(this.#addr) ? 4n : 6n;
  }

  /** CEL `ip.isUnspecified()`: `0.0.0.0` or `::`. */
  isUnspecified(): boolean {
    return netip.isUnspecified(this.#addr);
  }

  /** CEL `ip.isLoopback()`: `127.0.0.0/8` or `::1`. */
  isLoopback(): boolean {
    return netip.isLoopback(this.#addr);
  }

  /** CEL `ip.isLinkLocalMulticast()`: `224.0.0.0/24` or `ffx2::/16`. */
  isLinkLocalMulticast(): boolean {
    return netip.isLinkLocalMulticast(this.#addr);
  }

  /** CEL `ip.isLinkLocalUnicast()`: `169.254.0.0/16` or `fe80::/10`. */
  isLinkLocalUnicast(): boolean {
    return netip.isLinkLocalUnicast(this.#addr);
  }

  /** CEL `ip.isGlobalUnicast()`, as Go defines it (true for private ranges such as `10.0.0.0/8`). */
  isGlobalUnicast(): boolean {
    return netip.isGlobalUnicast(this.#addr);
  }

  /** CEL `ip == ip`: same address. */
  equals(other: IPAddress): boolean {
    return netip.addrEqual(this.#addr, other.#addr);
  }

  /** CEL `string(ip)`: the canonical form (`Addr.String`). */
  toString(): string {
    return netip.addrToString(this.#addr);
  }
}

/** Kubernetes' `parseIPAddr`: the address, or the Kubernetes error text. */
function parseIPAddr(raw: string): netip.ParseResult<netip.NetipAddr> {
  const parsed = netip.parseAddr(raw);
  if (!parsed.ok) {
    return {
      ok: false,
      error: `IP Address ${goQuote(raw)} parse error during conversion from string: ${parsed.error}`,
    };
  }
  if (parsed.value.zone !== "") {
    return { ok: false, error: `IP address ${goQuote(raw)} with zone value is not allowed` };
  }
  if (netip.is4In6(parsed.value)) {
    return { ok: false, error: `IPv4-mapped IPv6 address ${goQuote(raw)} is not allowed` };
  }
  return parsed;
}

/** CEL `ip(s)`; throws a {@link LibraryError} with the Kubernetes message when `s` is not accepted. */
export function parseIP(s: string): IPAddress {
  const parsed = parseIPAddr(s);
  if (!parsed.ok) throw new LibraryError(parsed.error);
  return new IPAddress(parsed.value);
}

/** CEL `isIP(s)`. */
export function isIP(s: string): boolean {
  return parseIPAddr(s).ok;
}

/**
 * CEL `ip.isCanonical(s)`: whether `s` is written exactly as `string(ip(s))` would print it.
 * Throws the `ip(s)` error when `s` is not an accepted address.
 */
export function ipIsCanonical(s: string): boolean {
  return parseIP(s).toString() === s;
}
