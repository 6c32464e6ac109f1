/**
 * ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding documents (admissionregistration.k8s.io v1, and
 * v1beta1 read as the same shape), decoded as the API server's typed decoding reads them, with the defaults the API
 * server applies on create (k8s.io/kubernetes pkg/apis/admissionregistration/v1 defaults.go): `failurePolicy` Fail;
 * on `matchConstraints` / `matchResources` when present, `matchPolicy` Equivalent and empty (match-all)
 * `namespaceSelector` / `objectSelector`; every rule's `scope` "*". Nothing else is defaulted (in particular
 * `paramRef.parameterNotFoundAction`, required in v1). A field of the wrong JSON type makes the document undecodable
 * (it could not exist in a cluster): a problem, reported at load.
 */
import { isMapping } from "../objects/mapping.js";

export const ADMISSION_GROUP = "admissionregistration.k8s.io";
export const POLICY_KIND = "ValidatingAdmissionPolicy";
export const BINDING_KIND = "ValidatingAdmissionPolicyBinding";
const VERSIONS = new Set(["v1", "v1beta1"]);

export type FailurePolicyType = "Fail" | "Ignore";

/** metav1.LabelSelector as written. */
export interface LabelSelectorSpec {
  matchLabels: Readonly<Record<string, string>>;
  matchExpressions: readonly { key: string; operator: string; values: readonly string[] }[];
}

/** admissionregistration/v1 NamedRuleWithOperations. */
export interface NamedRule {
  operations: readonly string[];
  apiGroups: readonly string[];
  apiVersions: readonly string[];
  resources: readonly string[];
  /** "*" (default), "Cluster" or "Namespaced". */
  scope: string;
  resourceNames: readonly string[];
}

/** admissionregistration/v1 MatchResources, defaulted. */
export interface MatchResources {
  /** Absent or null: {} (matches everything). */
  namespaceSelector: LabelSelectorSpec;
  objectSelector: LabelSelectorSpec;
  resourceRules: readonly NamedRule[];
  excludeResourceRules: readonly NamedRule[];
  /** "Equivalent" (default) or "Exact". */
  matchPolicy: string;
}

export interface ValidationSpec {
  expression: string;
  message: string;
  messageExpression: string;
  /** Absent: Invalid. */
  reason?: string;
}

export interface NamedExpression {
  name: string;
  expression: string;
}

export interface AuditAnnotationSpec {
  key: string;
  valueExpression: string;
}

export interface PolicyDocument {
  name: string;
  apiVersion: string;
  paramKind?: { apiVersion: string; kind: string };
  matchConstraints?: MatchResources;
  validations: readonly ValidationSpec[];
  auditAnnotations: readonly AuditAnnotationSpec[];
  matchConditions: readonly NamedExpression[];
  variables: readonly NamedExpression[];
  failurePolicy: string;
}

export interface ParamRefSpec {
  name: string;
  namespace: string;
  selector?: LabelSelectorSpec;
  /** "Allow", "Deny", or absent. */
  parameterNotFoundAction?: string;
}

export interface BindingDocument {
  name: string;
  apiVersion: string;
  policyName: string;
  paramRef?: ParamRefSpec;
  matchResources?: MatchResources;
  validationActions: readonly string[];
}

/** Why a document could not be decoded: the JSON path and what is wrong. */
export class DecodeProblem extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** Which of the two kinds a document is, or undefined. */
export function admissionDocumentKind(obj: Record<string, unknown>): "policy" | "binding" | undefined {
  const apiVersion = obj.apiVersion;
  if (typeof apiVersion !== "string" || !apiVersion.startsWith(`${ADMISSION_GROUP}/`)) return undefined;
  if (!VERSIONS.has(apiVersion.slice(ADMISSION_GROUP.length + 1))) return undefined;
  if (obj.kind === POLICY_KIND) return "policy";
  if (obj.kind === BINDING_KIND) return "binding";
  return undefined;
}

/** A typed reader of one document: Go's JSON decoding into the API struct (null is the zero value). */
class Reader {
  constructor(private readonly root: string) {}

  fail(path: string, message: string): never {
    throw new DecodeProblem(path === "" ? this.root : path, message);
  }

  object(v: unknown, path: string): Record<string, unknown> | undefined {
    if (v === undefined || v === null) return undefined;
    if (!isMapping(v)) this.fail(path, "must be an object");
    return v;
  }

  string(v: unknown, path: string): string {
    if (v === undefined || v === null) return "";
    if (typeof v !== "string") this.fail(path, "must be a string");
    return v;
  }

  optionalString(v: unknown, path: string): string | undefined {
    if (v === undefined || v === null) return undefined;
    return this.string(v, path);
  }

  strings(v: unknown, path: string): string[] {
    return this.list(v, path, (x, p) => this.string(x, p));
  }

  list<T>(v: unknown, path: string, item: (x: unknown, path: string) => T): T[] {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(path, "must be a list");
    return v.map((x, i) => item(x, `${path}[${i}]`));
  }

  stringMap(v: unknown, path: string): Record<string, string> {
    const o = this.object(v, path) ?? {};
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(o)) out[k] = this.string(x, `${path}[${k}]`);
    return out;
  }
}

function labelSelector(r: Reader, v: unknown, path: string): LabelSelectorSpec | undefined {
  const o = r.object(v, path);
  if (o === undefined) return undefined;
  return {
    matchLabels: r.stringMap(o.matchLabels, `${path}.matchLabels`),
    matchExpressions: r.list(o.matchExpressions, `${path}.matchExpressions`, (x, p) => {
      const e = r.object(x, p) ?? {};
      return {
        key: r.string(e.key, `${p}.key`),
        operator: r.string(e.operator, `${p}.operator`),
        values: r.strings(e.values, `${p}.values`),
      };
    }),
  };
}

const EVERYTHING: LabelSelectorSpec = Object.freeze({ matchLabels: {}, matchExpressions: [] });

function namedRule(r: Reader, v: unknown, path: string): NamedRule {
  const o = r.object(v, path) ?? {};
  return {
    operations: r.strings(o.operations, `${path}.operations`),
    apiGroups: r.strings(o.apiGroups, `${path}.apiGroups`),
    apiVersions: r.strings(o.apiVersions, `${path}.apiVersions`),
    resources: r.strings(o.resources, `${path}.resources`),
    scope: r.optionalString(o.scope, `${path}.scope`) ?? "*",
    resourceNames: r.strings(o.resourceNames, `${path}.resourceNames`),
  };
}

function matchResources(r: Reader, v: unknown, path: string): MatchResources | undefined {
  const o = r.object(v, path);
  if (o === undefined) return undefined;
  // null decodes to a nil selector, which the defaulter fills like an absent one.
  return {
    namespaceSelector: labelSelector(r, o.namespaceSelector, `${path}.namespaceSelector`) ?? EVERYTHING,
    objectSelector: labelSelector(r, o.objectSelector, `${path}.objectSelector`) ?? EVERYTHING,
    resourceRules: r.list(o.resourceRules, `${path}.resourceRules`, (x, p) => namedRule(r, x, p)),
    excludeResourceRules: r.list(o.excludeResourceRules, `${path}.excludeResourceRules`, (x, p) => namedRule(r, x, p)),
    matchPolicy: r.optionalString(o.matchPolicy, `${path}.matchPolicy`) ?? "Equivalent",
  };
}

function nameOf(r: Reader, obj: Record<string, unknown>): string {
  const meta = r.object(obj.metadata, "metadata") ?? {};
  return r.string(meta.name, "metadata.name");
}

/** Decodes a ValidatingAdmissionPolicy. @throws DecodeProblem */
export function decodePolicy(obj: Record<string, unknown>): PolicyDocument {
  const r = new Reader("spec");
  const name = nameOf(r, obj);
  const spec = r.object(obj.spec, "spec") ?? {};
  const paramKindObj = r.object(spec.paramKind, "spec.paramKind");
  const out: PolicyDocument = {
    name,
    apiVersion: String(obj.apiVersion),
    validations: r.list(spec.validations, "spec.validations", (x, p) => {
      const o = r.object(x, p) ?? {};
      const v: ValidationSpec = {
        expression: r.string(o.expression, `${p}.expression`),
        message: r.string(o.message, `${p}.message`),
        messageExpression: r.string(o.messageExpression, `${p}.messageExpression`),
      };
      const reason = r.optionalString(o.reason, `${p}.reason`);
      if (reason !== undefined) v.reason = reason;
      return v;
    }),
    auditAnnotations: r.list(spec.auditAnnotations, "spec.auditAnnotations", (x, p) => {
      const o = r.object(x, p) ?? {};
      return { key: r.string(o.key, `${p}.key`), valueExpression: r.string(o.valueExpression, `${p}.valueExpression`) };
    }),
    matchConditions: r.list(spec.matchConditions, "spec.matchConditions", (x, p) => namedExpression(r, x, p)),
    variables: r.list(spec.variables, "spec.variables", (x, p) => namedExpression(r, x, p)),
    failurePolicy: r.optionalString(spec.failurePolicy, "spec.failurePolicy") ?? "Fail",
  };
  if (paramKindObj !== undefined) {
    out.paramKind = {
      apiVersion: r.string(paramKindObj.apiVersion, "spec.paramKind.apiVersion"),
      kind: r.string(paramKindObj.kind, "spec.paramKind.kind"),
    };
  }
  const constraints = matchResources(r, spec.matchConstraints, "spec.matchConstraints");
  if (constraints !== undefined) out.matchConstraints = constraints;
  return out;
}

function namedExpression(r: Reader, v: unknown, path: string): NamedExpression {
  const o = r.object(v, path) ?? {};
  return { name: r.string(o.name, `${path}.name`), expression: r.string(o.expression, `${path}.expression`) };
}

/** Decodes a ValidatingAdmissionPolicyBinding. @throws DecodeProblem */
export function decodeBinding(obj: Record<string, unknown>): BindingDocument {
  const r = new Reader("spec");
  const name = nameOf(r, obj);
  const spec = r.object(obj.spec, "spec") ?? {};
  const out: BindingDocument = {
    name,
    apiVersion: String(obj.apiVersion),
    policyName: r.string(spec.policyName, "spec.policyName"),
    validationActions: r.strings(spec.validationActions, "spec.validationActions"),
  };
  const ref = r.object(spec.paramRef, "spec.paramRef");
  if (ref !== undefined) {
    const paramRef: ParamRefSpec = {
      name: r.string(ref.name, "spec.paramRef.name"),
      namespace: r.string(ref.namespace, "spec.paramRef.namespace"),
    };
    const selector = labelSelector(r, ref.selector, "spec.paramRef.selector");
    if (selector !== undefined) paramRef.selector = selector;
    const action = r.optionalString(ref.parameterNotFoundAction, "spec.paramRef.parameterNotFoundAction");
    if (action !== undefined) paramRef.parameterNotFoundAction = action;
    out.paramRef = paramRef;
  }
  const resources = matchResources(r, spec.matchResources, "spec.matchResources");
  if (resources !== undefined) out.matchResources = resources;
  return out;
}
