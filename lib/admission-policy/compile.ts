/**
 * Compiles a ValidatingAdmissionPolicy's expressions once, as the plugin's compilePolicy does
 * (k8s.io/apiserver pkg/admission/plugin/policy/validating/plugin.go and pkg/admission/plugin/cel compile.go,
 * composition.go): variables first, in order, each in an environment whose `variables` has the earlier ones typed
 * by their expressions; then validations (bool), matchConditions (bool) and auditAnnotations (string or null) with
 * `authorizer`, and messageExpressions (string) without it. An expression that does not compile is kept with its
 * error: it fails when evaluated (`compilation error: ...`), as in the API server; a variable's error surfaces in
 * the expressions that use it. The problems are also reported at load, with the field path the API server's
 * validation gives them.
 */
import { type CelEnvironment, type CelProgram, celGoTypeName, compileExpression, formatIssues } from "../cel/index.js";
import type { PolicyDocument } from "./documents.js";
import {
  type OptionalDeclarations,
  policyEnvironment,
  type TypedDeclarations,
  variableFieldType,
} from "./environment.js";
import { LazyVariables } from "./variables.js";

/** One compiled expression: a program, or the compile error's text (`compilation failed: ...`, `must evaluate ...`). */
export type CompiledExpression =
  | { kind: "compiled"; text: string; program: CelProgram; outputType: string }
  | { kind: "failed"; text: string; error: string };

export interface CompiledVariable {
  name: string;
  expression: CompiledExpression;
}

export interface CompiledPolicyExpressions {
  variables: readonly CompiledVariable[];
  validations: readonly CompiledExpression[];
  /** Per validation: its messageExpression, or null when it has none. */
  messageExpressions: readonly (CompiledExpression | null)[];
  matchConditions: readonly { name: string; expression: CompiledExpression }[];
  auditAnnotations: readonly { key: string; expression: CompiledExpression }[];
}

/** A compile problem with the field path of the expression, for lint. */
export interface ExpressionProblem {
  path: string;
  expression: string;
  message: string;
}

/** `namespaceObject` is null for cluster-scoped requests and requests on Namespaces. */
const NULLABLE: ReadonlySet<string> = new Set(["namespaceObject"]);

export type Expected = "bool" | "string" | "string-or-null" | "any";

/** Compiles one expression of a policy, checking its output type as the plugin does. */
export function compileAdmissionExpression(env: CelEnvironment, text: string, expected: Expected): CompiledExpression {
  const r = compileExpression(env, text, { nullableVariables: NULLABLE });
  if (r.kind === "failed") {
    // The type reason does not occur without an expected type.
    const issues = r.reason === "compile" ? formatIssues(text, r.issues) : r.message;
    return { kind: "failed", text, error: `compilation failed: ${issues}` };
  }
  const got = r.outputType;
  if (expected === "bool" || expected === "string") {
    if (got !== expected) {
      return { kind: "failed", text, error: `must evaluate to ${expected} but got ${celGoTypeName(got)}` };
    }
  } else if (expected === "string-or-null" && got !== "string" && got !== "null") {
    return { kind: "failed", text, error: `must evaluate to one of [string null_type] but got ${celGoTypeName(got)}` };
  }
  return { kind: "compiled", text, program: r.program, outputType: got };
}

type Note = (path: string, e: CompiledExpression) => void;

/**
 * A policy's variables, in order, each compiled where `variables` has the earlier ones typed by their expressions
 * (composition.go CompileAndStoreVariables); and the environment of the policy's other expressions.
 */
export function compileVariables(
  doc: PolicyDocument,
  typed?: TypedDeclarations,
  note: Note = () => {},
): { variables: CompiledVariable[]; fieldTypes: Record<string, string>; env: CelEnvironment } {
  const withAuthz: OptionalDeclarations = { params: doc.paramKind !== undefined, authorizer: true };
  const fieldTypes: Record<string, string> = {};
  const variables: CompiledVariable[] = [];
  doc.variables.forEach((v, i) => {
    const env = policyEnvironment(withAuthz, fieldTypes, LazyVariables, typed);
    const expression = compileAdmissionExpression(env, v.expression, "any");
    note(`spec.variables[${i}].expression`, expression);
    variables.push({ name: v.name, expression });
    fieldTypes[v.name] = variableFieldType(expression.kind === "compiled" ? expression.outputType : undefined);
  });
  return { variables, fieldTypes, env: policyEnvironment(withAuthz, fieldTypes, LazyVariables, typed) };
}

/** Compiles every expression of a policy; `problems` gets one entry per expression that fails. */
export function compilePolicyExpressions(
  doc: PolicyDocument,
  problems: ExpressionProblem[],
): CompiledPolicyExpressions {
  const withoutAuthz: OptionalDeclarations = { params: doc.paramKind !== undefined, authorizer: false };
  const note: Note = (path, e) => {
    if (e.kind === "failed") problems.push({ path, expression: e.text, message: e.error });
  };
  const { variables, fieldTypes, env } = compileVariables(doc, undefined, note);
  const messageEnv = policyEnvironment(withoutAuthz, fieldTypes, LazyVariables);
  const validations = doc.validations.map((v, i) => {
    const e = compileAdmissionExpression(env, v.expression, "bool");
    note(`spec.validations[${i}].expression`, e);
    return e;
  });
  const messageExpressions = doc.validations.map((v, i) => {
    if (v.messageExpression === "") return null;
    const e = compileAdmissionExpression(messageEnv, v.messageExpression, "string");
    note(`spec.validations[${i}].messageExpression`, e);
    return e;
  });
  const matchConditions = doc.matchConditions.map((m, i) => {
    const expression = compileAdmissionExpression(env, m.expression, "bool");
    note(`spec.matchConditions[${i}].expression`, expression);
    return { name: m.name, expression };
  });
  const auditAnnotations = doc.auditAnnotations.map((a, i) => {
    const expression = compileAdmissionExpression(env, a.valueExpression, "string-or-null");
    note(`spec.auditAnnotations[${i}].valueExpression`, expression);
    return { key: a.key, expression };
  });
  return { variables, validations, messageExpressions, matchConditions, auditAnnotations };
}
