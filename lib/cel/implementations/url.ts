/**
 * The Kubernetes CEL URL library (k8s.io/apiserver/pkg/cel/library/urls.go, type `kubernetes.URL`) on Go's
 * `net/url` (lib/go/url.ts).
 *
 * `url(s)` first checks `s` with `url.ParseRequestURI` (an absolute URI or an absolute path, no
 * relative references: `example.com/x` and `../x` fail with `invalid URI for request`), then
 * parses it again with `url.Parse` (which splits off a `#fragment`); getters read the second
 * result. `isURL(s)` is `ParseRequestURI` alone. Errors read
 * `URL parse error during conversion from string: parse "../relative": invalid URI for request`.
 */

import * as url from "../../go/url.js";
import { LibraryError } from "./error.js";

/** A CEL `kubernetes.URL` value. Immutable. */
export class URLValue {
  readonly #u: url.GoURL;

  private constructor(u: url.GoURL) {
    this.#u = u;
  }

  /** CEL `url(s)`; throws a {@link LibraryError} with the Kubernetes message when invalid. */
  static parse(s: string): URLValue {
    const check = url.parseRequestURI(s);
    if (!check.ok) throw new LibraryError(`URL parse error during conversion from string: ${check.error}`);
    const u = url.parse(s);
    if (!u.ok) throw new LibraryError(`URL parse error during conversion from string: ${u.error}`);
    return new URLValue(u.value);
  }

  /** CEL `getScheme()`: lower-cased, `''` when absent. */
  getScheme(): string {
    return url.scheme(this.#u);
  }

  /** CEL `getHost()`: host and port as written (IPv6 brackets kept, percent-escapes decoded). */
  getHost(): string {
    return url.host(this.#u);
  }

  /** CEL `getHostname()`: the host without port and without IPv6 brackets. */
  getHostname(): string {
    return url.hostname(this.#u);
  }

  /** CEL `getPort()`: the numeric port, `''` when absent. */
  getPort(): string {
    return url.port(this.#u);
  }

  /** CEL `getEscapedPath()`: Go's `URL.EscapedPath`. */
  getEscapedPath(): string {
    return url.escapedPath(this.#u);
  }

  /** CEL `getQuery()`: `map(string, list(string))` as Go's `url.ParseQuery` builds it. */
  getQuery(): Map<string, string[]> {
    return url.query(this.#u);
  }

  /** CEL `url == url`: equal `URL.String()` forms. */
  equals(other: URLValue): boolean {
    return url.urlString(this.#u) === url.urlString(other.#u);
  }

  /** Go's `URL.String()`. */
  toString(): string {
    return url.urlString(this.#u);
  }
}

/** CEL `url(s)`. */
export function parseURLValue(s: string): URLValue {
  return URLValue.parse(s);
}

/** CEL `isURL(s)`: whether Go's `url.ParseRequestURI` accepts `s`. */
export function isURL(s: string): boolean {
  return url.parseRequestURI(s).ok;
}
