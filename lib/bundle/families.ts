/**
 * The rule families the bundle loader offers documents to, besides CRDs (compiled in load.ts itself).
 * Each family lives in its own folder and exports one compiler factory.
 */
import { createDeclarativeCompiler } from "../declarative/family.js";
import { createKubevirtCompiler } from "../kubevirt/family.js";
import type { FamilyCompilerFactory } from "../policy/family.js";

export const FAMILY_COMPILERS: readonly FamilyCompilerFactory[] = [createKubevirtCompiler, createDeclarativeCompiler];
