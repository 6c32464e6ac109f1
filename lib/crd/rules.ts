/**
 * The CEL rules (`x-kubernetes-validations`) of the CRD family, evaluated per request. Every rule is checked at load
 * (its problems are the load's failures, as the API server reports them when the CRD is written); each schema
 * node's programs are made once, on the first validation that reaches the node, so a load (a cold start, `tollgate
 * lint`) pays only for the rules its objects meet. Bundle artifacts, whose build already checked every rule and
 * recorded the failures, skip the checks.
 */
import { type CelVersionProgram, compileCelRules } from "../cel/crd/compile.js";
import { evaluateCelRules } from "../cel/crd/evaluate.js";
import type { ErrorContext, FieldError } from "../field/error.js";
import type { CompileIssue } from "../schema/structural.js";
import type { CompiledCrdVersion } from "./compile.js";

export interface CrdRules {
  /** Compiles the rules of one CRD version; issues are relative to the version's openAPIV3Schema. */
  compileVersion(version: CompiledCrdVersion, issues: CompileIssue[]): void;
  /** The CEL results of one object against its version's rules. Rules that failed to compile are left out. */
  evaluate(
    version: CompiledCrdVersion,
    object: Record<string, unknown>,
    oldObject: Record<string, unknown> | undefined,
    ctx: ErrorContext,
  ): { errors: FieldError[]; warnings: FieldError[] };
}

export function createCrdRules(options: { lazy: boolean }): CrdRules {
  const programs = new WeakMap<CompiledCrdVersion, CelVersionProgram>();
  // Versions that share one schema share one compiled program.
  const bySchema = new WeakMap<object, CelVersionProgram>();
  const compile = (version: CompiledCrdVersion, issues: CompileIssue[]): CelVersionProgram | undefined => {
    if (version.schema === null) return undefined;
    let p = bySchema.get(version.schema);
    if (p === undefined) {
      p = compileCelRules(version.schema, issues, { lazy: options.lazy, programsOnFirstUse: true });
      bySchema.set(version.schema, p);
    }
    programs.set(version, p);
    return p;
  };
  return {
    compileVersion(version, issues) {
      if (version.schema === null || version.celRuleCount === 0) return;
      compile(version, issues);
    },
    evaluate(version, object, oldObject, ctx) {
      const program = programs.get(version);
      if (program === undefined || version.schema === null) return { errors: [], warnings: [] };
      return evaluateCelRules(program, version.schema, object, oldObject, ctx);
    },
  };
}
