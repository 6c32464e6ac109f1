/**
 * What evaluating one compiled policy for one (binding, param) gives (k8s.io/apiserver pkg/admission/plugin/policy/
 * validating policy_decision.go): a decision per validation in spec order, and a result per audit annotation.
 */

import type { Authorizer } from "../policy/authorizer.js";
import type { GroupVersionKind, GroupVersionResource } from "../policy/types.js";
import type { AdmissionAttributes } from "./attributes.js";
import type { Param } from "./params.js";

export interface PolicyDecision {
  /** `deny` goes through the binding's validationActions; `admit` does nothing. */
  action: "admit" | "deny";
  /** Why: the validation failed (`deny`), could not be evaluated (`error`), or passed (`admit`). */
  evaluation: "admit" | "deny" | "error";
  message: string;
  /** The validation's reason (failures only): Invalid, Forbidden, Unauthorized, RequestEntityTooLarge. */
  reason?: string;
  /** The expression behind the decision (a validation's, or a matchCondition's when that failed). */
  expression?: string;
  /**
   * When `message` came from a messageExpression: the message without it (`message`, else the expression), which
   * reports show for Secrets (a messageExpression may quote the Secret's data).
   */
  staticMessage?: string;
}

export type AuditAnnotationResult =
  | { action: "publish"; key: string; value: string }
  | { action: "error"; key: string; message: string }
  | { action: "exclude" };

export interface ValidateResult {
  decisions: readonly PolicyDecision[];
  auditAnnotations: readonly AuditAnnotationResult[];
}

/** The input of one evaluation: the request at the matched version, the param, the namespace and the authorizer. */
export interface ValidateInput {
  attributes: AdmissionAttributes;
  matchedResource: GroupVersionResource;
  matchedKind: GroupVersionKind;
  /** The object and old object converted to the matched version. */
  object: Record<string, unknown> | null;
  oldObject: Record<string, unknown> | null;
  param: Param | null;
  /** The request's Namespace object (null for cluster-scoped requests and for requests on Namespaces). */
  namespace: Record<string, unknown> | null;
  authorizer: Authorizer;
}

/** A compiled policy's evaluator (validating/validator.go Validate). */
export interface Validator {
  validate(input: ValidateInput): ValidateResult;
}
