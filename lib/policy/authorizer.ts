/**
 * The authorizer behind an admission policy's CEL `authorizer` and `authorizer.requestResource` (k8s.io/apiserver
 * pkg/authorization/authorizer): a question (a user, a verb, and a resource or a path) gets a decision (allow, deny,
 * no opinion), a reason and possibly an error. The admission-policy family uses BundleOptions.authorizer when given,
 * else an offline RBAC authorizer over the cluster state's RBAC objects. An authorizer that cannot decide throws
 * AuthorizationUndecidable: the check is then an evaluation error (under the policy's failurePolicy), never a
 * silent answer.
 */
import type { UserInfo } from "./types.js";

/** authorizer.Attributes: a resource request (apiGroup...) or a non-resource request (path). */
export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  /** Non-resource requests: the URL path. */
  path: string;
  apiGroup: string;
  /** Always "*" for CEL's checks. */
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  fieldSelector: string;
  labelSelector: string;
}

/** authorizer.Decision plus its reason and error. */
export interface AuthorizationDecision {
  decision: "allow" | "deny" | "noOpinion";
  reason: string;
  /** The authorizer's error (CEL `errored()` / `error()`). */
  error?: string;
}

/** When the authorizer cannot answer at all: CEL's check() then fails with this message. */
export class AuthorizationUndecidable extends Error {}

export interface Authorizer {
  /** @throws AuthorizationUndecidable when the question cannot be decided offline. */
  authorize(attributes: AuthorizationAttributes): AuthorizationDecision;
}
