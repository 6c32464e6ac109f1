/**
 * `metav1.Status` answers and the one table from outcome to HTTP code (STYLE.md "Error model"). The Status
 * builders shared with the CLI's `-o json` (Success, the 422 Invalid of apimachinery's `errors.NewInvalid`,
 * BadRequest) live in audit/cli/kubectl-text.ts and are reused here, so both surfaces answer the same object.
 */
import { badRequestStatus, invalidStatus, successStatus } from "../../audit/cli/kubectl-text.js";

export type { ObjectIdentity } from "../../audit/cli/kubectl-text.js";
export { badRequestStatus, invalidStatus, successStatus };

/** Every outcome of a request, each with one HTTP code and one Status reason. */
export const OUTCOMES = {
  /** Validated and allowed (possibly with warnings); also every AdmissionReview answer, which is always a 200. */
  allowed: { code: 200, reason: undefined },
  /** A bare object with violations. */
  invalid: { code: 422, reason: "Invalid" },
  /** Not JSON, too large, too deep, wrong shape, missing uid (InputError). */
  badRequest: { code: 400, reason: "BadRequest" },
  /** A token is configured and the request does not carry it. */
  unauthorized: { code: 401, reason: "Unauthorized" },
  notFound: { code: 404, reason: "NotFound" },
  methodNotAllowed: { code: 405, reason: "MethodNotAllowed" },
  /** An internal fault, or the bundle could not be loaded. */
  internal: { code: 500, reason: "InternalError" },
} as const;

export type Outcome = keyof typeof OUTCOMES;

/** The HTTP code of an outcome. */
export function httpCode(outcome: Outcome): number {
  return OUTCOMES[outcome].code;
}

/** A `Failure` Status for an outcome that is not a validation result (401, 404, 405, 500). */
export function failureStatus(
  outcome: Exclude<Outcome, "allowed" | "invalid" | "badRequest">,
  message: string,
): Record<string, unknown> {
  const { code, reason } = OUTCOMES[outcome];
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
}

/**
 * The Status inside an `AdmissionResponse`: the same fields, without the `kind` and `apiVersion` a top-level
 * Status carries (AdmissionResponse.status is an embedded `*metav1.Status`, whose TypeMeta is omitempty).
 */
export function embeddedStatus(status: Record<string, unknown>): Record<string, unknown> {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = status;
  return rest;
}
