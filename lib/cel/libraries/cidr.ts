/** The Kubernetes CIDR library (apiserver pkg/cel/library/cidr.go, Kubernetes 1.30+). */
import { type CallCostEstimator, constantCost, parseCost, sizeOf, typedEqualityCost } from "../cost/operand.js";
import { add, byFactor, ONE, type Range, STRING_TRAVERSAL } from "../cost/range.js";
import { always, firstOperandTraversal, type RuntimeCharge } from "../cost/runtime.js";
import { actualSize } from "../cost/value-size.js";
import type { EngineRegistrar } from "../engine.js";
import { CIDR, isCIDR, parseCIDR } from "../implementations/cidr.js";
import type { IPAddress } from "../implementations/ip.js";
import { IP_TYPE } from "./ip.js";
import { type CelLibrary, libraryCall } from "./library.js";

const CIDR_T = "net.CIDR";

function register(env: EngineRegistrar): void {
  env.registerType(CIDR_T, { ctor: CIDR, fields: {} });
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
    `${CIDR_T}.containsIP(${IP_TYPE}): bool`,
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
  env.registerFunction(`${CIDR_T}.ip(): ${IP_TYPE}`, (c: CIDR) => c.ip());
  env.registerFunction(`${CIDR_T}.masked(): ${CIDR_T}`, (c: CIDR) => c.masked());
  env.registerFunction(`${CIDR_T}.prefixLength(): int`, (c: CIDR) => c.prefixLength());
  env.registerOperator(`${CIDR_T} == ${CIDR_T}`, (a: CIDR, b: CIDR) => a.equals(b));
}

/** Kubernetes' estimate of `containsIP` / `containsCIDR`: address comparisons, plus parsing a string argument. */
function containsCost(isCidr: boolean): CallCostEstimator {
  return (target, args) => {
    if (target === undefined || args.length < 1) return undefined;
    const ipSize: Range = { min: 4, max: 16 };
    let c = byFactor(add(ipSize, ipSize), STRING_TRAVERSAL);
    if (isCidr) c = add(add(c, byFactor(ipSize, STRING_TRAVERSAL)), ONE);
    if (args[0]!.type.kind === "string") c = add(c, byFactor(sizeOf(args[0]!), STRING_TRAVERSAL));
    return { cost: c };
  };
}

/**
 * Kubernetes' CallCost of `containsIP` / `containsCIDR`: comparing addresses up to the CIDR's size (a CIDR value
 * has size 1), masking for a CIDR argument, and parsing a string argument.
 */
function containsCharge(isCidr: boolean, parses: boolean): RuntimeCharge {
  return (ops) => {
    const cidrSize = actualSize(ops[0]);
    let cost = Math.ceil((cidrSize + cidrSize) * STRING_TRAVERSAL);
    if (isCidr) cost += Math.ceil(cidrSize * STRING_TRAVERSAL) + 1;
    if (parses) cost += Math.ceil(actualSize(ops[1]) * STRING_TRAVERSAL);
    return cost;
  };
}

export const CIDR_LIBRARY: CelLibrary = {
  name: "cidr",
  register,
  callCosts: {
    cidr: parseCost(STRING_TRAVERSAL),
    isCIDR: parseCost(STRING_TRAVERSAL),
    containsIP: containsCost(false),
    containsCIDR: containsCost(true),
    masked: constantCost,
    prefixLength: constantCost,
    "_==_": typedEqualityCost(CIDR_T, constantCost),
  },
  runtimeCosts: {
    cidr: always(firstOperandTraversal(1)),
    isCIDR: always(firstOperandTraversal(1)),
    containsIP: (call) => containsCharge(false, call.args[0]?.kind === "string"),
    containsCIDR: (call) => containsCharge(true, call.args[0]?.kind === "string"),
  },
};
