/**
 * The per-rule pipeline of the real validator (spec/kubevirt-validator-behaviour.md, sections 5, 6 and 8), with
 * tollgate's deliberate departures from it (marked "unlike the validator"):
 *
 * 0. CPU defaults: with at least one rule and a `cpu` block, absent or zero `sockets`/`cores`/`threads` read as 1.
 * For each rule, in order, all of them (greedy):
 * 1. a name an earlier rule already has: error "duplicate rule name" (before anything else);
 * 2. `rule` must be integer/string/regex/enum: an empty one is an error; an unknown one is **ignored** with a
 *    warning (unlike the validator, which rejects the VM: the format text says unknown types are ignored);
 * 3. `message` must be non-empty: error;
 * 4. `valid`: looked up on the VM (no reference fallback); a lookup error or no value skips the rule;
 * 5. arguments: JSONPath-valued `min`/`max`/`minLength`/`maxLength`/`values` resolve on the VM, or on the reference
 *    VM when the lookup fails, to exactly one value; a `regex` that RE2 refuses is an error;
 * 6. no `path`: error (unlike the validator, whose handler crashes on it);
 * 7. the path's values (reference fallback on a lookup error; an empty result is the error "no values were found"),
 *    each converted (values.ts); the rule is satisfied only when every value passes.
 * A `justWarning` rule that is not satisfied is a warning returned to the user (unlike the validator, which only logs
 * it, and lists it among the causes when another rule rejects the VM); its errors are still errors.
 */
import { formatValue } from "../field/message.js";
import { isMapping } from "../objects/mapping.js";
import { type IntArg, isKnownType, type Rule, type RulePath, ruleLabel, type StringArg } from "./annotation.js";
import {
  EvalBudget,
  EvalBudgetExhausted,
  findResults,
  JsonPathEvalError,
  referenceRoot,
  type Val,
  vmRoot,
} from "./jsonpath/evaluate.js";
import { staticPathProblem } from "./jsonpath/static-check.js";
import { compare, integer, type Rational } from "./quantity.js";
import { textLength, toRational, toText } from "./values.js";

/** One value that broke a rule. */
export interface Failure {
  readonly value: Val;
}

export type RuleOutcome =
  | { readonly kind: "skipped" }
  | { readonly kind: "satisfied" }
  /** An unknown rule type: not evaluated, a warning (the format text says unknown types are ignored). */
  | { readonly kind: "ignored"; readonly problem: string }
  | { readonly kind: "unsatisfied"; readonly failures: readonly Failure[] }
  /**
   * The rule cannot be evaluated. `policy` marks problems of the rule itself (found without looking at a VM: a
   * duplicate name, a missing key, a bad regex) as opposed to problems of this VM (nothing to read, a wrong type).
   */
  | { readonly kind: "error"; readonly problem: string; readonly policy: boolean };

export interface RuleResult {
  readonly rule: Rule;
  readonly outcome: RuleOutcome;
}

class RuleError extends Error {
  constructor(
    message: string,
    readonly policy: boolean,
  ) {
    super(message);
  }
}

/**
 * The VM with the validator's CPU defaults applied: when `spec.template.spec.domain.cpu` is an object, each of
 * `sockets`, `cores`, `threads` that is absent or 0 becomes 1. The input is not modified.
 */
export function withCpuDefaults(vm: Record<string, unknown>): Record<string, unknown> {
  const spec = vm.spec;
  if (!isMapping(spec) || !isMapping(spec.template)) return vm;
  const tspec = spec.template.spec;
  if (!isMapping(tspec) || !isMapping(tspec.domain)) return vm;
  const cpu = tspec.domain.cpu;
  if (!isMapping(cpu)) return vm;
  const isZero = (v: unknown) => v === undefined || v === null || v === 0 || v === 0n;
  if (!isZero(cpu.sockets) && !isZero(cpu.cores) && !isZero(cpu.threads)) return vm;
  const newCpu = { ...cpu };
  for (const k of ["sockets", "cores", "threads"]) if (isZero(newCpu[k])) newCpu[k] = 1;
  return {
    ...vm,
    spec: { ...spec, template: { ...spec.template, spec: { ...tspec, domain: { ...tspec.domain, cpu: newCpu } } } },
  };
}

/** One VM's evaluation: the VM (with CPU defaults), the reference VM, and the work budget they share. */
class Evaluation {
  readonly vm: Val;
  private readonly reference = referenceRoot();
  readonly budget = new EvalBudget(MAX_VALUES_PER_VM);

  constructor(vm: Record<string, unknown>) {
    this.vm = vmRoot(withCpuDefaults(vm));
  }

  /** Whether `valid` finds a value on the VM itself (no reference fallback; any failure means no). */
  applies(valid: RulePath): boolean {
    try {
      return findResults(valid.template, this.vm, this.budget).length > 0;
    } catch (e) {
      if (e instanceof JsonPathEvalError) return false;
      throw e;
    }
  }

  /** A path's values on the VM, or on the reference VM when the lookup on the VM fails (section 4). */
  lookup(path: RulePath, what: string): Val[] {
    try {
      return findResults(path.template, this.vm, this.budget);
    } catch (e) {
      if (!(e instanceof JsonPathEvalError)) throw e;
      try {
        return findResults(path.template, this.reference, this.budget);
      } catch (e2) {
        if (!(e2 instanceof JsonPathEvalError)) throw e2;
        // A path no VirtualMachine has is a defect of the rule; one this VM lacks (a map key) is the VM's.
        const never = staticPathProblem(path.template);
        if (never !== undefined) {
          throw new RuleError(
            `invalid JSONPath: ${what} ${path.expr} cannot resolve against a VirtualMachine (${never})`,
            true,
          );
        }
        throw new RuleError(`invalid JSONPath: ${what} ${path.expr} cannot be resolved (${e.message})`, false);
      }
    }
  }

  /** An integer argument: a literal, or a JSONPath that yields exactly one integer or quantity (section 8). */
  intArg(arg: IntArg | undefined, key: string): Rational | undefined {
    if (arg === undefined) return undefined;
    if ("literal" in arg) return integer(arg.literal);
    const converted = this.lookup(arg.path, `"${key}"`).map(toRational);
    for (const c of converted) if ("error" in c) throw new RuleError(`"${key}" (${arg.text}): ${c.error}`, false);
    if (converted.length !== 1) {
      throw new RuleError(`"${key}" (${arg.text}): expected one value, found ${converted.length}`, false);
    }
    return converted[0] as Rational;
  }

  /** A `values` entry: a literal, or a JSONPath that yields exactly one value. */
  stringArg(arg: StringArg, key: string): string {
    if ("literal" in arg) return arg.literal;
    const vals = this.lookup(arg.path, `"${key}"`);
    if (vals.length !== 1) {
      throw new RuleError(`"${key}" (${arg.text}): expected one value, found ${vals.length}`, false);
    }
    return toText(vals[0]!);
  }
}

/** Most values all the rules of one VM may make together (a few hundred milliseconds of work at worst). */
const MAX_VALUES_PER_VM = 1_000_000;

function within(v: Rational, min: Rational | undefined, max: Rational | undefined): boolean {
  if (min !== undefined && compare(v, min) < 0) return false;
  if (max !== undefined && compare(v, max) > 0) return false;
  return true;
}

/** How a rule type tests one value: true when it passes; throws RuleError when the value cannot be used. */
type Check = (v: Val) => boolean;

/** Specialize (section 6, step 4): the rule's arguments resolved and its regex compiled, as a check of one value. */
function specialize(rule: Rule, ev: Evaluation): Check {
  switch (rule.type) {
    case "integer": {
      const min = ev.intArg(rule.min, "min");
      const max = ev.intArg(rule.max, "max");
      return (v) => {
        const r = toRational(v);
        if ("error" in r) throw new RuleError(r.error, false);
        return within(r, min, max);
      };
    }
    case "string": {
      const min = ev.intArg(rule.minLength, "minLength");
      const max = ev.intArg(rule.maxLength, "maxLength");
      return (v) => within(integer(BigInt(textLength(toText(v)))), min, max);
    }
    case "enum": {
      const allowed = new Set((rule.values ?? []).map((a, i) => ev.stringArg(a, `values[${i}]`)));
      return (v) => allowed.has(toText(v));
    }
    default: {
      const re = rule.compiledRegex;
      if (re === undefined || "error" in re) {
        throw new RuleError(`"regex" ${JSON.stringify(rule.regex)} does not compile: ${re?.error ?? ""}`, true);
      }
      return (v) => re.test(toText(v));
    }
  }
}

/** Apply (section 6, step 5): every value must pass; values that cannot be used are errors before "no values". */
function apply(rule: Rule, ev: Evaluation, check: Check): Failure[] {
  if (rule.path === undefined) throw new RuleError(`missing required key "path"`, true);
  const vals = ev.lookup(rule.path, "path");
  const failures = vals.filter((v) => !check(v)).map((value) => ({ value }));
  if (vals.length === 0) throw new RuleError(`no values were found at ${rule.path.expr}`, false);
  return failures;
}

function evaluateRule(rule: Rule, ev: Evaluation): RuleOutcome {
  if (rule.duplicateOf !== undefined) {
    return { kind: "error", problem: `duplicate rule name (rule #${rule.duplicateOf} has it too)`, policy: true };
  }
  if (rule.type === "") return { kind: "error", problem: `missing required key "rule"`, policy: true };
  if (!isKnownType(rule.type)) {
    return {
      kind: "ignored",
      problem: `unknown rule type ${formatValue(rule.type)}: the rule is ignored (known types: integer, string, regex, enum)`,
    };
  }
  if (rule.message === "") return { kind: "error", problem: `missing required key "message"`, policy: true };
  try {
    if (rule.valid !== undefined && !ev.applies(rule.valid)) return { kind: "skipped" };
    const failures = apply(rule, ev, specialize(rule, ev));
    return failures.length === 0 ? { kind: "satisfied" } : { kind: "unsatisfied", failures };
  } catch (e) {
    if (e instanceof RuleError) return { kind: "error", problem: e.message, policy: e.policy };
    if (e instanceof EvalBudgetExhausted) return { kind: "error", problem: e.message, policy: true };
    throw e;
  }
}

/** Evaluates every rule on a VM (greedy), after the CPU defaults. Never throws for a bad VM. */
export function evaluateRules(rules: readonly Rule[], vm: Record<string, unknown>): RuleResult[] {
  if (rules.length === 0) return [];
  const ev = new Evaluation(vm);
  return rules.map((rule) => ({ rule, outcome: evaluateRule(rule, ev) }));
}

export { ruleLabel };
