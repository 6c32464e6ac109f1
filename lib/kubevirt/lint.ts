/**
 * Template lint (`tollgate lint`, the audit's policy failures): every problem of an annotation that can be found
 * without a VM:
 * it does not parse, rules with missing keys, unknown types, duplicate names, regexes RE2 rejects, JSONPaths that
 * cannot resolve against the typed VirtualMachine, rules without arguments.
 *
 * Severity: `error` when the rule (or the annotation) cannot be used, `warning` when it is ignored (unknown types),
 * never applies (a `valid` that cannot resolve) or is meaningless (no arguments).
 */
import { formatValue } from "../field/message.js";
import {
  type IntArg,
  isKnownType,
  isParseFailure,
  type Rule,
  type RulePath,
  type RuleSet,
  ruleLabel,
} from "./annotation.js";
import { staticPathProblem } from "./jsonpath/static-check.js";

export interface LintProblem {
  readonly severity: "error" | "warning";
  /** The rule concerned; absent when the annotation as a whole fails. */
  readonly rule?: Pick<Rule, "index" | "name">;
  readonly message: string;
}

function pathProblem(p: RulePath): string | undefined {
  return staticPathProblem(p.template);
}

function argProblems(rule: Rule, keys: readonly ("min" | "max" | "minLength" | "maxLength")[]): string[] {
  const out: string[] = [];
  for (const k of keys) {
    const arg: IntArg | undefined = rule[k];
    if (arg === undefined || "literal" in arg) continue;
    const p = pathProblem(arg.path);
    if (p !== undefined) out.push(`"${k}" ${arg.text} cannot resolve against a VirtualMachine: ${p}`);
  }
  return out;
}

/** Lints one rule; its problems in the order the validator would meet them. */
function lintRule(rule: Rule): LintProblem[] {
  const label = ruleLabel(rule);
  const out: LintProblem[] = [];
  const error = (message: string) => out.push({ severity: "error", rule, message: `${label}: ${message}` });
  const warning = (message: string) => out.push({ severity: "warning", rule, message: `${label}: ${message}` });

  if (rule.duplicateOf !== undefined) {
    error(`duplicate rule name (rule #${rule.duplicateOf} has it too)`);
    return out;
  }
  if (rule.type === "") {
    error(`missing required key "rule"`);
    return out;
  }
  if (!isKnownType(rule.type)) {
    warning(
      `unknown rule type ${formatValue(rule.type)}: the rule is ignored (known types: integer, string, regex, enum)`,
    );
    return out;
  }
  if (rule.message === "") error(`missing required key "message"`);
  if (rule.valid !== undefined) {
    const p = pathProblem(rule.valid);
    if (p !== undefined) {
      warning(`"valid" ${rule.valid.expr} cannot resolve against a VirtualMachine (${p}): the rule never applies`);
    }
  }
  if (rule.path === undefined) error(`missing required key "path"`);
  else {
    const p = pathProblem(rule.path);
    if (p !== undefined) error(`"path" ${rule.path.expr} cannot resolve against a VirtualMachine: ${p}`);
  }
  switch (rule.type) {
    case "integer":
      for (const m of argProblems(rule, ["min", "max"])) error(m);
      if (rule.min === undefined && rule.max === undefined)
        warning(`an integer rule without "min" or "max" always passes`);
      break;
    case "string":
      for (const m of argProblems(rule, ["minLength", "maxLength"])) error(m);
      if (rule.minLength === undefined && rule.maxLength === undefined) {
        warning(`a string rule without "minLength" or "maxLength" always passes`);
      }
      break;
    case "enum":
      for (const [i, v] of (rule.values ?? []).entries()) {
        if ("literal" in v) continue;
        const p = pathProblem(v.path);
        if (p !== undefined) error(`"values[${i}]" ${v.text} cannot resolve against a VirtualMachine: ${p}`);
      }
      if ((rule.values ?? []).length === 0) warning(`an enum rule without "values" never passes`);
      break;
    case "regex": {
      const re = rule.compiledRegex;
      if (re !== undefined && "error" in re)
        error(`"regex" ${JSON.stringify(rule.regex)} does not compile: ${re.error}`);
      break;
    }
  }
  return out;
}

/** Lints a parsed annotation. */
export function lintRuleSet(set: RuleSet): LintProblem[] {
  if (isParseFailure(set)) return [{ severity: "error", message: `cannot parse the rules: ${set.error}` }];
  return set.rules.flatMap(lintRule);
}
