/**
 * The Kubernetes CEL CIDR library (k8s.io/apiserver/pkg/cel/library/cidr.go, type `net.CIDR`), on
 * Go `net/netip` semantics (see netip.ts).
 *
 * `cidr(s)` / `isCIDR(s)` use `netip.ParsePrefix`: a mask is required, host bits after the prefix
 * are kept (`cidr('10.0.0.5/8')` is valid; `masked()` clears them), leading zeros and zones are
 * rejected, and Kubernetes also rejects IPv4-mapped IPv6 addresses. The error text repeats its
 * prefix, as Kubernetes prints it:
 * `network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0/"): bad bits after slash: ""`.
 *
 * Equality compares address (with its host bits) and length: `cidr('10.0.0.5/8') != cidr('10.0.0.0/8')`.
 * `containsCIDR` masks the argument to the receiver's length (the fix of kubernetes#130450, in
 * 1.33+) and requires an equal or longer prefix. With a string argument, `containsIP` turns an
 * unparsable string into cel-go's `no such overload` error, whereas `containsCIDR` reports the
 * parse error; both quirks come from how the Go bindings forward errors.
 */

import * as netip from "../../go/netip.js";
import { goQuote } from "../../go/strconv.js";
import { LibraryError, noSuchOverload } from "./error.js";
import { IPAddress, isIP, parseIP } from "./ip.js";

const PARSE_ERROR = "network address parse error during conversion from string: ";

/** A CEL `net.CIDR` value. Immutable. */
export class CIDR {
  readonly #prefix: netip.NetipPrefix;

  /** Wraps a parsed prefix; use {@link parseCIDR} to create one from a string. */
  constructor(prefix: netip.NetipPrefix) {
    this.#prefix = prefix;
  }

  /** The `net/netip` prefix (address as written, host bits kept). */
  get prefix(): netip.NetipPrefix {
    return this.#prefix;
  }

  /** CEL `cidr.containsIP(ip)` / `containsIP(string)`; see the module comment for bad strings. */
  containsIP(other: IPAddress | string): boolean {
    if (typeof other === "string") {
      if (!isIP(other)) throw noSuchOverload();
      other = parseIP(other);
    }
    return netip.prefixContains(this.#prefix, other.addr);
  }

  /** CEL `cidr.containsCIDR(cidr)` / `containsCIDR(string)`: same family, equal or longer prefix inside. */
  containsCIDR(other: CIDR | string): boolean {
    const o = typeof other === "string" ? parseCIDR(other) : other;
    const bits = this.#prefix.bits;
    const inner = o.#prefix;
    if (inner.addr.bytes.length !== this.#prefix.addr.bytes.length) return false;
    const a = netip.maskAddr(this.#prefix.addr, bits);
    const b = netip.maskAddr(inner.addr, bits);
    return netip.addrEqual(a, b) && bits <= inner.bits;
  }

  /** CEL `cidr.ip()`: the address as written, host bits included. */
  ip(): IPAddress {
    return new IPAddress(this.#prefix.addr);
  }

  /** CEL `cidr.masked()`: the same prefix with the host bits cleared. */
  masked(): CIDR {
    return new CIDR({ addr: netip.maskAddr(this.#prefix.addr, this.#prefix.bits), bits: this.#prefix.bits });
  }

  /** CEL `cidr.prefixLength()`. */
  prefixLength(): bigint {
    return BigInt(this.#prefix.bits);
  }

  /** CEL `cidr == cidr`: same address (host bits included) and length. */
  equals(other: CIDR): boolean {
    return this.#prefix.bits === other.#prefix.bits && netip.addrEqual(this.#prefix.addr, other.#prefix.addr);
  }

  /** CEL `string(cidr)`: `Prefix.String`, e.g. `10.0.0.5/8`. */
  toString(): string {
    return netip.prefixToString(this.#prefix);
  }
}

/** Kubernetes' `parseCIDR`: the prefix, or the (once-prefixed) error text. */
function parseCIDRPrefix(raw: string): netip.ParseResult<netip.NetipPrefix> {
  const parsed = netip.parsePrefix(raw);
  if (!parsed.ok) return { ok: false, error: `${PARSE_ERROR}${parsed.error}` };
  if (netip.is4In6(parsed.value.addr)) {
    return { ok: false, error: `IPv4-mapped IPv6 address ${goQuote(raw)} is not allowed` };
  }
  return parsed;
}

/** CEL `cidr(s)`; throws a {@link LibraryError} with the Kubernetes message when `s` is not accepted. */
export function parseCIDR(s: string): CIDR {
  const parsed = parseCIDRPrefix(s);
  if (!parsed.ok) throw new LibraryError(`${PARSE_ERROR}${parsed.error}`);
  return new CIDR(parsed.value);
}

/** CEL `isCIDR(s)`. */
export function isCIDR(s: string): boolean {
  return parseCIDRPrefix(s).ok;
}
