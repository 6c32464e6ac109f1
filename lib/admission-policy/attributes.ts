/**
 * The admission attributes of one request, as the ValidatingAdmissionPolicy plugin reads them
 * (k8s.io/apiserver pkg/admission Attributes): built once per request from the family request.
 */
import type { FamilyRequest } from "../policy/family.js";
import type { GroupVersionKind, GroupVersionResource, Operation, UserInfo } from "../policy/types.js";

export interface AdmissionAttributes {
  operation: Operation;
  /** The request's kind (attributes GetKind): what CEL's `request.requestKind` reports. */
  kind: GroupVersionKind;
  /** The request's resource (GetResource); empty resource name when unknown. */
  resource: GroupVersionResource;
  /** "" for the main resource. */
  subresource: string;
  namespace: string;
  name: string;
  /** null for DELETE (and CONNECT without options). */
  object: Record<string, unknown> | null;
  /** The stored object: UPDATE and DELETE. */
  oldObject: Record<string, unknown> | null;
  userInfo: UserInfo;
  dryRun: boolean;
  options: Record<string, unknown> | null;
  /** The object is a core/v1 Secret: values never leave the family. */
  secret: boolean;
}

/**
 * The attributes of a family request. A DELETE's object is the stored one (the family contract), which the
 * admission attributes give as `oldObject`, with a null `object`.
 */
export function attributesOf(req: FamilyRequest): AdmissionAttributes {
  const isDelete = req.operation === "DELETE";
  const stored = req.oldObject ?? req.object;
  return {
    operation: req.operation,
    kind: req.requestKind,
    resource: req.resource ?? { group: req.group, version: req.version, resource: "" },
    subresource: req.subresource ?? "",
    namespace: req.namespace,
    name: req.name,
    object: isDelete ? null : req.object,
    oldObject: isDelete ? stored : (req.oldObject ?? null),
    userInfo: req.userInfo,
    dryRun: req.dryRun,
    options: req.options ?? null,
    secret: req.secret,
  };
}
