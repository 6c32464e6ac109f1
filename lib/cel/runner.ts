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

/**
 * `lazy`: compile each version's rules on its first use instead of at load (for bundle artifacts, whose build
 * already compiled every rule and recorded the failures: a cold start then pays only for the kinds it serves).
 * Rules that fail to compile are left out either way; their failures are reported at load or in the artifact.
 */
export function createCelFamily(options: { lazy?: boolean } = {}): CelFamily {
  const programs = new WeakMap<CompiledCrdVersion, CelVersionProgram>();
  // Versions that share one schema share one compiled program.
  const bySchema = new WeakMap<object, CelVersionProgram>();
  const pending = new WeakSet<CompiledCrdVersion>();
  const compile = (version: CompiledCrdVersion, issues: CompileIssue[]): CelVersionProgram | undefined => {
    if (version.schema === null) return undefined;
    let p = bySchema.get(version.schema);
    if (p === undefined) {
      p = compileCelRules(version.schema, issues);
      bySchema.set(version.schema, p);
    }
    programs.set(version, p);
    return p;
  };
  return {
    compileVersion(version, issues) {
      if (version.schema === null || version.celRuleCount === 0) return;
      if (options.lazy === true) pending.add(version);
      else compile(version, issues);
    },
    runner: {
      run({ version, object, oldObject, ctx }) {
        let program = programs.get(version);
        if (program === undefined && pending.has(version)) {
          pending.delete(version);
          program = compile(version, []);
        }
        if (program === undefined || version.schema === null) return { errors: [], warnings: [] };
        return evaluateCelRules(program, version.schema, object, oldObject, ctx);
      },
    },
  };
}
