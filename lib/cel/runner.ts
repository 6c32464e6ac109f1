/**
 * The CEL family's entry point for the CRD pipeline: compiles every served version's rules at bundle load and
 * evaluates them per request (the CelRunner seam of lib/policy/crd-policy.ts).
 */
import type { CelRunner } from "../policy/crd-policy.js";
import type { CompiledCrdVersion } from "../schema/crd.js";
import type { CompileIssue } from "../schema/structural.js";
import { type CelVersionProgram, compileCelRules } from "./compile.js";
import { evaluateCelRules } from "./evaluate.js";

export interface CelFamily {
  /** Compiles the rules of one CRD version; issues are relative to the version's openAPIV3Schema. */
  compileVersion(version: CompiledCrdVersion, issues: CompileIssue[]): void;
  runner: CelRunner;
}

export function createCelFamily(): CelFamily {
  const programs = new WeakMap<CompiledCrdVersion, CelVersionProgram>();
  // Versions that share one schema share one compiled program.
  const bySchema = new WeakMap<object, CelVersionProgram>();
  return {
    compileVersion(version, issues) {
      if (version.schema === null || version.celRuleCount === 0) return;
      let p = bySchema.get(version.schema);
      if (p === undefined) {
        p = compileCelRules(version.schema, issues);
        bySchema.set(version.schema, p);
      }
      programs.set(version, p);
    },
    runner: {
      run({ version, object, oldObject, ctx }) {
        const program = programs.get(version);
        if (program === undefined || version.schema === null) return { errors: [], warnings: [] };
        return evaluateCelRules(program, version.schema, object, oldObject, ctx);
      },
    },
  };
}
