/**
 * The ValidatingAdmissionPolicy dispatcher (k8s.io/apiserver pkg/admission/plugin/policy/validating/dispatcher.go):
 * for each policy that matches the request, each of its bindings that matches, and each param the binding
 * selects, the policy's validator runs; its decisions go through the binding's validationActions (Deny: a denied
 * decision; Warn: a warning; Audit: the validation_failure audit annotation, first writer wins), its audit
 * annotations are collected per policy (duplicates dropped, distinct values joined). Configuration errors (a
 * policy or binding that does not match cleanly, an unknown paramKind, params not found with Deny, a conversion
 * that cannot be made) deny under failurePolicy Fail whatever the validationActions. The first denied decision
 * gives the request's Status.
 */
import { goJson } from "../field/message.js";
import type { Authorizer } from "../policy/authorizer.js";
import type { ClusterState } from "../policy/cluster-state.js";
import type { GroupVersionKind } from "../policy/types.js";
import type { AdmissionAttributes } from "./attributes.js";
import type { BindingDocument, PolicyDocument } from "./documents.js";
import type { LabelSelector } from "./label-selector.js";
import { type CompiledMatch, type MatchContext, type MatchResult, matches, namespaceNotFound } from "./matching.js";
import { collectParams, type Param, type ParamKind } from "./params.js";
import type { PolicyDecision, Validator } from "./validator.js";

export interface CompiledBinding {
  doc: BindingDocument;
  match?: CompiledMatch;
  paramSelector?: LabelSelector | { error: string };
}

export interface CompiledPolicy {
  doc: PolicyDocument;
  /** Absent when the policy has no matchConstraints (a configuration error when dispatched). */
  match?: CompiledMatch;
  paramKind?: ParamKind;
  /** The policy cannot be used as configured (an unknown paramKind). */
  configurationError?: string;
  validator: Validator;
  bindings: readonly CompiledBinding[];
}

/** One decision that reached a binding's validationActions, with who made it. */
export interface DispatchedDecision {
  policy: string;
  binding?: string;
  param?: string;
  /** The validation's index (absent for configuration errors, match condition and audit annotation errors). */
  index?: number;
  decision: PolicyDecision;
}

export interface DispatchOutcome {
  /** Whether any policy matched the request (the family then has something to say). */
  matched: boolean;
  denied: DispatchedDecision[];
  warned: DispatchedDecision[];
  audited: DispatchedDecision[];
  /** Warning texts in order, exact duplicates dropped. */
  warnings: string[];
  /** Audit annotations in the order they were added; a key keeps its first value. */
  auditAnnotations: Record<string, string>;
  /** The request's Namespace could not be found when a binding needed it: the request fails with NotFound. */
  namespaceNotFound?: string;
}

export interface DispatchContext extends MatchContext {
  cluster: ClusterState;
  authorizer: Authorizer;
  /** Converts the request's objects to another version, or says why it cannot. */
  convert(object: Record<string, unknown>, to: GroupVersionKind): Record<string, unknown> | { error: string };
}

const MAX_AUDIT_ANNOTATION_VALUE = 10 * 1024;
const VALIDATION_FAILURE_KEY = "validation.policy.admission.k8s.io/validation_failure";

function sameKind(a: GroupVersionKind, b: GroupVersionKind): boolean {
  return a.group === b.group && a.version === b.version && a.kind === b.kind;
}

/**
 * The validation_failure annotation's value: a JSON list of one ValidationFailureValue, encoded as Go's
 * encoding/json does (fields in declaration order, HTML characters escaped).
 */
function validationFailureValue(binding: BindingDocument, index: number, message: string): string {
  const fields = [
    `"message":${goJson(message)}`,
    `"policy":${goJson(binding.policyName)}`,
    `"binding":${goJson(binding.name)}`,
    `"expressionIndex":${index}`,
    `"validationActions":${binding.validationActions.length === 0 ? "null" : goJson(binding.validationActions)}`,
  ];
  return `[{${fields.join(",")}}]`;
}

/** Go's `[]byte(s)[:n]` on a string: the first n UTF-8 bytes (a cut character is replaced). */
function cutBytes(s: string, n: number): string {
  const bytes = Buffer.from(s, "utf8");
  return bytes.length <= n ? s : bytes.subarray(0, n).toString("utf8");
}

class Dispatch {
  readonly out: DispatchOutcome = {
    matched: false,
    denied: [],
    warned: [],
    audited: [],
    warnings: [],
    auditAnnotations: {},
  };

  constructor(
    private readonly attr: AdmissionAttributes,
    private readonly ctx: DispatchContext,
  ) {}

  private addAnnotation(key: string, value: string): void {
    if (!Object.hasOwn(this.out.auditAnnotations, key)) this.out.auditAnnotations[key] = value;
  }

  private addWarning(text: string): void {
    if (!this.out.warnings.includes(text)) this.out.warnings.push(text);
  }

  /** addConfigError: a deny under Fail, nothing under Ignore, an unrecognized failure policy denies too. */
  private configError(policy: PolicyDocument, binding: BindingDocument | undefined, message: string): void {
    if (policy.failurePolicy === "Ignore") return;
    const text =
      policy.failurePolicy === "Fail"
        ? `failed to configure ${binding === undefined ? "policy" : "binding"}: ${message}`
        : `unrecognized failure policy: '${policy.failurePolicy}'`;
    const d: DispatchedDecision = {
      policy: policy.name,
      decision: { action: "deny", evaluation: "error", message: text },
    };
    if (binding !== undefined) d.binding = binding.name;
    this.out.denied.push(d);
  }

  policy(p: CompiledPolicy): void {
    const m: MatchResult =
      p.match === undefined
        ? { kind: "error", message: "policy contained no match constraints, a required field" }
        : matches(p.match, this.attr, this.ctx);
    if (m.kind === "error") {
      this.out.matched = true;
      this.configError(p.doc, undefined, m.message);
      return;
    }
    if (m.kind === "no-match") return;
    this.out.matched = true;
    if (p.configurationError !== undefined) {
      this.configError(p.doc, undefined, p.configurationError);
      return;
    }
    const collected = new Map<string, string[]>();
    for (const b of p.bindings) {
      if (this.binding(p, b, m, collected) === "stop") return;
    }
    for (const [key, values] of collected) this.addAnnotation(`${p.doc.name}/${key}`, values.join(", "));
  }

  /** One binding of a matching policy; "stop" when the request fails outright (its Namespace is unknown). */
  private binding(
    p: CompiledPolicy,
    b: CompiledBinding,
    m: Extract<MatchResult, { kind: "match" }>,
    collected: Map<string, string[]>,
  ): "stop" | undefined {
    if (b.match !== undefined) {
      const bm = matches(b.match, this.attr, this.ctx);
      if (bm.kind === "error") {
        this.configError(p.doc, b.doc, bm.message);
        return;
      }
      if (bm.kind === "no-match") return;
    }
    const params = collectParams(p.paramKind, b.doc.paramRef, b.paramSelector, this.attr.namespace, this.ctx.cluster);
    if (params.kind === "error") {
      this.configError(p.doc, b.doc, params.message);
      return;
    }
    let object = this.attr.object;
    let oldObject = this.attr.oldObject;
    if (params.params.length > 0 && !sameKind(m.matchKind, this.attr.kind)) {
      const converted = this.convert(m.matchKind);
      if ("error" in converted) {
        this.configError(p.doc, b.doc, `failed to convert object version: ${converted.error}`);
        return;
      }
      ({ object, oldObject } = converted);
    }
    // The Namespace object: none for cluster-scoped requests and for requests on Namespaces themselves.
    const k = this.attr.kind;
    const namespaceName = k.group === "" && k.version === "v1" && k.kind === "Namespace" ? "" : this.attr.namespace;
    let namespace: Record<string, unknown> | null = null;
    if (namespaceName !== "") {
      namespace = this.ctx.namespace(namespaceName) ?? null;
      if (namespace === null) {
        this.out.namespaceNotFound = namespaceName;
        return "stop";
      }
    }
    for (const param of params.params) {
      const result = p.validator.validate({
        attributes: this.attr,
        matchedResource: m.resource,
        matchedKind: m.matchKind,
        object,
        oldObject,
        param,
        namespace,
        authorizer: this.ctx.authorizer,
      });
      for (const [i, d] of result.decisions.entries()) this.decision(p.doc, b.doc, param, i, d);
      for (const a of result.auditAnnotations) {
        if (a.action === "publish") {
          const value = cutBytes(a.value, MAX_AUDIT_ANNOTATION_VALUE);
          const values = collected.get(a.key) ?? [];
          if (!values.includes(value)) values.push(value);
          collected.set(a.key, values);
        } else if (a.action === "error") {
          const d: DispatchedDecision = {
            policy: p.doc.name,
            binding: b.doc.name,
            decision: { action: "deny", evaluation: "error", message: a.message },
          };
          if (param !== null) d.param = param.id;
          this.out.denied.push(d);
        }
      }
    }
    return undefined;
  }

  private convert(
    to: GroupVersionKind,
  ): { object: Record<string, unknown> | null; oldObject: Record<string, unknown> | null } | { error: string } {
    const conv = (o: Record<string, unknown> | null) => (o === null ? null : this.ctx.convert(o, to));
    const object = conv(this.attr.object);
    if (object !== null && "error" in object) return { error: String(object.error) };
    const oldObject = conv(this.attr.oldObject);
    if (oldObject !== null && "error" in oldObject) return { error: String(oldObject.error) };
    return { object, oldObject };
  }

  private decision(
    policy: PolicyDocument,
    binding: BindingDocument,
    param: Param | null,
    index: number,
    decision: PolicyDecision,
  ): void {
    if (decision.action !== "deny") return;
    const d: DispatchedDecision = { policy: policy.name, binding: binding.name, index, decision };
    if (param !== null) d.param = param.id;
    for (const action of binding.validationActions) {
      switch (action) {
        case "Deny":
          this.out.denied.push(d);
          break;
        case "Audit":
          this.out.audited.push(d);
          this.addAnnotation(VALIDATION_FAILURE_KEY, validationFailureValue(binding, index, decision.message));
          break;
        case "Warn":
          this.out.warned.push(d);
          this.addWarning(
            `Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${binding.name}': ${decision.message}`,
          );
          break;
      }
    }
  }
}

/** Dispatches one request to the policies, in the order given. */
export function dispatch(
  policies: readonly CompiledPolicy[],
  attr: AdmissionAttributes,
  ctx: DispatchContext,
): DispatchOutcome {
  const d = new Dispatch(attr, ctx);
  for (const p of policies) {
    d.policy(p);
    if (d.out.namespaceNotFound !== undefined) break;
  }
  return d.out;
}

export { namespaceNotFound };
