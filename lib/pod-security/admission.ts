/**
 * The Pod Security admission logic (k8s.io/pod-security-admission admission/admission.go and response.go): which
 * requests are evaluated, the order of exemptions, the namespace policy, the enforce/audit/warn evaluations with
 * their messages, warnings and audit annotations, pod updates that are not re-evaluated, and namespace requests
 * (label validation, the exemption warning, the check of existing pods when the enforce level tightens).
 *
 * Pure: the namespaces and the existing pods come from the caller (tollgate's cluster state).
 */
import { type FieldError, invalid } from "../field/error.js";
import { goQuote } from "../go/strconv.js";
import { isMapping } from "../objects/mapping.js";
import { goCompare } from "./check.js";
import type { PodSecurityConfig } from "./config.js";
import {
  ANNOTATION_KEYS,
  compareLevels,
  equivalentPolicies,
  isFullyPrivileged,
  LABELS,
  type LabelError,
  type LevelVersion,
  type Policy,
  policyName,
  policyToEvaluate,
  sameLevelVersion,
} from "./levels.js";
import { jsonKind, PodDecodeError, type PodView, readPodOf } from "./pod-view.js";
import { type CheckViolation, type Evaluator, forbiddenDetail, forbiddenReason } from "./registry.js";

/** The admission request, as the library's api.Attributes gives it. */
export interface PodSecurityAttributes {
  operation: "CREATE" | "UPDATE";
  /** The request's group and resource (`pods`, `deployments`). */
  group: string;
  resource: string;
  /** "" for the main resource. */
  subresource: string;
  /** The object's kind (which pod template to read). */
  kind: string;
  namespace: string;
  name: string;
  username: string;
  object: Record<string, unknown>;
  oldObject?: Record<string, unknown>;
}

/** A namespace as the lookup found it, or why the lookup failed. */
export type NamespaceLookup = { labels: Readonly<Record<string, string>> } | { error: string };

/** What the admission logic consults. */
export interface AdmissionContext {
  config: PodSecurityConfig;
  evaluator: Evaluator;
  namespace(name: string): NamespaceLookup;
  /** The pods of a namespace (checked when a namespace's enforce level tightens). */
  pods(namespace: string): readonly Record<string, unknown>[];
  /**
   * The what-if enforce level (BundleOptions.podSecurity.enforce): every namespace enforces it, a workload's template
   * too (its failures are denials without a Status of their own), and a namespace that cannot be found is taken as
   * unlabelled.
   */
  enforceOverride?: LevelVersion;
}

/** A metav1.Status of a denial. */
export interface PodSecurityStatus {
  code: number;
  reason: "Forbidden" | "InternalError" | "BadRequest";
  message: string;
  details?: { group?: string; kind?: string; name?: string; causes?: { message: string }[] };
}

export type Mode = "enforce" | "audit" | "warn";

/** One mode's evaluation that found violations. */
export interface ModeViolations {
  mode: Mode;
  policy: LevelVersion;
  violations: CheckViolation[];
}

/** The admission response, with what tollgate turns into findings. */
export interface PodSecurityResponse {
  allowed: boolean;
  /** The denial's Status (Forbidden, InternalError, BadRequest); absent for namespaces' 422 (see `invalid`). */
  status?: PodSecurityStatus;
  warnings: string[];
  /** The library's audit annotation keys (unprefixed). */
  auditAnnotations: Record<string, string>;
  /** Every mode whose evaluation found violations. */
  evaluations: ModeViolations[];
  /** The level-versions the pod (template) was checked at, privileged excepted, in the order evaluated. */
  checked: LevelVersion[];
  /** A Namespace request with invalid Pod Security labels: the 422 Invalid field errors. */
  invalid?: FieldError[];
  /** A value of the wrong type in the object (or the old object). */
  decodeError?: PodDecodeError;
  /** The namespace lookup failed. */
  lookupError?: string;
}

/** Pod subresources that are never evaluated; any other is a Pod and is evaluated. */
const IGNORED_POD_SUBRESOURCES = new Set([
  "exec",
  "attach",
  "binding",
  "eviction",
  "log",
  "portforward",
  "proxy",
  "status",
]);

function allowed(annotations: Record<string, string> = {}): PodSecurityResponse {
  return { allowed: true, warnings: [], auditAnnotations: annotations, evaluations: [], checked: [] };
}

function exempt(reason: "namespace" | "user" | "runtimeClass"): PodSecurityResponse {
  return allowed({ [ANNOTATION_KEYS.exempt]: reason });
}

/** errorResponse: denied with the Status, its message (and the error) as the `error` annotation. */
function errorResponse(status: PodSecurityStatus, err?: string): PodSecurityResponse {
  const r = allowed({ [ANNOTATION_KEYS.error]: err === undefined ? status.message : `${status.message}: ${err}` });
  r.allowed = false;
  r.status = status;
  return r;
}

function badRequest(message: string): PodSecurityStatus {
  return { code: 400, reason: "BadRequest", message };
}

/** apierrors.NewForbidden's message: `<resource>[.<group>] ["<name>"] is forbidden: <err>`. */
export function forbiddenMessage(group: string, resource: string, name: string, err: string): string {
  const qualified = group === "" ? resource : `${resource}.${group}`;
  return name === "" ? `${qualified} is forbidden: ${err}` : `${qualified} ${goQuote(name)} is forbidden: ${err}`;
}

/** A Namespace whose labels are not a map of strings could not be decoded. */
function nonStringLabel(obj: Record<string, unknown>): PodDecodeError | undefined {
  const meta = obj.metadata;
  if (!isMapping(meta) || meta.labels === undefined || meta.labels === null) return undefined;
  const where = "Go struct field ObjectMeta.metadata.labels";
  if (!isMapping(meta.labels)) {
    const message = `json: cannot unmarshal ${jsonKind(meta.labels, "map")} into ${where} of type map[string]string`;
    return new PodDecodeError(message, "metadata.labels");
  }
  for (const [k, v] of Object.entries(meta.labels)) {
    if (v === null || typeof v === "string") continue;
    return new PodDecodeError(
      `json: cannot unmarshal ${jsonKind(v, "string")} into ${where} of type string`,
      `metadata.labels[${k}]`,
    );
  }
  return undefined;
}

function labelsOf(obj: Record<string, unknown>): Record<string, string> {
  const meta = obj.metadata;
  if (!isMapping(meta) || !isMapping(meta.labels)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(meta.labels)) if (typeof v === "string") out[k] = v;
  return out;
}

/** Field errors of invalid namespace labels: field.Invalid at `metadata.labels[<label>]`. */
function labelFieldErrors(errors: readonly LabelError[]): FieldError[] {
  return errors.map((e) =>
    invalid(`metadata.labels[${e.label}]`, e.value, e.detail, {
      source: { kind: "pod-security", policy: "namespace labels", rule: e.label },
    }),
  );
}

/** field.ErrorList.ToAggregate().Error() of the label problems. */
export function labelErrorsText(errors: readonly LabelError[]): string {
  const texts = [
    ...new Set(errors.map((e) => `metadata.labels[${e.label}]: Invalid value: ${goQuote(e.value)}: ${e.detail}`)),
  ];
  return texts.length === 1 ? texts[0]! : `[${texts.join(", ")}]`;
}

/**
 * The Pod Security admission plugin over one configuration and cluster state (the library's admission.Admission):
 * which requests it evaluates, in what order exemptions apply, and the enforce, audit and warn evaluations.
 */
export class PodSecurityAdmission {
  readonly config: AdmissionContext["config"];
  readonly evaluator: AdmissionContext["evaluator"];
  private readonly ctx: AdmissionContext;

  constructor(ctx: AdmissionContext) {
    this.ctx = ctx;
    this.config = ctx.config;
    this.evaluator = ctx.evaluator;
  }

  private exemptNamespace(ns: string): boolean {
    return ns !== "" && this.config.exemptions.namespaces.has(ns);
  }

  private exemptUser(user: string): boolean {
    return user !== "" && this.config.exemptions.usernames.has(user);
  }

  private exemptRuntimeClass(rc: string | undefined): boolean {
    return rc !== undefined && rc !== "" && this.config.exemptions.runtimeClasses.has(rc);
  }

  /** The namespace policy, with the what-if enforce level over it. */
  private policyOf(labels: Readonly<Record<string, string>>) {
    const p = policyToEvaluate(labels, this.config.defaults);
    return this.ctx.enforceOverride === undefined
      ? p
      : { ...p, policy: { ...p.policy, enforce: this.ctx.enforceOverride } };
  }

  /** The namespace lookup; under the what-if level, a namespace that cannot be found is unlabelled. */
  private lookup(name: string): NamespaceLookup {
    const ns = this.ctx.namespace(name);
    return "error" in ns && this.ctx.enforceOverride !== undefined ? { labels: {} } : ns;
  }

  /** EvaluatePod: the enforce (when `enforce`), audit and warn evaluations of one pod(-like) object. */
  private evaluatePod(
    policy: Policy,
    labelErrors: readonly LabelError[],
    pod: PodView,
    attrs: PodSecurityAttributes,
    enforce: boolean,
  ): PodSecurityResponse {
    if (this.exemptRuntimeClass(pod.runtimeClassName)) return exempt("runtimeClass");
    const response = allowed();
    const annotations = response.auditAnnotations;
    if (labelErrors.length > 0)
      annotations[ANNOTATION_KEYS.error] = `Failed to parse policy: ${labelErrorsText(labelErrors)}`;
    const cache: { lv: LevelVersion; violations: CheckViolation[] }[] = [];
    const evaluate = (lv: LevelVersion): CheckViolation[] => {
      const hit = cache.find((c) => sameLevelVersion(c.lv, lv));
      if (hit !== undefined) return hit.violations;
      const violations = this.evaluator.evaluate(lv, pod);
      cache.push({ lv, violations });
      if (lv.level !== "privileged") response.checked.push(lv);
      return violations;
    };
    if (enforce) {
      annotations[ANNOTATION_KEYS.enforcePolicy] = policyName(policy.enforce);
      const v = evaluate(policy.enforce);
      if (v.length > 0 && attrs.resource !== "pods") {
        // A workload's template under the what-if enforce level: denied, without a Status the API server never gives.
        response.allowed = false;
        response.evaluations.push({ mode: "enforce", policy: policy.enforce, violations: v });
      } else if (v.length > 0) {
        response.allowed = false;
        const err = `violates PodSecurity ${goQuote(policyName(policy.enforce))}: ${forbiddenDetail(v)}`;
        const details: NonNullable<PodSecurityStatus["details"]> = { kind: attrs.resource };
        if (attrs.group !== "") details.group = attrs.group;
        if (attrs.name !== "") details.name = attrs.name;
        response.status = {
          code: 403,
          reason: "Forbidden",
          message: forbiddenMessage(attrs.group, attrs.resource, attrs.name, err),
          details,
        };
        response.evaluations.push({ mode: "enforce", policy: policy.enforce, violations: v });
      }
    }
    const audit = evaluate(policy.audit);
    if (audit.length > 0) {
      annotations[ANNOTATION_KEYS.auditViolations] =
        `would violate PodSecurity ${goQuote(policyName(policy.audit))}: ${forbiddenDetail(audit)}`;
      response.evaluations.push({ mode: "audit", policy: policy.audit, violations: audit });
    }
    // No warnings on a request that is denied anyway.
    if (response.allowed) {
      const warn = evaluate(policy.warn);
      if (warn.length > 0) {
        response.warnings.push(
          `would violate PodSecurity ${goQuote(policyName(policy.warn))}: ${forbiddenDetail(warn)}`,
        );
        response.evaluations.push({ mode: "warn", policy: policy.warn, violations: warn });
      }
    }
    return response;
  }

  private readPod(obj: Record<string, unknown>, kind: string): PodView | undefined | PodDecodeError {
    try {
      return readPodOf(obj, kind);
    } catch (e) {
      if (e instanceof PodDecodeError) return e;
      throw e;
    }
  }

  private validatePod(attrs: PodSecurityAttributes): PodSecurityResponse {
    if (IGNORED_POD_SUBRESOURCES.has(attrs.subresource)) return allowed();
    if (this.exemptNamespace(attrs.namespace)) return exempt("namespace");
    if (this.exemptUser(attrs.username)) return exempt("user");
    const ns = this.lookup(attrs.namespace);
    if ("error" in ns) {
      const err = `failed to lookup namespace ${goQuote(attrs.namespace)}`;
      const status: PodSecurityStatus = {
        code: 500,
        reason: "InternalError",
        message: `Internal error occurred: ${err}`,
        details: { causes: [{ message: err }] },
      };
      return { ...errorResponse(status, ns.error), lookupError: ns.error };
    }
    const { policy, errors } = this.policyOf(ns.labels);
    if (errors.length === 0 && isFullyPrivileged(policy)) {
      return allowed({ [ANNOTATION_KEYS.enforcePolicy]: "privileged:latest" });
    }
    const pod = this.readPod(attrs.object, "Pod");
    if (pod instanceof PodDecodeError) {
      return { ...errorResponse(badRequest("failed to decode object"), pod.message), decodeError: pod };
    }
    if (attrs.operation === "UPDATE" && attrs.oldObject !== undefined) {
      const old = this.readPod(attrs.oldObject, "Pod");
      if (old instanceof PodDecodeError) {
        return { ...errorResponse(badRequest("failed to decode old object"), old.message), decodeError: old };
      }
      // Nothing that matters changed: the update is always allowed.
      if (pod !== undefined && old !== undefined && !isSignificantPodUpdate(pod, old)) return allowed();
    }
    return this.evaluatePod(policy, errors, pod!, attrs, true);
  }

  private validatePodController(attrs: PodSecurityAttributes): PodSecurityResponse {
    if (attrs.subresource !== "") return allowed();
    if (this.exemptNamespace(attrs.namespace)) return exempt("namespace");
    if (this.exemptUser(attrs.username)) return exempt("user");
    const ns = this.lookup(attrs.namespace);
    if ("error" in ns) {
      const r = allowed({
        [ANNOTATION_KEYS.error]: `failed to lookup namespace ${goQuote(attrs.namespace)}: ${ns.error}`,
      });
      return { ...r, lookupError: ns.error };
    }
    const { policy, errors } = this.policyOf(ns.labels);
    const whatIf = this.ctx.enforceOverride !== undefined;
    if (!whatIf && errors.length === 0 && policy.warn.level === "privileged" && policy.audit.level === "privileged") {
      return allowed();
    }
    const pod = this.readPod(attrs.object, attrs.kind);
    if (pod instanceof PodDecodeError) {
      return { ...allowed({ [ANNOTATION_KEYS.error]: `failed to decode object: ${pod.message}` }), decodeError: pod };
    }
    // A controller whose pod template is optional and absent is not evaluated.
    if (pod === undefined) return allowed();
    return this.evaluatePod(policy, errors, pod, attrs, whatIf);
  }

  private validateNamespace(attrs: PodSecurityAttributes): PodSecurityResponse {
    if (attrs.subresource !== "") return allowed();
    const name = nameOf(attrs.object);
    const labelProblem = nonStringLabel(attrs.object);
    if (labelProblem !== undefined) {
      return {
        ...errorResponse(badRequest("failed to decode object"), labelProblem.message),
        decodeError: labelProblem,
      };
    }
    const labels = labelsOf(attrs.object);
    // Namespace requests are judged on their own labels (the what-if level is about pods and templates).
    const next = policyToEvaluate(labels, this.config.defaults);
    const invalidResponse = (): PodSecurityResponse => ({
      ...allowed(),
      allowed: false,
      invalid: labelFieldErrors(next.errors),
    });
    const exemptWarning = (): PodSecurityResponse => {
      const r = allowed();
      const warning = exemptNamespaceWarning(name, next.policy, labels, this.config.defaults);
      if (warning !== "") r.warnings.push(warning);
      return r;
    };
    if (attrs.operation === "CREATE") {
      if (next.errors.length > 0) return invalidResponse();
      if (this.exemptNamespace(attrs.namespace)) return exemptWarning();
      return allowed();
    }
    const old = policyToEvaluate(attrs.oldObject === undefined ? {} : labelsOf(attrs.oldObject), this.config.defaults);
    if (next.errors.length > 0 && (old.errors.length === 0 || !sameLabelErrors(next.errors, old.errors))) {
      return invalidResponse();
    }
    const enforce = next.policy.enforce;
    const oldEnforce = old.policy.enforce;
    if (sameLevelVersion(enforce, oldEnforce) || enforce.level === "privileged") return allowed();
    if (enforce.version.text === oldEnforce.version.text && compareLevels(enforce.level, oldEnforce.level) < 1) {
      return allowed();
    }
    if (this.exemptNamespace(attrs.namespace)) return exemptWarning();
    const r = allowed();
    r.warnings = this.evaluatePodsInNamespace(name, enforce);
    return r;
  }

  /** EvaluatePodsInNamespace: the existing pods against a tightened enforce level, as warnings. */
  private evaluatePodsInNamespace(namespace: string, enforce: LevelVersion): string[] {
    const pods = this.prioritizePods(this.ctx.pods(namespace));
    const total = pods.length;
    const checked = pods.slice(0, MAX_PODS_TO_CHECK);
    const counts = new Map<string, { podName: string; count: number }>();
    const order: string[] = [];
    for (const { pod, view } of checked) {
      const v = this.evaluator.evaluate(enforce, view);
      if (v.length === 0) continue;
      const warning = forbiddenReason(v);
      const podName = nameOf(pod);
      const c = counts.get(warning);
      if (c === undefined) {
        counts.set(warning, { podName, count: 1 });
        order.push(warning);
      } else {
        if (goCompare(podName, c.podName) < 0) c.podName = podName;
        c.count++;
      }
    }
    const warnings: string[] = [];
    if (checked.length < total) {
      warnings.push(
        `new PodSecurity enforce level only checked against the first ${checked.length} of ${total} existing pods`,
      );
    }
    if (order.length > 0) {
      warnings.push(
        `existing pods in namespace ${goQuote(namespace)} violate the new PodSecurity enforce level ${goQuote(policyName(enforce))}`,
      );
    }
    const decorated = order.map((w) => {
      const c = counts.get(w)!;
      if (c.count === 1) return `${c.podName}: ${w}`;
      if (c.count === 2) return `${c.podName} (and 1 other pod): ${w}`;
      return `${c.podName} (and ${c.count - 1} other pods): ${w}`;
    });
    return [...warnings, ...decorated.sort(goCompare)];
  }

  /** prioritizePods: pods of exempt runtime classes dropped, one pod per controller first, the others after. */
  private prioritizePods(pods: readonly Record<string, unknown>[]): { pod: Record<string, unknown>; view: PodView }[] {
    const first: { pod: Record<string, unknown>; view: PodView }[] = [];
    const duplicates: { pod: Record<string, unknown>; view: PodView }[] = [];
    const controllers = new Set<string>();
    for (const pod of pods) {
      const view = this.readPod(pod, "Pod");
      // A stored pod that cannot be read is not checked (the API server's would have been decoded).
      if (view === undefined || view instanceof PodDecodeError) continue;
      if (this.exemptRuntimeClass(view.runtimeClassName)) continue;
      const uid = controllerUid(pod);
      if (uid === undefined) first.push({ pod, view });
      else if (controllers.has(uid)) duplicates.push({ pod, view });
      else {
        controllers.add(uid);
        first.push({ pod, view });
      }
    }
    return [...first, ...duplicates];
  }

  /** Admission.Validate. */
  validate(attrs: PodSecurityAttributes): PodSecurityResponse {
    if (attrs.group === "" && attrs.resource === "namespaces") return this.validateNamespace(attrs);
    if (attrs.group === "" && attrs.resource === "pods") return this.validatePod(attrs);
    return this.validatePodController(attrs);
  }
}

/** The plugin over one configuration and cluster state. */
export function createAdmission(ctx: AdmissionContext): PodSecurityAdmission {
  return new PodSecurityAdmission(ctx);
}

/** The library's cap on the pods checked when a namespace's enforce level tightens. */
const MAX_PODS_TO_CHECK = 3000;

function nameOf(obj: Record<string, unknown>): string {
  const meta = obj.metadata;
  return isMapping(meta) && typeof meta.name === "string" ? meta.name : "";
}

/** metav1.GetControllerOf: the uid of the owner reference with `controller: true`. */
function controllerUid(obj: Record<string, unknown>): string | undefined {
  const meta = obj.metadata;
  if (!isMapping(meta) || !Array.isArray(meta.ownerReferences)) return undefined;
  for (const ref of meta.ownerReferences) {
    if (isMapping(ref) && ref.controller === true) return typeof ref.uid === "string" ? ref.uid : "";
  }
  return undefined;
}

function sameLabelErrors(a: readonly LabelError[], b: readonly LabelError[]): boolean {
  return (
    a.length === b.length &&
    a.every((e, i) => e.label === b[i]!.label && e.value === b[i]!.value && e.detail === b[i]!.detail)
  );
}

/**
 * isSignificantPodUpdate: only a change of the containers (their number or images) or a new or changed ephemeral
 * container re-evaluates an updated pod; anything else that can change on a pod update cannot make it less secure.
 */
export function isSignificantPodUpdate(pod: PodView, old: PodView): boolean {
  const byList = (v: PodView, list: string) => v.containers.filter((c) => c.list === list);
  for (const list of ["containers", "initContainers"]) {
    const a = byList(pod, list);
    const b = byList(old, list);
    if (a.length !== b.length) return true;
    if (a.some((c, i) => c.image !== b[i]!.image)) return true;
  }
  const oldEphemeral = byList(old, "ephemeralContainers");
  for (const c of byList(pod, "ephemeralContainers")) {
    const o = oldEphemeral.find((x) => x.name === c.name);
    if (o === undefined || o.image !== c.image) return true;
  }
  return false;
}

/**
 * exemptNamespaceWarning: for an exempt namespace whose labels set a non-privileged policy that differs from the
 * defaults, which modes (explicitly labelled, not privileged) will be ignored.
 */
function exemptNamespaceWarning(
  namespace: string,
  policy: Policy,
  labels: Readonly<Record<string, string>>,
  defaults: Policy,
): string {
  if (isFullyPrivileged(policy) || equivalentPolicies(policy, defaults)) return "";
  const has = (l: string) => Object.hasOwn(labels, l);
  const parts: string[] = [];
  if (policy.enforce.level !== "privileged" && (has(LABELS.enforce) || has(LABELS.enforceVersion))) {
    parts.push(`enforce=${policyName(policy.enforce)}`);
  }
  if (policy.audit.level !== "privileged" && (has(LABELS.audit) || has(LABELS.auditVersion))) {
    parts.push(`audit=${policyName(policy.audit)}`);
  }
  if (policy.warn.level !== "privileged" && (has(LABELS.warn) || has(LABELS.warnVersion))) {
    parts.push(`warn=${policyName(policy.warn)}`);
  }
  return `namespace ${goQuote(namespace)} is exempt from Pod Security, and the policy (${parts.join(", ")}) will be ignored`;
}
