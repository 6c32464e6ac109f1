/**
 * The webhook's one table from outcome to HTTP code and Status reason (STYLE.md "Error model"). The `metav1.Status`
 * builders themselves are lib's (lib/field/status.ts), shared with the CLI's `-o json`, so both surfaces answer
 * the same object.
 */
import { errorStatus, type Status } from "#lib";

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
): Status {
  const { code, reason } = OUTCOMES[outcome];
  return errorStatus(reason, code, message);
}

/**
 * The Status inside an `AdmissionResponse`: the same fields, without the `kind` and `apiVersion` a top-level
 * Status carries (AdmissionResponse.status is an embedded `*metav1.Status`, whose TypeMeta is omitempty).
 */
export function embeddedStatus(status: Status): Status {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = status;
  return rest;
}
