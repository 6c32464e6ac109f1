/**
 * The `metav1.Status` objects the API server answers with, built from field errors: `Success` (200), the 422
 * `Invalid` of apimachinery's `errors.NewInvalid` (the aggregate message and one cause per field error), and a
 * `Failure` with a reason and code (400 `BadRequest` for a document that cannot be used). The webhook answers them
 * (functions/http/), and `tollgate validate -o json` prints them, so both surfaces give the same object.
 *
 * Members are written in the order the API server's JSON has them (kind, apiVersion, metadata, status, message,
 * reason, details, code).
 */
import { aggregateMessage } from "./message.js";

/**
 * One entry of `details.causes`: the cause type goes under the StatusCause JSON key `reason`. `reason` and `field`
 * are `omitempty` (an `InternalError`'s cause has the message alone).
 */
export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

export interface Status {
  /** Absent when the Status is embedded in another object (AdmissionResponse.status). */
  kind?: "Status";
  apiVersion?: "v1";
  metadata: Record<string, never>;
  status: "Success" | "Failure";
  message?: string;
  reason?: string;
  /** Every member is `omitempty`: a 403 `Forbidden` has no causes, an `InternalError` no kind. */
  details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[] };
  code: number;
}

/** The group and kind of an object (apimachinery's `schema.GroupKind`); the core group is "". */
export interface GroupKind {
  group: string;
  kind: string;
}

/** A `Success` Status (HTTP 200), with an optional message. */
export function successStatus(message?: string): Status {
  return message === undefined
    ? { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 200 }
    : { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", message, code: 200 };
}

/** A `Failure` Status with its reason and HTTP code (`BadRequest` 400, `InternalError` 500, ...). */
export function errorStatus(reason: string, code: number, message: string): Status {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
}

/** The 400 `BadRequest` Status for a document or request that could not be decoded or used. */
export function badRequestStatus(message: string): Status {
  return errorStatus("BadRequest", 400, message);
}

/**
 * The 422 `Invalid` Status of apimachinery's `errors.NewInvalid(qualifiedKind, name, errs)`: the aggregate message,
 * and one cause per field error (not de-duplicated).
 */
export function invalidStatus(
  qualifiedKind: GroupKind,
  name: string,
  errors: readonly { type: string; field: string; message: string }[],
): Status {
  const { group, kind } = qualifiedKind;
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: aggregateMessage(kind, group, name, errors),
    reason: "Invalid",
    // StatusDetails' name and group are `omitempty`: the core group and a nameless object leave them out.
    details: {
      ...(name === "" ? {} : { name }),
      ...(group === "" ? {} : { group }),
      kind,
      causes: errors.map((e) => ({ reason: e.type, message: e.message, field: e.field })),
    },
    code: 422,
  };
}

/**
 * A denial an admission plugin worded itself (its code, reason, message and details, as the plugin's Status has
 * them): Pod Security's 403 `Forbidden`, a ValidatingAdmissionPolicy's reason and code.
 */
export function admissionStatus(denial: {
  code: number;
  reason: string;
  message: string;
  details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[] };
}): Status {
  const status: Status = { ...errorStatus(denial.reason, denial.code, denial.message) };
  if (denial.details === undefined) return status;
  const { name, group, kind, causes } = denial.details;
  // Members in the order of metav1.StatusDetails' JSON (name, group, kind, causes), empty ones left out.
  const details: NonNullable<Status["details"]> = {};
  if (name !== undefined && name !== "") details.name = name;
  if (group !== undefined && group !== "") details.group = group;
  if (kind !== undefined && kind !== "") details.kind = kind;
  if (causes !== undefined && causes.length > 0) details.causes = causes;
  // The order of a Status' members: ..., reason, details, code.
  const { code, ...rest } = status;
  return { ...rest, details, code };
}
