/**
 * Kubernetes field errors (k8s.io/apimachinery/pkg/util/validation/field), the one result model of tollgate.
 * Constructors are named after their apimachinery counterparts so they can be checked line by line.
 */

import { goQuote } from "../go/strconv.js";
import { MAX_TEXT_CHARS, truncateText } from "./bounds.js";
import { GoFloat, OMIT_VALUE, REDACTED, renderBody, showsValue } from "./message.js";
import type { Path } from "./path.js";
import { isCredentialField } from "./redact.js";

export { GoFloat, OMIT_VALUE, REDACTED };

/** The cause types of metav1.StatusCause that tollgate produces. */
export type FieldErrorType =
  | "FieldValueInvalid"
  | "FieldValueRequired"
  | "FieldValueForbidden"
  | "FieldValueDuplicate"
  | "FieldValueNotSupported"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueTypeInvalid"
  | "FieldValueTooShort"
  | "FieldValueTooFew"
  | "InternalError";

/**
 * `error` rejects; `warning` is returned to the client; `audit` is only recorded (ValidatingAdmissionPolicy's `Audit`
 * action, Pod Security's audit level); `shadow` is computed but not enforced (alpha/beta declarative rules).
 */
export type Severity = "error" | "warning" | "audit" | "shadow";

/**
 * The rule families, in the order the API server applies them: the schema families answer as the resource's
 * strategy validation does (422 Invalid with field causes); the admission families as validating admission plugins
 * do, after it (Pod Security, then ValidatingAdmissionPolicy, as kube-apiserver orders its plugins).
 */
export const RULE_FAMILIES = ["crd", "kubevirt", "declarative", "pod-security", "admission-policy"] as const;
export type RuleFamily = (typeof RULE_FAMILIES)[number];

export interface FieldErrorSource {
  /** The family whose rule this is; `tollgate` for errors about the request itself or an internal fault. */
  kind: RuleFamily | "tollgate";
  /**
   * crd: CRD name; kubevirt: "<namespace>/<template>" or "vm-annotation"; declarative: "<group>/<version>.<Kind>";
   * pod-security: "<level>:<version>"; admission-policy: the ValidatingAdmissionPolicy's name.
   */
  policy: string;
  /**
   * crd: CEL rule text or OpenAPI keyword ("maximum"); kubevirt: rule name; declarative: the tag; pod-security: the
   * check id; admission-policy: the expression of the validation (or audit annotation, match condition).
   */
  rule?: string;
  /** admission-policy: the ValidatingAdmissionPolicyBinding. */
  binding?: string;
  /** admission-policy: the param object the evaluation used ("<namespace>/<name>", or "<name>" cluster-scoped). */
  param?: string;
  /** admission-policy: the index of the validation in `spec.validations`. */
  index?: number;
}

export interface FieldError {
  /** "FieldValueInvalid", ... (serialised as `reason` in a StatusCause). */
  type: FieldErrorType;
  /** Kubernetes field path text: "spec.ports[0].name", "<nil>" for the root. */
  field: string;
  /** The detail text alone. */
  detail: string;
  /** Exactly what kube-apiserver puts in details.causes[].message (the error without its "field: " prefix). */
  message: string;
  badValue?: unknown;
  origin?: string;
  severity: Severity;
  /** The rule could not be evaluated (runtime error, cost limit, bad annotation), as opposed to violated. */
  evaluationError?: boolean;
  /**
   * Set on the last error of a list cut to its bound (lib/field/bounds.ts): this error stands for that many errors
   * left out, and says so in its message.
   */
  omitted?: number;
  source: FieldErrorSource;
}

/** Options shared by every constructor. */
export interface ErrorContext {
  source: FieldErrorSource;
  severity?: Severity;
  origin?: string;
  /** When true the bad value is dropped from the error (Secrets, credential fields). */
  redact?: boolean;
}

function make(
  type: FieldErrorType,
  path: Path | string | null,
  value: unknown,
  detail: string,
  ctx: ErrorContext,
  valueShown: boolean,
): FieldError {
  const field = typeof path === "string" ? path : path === null ? "<nil>" : path.toString();
  // Redaction happens here, when the error is built: every value of a Secret (ctx.redact), and the value of a field
  // whose name says it holds a credential (lib/field/redact.ts). There, only a scalar holds a secret: an object's
  // credentials are masked by name inside it (lib/policy/bounds.ts); a boolean or null holds none.
  const redacted =
    valueShown && value !== OMIT_VALUE && (ctx.redact === true || (isSecretScalar(value) && isCredentialField(field)));
  const shown = redacted ? REDACTED : value;
  // Texts are bounded here too (lib/field/bounds.ts): a message, a detail or a string value over the limit is cut.
  const message = renderBody(type, valueShown ? shown : OMIT_VALUE, detail);
  const err: FieldError = {
    type,
    field: truncateText(field),
    detail: truncateText(detail),
    message: truncateText(message),
    severity: ctx.severity ?? "error",
    source: ctx.source,
  };
  if (valueShown && value !== OMIT_VALUE && !redacted) {
    if (typeof value === "string") err.badValue = truncateText(value);
    else if (typeof value !== "object" || value === null || message.length <= MAX_TEXT_CHARS) {
      err.badValue = toPlainValue(value);
    }
  }
  if (ctx.origin !== undefined) err.origin = ctx.origin;
  return err;
}

function isSecretScalar(value: unknown): boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "bigint";
}

function toPlainValue(value: unknown): unknown {
  if (value instanceof GoFloat) return value.value;
  return value;
}

/** field.Invalid */
export function invalid(path: Path | string | null, value: unknown, detail: string, ctx: ErrorContext): FieldError {
  return make("FieldValueInvalid", path, value, detail, ctx, true);
}

/** field.TypeInvalid */
export function typeInvalid(path: Path | string | null, value: unknown, detail: string, ctx: ErrorContext): FieldError {
  return make("FieldValueTypeInvalid", path, value, detail, ctx, true);
}

/** field.Required */
export function required(path: Path | string | null, detail: string, ctx: ErrorContext): FieldError {
  return make("FieldValueRequired", path, OMIT_VALUE, detail, ctx, false);
}

/** field.Forbidden */
export function forbidden(path: Path | string | null, detail: string, ctx: ErrorContext): FieldError {
  return make("FieldValueForbidden", path, OMIT_VALUE, detail, ctx, false);
}

/** field.Duplicate */
export function duplicate(path: Path | string | null, value: unknown, ctx: ErrorContext): FieldError {
  return make("FieldValueDuplicate", path, value, "", ctx, true);
}

/** field.NotSupported: the detail lists the supported values, each quoted. */
export function notSupported(
  path: Path | string | null,
  value: unknown,
  validValues: readonly string[],
  ctx: ErrorContext,
): FieldError {
  const detail = validValues.length > 0 ? `supported values: ${quotedList(validValues)}` : "";
  return make("FieldValueNotSupported", path, value, detail, ctx, true);
}

/**
 * The values quoted and joined with ", ", as field.NotSupported lists them; a list longer than the message bound is
 * cut there (a 100,000-value enum costs no more than a short one) and the text ends in the bound's marker.
 */
const LIST_CHARS = MAX_TEXT_CHARS - 200;

function quotedList(values: readonly string[]): string {
  let out = "";
  for (let i = 0; i < values.length; i++) {
    const next = i === 0 ? goQuote(values[i]!) : `, ${goQuote(values[i]!)}`;
    if (out.length + next.length > LIST_CHARS) return `${out}... (${values.length - i} more values)`;
    out += next;
  }
  return out;
}

/** field.TooLong (1.36 wording: "may not be more than N bytes", "1 byte"). */
export function tooLong(path: Path | string | null, maxLength: number, ctx: ErrorContext): FieldError {
  const detail =
    maxLength >= 0 ? `may not be more than ${maxLength} ${maxLength === 1 ? "byte" : "bytes"}` : "value is too long";
  return make("FieldValueTooLong", path, OMIT_VALUE, detail, ctx, false);
}

/** field.TooMany (1.36 wording: "must have at most N items", "1 item"). */
export function tooMany(path: Path | string | null, actual: number, max: number, ctx: ErrorContext): FieldError {
  const detail = max >= 0 ? `must have at most ${max} ${max === 1 ? "item" : "items"}` : "has too many items";
  return make("FieldValueTooMany", path, actual >= 0 ? actual : OMIT_VALUE, detail, ctx, true);
}

/** field.InternalError */
export function internal(path: Path | string | null, detail: string, ctx: ErrorContext): FieldError {
  return make("InternalError", path, OMIT_VALUE, detail, ctx, false);
}

/** A field error with an already rendered message body (CEL rules with a reason, ratcheted warnings...). */
export function withType(
  type: FieldErrorType,
  path: Path | string | null,
  value: unknown,
  detail: string,
  ctx: ErrorContext,
): FieldError {
  return make(type, path, value, detail, ctx, showsValue(type));
}

/** The full error text, as Go's `(*field.Error).Error()`: "<field>: <body>". */
export function errorText(err: Pick<FieldError, "field" | "message">): string {
  return `${err.field}: ${err.message}`;
}

/**
 * The error that ends a list cut to its bound: it stands for `count` errors left out. Its type is the caller's (a
 * schema walk passes the type of the first blocking error left out, so that what the left-out errors block stays
 * blocked), FieldValueTooMany by default.
 */
export function omittedErrors(
  count: number,
  bound: number,
  ctx: ErrorContext,
  type: FieldErrorType = "FieldValueTooMany",
): FieldError {
  const detail = `${count} more ${count === 1 ? "error" : "errors"} not shown (tollgate returns at most ${bound} per object)`;
  return {
    type,
    field: "<nil>",
    detail,
    message: `Too many: ${detail}`,
    severity: ctx.severity ?? "error",
    source: ctx.source,
    omitted: count,
  };
}
