/**
 * Evaluating a compiled policy for one (binding, param), as the plugin's validator does
 * (k8s.io/apiserver pkg/admission/plugin/policy/validating/validator.go, pkg/admission/plugin/cel condition.go and
 * activation.go, webhook/matchconditions/matcher.go):
 *
 * 1. matchConditions (budget 2,500,000, no namespaceObject): a false one skips the policy, even when another
 *    errored; otherwise an error follows the failurePolicy;
 * 2. validations (budget 10,000,000, each expression at most 1,000,000): a decision each, in order;
 * 3. messageExpressions (the budget left) for every validation, used by the failing ones (trimmed, non-empty, one
 *    line, at most 5120 bytes; else the message, else `failed expression: ...`);
 * 4. auditAnnotations (a fresh budget, no authorizer): published when a non-empty string.
 *
 * Errors deny under failurePolicy Fail and are ignored under Ignore. Running out of budget stops the phase.
 */
import { type CelProgram, evaluate } from "../cel/index.js";
import { AuthorizerValue, requestResourceCheck } from "./authz-library.js";
import type { CompiledExpression, CompiledPolicyExpressions } from "./compile.js";
import type { PolicyDocument } from "./documents.js";
import type { AuditAnnotationResult, PolicyDecision, ValidateInput, ValidateResult, Validator } from "./validator.js";
import { celValue, namespaceValue, requestValue } from "./values.js";
import { LazyVariables, PER_CALL_LIMIT } from "./variables.js";

const RUNTIME_COST_BUDGET = 10_000_000;
const MATCH_CONDITIONS_COST_BUDGET = 2_500_000;
const MAX_MESSAGE_BYTES = 5 * 1024;
const OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run";

type Outcome = { value: unknown } | { error: string } | null;
type PhaseResult = { kind: "results"; outcomes: Outcome[]; remaining: number } | { kind: "out-of-budget" };

/** cel-go's text for reading a declared variable the activation does not bind. */
function runtimeErrorText(message: string): string {
  const unbound = /^Unknown variable: (.*)$/.exec(message);
  return unbound === null ? message : `no such attribute(s): ${unbound[1]}`;
}

function runProgram(program: CelProgram, activation: Readonly<Record<string, unknown>>) {
  return evaluate(program, activation, PER_CALL_LIMIT);
}

/** condition.ForInput with a composition context: every expression in order, with one budget. */
function forInput(
  expressions: readonly (CompiledExpression | null)[],
  activation: Readonly<Record<string, unknown>>,
  variables: LazyVariables,
  budget: number,
): PhaseResult {
  let remaining = budget;
  const outcomes: Outcome[] = [];
  for (const e of expressions) {
    if (e === null) {
      outcomes.push(null);
      continue;
    }
    if (e.kind === "failed") {
      outcomes.push({ error: `compilation error: ${e.error}` });
      continue;
    }
    const r = runProgram(e.program, activation);
    const composition = variables.takeCost();
    if (composition > remaining) return { kind: "out-of-budget" };
    remaining -= composition;
    // The cost is charged whatever the outcome (a cancelled evaluation: what it had spent, past the limit).
    if (r.cost > remaining) return { kind: "out-of-budget" };
    remaining -= r.cost;
    if (r.kind === "value") outcomes.push({ value: r.value });
    else {
      const message =
        r.kind === "error" ? runtimeErrorText(r.message) : "operation cancelled: actual cost limit exceeded";
      outcomes.push({ error: `expression '${e.text}' resulted in error: ${message}` });
    }
  }
  return { kind: "results", outcomes, remaining };
}

/**
 * CEL values of the request's objects, made once per object: every policy, binding, param and phase of a request
 * reads the same objects, and CEL never changes a value.
 */
const CEL_VALUES = new WeakMap<object, unknown>();
const NAMESPACE_VALUES = new WeakMap<object, unknown>();

function cached<T>(
  o: Record<string, unknown>,
  cache: WeakMap<object, unknown>,
  make: (o: Record<string, unknown>) => T,
): T {
  if (cache.has(o)) return cache.get(o) as T;
  const v = make(o);
  cache.set(o, v);
  return v;
}

function cachedCelValue(o: Record<string, unknown> | null): unknown {
  return o === null ? null : cached(o, CEL_VALUES, celValue);
}

function errorDecision(failurePolicy: string, message: string): PolicyDecision {
  return { action: failurePolicy === "Ignore" ? "admit" : "deny", evaluation: "error", message };
}

/** utilerrors.NewAggregate(errs).Error(). */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]`;
}

/** The message of a failing validation without its messageExpression: `message`, else the expression. */
function staticMessage(message: string, expression: string): string {
  const trimmed = message.trim();
  return trimmed !== "" ? trimmed : `failed expression: ${expression.trim()}`;
}

/** The message of a failing validation (validator.go's fallback chain), and whether its messageExpression made it. */
function failureMessage(outcome: Outcome, message: string, expression: string): { text: string; computed: boolean } {
  if (outcome !== null && "value" in outcome && typeof outcome.value === "string") {
    const m = outcome.value.trim();
    if (m !== "" && Buffer.byteLength(m, "utf8") <= MAX_MESSAGE_BYTES && !m.includes("\n")) {
      return { text: m, computed: true };
    }
  }
  return { text: staticMessage(message, expression), computed: false };
}

class PolicyValidator implements Validator {
  constructor(
    private readonly doc: PolicyDocument,
    private readonly exprs: CompiledPolicyExpressions,
  ) {}

  private activation(
    input: ValidateInput,
    resource: ValidateInput["matchedResource"],
    options: { authorizer: boolean; namespace: unknown },
  ): { activation: Record<string, unknown>; variables: LazyVariables } {
    const variables = new LazyVariables(this.exprs.variables);
    const a = input.attributes;
    const activation: Record<string, unknown> = {
      object: input.object === null ? null : celValue(input.object),
      oldObject: input.oldObject === null ? null : celValue(input.oldObject),
      request: requestValue(a, resource, input.matchedKind),
      namespaceObject: options.namespace,
      variables,
    };
    if (this.doc.paramKind !== undefined)
      activation.params = input.param === null ? null : celValue(input.param.object);
    if (options.authorizer) {
      const authz = new AuthorizerValue(a.userInfo, input.authorizer);
      const check = requestResourceCheck(authz, {
        group: a.resource.group,
        resource: a.resource.resource,
        subresource: a.subresource,
        namespace: a.namespace,
        name: a.name,
      });
      activation.authorizer = new AuthorizerValue(a.userInfo, input.authorizer, check);
    }
    variables.activation = activation;
    return { activation, variables };
  }

  /** matchconditions.Matcher.Match: "match", "no-match", or an error decision. */
  private matchConditions(input: ValidateInput): PolicyDecision | "match" | "no-match" {
    const conditions = this.exprs.matchConditions;
    if (conditions.length === 0) return "match";
    // The request of match conditions reports the request's own resource with the matched kind.
    const { activation, variables } = this.activation(input, input.attributes.resource, {
      authorizer: true,
      namespace: null,
    });
    const phase = forInput(
      conditions.map((c) => c.expression),
      activation,
      variables,
      MATCH_CONDITIONS_COST_BUDGET,
    );
    const fp = this.doc.failurePolicy;
    if (phase.kind === "out-of-budget") {
      if (fp === "Fail") return errorDecision(fp, OUT_OF_BUDGET);
      if (fp === "Ignore") return "no-match";
      return "match";
    }
    const errors: string[] = [];
    for (const o of phase.outcomes) {
      if (o === null) continue;
      if ("error" in o) errors.push(o.error);
      else if (o.value === false) return "no-match";
    }
    if (errors.length > 0) {
      if (fp === "Fail") return errorDecision(fp, aggregate(errors));
      if (fp === "Ignore") return "no-match";
    }
    return "match";
  }

  validate(input: ValidateInput): ValidateResult {
    const fp = this.doc.failurePolicy;
    const matched = this.matchConditions(input);
    if (matched === "no-match") return { decisions: [], auditAnnotations: [] };
    if (matched !== "match") return { decisions: [matched], auditAnnotations: [] };
    const namespace = input.namespace === null ? null : cached(input.namespace, NAMESPACE_VALUES, namespaceValue);
    const v = this.activation(input, input.matchedResource, { authorizer: true, namespace });
    const validations = forInput(this.exprs.validations, v.activation, v.variables, RUNTIME_COST_BUDGET);
    if (validations.kind === "out-of-budget") {
      return { decisions: [errorDecision(fp, OUT_OF_BUDGET)], auditAnnotations: [] };
    }
    const messages = this.messages(input, namespace, validations.remaining);
    const decisions = this.doc.validations.map((spec, i): PolicyDecision => {
      const outcome = validations.outcomes[i] ?? null;
      const expression = spec.expression;
      if (outcome !== null && "error" in outcome) return { ...errorDecision(fp, outcome.error), expression };
      if (messages.kind === "out-of-budget") {
        return { ...errorDecision(fp, `failed messageExpression: ${OUT_OF_BUDGET}`), expression };
      }
      if (outcome !== null && outcome.value === true) return { action: "admit", evaluation: "admit", message: "" };
      const message = failureMessage(messages.outcomes[i] ?? null, spec.message, expression);
      const d: PolicyDecision = {
        action: "deny",
        evaluation: "deny",
        message: message.text,
        reason: spec.reason ?? "Invalid",
        expression,
      };
      if (message.computed) d.staticMessage = staticMessage(spec.message, expression);
      return d;
    });
    const auditAnnotations = this.auditAnnotations(input);
    // Running out of budget in the audit annotations replaces every decision with that error.
    if (auditAnnotations === "out-of-budget")
      return { decisions: [errorDecision(fp, OUT_OF_BUDGET)], auditAnnotations: [] };
    return { decisions, auditAnnotations };
  }

  /** The messageExpressions of every validation (none to evaluate: no activation is built). */
  private messages(input: ValidateInput, namespace: unknown, budget: number): PhaseResult {
    const expressions = this.exprs.messageExpressions;
    if (expressions.every((e) => e === null))
      return { kind: "results", outcomes: expressions.map(() => null), remaining: budget };
    const m = this.activation(input, input.matchedResource, { authorizer: false, namespace });
    return forInput(expressions, m.activation, m.variables, budget);
  }

  /** Audit annotations: no authorizer, the whole Namespace object, a fresh budget. */
  private auditAnnotations(input: ValidateInput): AuditAnnotationResult[] | "out-of-budget" {
    if (this.exprs.auditAnnotations.length === 0) return [];
    const namespace = cachedCelValue(input.namespace);
    const a = this.activation(input, input.matchedResource, { authorizer: false, namespace });
    const fp = this.doc.failurePolicy;
    const phase = forInput(
      this.exprs.auditAnnotations.map((x) => x.expression),
      a.activation,
      a.variables,
      RUNTIME_COST_BUDGET,
    );
    if (phase.kind === "out-of-budget") return "out-of-budget";
    return this.exprs.auditAnnotations.map(({ key }, i): AuditAnnotationResult => {
      const o = phase.outcomes[i] ?? null;
      if (o === null) return { action: "exclude" };
      if ("error" in o) return fp === "Ignore" ? { action: "exclude" } : { action: "error", key, message: o.error };
      if (o.value === null) return { action: "exclude" };
      if (typeof o.value !== "string") {
        const text = this.doc.auditAnnotations[i]?.valueExpression ?? "";
        return {
          action: "error",
          key,
          message: `valueExpression '${text}' resulted in unsupported return type: ${typeof o.value}. Return type must be either string or null.`,
        };
      }
      const value = o.value.trim();
      return value === "" ? { action: "exclude" } : { action: "publish", key, value };
    });
  }
}

export function createValidator(doc: PolicyDocument, exprs: CompiledPolicyExpressions): Validator {
  return new PolicyValidator(doc, exprs);
}
