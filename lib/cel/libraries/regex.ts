/**
 * Regular expressions with Go's RE2 semantics (the engine's use JavaScript regular expressions): cel-go's standard
 * `matches` (registered by the core library, core.ts) and the Kubernetes regex library (apiserver
 * pkg/cel/library/regex.go): `find`, `findAll`.
 */
import { compilePattern } from "../../go/regexp.js";
import { matchCost } from "../cost/builtins.js";
import { type CostOperand, sizeOf } from "../cost/operand.js";
import { REGEX_LENGTH, STRING_TRAVERSAL } from "../cost/range.js";
import type { RuntimeCharge } from "../cost/runtime.js";
import { actualSize } from "../cost/value-size.js";
import type { EngineRegistrar } from "../engine.js";
import { type CelLibrary, celError } from "./library.js";

/** A compiled pattern; a CEL runtime error with Go's text when it does not compile. */
export function regex(pattern: string) {
  const c = compilePattern(pattern);
  if ("error" in c) throw celError(c.error);
  return c;
}

/** Compiles a literal regular expression at compile time (an error message when it does not compile). */
export function checkLiteralPattern(pattern: string): string | undefined {
  const c = compilePattern(pattern);
  return "error" in c ? c.error : undefined;
}

function findAll(s: string, pattern: string, limit: bigint): string[] {
  const re = regex(pattern);
  const out: string[] = [];
  if (limit === 0n) return out;
  for (const m of re.findAll(s)) {
    out.push(m);
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}

function register(env: EngineRegistrar): void {
  env.registerFunction("string.find(string): string", (s: string, p: string) => regex(p).find(s) ?? "");
  env.registerFunction("string.findAll(string): list<string>", (s: string, p: string) => findAll(s, p, -1n));
  env.registerFunction("string.findAll(string, int): list<string>", (s: string, p: string, n: bigint) =>
    findAll(s, p, n),
  );
}

/** Kubernetes' estimate of `find` / `findAll`: like `matches`, with a result as long as the string at most. */
function findCost(target: CostOperand | undefined, args: readonly CostOperand[]) {
  if (target === undefined || args.length < 1) return undefined;
  return { cost: matchCost(target, args[0]!), resultSize: { min: 0, max: sizeOf(target).max } };
}

/** Kubernetes' runtime charge of `find` / `findAll`: the string's traversal (plus 1) times the pattern's factor. */
const findCharge: RuntimeCharge = (ops) =>
  Math.ceil((1 + actualSize(ops[0])) * STRING_TRAVERSAL) * Math.ceil(actualSize(ops[1]) * REGEX_LENGTH);

export const REGEX_LIBRARY: CelLibrary = {
  name: "regex",
  register,
  callCosts: {
    find: findCost,
    findAll: findCost,
  },
  runtimeCosts: {
    find: () => findCharge,
    findAll: () => findCharge,
  },
};
