/**
 * Registers the Kubernetes CEL libraries (lib/cel/libraries/*: engine-independent, Go-exact values and
 * functions) in an engine environment as opaque types, functions, methods and operators, with the signatures of
 * apiserver pkg/cel/library. Library errors become engine evaluation errors carrying Kubernetes' text.
 */
import { type Environment, EvaluationError } from "./engine.js";
import { LibraryError } from "./libraries/error.js";
import { isQuantity, parseQuantity, Quantity, quantitySign } from "./libraries/quantity.js";

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

/** Registers every available Kubernetes library in `env`. */
export function registerKubernetesLibraries(env: Environment): void {
  registerQuantity(env);
}
