/**
 * The adapter's plain CEL environment: the core language plus the strings extension as tollgate provides it,
 * without Kubernetes restrictions or schema types. It exists to run the official CEL conformance tests against
 * the engine adapter (test/conformance/cel-spec), which guards engine upgrades.
 */

import { rewriteSource } from "./compile.js";
import { applyCelGoLogicalOperators, type Environment, EvaluationError, renameMethodCalls } from "./engine.js";
import { kubernetesBaseEnvironment, METHOD_RENAMES } from "./library.js";

export type PlainResult =
  | { kind: "value"; value: unknown }
  | { kind: "error"; stage: "parse" | "check" | "eval"; message: string };

export interface PlainProgram {
  evaluate(bindings: Record<string, unknown>): PlainResult;
}

/**
 * Compiles an expression in a plain environment with the given variable declarations (name → CEL type name,
 * e.g. `int`, `list<string>`, `dyn`). `check: false` skips the type check (cel-spec `disable_check`).
 */
export function compilePlain(
  expression: string,
  declarations: Record<string, string> = {},
  options: { check?: boolean } = {},
): PlainProgram | { error: PlainResult & { kind: "error" } } {
  const env: Environment = kubernetesBaseEnvironment().clone();
  for (const [name, type] of Object.entries(declarations)) env.registerVariable(name, type);
  let program: ReturnType<Environment["parse"]>;
  try {
    program = env.parse(expression);
    const rewritten = rewriteSource(expression, program.ast);
    if (rewritten !== undefined) program = env.parse(rewritten);
  } catch (e) {
    return { error: { kind: "error", stage: "parse", message: (e as Error).message.split("\n")[0] ?? "" } };
  }
  renameMethodCalls(program.ast, METHOD_RENAMES);
  if (options.check !== false) {
    const c = program.check();
    if (!c.valid) return { error: { kind: "error", stage: "check", message: c.error?.message.split("\n")[0] ?? "" } };
  }
  applyCelGoLogicalOperators(program.ast);
  return {
    evaluate(bindings) {
      try {
        return { kind: "value", value: program(bindings) };
      } catch (e) {
        const message = e instanceof EvaluationError ? e.summary : (e as Error).message;
        return { kind: "error", stage: "eval", message };
      }
    },
  };
}
