/** The Kubernetes semver library (apiserver pkg/cel/library/semverlib.go, Kubernetes 1.33+). */
import { constantCost, parseCost, typedEqualityCost } from "../cost/operand.js";
import { STRING_TRAVERSAL } from "../cost/range.js";
import { always, firstOperandTraversal } from "../cost/runtime.js";
import type { EngineRegistrar } from "../engine.js";
import { isSemver, parseSemver, Semver } from "../implementations/semver.js";
import { type CelLibrary, libraryCall } from "./library.js";

const SEMVER_T = "kubernetes.Semver";

function register(env: EngineRegistrar): void {
  env.registerType(SEMVER_T, { ctor: Semver, fields: {} });
  env.registerFunction(
    `semver(string): ${SEMVER_T}`,
    libraryCall((s: string) => parseSemver(s)),
  );
  env.registerFunction(
    `semver(string, bool): ${SEMVER_T}`,
    libraryCall((s: string, n: boolean) => parseSemver(s, n)),
  );
  env.registerFunction(
    "isSemver(string): bool",
    libraryCall((s: string) => isSemver(s)),
  );
  env.registerFunction(
    "isSemver(string, bool): bool",
    libraryCall((s: string, n: boolean) => isSemver(s, n)),
  );
  env.registerFunction(`${SEMVER_T}.major(): int`, (v: Semver) => v.majorInt());
  env.registerFunction(`${SEMVER_T}.minor(): int`, (v: Semver) => v.minorInt());
  env.registerFunction(`${SEMVER_T}.patch(): int`, (v: Semver) => v.patchInt());
  env.registerFunction(`${SEMVER_T}.isGreaterThan(${SEMVER_T}): bool`, (a: Semver, b: Semver) => a.isGreaterThan(b));
  env.registerFunction(`${SEMVER_T}.isLessThan(${SEMVER_T}): bool`, (a: Semver, b: Semver) => a.isLessThan(b));
  env.registerFunction(`${SEMVER_T}.compareTo(${SEMVER_T}): int`, (a: Semver, b: Semver) => a.compareTo(b));
  env.registerOperator(`${SEMVER_T} == ${SEMVER_T}`, (a: Semver, b: Semver) => a.equals(b));
}

export const SEMVER_LIBRARY: CelLibrary = {
  name: "semver",
  register,
  runtimeCosts: {
    semver: always(firstOperandTraversal(1)),
    isSemver: always(firstOperandTraversal(1)),
  },
  callCosts: {
    semver: parseCost(STRING_TRAVERSAL),
    isSemver: parseCost(STRING_TRAVERSAL),
    major: constantCost,
    minor: constantCost,
    patch: constantCost,
    isGreaterThan: constantCost,
    isLessThan: constantCost,
    compareTo: constantCost,
    "_==_": typedEqualityCost(SEMVER_T, constantCost),
  },
};
