/**
 * The per-rule pipeline of the real validator (spec/kubevirt-validator-behaviour.md, sections 5, 6 and 8), with
 * tollgate's improvements (issue "KubeVirt template validation annotations"):
 *
 * 0. CPU defaults: with at least one rule and a `cpu` block, absent or zero `sockets`/`cores`/`threads` read as 1.
 * For each rule, in order, all of them (greedy):
 * 1. a name an earlier rule already has: error "duplicate rule name" (before anything else);
 * 2. `rule` must be integer/string/regex/enum: an empty one is an error; an unknown one is **ignored** with a
 *    warning (improvement 1; the validator rejects);
 * 3. `message` must be non-empty: error;
 * 4. `valid`: looked up on the VM (no reference fallback); a lookup error or no value skips the rule;
 * 5. arguments: JSONPath-valued `min`/`max`/`minLength`/`maxLength`/`values` resolve on the VM, or on the reference
 *    VM when the lookup fails, to exactly one value; a `regex` that RE2 refuses is an error;
 * 6. no `path`: error (improvement 5; the validator's handler crashes);
 * 7. the path's values (reference fallback on a lookup error; an empty result is the error "no values were found"),
 *    each converted (values.ts); the rule is satisfied only when every value passes.
 * A `justWarning` rule that is not satisfied is a warning (improvement 2); its errors are still errors.
 */
import { type IntArg, isKnownType, type Rule, type RulePath, ruleLabel, type StringArg } from "./annotation.js";
import { findResults, JsonPathEvalError, referenceRoot, type Val, vmRoot } from "./jsonpath/evaluate.js";
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
  /** An unknown rule type: not evaluated (improvement 1). */
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

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The VM with the validator's CPU defaults applied: when `spec.template.spec.domain.cpu` is an object, each of
 * `sockets`, `cores`, `threads` that is absent or 0 becomes 1. The input is not modified.
 */
export function withCpuDefaults(vm: Record<string, unknown>): Record<string, unknown> {
  const spec = vm.spec;
  if (!isRecord(spec) || !isRecord(spec.template)) return vm;
  const tspec = spec.template.spec;
  if (!isRecord(tspec) || !isRecord(tspec.domain)) return vm;
  const cpu = tspec.domain.cpu;
  if (!isRecord(cpu)) return vm;
  const isZero = (v: unknown) => v === undefined || v === null || v === 0 || v === 0n;
  if (!isZero(cpu.sockets) && !isZero(cpu.cores) && !isZero(cpu.threads)) return vm;
  const newCpu = { ...cpu };
  for (const k of ["sockets", "cores", "threads"]) if (isZero(newCpu[k])) newCpu[k] = 1;
  return {
    ...vm,
    spec: { ...spec, template: { ...spec.template, spec: { ...tspec, domain: { ...tspec.domain, cpu: newCpu } } } },
  };
}

/** A path's values on the VM, or on the reference VM when the lookup on the VM fails (section 4). */
function lookup(path: RulePath, vm: Val, what: string): Val[] {
  try {
    return findResults(path.template, vm);
  } catch (e) {
    if (!(e instanceof JsonPathEvalError)) throw e;
    try {
      return findResults(path.template, referenceRoot());
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

function intArg(arg: IntArg, key: string, vm: Val): Rational {
  if ("literal" in arg) return integer(arg.literal);
  const vals = lookup(arg.path, vm, `"${key}"`);
  const converted = vals.map((v) => toRational(v));
  for (const c of converted) if ("error" in c) throw new RuleError(`"${key}" (${arg.text}): ${c.error}`, false);
  if (converted.length !== 1) {
    throw new RuleError(`"${key}" (${arg.text}): expected one value, found ${converted.length}`, false);
  }
  return converted[0] as Rational;
}

function stringArg(arg: StringArg, key: string, vm: Val): string {
  if ("literal" in arg) return arg.literal;
  const vals = lookup(arg.path, vm, `"${key}"`);
  if (vals.length !== 1) throw new RuleError(`"${key}" (${arg.text}): expected one value, found ${vals.length}`, false);
  return toText(vals[0]!);
}

interface Bounds {
  min?: Rational;
  max?: Rational;
}

function within(v: Rational, b: Bounds): boolean {
  if (b.min !== undefined && compare(v, b.min) < 0) return false;
  if (b.max !== undefined && compare(v, b.max) > 0) return false;
  return true;
}

function bounds(minArg: IntArg | undefined, maxArg: IntArg | undefined, keys: [string, string], vm: Val): Bounds {
  const b: Bounds = {};
  if (minArg !== undefined) b.min = intArg(minArg, keys[0], vm);
  if (maxArg !== undefined) b.max = intArg(maxArg, keys[1], vm);
  return b;
}

/** Applies one well-formed, applicable rule: the failing values, or throws RuleError. */
function apply(rule: Rule, vm: Val): Failure[] {
  // Specialize: arguments and the regex, before the path (section 6, step 4).
  let check: (v: Val) => boolean;
  switch (rule.type) {
    case "integer": {
      const b = bounds(rule.min, rule.max, ["min", "max"], vm);
      const values = new Map<Val, Rational>();
      check = (v) => within(values.get(v)!, b);
      return applyPath(rule, vm, (vals) => {
        for (const v of vals) {
          const r = toRational(v);
          if ("error" in r) throw new RuleError(r.error, false);
          values.set(v, r);
        }
        return vals.filter((v) => !check(v));
      });
    }
    case "string": {
      const b = bounds(rule.minLength, rule.maxLength, ["minLength", "maxLength"], vm);
      check = (v) => within(integer(BigInt(textLength(toText(v)))), b);
      break;
    }
    case "enum": {
      const allowed = new Set((rule.values ?? []).map((a, i) => stringArg(a, `values[${i}]`, vm)));
      check = (v) => allowed.has(toText(v));
      break;
    }
    default: {
      const re = rule.compiledRegex;
      if (re === undefined || "error" in re) {
        throw new RuleError(`"regex" ${JSON.stringify(rule.regex)} does not compile: ${re?.error ?? ""}`, true);
      }
      check = (v) => re.test(toText(v));
      break;
    }
  }
  return applyPath(rule, vm, (vals) => vals.filter((v) => !check(v)));
}

function applyPath(rule: Rule, vm: Val, failing: (vals: Val[]) => Val[]): Failure[] {
  if (rule.path === undefined) throw new RuleError(`missing required key "path"`, true);
  const vals = lookup(rule.path, vm, "path");
  const bad = failing(vals);
  if (vals.length === 0) throw new RuleError(`no values were found at ${rule.path.expr}`, false);
  return bad.map((value) => ({ value }));
}

function evaluateRule(rule: Rule, vm: Val): RuleOutcome {
  if (rule.duplicateOf !== undefined) {
    return { kind: "error", problem: `duplicate rule name (rule #${rule.duplicateOf} has it too)`, policy: true };
  }
  if (rule.type === "") return { kind: "error", problem: `missing required key "rule"`, policy: true };
  if (!isKnownType(rule.type)) {
    return {
      kind: "ignored",
      problem: `unknown rule type ${JSON.stringify(rule.type)}: the rule is ignored (known types: integer, string, regex, enum)`,
    };
  }
  if (rule.message === "") return { kind: "error", problem: `missing required key "message"`, policy: true };
  if (rule.valid !== undefined) {
    try {
      if (findResults(rule.valid.template, vm).length === 0) return { kind: "skipped" };
    } catch (e) {
      if (e instanceof JsonPathEvalError) return { kind: "skipped" };
      throw e;
    }
  }
  try {
    const failures = apply(rule, vm);
    return failures.length === 0 ? { kind: "satisfied" } : { kind: "unsatisfied", failures };
  } catch (e) {
    if (e instanceof RuleError) return { kind: "error", problem: e.message, policy: e.policy };
    if (e instanceof JsonPathEvalError) return { kind: "error", problem: e.message, policy: false };
    throw e;
  }
}

/** Evaluates every rule on a VM (greedy), after the CPU defaults. Never throws for a bad VM. */
export function evaluateRules(rules: readonly Rule[], vm: Record<string, unknown>): RuleResult[] {
  if (rules.length === 0) return [];
  const root = vmRoot(withCpuDefaults(vm));
  return rules.map((rule) => ({ rule, outcome: evaluateRule(rule, root) }));
}

export { ruleLabel };
