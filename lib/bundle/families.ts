/**
 * The rule families the bundle loader offers files and documents to, in the API server's order (lib/field/error.ts
 * RULE_FAMILIES). Each family lives in its own folder and exports one compiler factory.
 */
import { createAdmissionPolicyCompiler } from "../admission-policy/family.js";
import { createCrdCompiler } from "../crd/family.js";
import { createDeclarativeCompiler } from "../declarative/family.js";
import { createKubevirtCompiler } from "../kubevirt/family.js";
import { createPodSecurityCompiler } from "../pod-security/family.js";
import type { FamilyCompilerFactory } from "../policy/family.js";

export const FAMILY_COMPILERS: readonly FamilyCompilerFactory[] = [
  createCrdCompiler,
  createKubevirtCompiler,
  createDeclarativeCompiler,
  createPodSecurityCompiler,
  createAdmissionPolicyCompiler,
];
