/**
 * What a CEL library is in tollgate: one file of this folder per library (as kube-apiserver's
 * `pkg/cel/library` and cel-go's `ext` define them), holding
 *
 * - the declarations it adds to an environment (types, constants, functions and operators, with their signatures),
 *   wired to implementations in ../implementations/ (engine-independent, Go-exact values and functions);
 * - the engine built-ins it replaces (`renames`: the method is renamed in the syntax tree before the type check);
 * - the static cost estimates of its functions (`callCosts`, Kubernetes' `EstimateCallCost` and cel-go's) and
 *   their runtime costs (`runtimeCosts`, Kubernetes' `CallCost` and cel-go's trackers).
 *
 * An environment is built from a list of libraries (../environment.ts). Adding a function touches its library file
 * and its implementation.
 */

import { QuantityError } from "../../objects/quantity.js";
import type { CallCostEstimator } from "../cost/operand.js";
import type { RuntimeCallCost } from "../cost/runtime.js";
import { type EngineRegistrar, EvaluationError } from "../engine.js";
import { LibraryError } from "../implementations/error.js";

export interface CelLibrary {
  /** The library's name, as upstream names it (`quantity`, `strings`, …). */
  readonly name: string;
  /** Declares the library's types, constants, functions and operators. */
  register(registrar: EngineRegistrar): void;
  /**
   * Built-ins this library replaces: method name → the name of the function it registers instead; a key
   * `global:<name>` renames calls of the global function `<name>`.
   */
  readonly renames?: Readonly<Record<string, string>>;
  /**
   * Static cost estimates by function name (methods by their name, global functions of a namespace as
   * `<namespace>.<name>`, operators as `_==_`). An estimator returns undefined where it does not apply; the
   * estimator then falls back to cel-go's built-in costs, and to 1.
   */
  readonly callCosts?: Readonly<Record<string, CallCostEstimator>>;
  /**
   * Own implementations of built-in operators and functions where the engine's differ from cel-go's, by cel-go
   * name: operators as `_+_`, `_==_`, `-_`; global functions by name (`int`); methods as `.name` (`.getHours`).
   */
  readonly overrides?: Readonly<Record<string, LibraryOverride>>;
  /**
   * Runtime costs by function name, as `callCosts` (Kubernetes' `CallCost`, cel-go's extension trackers): charged
   * from the operands' sizes before the function runs. Functions without one cost cel-go's built-in charge or 1.
   */
  readonly runtimeCosts?: Readonly<Record<string, RuntimeCallCost>>;
}

/**
 * An own implementation of a built-in: it gets the operands' values (a method's receiver first) and returns the
 * result, throws a LibraryError, or returns ENGINE_HANDLER to leave the call to the engine.
 */
export interface LibraryOverride {
  /**
   * The nodes it applies to: those with an operand whose checked type is one of these (`int`,
   * `google.protobuf.Timestamp`), is `dyn`, or is unknown (no type check). Absent: every node of the name.
   */
  readonly operandTypes?: readonly string[];
  readonly run: (args: readonly unknown[]) => unknown;
}

/** A CEL runtime error with cel-go's text. */
export function celError(message: string): EvaluationError {
  return new EvaluationError(message);
}

type Fn = (...args: never[]) => unknown;

/** Wraps an implementation so its errors reach the engine as evaluation errors with Kubernetes' text. */
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
      if (e instanceof QuantityError) throw new EvaluationError({ code: "k8s_library", message: e.message });
      if (e instanceof RangeError) throw new EvaluationError({ code: "numeric_overflow", message: "integer overflow" });
      throw e;
    }
  }) as F;
}
