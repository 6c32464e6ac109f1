/**
 * Engine-independent implementations of the Kubernetes CEL libraries (Go-exact semantics and
 * error texts), for the CEL adapter to register. Values: CEL `int`/`uint` are `bigint`, `double`
 * is `number`, `string` is `string`, `bytes` is `Uint8Array`, lists are arrays, maps are `Map`.
 * Failures throw {@link LibraryError} with the message Kubernetes shows.
 */

export { CIDR, isCIDR, parseCIDR } from "./cidr.js";
export { LibraryError, type LibraryErrorCode, noSuchOverload } from "./error.js";
export { NAMED_FORMATS, NamedFormat, namedFormat } from "./format.js";
export { goQuote } from "./go-quote.js";
export { IPAddress, ipIsCanonical, isIP, parseIP } from "./ip.js";
export {
  addDouble,
  addDurationNanos,
  addInt,
  addUint,
  type Compare,
  compareBigint,
  compareBool,
  compareBytes,
  compareDouble,
  compareString,
  isSorted,
  listIndexOf,
  listLastIndexOf,
  listMax,
  listMin,
  listSum,
} from "./lists.js";
export { isQuantity, parseQuantity, Quantity, type QuantityFormat, quantitySign } from "./quantity.js";
export { isSemver, parseSemver, Semver } from "./semver.js";
export {
  charAt,
  type FormatArg,
  format,
  indexOf,
  join,
  lastIndexOf,
  lowerAscii,
  quote,
  replace,
  split,
  substring,
  trim,
  upperAscii,
} from "./strings.js";
export { isURL, parseRequestURIError, parseURLValue, URLValue } from "./url.js";
