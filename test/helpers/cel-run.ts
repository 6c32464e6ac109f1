/**
 * Runs one CEL expression through lib/cel's production path (Kubernetes' libraries, the type check, cel-go's
 * runtime cost with no limit), with one `dyn` variable `x`: for tests of CEL semantics.
 */
import { compileExpression, createCelEnvironment, evaluate } from "../../lib/cel/index.js";

const env = createCelEnvironment({ variables: { x: "dyn" } });

/** The expression's value (bigint, string, …), `error: <message>`, `compile: <message>` or `cost limit`. */
export function runCel(expr: string, x: unknown = null): unknown {
  const c = compileExpression(env, expr);
  if (c.kind === "failed") return `compile: ${c.message}`;
  const r = evaluate(c.program, { x }, Number.POSITIVE_INFINITY);
  if (r.kind === "value") return r.value;
  return r.kind === "error" ? `error: ${r.message}` : "cost limit";
}
