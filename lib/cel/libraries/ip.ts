/** The Kubernetes IP library (apiserver pkg/cel/library/ip.go, Kubernetes 1.30+). */

import { constantCost, parseCost, typedEqualityCost } from "../cost/operand.js";
import { ONE, STRING_TRAVERSAL } from "../cost/range.js";
import { always, firstOperandTraversal } from "../cost/runtime.js";
import type { EngineRegistrar } from "../engine.js";
import { IPAddress, ipIsCanonical, isIP, parseIP } from "../implementations/ip.js";
import { type CelLibrary, libraryCall } from "./library.js";

/** The CEL type name of IP addresses. */
export const IP_TYPE = "net.IP";

/** The value of the `ip` namespace constant. */
class IPNamespace {}

function register(env: EngineRegistrar): void {
  env.registerType(IP_TYPE, { ctor: IPAddress, fields: {} });
  env.registerFunction(
    `ip(string): ${IP_TYPE}`,
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
  env.registerFunction(`string(${IP_TYPE}): string`, (a: IPAddress) => a.toString());
  env.registerFunction(`${IP_TYPE}.family(): int`, (a: IPAddress) => a.family());
  env.registerFunction(`${IP_TYPE}.isUnspecified(): bool`, (a: IPAddress) => a.isUnspecified());
  env.registerFunction(`${IP_TYPE}.isLoopback(): bool`, (a: IPAddress) => a.isLoopback());
  env.registerFunction(`${IP_TYPE}.isLinkLocalMulticast(): bool`, (a: IPAddress) => a.isLinkLocalMulticast());
  env.registerFunction(`${IP_TYPE}.isLinkLocalUnicast(): bool`, (a: IPAddress) => a.isLinkLocalUnicast());
  env.registerFunction(`${IP_TYPE}.isGlobalUnicast(): bool`, (a: IPAddress) => a.isGlobalUnicast());
  env.registerOperator(`${IP_TYPE} == ${IP_TYPE}`, (a: IPAddress, b: IPAddress) => a.equals(b));
}

export const IP_LIBRARY: CelLibrary = {
  name: "ip",
  register,
  callCosts: {
    // `cidr.ip()` reads a field (1); `ip(s)` parses its argument.
    ip: (target, args) => (target !== undefined ? { cost: ONE } : parseCost(STRING_TRAVERSAL)(target, args)),
    isIP: parseCost(STRING_TRAVERSAL),
    "ip.isCanonical": parseCost(2 * STRING_TRAVERSAL),
    family: constantCost,
    isUnspecified: constantCost,
    isLoopback: constantCost,
    isLinkLocalMulticast: constantCost,
    isLinkLocalUnicast: constantCost,
    isGlobalUnicast: constantCost,
    "_==_": typedEqualityCost(IP_TYPE, constantCost),
  },
  // Kubernetes' CallCost: parsing traverses the string (twice for ip.isCanonical); `cidr.ip()` is 1 (the CIDR's size).
  runtimeCosts: {
    ip: always(firstOperandTraversal(1)),
    isIP: always(firstOperandTraversal(1)),
    "ip.isCanonical": always(firstOperandTraversal(2)),
  },
};
