/** cel-go's sets extension (ext/sets.go): `sets.contains`, `sets.equivalent`, `sets.intersects`. */
import { type CallCostEstimator, sizeOf } from "../cost/operand.js";
import { add, byFactor, mul, ONE } from "../cost/range.js";
import { always, type RuntimeCharge } from "../cost/runtime.js";
import { actualSize } from "../cost/value-size.js";
import type { EngineRegistrar } from "../engine.js";
import { celEquals } from "../equality.js";
import type { CelLibrary } from "./library.js";

/** The `sets` namespace constant. */
class SetsNamespace {}

function containsAll(a: unknown[], b: unknown[]): boolean {
  return b.every((x) => a.some((y) => celEquals(x, y)));
}

function register(env: EngineRegistrar): void {
  env.registerType("k8s.SetsNamespace", { ctor: SetsNamespace, fields: {} });
  env.registerConstant("sets", "k8s.SetsNamespace", new SetsNamespace());
  env.registerFunction(
    "k8s.SetsNamespace.contains(list<A>, list<A>): bool",
    (_n: SetsNamespace, a: unknown[], b: unknown[]) => containsAll(a, b),
  );
  env.registerFunction(
    "k8s.SetsNamespace.equivalent(list<A>, list<A>): bool",
    (_n: SetsNamespace, a: unknown[], b: unknown[]) => containsAll(a, b) && containsAll(b, a),
  );
  env.registerFunction(
    "k8s.SetsNamespace.intersects(list<A>, list<A>): bool",
    (_n: SetsNamespace, a: unknown[], b: unknown[]) => a.some((x) => b.some((y) => celEquals(x, y))),
  );
}

/** The overload estimators of ext/sets.go: the product of the two sizes (twice for `equivalent`), plus 1. */
function setsCost(factor: number): CallCostEstimator {
  return (_target, args) =>
    args.length === 2 ? { cost: add(byFactor(mul(sizeOf(args[0]!), sizeOf(args[1]!)), factor), ONE) } : undefined;
}

/** cel-go trackSetsCost: 1 plus the product of the two sizes × the factor. */
function setsCharge(factor: number): RuntimeCharge {
  return (ops) => 1 + Math.floor(actualSize(ops[0]) * actualSize(ops[1]) * factor);
}

export const SETS_EXTENSION: CelLibrary = {
  name: "sets extension",
  register,
  callCosts: {
    "sets.contains": setsCost(1),
    "sets.intersects": setsCost(1),
    "sets.equivalent": setsCost(2),
  },
  runtimeCosts: {
    "sets.contains": always(setsCharge(1)),
    "sets.intersects": always(setsCharge(1)),
    "sets.equivalent": always(setsCharge(2)),
  },
};
