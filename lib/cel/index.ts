/**
 * CEL as kube-apiserver 1.36 evaluates it, for every family that runs CEL expressions (CRD validation rules,
 * admission policies). README.md in this folder explains the API and the layout. To compile and run an expression
 * in an environment of your own:
 *
 * ```ts
 * const env = createCelEnvironment({
 *   objectTypes: [{ name: "example.Request", fields: { name: "string", labels: "map<string, string>" } }],
 *   variables: { request: "example.Request", params: "dyn" },
 * });
 * const r = compileExpression(env, "request.name.startsWith(params.prefix)", { expectedType: "bool" });
 * if (r.kind === "failed") throw new Error(`compilation failed: ${r.message}`);
 * const out = evaluate(r.program, { request: { name: "web-1", labels: new Map() }, params: { prefix: "web" } }, 1_000_000);
 * // out: { kind: "value", value: true, cost: 4 } | { kind: "error", message, … } | { kind: "cost-limit-exceeded" }
 * ```
 */
export type { CostEstimate } from "./cost/range.js";
export { schemaSizes } from "./cost/schema-sizes.js";
export { splitTopLevel } from "./cost/type-names.js";
export { type EngineRegistrar, Optional } from "./engine.js";
export {
  type CelDeclarations,
  type CelEnvironment,
  type CelEnvironmentOptions,
  type CelObjectType,
  createCelEnvironment,
} from "./environment.js";
export { type CompileIssue, celGoTypeName, formatIssues } from "./issues.js";
export { KUBERNETES_LIBRARIES } from "./libraries/kubernetes.js";
export { type CelLibrary, celError, libraryCall } from "./libraries/library.js";
export { chargeRuntimeCost } from "./metering.js";
export {
  type CelProgram,
  type CompileOptions,
  type CompileResult,
  compileExpression,
  type EvaluationResult,
  evaluate,
  usesVariable,
} from "./program.js";
