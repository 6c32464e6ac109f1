/**
 * Request bodies of `POST /validate`: an `admission.k8s.io/v1` AdmissionReview, or a bare Kubernetes object (the
 * dry-run style pre-creation check of spec/field-errors-in-status-convention.txt). This file checks their shape and
 * builds the answers; it does not validate objects (the PolicySet does) and does not know about events.
 */
import type {
  DecodedIdentity,
  GroupVersionKind,
  GroupVersionResource,
  Operation,
  UserInfo,
  ValidateRequest,
  Verdict,
} from "#lib";
import {
  admissionStatus,
  errorStatus,
  formatValue,
  InputError,
  invalidStatus,
  objectIdentity,
  parseDocuments,
  type Status,
} from "#lib";
import { embeddedStatus, OUTCOMES } from "./status.js";

const ADMISSION_API_VERSION = "admission.k8s.io/v1";

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** What `POST /validate` received. */
export type ValidateBody =
  | { kind: "review"; review: AdmissionRequest }
  | { kind: "object"; object: JsonObject; identity: DecodedIdentity };

/** The parts of an AdmissionReview's `request` tollgate uses. */
export interface AdmissionRequest {
  uid: string;
  operation: Operation;
  /** Absent only for DELETE and CONNECT. For DELETE, the stored object (`oldObject`); for CONNECT, its options. */
  object?: JsonObject;
  oldObject?: JsonObject;
  subResource?: string;
  dryRun: boolean;
  identity?: DecodedIdentity;
  /** The admission attributes the admission families read (request.userInfo, namespace, name, resource...). */
  attributes: AdmissionAttributes;
}

/** The parts of `request` that ValidateRequest carries beyond the objects (each present when the review has it). */
export type AdmissionAttributes = Pick<
  ValidateRequest,
  | "userInfo"
  | "namespace"
  | "name"
  | "resource"
  | "kind"
  | "requestKind"
  | "requestResource"
  | "requestSubResource"
  | "options"
>;

export interface BodyLimits {
  maxBytes: number;
  maxDepth: number;
}

/**
 * Decodes a request body with the bounded decoder (never JSON.parse on outside input) and says what it is.
 * @throws InputError for a body that is empty, not JSON, too large, too deep, or neither an AdmissionReview nor a
 *   Kubernetes object, and for an AdmissionReview without `request`, `request.uid` or `request.object`
 */
export function readValidateBody(text: string, limits: BodyLimits): ValidateBody {
  const body = decodeJsonObject(text, limits);
  if (body.kind === "AdmissionReview") return { kind: "review", review: admissionRequest(body) };
  if (typeof body.apiVersion === "string" && typeof body.kind === "string" && isObject(body.metadata)) {
    return { kind: "object", object: body, identity: objectIdentity(body) };
  }
  throw new InputError(
    "the request body is neither an admission.k8s.io/v1 AdmissionReview nor a Kubernetes object " +
      "(a JSON object with apiVersion, kind and metadata)",
  );
}

function decodeJsonObject(text: string, limits: BodyLimits): JsonObject {
  let i = 0;
  while (i < text.length && " \t\r\n".includes(text[i]!)) i++;
  if (i === text.length) throw new InputError("the request body is empty; send a JSON AdmissionReview or object");
  if (text[i] !== "{") throw new InputError("the request body is not a JSON object");
  const doc = parseDocuments(text, { maxBytes: limits.maxBytes, maxDepth: limits.maxDepth });
  const first = doc[0];
  if (first === undefined) throw new InputError("the request body is empty; send a JSON AdmissionReview or object");
  if (first.error !== undefined || !isObject(first.object)) {
    throw new InputError(`the request body cannot be decoded: ${first.error ?? "not a JSON object"}`);
  }
  return first.object;
}

/**
 * A request value quoted in an error message: Go-style (any JSON value, integers beyond 2^53 included), and cut
 * short, since the message is answered and logged.
 */
function shown(value: unknown): string {
  const text = formatValue(value ?? null);
  return text.length > 100 ? `${text.slice(0, 100)}...` : text;
}

const OPERATIONS: ReadonlySet<string> = new Set(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

/** The checks of AdmissionReview.request that kube-apiserver always satisfies; anything else is a bad request. */
function admissionRequest(review: JsonObject): AdmissionRequest {
  if (review.apiVersion !== ADMISSION_API_VERSION) {
    throw new InputError(
      `AdmissionReview apiVersion ${shown(review.apiVersion)} is not supported; ` +
        `tollgate accepts ${ADMISSION_API_VERSION} (set admissionReviewVersions: ["v1"])`,
    );
  }
  const req = review.request;
  if (!isObject(req)) throw new InputError("the AdmissionReview has no request");
  if (typeof req.uid !== "string" || req.uid === "") throw new InputError("the AdmissionReview request has no uid");
  const operation = req.operation;
  if (typeof operation !== "string" || !OPERATIONS.has(operation)) {
    throw new InputError(`request.operation ${shown(operation)} is not one of CREATE, UPDATE, DELETE, CONNECT`);
  }
  const out: AdmissionRequest = {
    uid: req.uid,
    operation: operation as AdmissionRequest["operation"],
    dryRun: req.dryRun === true,
    attributes: admissionAttributes(req),
  };
  if (req.dryRun !== undefined && req.dryRun !== null && typeof req.dryRun !== "boolean") {
    throw new InputError("request.dryRun must be a boolean");
  }
  if (req.subResource !== undefined && req.subResource !== null && req.subResource !== "") {
    if (typeof req.subResource !== "string") throw new InputError("request.subResource must be a string");
    out.subResource = req.subResource;
  }
  const requestKind = isObject(req.kind) ? req.kind : undefined;
  const object = withTypeMeta(req.object, requestKind, "request.object");
  const oldObject = withTypeMeta(req.oldObject, requestKind, "request.oldObject");
  if (object !== undefined) out.object = object;
  if (oldObject !== undefined) out.oldObject = oldObject;
  if (operation === "CREATE" || operation === "UPDATE") {
    if (object === undefined) throw new InputError(`the AdmissionReview request (${operation}) has no object`);
  }
  if (operation === "UPDATE" && oldObject === undefined) {
    throw new InputError("the AdmissionReview request (UPDATE) has no oldObject");
  }
  const subject = operation === "DELETE" ? (oldObject ?? object) : object;
  if (subject !== undefined) out.identity = objectIdentity(subject);
  return out;
}

/** The request's admission attributes; a field of the wrong shape is a bad request. */
function admissionAttributes(req: JsonObject): AdmissionAttributes {
  const out: AdmissionAttributes = {};
  const text = (v: unknown, where: string): string | undefined => {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string") throw new InputError(`${where} must be a string`);
    return v;
  };
  const namespace = text(req.namespace, "request.namespace");
  if (namespace !== undefined) out.namespace = namespace;
  const name = text(req.name, "request.name");
  if (name !== undefined) out.name = name;
  const requestSubResource = text(req.requestSubResource, "request.requestSubResource");
  if (requestSubResource !== undefined && requestSubResource !== "") out.requestSubResource = requestSubResource;
  const kind = gvkOf(req.kind, "request.kind");
  if (kind !== undefined) out.kind = kind;
  const requestKind = gvkOf(req.requestKind, "request.requestKind");
  if (requestKind !== undefined) out.requestKind = requestKind;
  const resource = gvrOf(req.resource, "request.resource");
  if (resource !== undefined) out.resource = resource;
  const requestResource = gvrOf(req.requestResource, "request.requestResource");
  if (requestResource !== undefined) out.requestResource = requestResource;
  if (req.userInfo !== undefined && req.userInfo !== null) out.userInfo = userInfoOf(req.userInfo);
  if (req.options !== undefined && req.options !== null) {
    if (!isObject(req.options)) throw new InputError("request.options must be a JSON object");
    out.options = req.options;
  }
  return out;
}

/** The strings `group` (default ""), `version` and `last` of a review's GroupVersionKind/Resource. */
function groupVersionParts(v: unknown, last: string, where: string): [string, string, string] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw new InputError(`${where} must be a JSON object`);
  const parts = [v.group ?? "", v.version, v[last]];
  if (!parts.every((p) => typeof p === "string")) {
    throw new InputError(`${where} must have string group, version and ${last}`);
  }
  return parts as [string, string, string];
}

function gvkOf(v: unknown, where: string): GroupVersionKind | undefined {
  const p = groupVersionParts(v, "kind", where);
  return p === undefined ? undefined : { group: p[0], version: p[1], kind: p[2] };
}

function gvrOf(v: unknown, where: string): GroupVersionResource | undefined {
  const p = groupVersionParts(v, "resource", where);
  return p === undefined ? undefined : { group: p[0], version: p[1], resource: p[2] };
}

/** authentication/v1 UserInfo. */
function userInfoOf(v: unknown): UserInfo {
  if (!isObject(v)) throw new InputError("request.userInfo must be a JSON object");
  const username = v.username ?? "";
  if (typeof username !== "string") throw new InputError("request.userInfo.username must be a string");
  const out: UserInfo = { username };
  if (v.uid !== undefined && v.uid !== null) {
    if (typeof v.uid !== "string") throw new InputError("request.userInfo.uid must be a string");
    out.uid = v.uid;
  }
  if (v.groups !== undefined && v.groups !== null) {
    if (!Array.isArray(v.groups) || !v.groups.every((g) => typeof g === "string")) {
      throw new InputError("request.userInfo.groups must be a list of strings");
    }
    out.groups = v.groups as string[];
  }
  if (v.extra !== undefined && v.extra !== null) {
    if (!isObject(v.extra)) throw new InputError("request.userInfo.extra must be a JSON object");
    const extra: Record<string, string[]> = {};
    for (const [k, values] of Object.entries(v.extra)) {
      if (!Array.isArray(values) || !values.every((x) => typeof x === "string")) {
        throw new InputError(`request.userInfo.extra[${shown(k)}] must be a list of strings`);
      }
      extra[k] = values as string[];
    }
    out.extra = extra;
  }
  return out;
}

/**
 * The object of a request, with `apiVersion` and `kind` taken from `request.kind` when the object lacks them (the
 * API server always sends them; a hand-written review may not).
 */
function withTypeMeta(value: unknown, requestKind: JsonObject | undefined, where: string): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new InputError(`${where} must be a JSON object`);
  if (typeof value.apiVersion === "string" && typeof value.kind === "string") return value;
  if (requestKind === undefined) return value;
  const { group, version, kind } = requestKind;
  if (typeof version !== "string" || typeof kind !== "string") return value;
  const apiVersion = typeof group === "string" && group !== "" ? `${group}/${version}` : version;
  return { apiVersion, kind, ...value };
}

/**
 * The PolicySet request of an AdmissionReview, or undefined when there is nothing to validate (a CONNECT or a
 * DELETE without an object). A DELETE validates the stored object, as the CLI does; a CONNECT (`pods/exec`...) is
 * judged by the admission families on its options object (`PodExecOptions`), which kube-apiserver sends as `object`.
 */
export function validateRequestOf(req: AdmissionRequest): ValidateRequest | undefined {
  let out: ValidateRequest;
  if (req.operation === "CONNECT") {
    if (req.object === undefined) return undefined;
    out = { operation: "CONNECT", object: req.object };
  } else if (req.operation === "DELETE") {
    const stored = req.oldObject ?? req.object;
    if (stored === undefined) return undefined;
    out = { operation: "DELETE", object: stored, oldObject: stored };
  } else {
    out = { operation: req.operation, object: req.object };
    if (req.oldObject !== undefined) out.oldObject = req.oldObject;
  }
  if (req.subResource !== undefined) out.subresource = req.subResource;
  if (req.dryRun) out.dryRun = true;
  return { ...out, ...req.attributes };
}

/** The warnings of a verdict as the webhook returns them: none for a kind no policy covers. */
export function warningsOf(verdict: Verdict): string[] {
  return verdict.covered ? verdict.warningTexts : [];
}

/**
 * The Status of a denied verdict: the admission plugin's own when one denied (Pod Security's 403 `Forbidden`...),
 * else the one kube-apiserver returns for an invalid object (422 `Invalid`, the aggregate message,
 * `details.causes[]`).
 */
export function denialStatus(verdict: Verdict, identity: DecodedIdentity | undefined): Status {
  if (verdict.status !== undefined) return admissionStatus(verdict.status);
  const { group, kind, name } = identity ?? { group: "", kind: "", name: "" };
  return invalidStatus({ group, kind }, name, verdict.errors);
}

/**
 * The audit annotations a webhook returns: the keys the admission plugin itself uses (kube-apiserver prefixes a
 * webhook's keys with the webhook's name, where its in-tree plugin prefixes them with its own).
 */
export function webhookAuditAnnotations(verdict: Verdict): Record<string, string> {
  const keys = verdict.auditAnnotationWebhookKeys ?? {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(verdict.auditAnnotations)) out[keys[k] ?? k] = v;
  return out;
}

/**
 * The AdmissionReview answer to a verdict: the same uid, `allowed`, on denial its Status (denialStatus), the
 * warnings and the audit annotations.
 */
export function reviewResponse(
  uid: string,
  verdict: Verdict | undefined,
  identity: DecodedIdentity | undefined,
): JsonObject {
  if (verdict === undefined) return review({ uid, allowed: true });
  const response: JsonObject = { uid, allowed: verdict.allowed };
  if (!verdict.allowed) response.status = embeddedStatus(denialStatus(verdict, identity));
  const warnings = warningsOf(verdict);
  if (warnings.length > 0) response.warnings = warnings;
  const annotations = webhookAuditAnnotations(verdict);
  if (Object.keys(annotations).length > 0) response.auditAnnotations = annotations;
  return review(response);
}

/**
 * The answer when tollgate cannot validate (an internal fault, or the bundle could not be loaded), under the
 * failure policy: `Fail` denies with a 500 `InternalError` Status, `Ignore` allows with a warning.
 */
export function faultReviewResponse(uid: string, failurePolicy: "Fail" | "Ignore", message: string): JsonObject {
  if (failurePolicy === "Ignore") {
    return review({ uid, allowed: true, warnings: [`${message} (allowed: tollgate's failure policy is Ignore)`] });
  }
  const { code, reason } = OUTCOMES.internal;
  return review({ uid, allowed: false, status: embeddedStatus(errorStatus(reason, code, message)) });
}

function review(response: JsonObject): JsonObject {
  return { apiVersion: ADMISSION_API_VERSION, kind: "AdmissionReview", response };
}
