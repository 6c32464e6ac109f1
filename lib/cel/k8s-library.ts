/**
 * Registers the Kubernetes CEL libraries (lib/cel/libraries/*: engine-independent, Go-exact values and
 * functions) in an engine environment as opaque types, functions, methods and operators, with the signatures of
 * apiserver pkg/cel/library. Library errors become engine evaluation errors carrying Kubernetes' text.
 */
import { type Environment, EvaluationError, Optional } from "./engine.js";
import { CIDR, isCIDR, parseCIDR } from "./libraries/cidr.js";
import { LibraryError } from "./libraries/error.js";
import { NAMED_FORMATS, NamedFormat, namedFormat } from "./libraries/format.js";
import { IPAddress, ipIsCanonical, isIP, parseIP } from "./libraries/ip.js";
import { isQuantity, parseQuantity, Quantity, quantitySign } from "./libraries/quantity.js";
import { isSemver, parseSemver, Semver } from "./libraries/semver.js";
import { isURL, parseURLValue, URLValue } from "./libraries/url.js";

type Fn = (...args: never[]) => unknown;

/** Wraps a library function so its errors reach the engine as evaluation errors with Kubernetes' text. */
export function libraryCall<F extends Fn>(fn: F): F {
  return ((...args: never[]) => {
    try {
      return fn(...args);
    } catch (e) {
      if (e instanceof LibraryError) {
        throw new EvaluationError({
          code: e.code === "no_such_overload" ? "no_such_overload" : "k8s_library",
          message: e.message,
        });
      }
      if (e instanceof RangeError) throw new EvaluationError({ code: "numeric_overflow", message: "integer overflow" });
      throw e;
    }
  }) as F;
}

const Q = "kubernetes.Quantity";

function registerQuantity(env: Environment): void {
  env.registerType(Q, { ctor: Quantity, fields: {} });
  env.registerFunction(
    `quantity(string): ${Q}`,
    libraryCall((s: string) => parseQuantity(s)),
  );
  env.registerFunction(
    "isQuantity(string): bool",
    libraryCall((s: string) => isQuantity(s)),
  );
  env.registerFunction(
    `sign(${Q}): int`,
    libraryCall((q: Quantity) => quantitySign(q)),
  );
  env.registerFunction(
    `${Q}.isInteger(): bool`,
    libraryCall((q: Quantity) => q.isInteger()),
  );
  env.registerFunction(
    `${Q}.asInteger(): int`,
    libraryCall((q: Quantity) => q.asInteger()),
  );
  env.registerFunction(
    `${Q}.asApproximateFloat(): double`,
    libraryCall((q: Quantity) => q.asApproximateFloat()),
  );
  env.registerFunction(
    `${Q}.add(${Q}): ${Q}`,
    libraryCall((a: Quantity, b: Quantity) => a.add(b)),
  );
  env.registerFunction(
    `${Q}.add(int): ${Q}`,
    libraryCall((a: Quantity, b: bigint) => a.add(b)),
  );
  env.registerFunction(
    `${Q}.sub(${Q}): ${Q}`,
    libraryCall((a: Quantity, b: Quantity) => a.sub(b)),
  );
  env.registerFunction(
    `${Q}.sub(int): ${Q}`,
    libraryCall((a: Quantity, b: bigint) => a.sub(b)),
  );
  env.registerFunction(
    `${Q}.isGreaterThan(${Q}): bool`,
    libraryCall((a: Quantity, b: Quantity) => a.isGreaterThan(b)),
  );
  env.registerFunction(
    `${Q}.isLessThan(${Q}): bool`,
    libraryCall((a: Quantity, b: Quantity) => a.isLessThan(b)),
  );
  env.registerFunction(
    `${Q}.compareTo(${Q}): int`,
    libraryCall((a: Quantity, b: Quantity) => a.compareTo(b)),
  );
  env.registerOperator(`${Q} == ${Q}`, (a: Quantity, b: Quantity) => a.equals(b));
}

const IP = "net.IP";

/** The value of the `ip` namespace constant. */
class IPNamespace {}
const CIDR_T = "net.CIDR";

/** The IP and CIDR libraries (Kubernetes 1.30+). */
function registerNetwork(env: Environment): void {
  env.registerType(IP, { ctor: IPAddress, fields: {} });
  env.registerType(CIDR_T, { ctor: CIDR, fields: {} });
  env.registerFunction(
    `ip(string): ${IP}`,
    libraryCall((s: string) => parseIP(s)),
  );
  env.registerFunction(
    "isIP(string): bool",
    libraryCall((s: string) => isIP(s)),
  );
  // `ip.isCanonical(s)`: a namespace constant of its own type; it coexists with the function `ip(s)`.
  env.registerType("k8s.IPNamespace", { ctor: IPNamespace, fields: {} });
  env.registerConstant("ip", "k8s.IPNamespace", new IPNamespace());
  env.registerFunction(
    "k8s.IPNamespace.isCanonical(string): bool",
    libraryCall((_ns: IPNamespace, s: string) => ipIsCanonical(s)),
  );
  env.registerFunction(`string(${IP}): string`, (a: IPAddress) => a.toString());
  env.registerFunction(`${IP}.family(): int`, (a: IPAddress) => a.family());
  env.registerFunction(`${IP}.isUnspecified(): bool`, (a: IPAddress) => a.isUnspecified());
  env.registerFunction(`${IP}.isLoopback(): bool`, (a: IPAddress) => a.isLoopback());
  env.registerFunction(`${IP}.isLinkLocalMulticast(): bool`, (a: IPAddress) => a.isLinkLocalMulticast());
  env.registerFunction(`${IP}.isLinkLocalUnicast(): bool`, (a: IPAddress) => a.isLinkLocalUnicast());
  env.registerFunction(`${IP}.isGlobalUnicast(): bool`, (a: IPAddress) => a.isGlobalUnicast());
  env.registerOperator(`${IP} == ${IP}`, (a: IPAddress, b: IPAddress) => a.equals(b));
  env.registerFunction(
    `cidr(string): ${CIDR_T}`,
    libraryCall((s: string) => parseCIDR(s)),
  );
  env.registerFunction(
    "isCIDR(string): bool",
    libraryCall((s: string) => isCIDR(s)),
  );
  env.registerFunction(`string(${CIDR_T}): string`, (c: CIDR) => c.toString());
  env.registerFunction(
    `${CIDR_T}.containsIP(${IP}): bool`,
    libraryCall((c: CIDR, a: IPAddress) => c.containsIP(a)),
  );
  env.registerFunction(
    `${CIDR_T}.containsIP(string): bool`,
    libraryCall((c: CIDR, a: string) => c.containsIP(a)),
  );
  env.registerFunction(
    `${CIDR_T}.containsCIDR(${CIDR_T}): bool`,
    libraryCall((c: CIDR, o: CIDR) => c.containsCIDR(o)),
  );
  env.registerFunction(
    `${CIDR_T}.containsCIDR(string): bool`,
    libraryCall((c: CIDR, o: string) => c.containsCIDR(o)),
  );
  env.registerFunction(`${CIDR_T}.ip(): ${IP}`, (c: CIDR) => c.ip());
  env.registerFunction(`${CIDR_T}.masked(): ${CIDR_T}`, (c: CIDR) => c.masked());
  env.registerFunction(`${CIDR_T}.prefixLength(): int`, (c: CIDR) => c.prefixLength());
  env.registerOperator(`${CIDR_T} == ${CIDR_T}`, (a: CIDR, b: CIDR) => a.equals(b));
}

const URL_T = "kubernetes.URL";

/** The URL library (Go net/url semantics). */
function registerURL(env: Environment): void {
  env.registerType(URL_T, { ctor: URLValue, fields: {} });
  env.registerFunction(
    `url(string): ${URL_T}`,
    libraryCall((s: string) => parseURLValue(s)),
  );
  env.registerFunction(
    "isURL(string): bool",
    libraryCall((s: string) => isURL(s)),
  );
  env.registerFunction(`${URL_T}.getScheme(): string`, (u: URLValue) => u.getScheme());
  env.registerFunction(`${URL_T}.getHost(): string`, (u: URLValue) => u.getHost());
  env.registerFunction(`${URL_T}.getHostname(): string`, (u: URLValue) => u.getHostname());
  env.registerFunction(`${URL_T}.getPort(): string`, (u: URLValue) => u.getPort());
  env.registerFunction(`${URL_T}.getEscapedPath(): string`, (u: URLValue) => u.getEscapedPath());
  env.registerFunction(`${URL_T}.getQuery(): map<string, list<string>>`, (u: URLValue) => u.getQuery());
  env.registerOperator(`${URL_T} == ${URL_T}`, (a: URLValue, b: URLValue) => a.equals(b));
}

const FORMAT_T = "kubernetes.NamedFormat";

/** The value of the `format` namespace constant. */
class FormatNamespace {}

/** The format library (Kubernetes 1.31+): `format.<name>()`, `format.named(name)`, `validate(s)`. */
function registerFormat(env: Environment): void {
  env.registerType(FORMAT_T, { ctor: NamedFormat, fields: {} });
  env.registerType("k8s.FormatNamespace", { ctor: FormatNamespace, fields: {} });
  env.registerConstant("format", "k8s.FormatNamespace", new FormatNamespace());
  for (const [name, f] of NAMED_FORMATS) {
    env.registerFunction(`k8s.FormatNamespace.${name}(): ${FORMAT_T}`, () => f);
  }
  env.registerFunction(
    `k8s.FormatNamespace.named(string): optional<${FORMAT_T}>`,
    (_ns: FormatNamespace, name: string) => {
      const f = namedFormat(name);
      return f === undefined ? Optional.none() : Optional.of(f);
    },
  );
  env.registerFunction(
    `${FORMAT_T}.validate(string): optional<list<string>>`,
    libraryCall((f: NamedFormat, s: string) => {
      const errs = f.validate(s);
      return errs === undefined ? Optional.none() : Optional.of(errs);
    }),
  );
}

const SEMVER_T = "kubernetes.Semver";

/** The semver library (Kubernetes 1.33+). */
function registerSemver(env: Environment): void {
  env.registerType(SEMVER_T, { ctor: Semver, fields: {} });
  env.registerFunction(
    `semver(string): ${SEMVER_T}`,
    libraryCall((s: string) => parseSemver(s)),
  );
  env.registerFunction(
    `semver(string, bool): ${SEMVER_T}`,
    libraryCall((s: string, n: boolean) => parseSemver(s, n)),
  );
  env.registerFunction(
    "isSemver(string): bool",
    libraryCall((s: string) => isSemver(s)),
  );
  env.registerFunction(
    "isSemver(string, bool): bool",
    libraryCall((s: string, n: boolean) => isSemver(s, n)),
  );
  env.registerFunction(`${SEMVER_T}.major(): int`, (v: Semver) => v.majorInt());
  env.registerFunction(`${SEMVER_T}.minor(): int`, (v: Semver) => v.minorInt());
  env.registerFunction(`${SEMVER_T}.patch(): int`, (v: Semver) => v.patchInt());
  env.registerFunction(`${SEMVER_T}.isGreaterThan(${SEMVER_T}): bool`, (a: Semver, b: Semver) => a.isGreaterThan(b));
  env.registerFunction(`${SEMVER_T}.isLessThan(${SEMVER_T}): bool`, (a: Semver, b: Semver) => a.isLessThan(b));
  env.registerFunction(`${SEMVER_T}.compareTo(${SEMVER_T}): int`, (a: Semver, b: Semver) => a.compareTo(b));
  env.registerOperator(`${SEMVER_T} == ${SEMVER_T}`, (a: Semver, b: Semver) => a.equals(b));
}

/** Registers every available Kubernetes library in `env`. */
export function registerKubernetesLibraries(env: Environment): void {
  registerSemver(env);
  registerQuantity(env);
  registerNetwork(env);
  registerURL(env);
  registerFormat(env);
}
