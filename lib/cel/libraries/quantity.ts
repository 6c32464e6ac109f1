/** The Kubernetes quantity library (apiserver pkg/cel/library/quantity.go, Kubernetes 1.29+). */

import { isQuantity, parseQuantity, Quantity, quantitySign } from "../../objects/quantity.js";
import { constantCost, parseCost, typedEqualityCost } from "../cost/operand.js";
import { STRING_TRAVERSAL } from "../cost/range.js";
import { always, firstOperandTraversal } from "../cost/runtime.js";
import type { EngineRegistrar } from "../engine.js";
import { type CelLibrary, libraryCall } from "./library.js";

const Q = "kubernetes.Quantity";

function register(env: EngineRegistrar): void {
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

export const QUANTITY_LIBRARY: CelLibrary = {
  name: "quantity",
  register,
  runtimeCosts: {
    quantity: always(firstOperandTraversal(1)),
    isQuantity: always(firstOperandTraversal(1)),
  },
  callCosts: {
    quantity: parseCost(STRING_TRAVERSAL),
    isQuantity: parseCost(STRING_TRAVERSAL),
    sign: constantCost,
    asInteger: constantCost,
    isInteger: constantCost,
    asApproximateFloat: constantCost,
    add: constantCost,
    sub: constantCost,
    isGreaterThan: constantCost,
    isLessThan: constantCost,
    compareTo: constantCost,
    "_==_": typedEqualityCost(Q, constantCost),
  },
};
