/**
 * A policy's `variables` at evaluation time (k8s.io/apiserver pkg/admission/plugin/cel composition.go and
 * pkg/cel/lazy): a map whose fields are evaluated when first read, once per evaluation phase (validations, message
 * expressions, audit annotations and match conditions each get a fresh one), with the same activation as the
 * expression reading them (so a variable may use earlier ones). A variable that failed to compile or to evaluate is
 * an error in the expression that reads it (`composited variable "x" fails to ...`). What the variables cost is
 * added up for the phase's budget.
 */
import { celError, evaluate } from "../cel/index.js";
import type { CompiledVariable } from "./compile.js";

/** The per-call cost limit (apiserver pkg/apis/cel PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000;

type Outcome = { value: unknown } | { error: string };

export class LazyVariables extends Map<string, unknown> {
  private readonly outcomes = new Map<string, Outcome>();
  private readonly byName: ReadonlyMap<string, CompiledVariable>;
  /** Cost spent on variables since the last takeCost(). */
  private spent = 0;
  activation: Readonly<Record<string, unknown>> = {};

  constructor(variables: readonly CompiledVariable[] = []) {
    super();
    this.byName = new Map(variables.map((v) => [v.name, v]));
  }

  override has(name: string): boolean {
    return this.byName.has(name);
  }

  override get(name: string): unknown {
    const v = this.byName.get(name);
    if (v === undefined) return undefined;
    let outcome = this.outcomes.get(name);
    if (outcome === undefined) {
      outcome = this.evaluateVariable(v);
      this.outcomes.set(name, outcome);
    }
    if ("error" in outcome) throw celError(outcome.error);
    return outcome.value;
  }

  private evaluateVariable(v: CompiledVariable): Outcome {
    const e = v.expression;
    if (e.kind === "failed") return { error: `composited variable "${v.name}" fails to compile: ${e.error}` };
    const r = evaluate(e.program, this.activation, PER_CALL_LIMIT);
    this.spent += r.cost;
    if (r.kind === "value") return { value: r.value };
    if (r.kind === "cost-limit-exceeded") {
      return {
        error: `composited variable "${v.name}" fails to evaluate: operation cancelled: actual cost limit exceeded`,
      };
    }
    return { error: `composited variable "${v.name}" fails to evaluate: ${r.message}` };
  }

  /** The variables' cost since the last call (compositionContext.GetAndResetCost). */
  takeCost(): number {
    const c = this.spent;
    this.spent = 0;
    return c;
  }
}
