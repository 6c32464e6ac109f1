/**
 * The public contract every surface (CLI, webhook, auditor) and every test uses. Later issues extend it only by
 * adding fields.
 */
import type { FieldError, RuleFamily } from "../field/error.js";
import type { Waiver } from "../waivers/waiver.js";
import type { Authorizer } from "./authorizer.js";

export type { RuleFamily };

export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** The user a request is made as (an AdmissionReview's `request.userInfo`, authentication/v1 UserInfo). */
export interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/**
 * One admission-style validation request. Only `operation` and `object` are required: what an AdmissionReview adds
 * (the user, the resource, the request's namespace and name) is derived from the object when absent, as the
 * auditor and the CLI need (the resource from the object's kind, through the built-in resources of Kubernetes 1.36
 * and the bundle's CRDs).
 */
export interface ValidateRequest {
  operation: Operation;
  /** The object of a CREATE or UPDATE; for a DELETE, the stored object (or null when unknown). */
  object: unknown;
  /** UPDATE (and DELETE): the object as stored before the request. */
  oldObject?: unknown;
  /** "status" and "/status" are the same; absent = the main resource. */
  subresource?: string;
  /** The requesting user (admission families: ValidatingAdmissionPolicy `request.userInfo`, Pod Security exemptions). */
  userInfo?: UserInfo;
  /** The request's namespace (an AdmissionReview's `request.namespace`). Default: the object's `metadata.namespace`. */
  namespace?: string;
  /** The request's name (`request.name`). Default: the object's `metadata.name`. */
  name?: string;
  /** The resource the request was matched as (`request.resource`). Default: the object's kind's resource. */
  resource?: GroupVersionResource;
  /** The kind the request was matched as (`request.kind`). Default: the object's apiVersion and kind. */
  kind?: GroupVersionKind;
  /** The kind and resource the client asked for, when the API server converted (`request.requestKind`...). */
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  /** A dry-run request (`request.dryRun`). Default false. */
  dryRun?: boolean;
  /** The operation's options (`request.options`: CreateOptions, UpdateOptions, DeleteOptions). */
  options?: Record<string, unknown>;
  /**
   * Asked before each family validates the object: true stops the validation, whose verdict then follows the
   * bundle's failure policy (the webhook passes its deadline here, below the Lambda's timeout). The engine reads no
   * clock itself. Default: never stop.
   */
  shouldStop?: () => boolean;
}

/** An admission denial that is not the 422 `Invalid` built from field errors: the Status the API server answers. */
export interface DenialStatus {
  /** HTTP code: 403 for Pod Security, 422/403/401/413 for a ValidatingAdmissionPolicy's reason. */
  code: number;
  /** The Status reason: `Forbidden`, `Invalid`, `Unauthorized`, `RequestEntityTooLarge`. */
  reason: string;
  /** The whole Status message, as the API server words it. */
  message: string;
  /**
   * The Status details as the admission plugin gives them: a 403 `Forbidden` names the resource (`kind: "pods"`) and
   * the object; an `InternalError` has one cause with the error's text.
   */
  details?: {
    group?: string;
    kind?: string;
    name?: string;
    causes?: { reason?: string; field?: string; message: string }[];
  };
  /** The family that denied. */
  family: RuleFamily;
}

/** The result of validating one object. */
export interface Verdict {
  allowed: boolean;
  /** False when no policy applies to the object's kind (allowed, and counted as skipped by the auditor). */
  covered: boolean;
  /** Errors that reject the object. */
  errors: FieldError[];
  /** Warning-severity results (KubeVirt justWarning, ignored rule types, failurePolicy Ignore, ratcheted CEL failures). */
  warnings: FieldError[];
  /** Alpha/beta declarative results that are not enforced. */
  shadowed: FieldError[];
  /**
   * UPDATE only: every error ratcheting suppressed (a ratcheted CEL failure is in `warnings` too, as the API
   * server returns it; a ratcheted OpenAPI error only here, as the API server discards it).
   */
  ratcheted: FieldError[];
  /**
   * Exactly the strings the API server would return as warnings: `${field}: ${message}` for a field warning, and
   * texts that are not field errors (`unknown field "spec.x"` for pruned fields, deprecated-version notices).
   */
  warningTexts: string[];
  /** The object as the API server would store it (pruned, defaulted), when a schema applies. */
  object?: unknown;
  /** Results that are only recorded, never returned to the client (VAP `Audit` action, Pod Security audit level). */
  audits: FieldError[];
  /**
   * Audit annotations, keyed as kube-apiserver's in-tree plugins record them (`<policy>/<key>`,
   * `validation.policy.admission.k8s.io/validation_failure`, `pod-security.kubernetes.io/enforce-policy`).
   */
  auditAnnotations: Record<string, string>;
  /**
   * For audit annotation keys a webhook must return differently: the key (of `auditAnnotations`) → the key the
   * webhook returns. kube-apiserver prefixes a webhook's keys with the webhook's name, so a webhook returns the
   * plugin's own keys (Pod Security: `enforce-policy`, which the in-tree plugin records as
   * `pod-security.kubernetes.io/enforce-policy`). Keys not listed are returned as they are.
   */
  auditAnnotationWebhookKeys?: Record<string, string>;
  /**
   * The policies the admission families checked the object against, when they checked it (Pod Security: each
   * `<level>:<version>` it evaluated the pod or template at, privileged excepted). For counts, e.g. the auditor's.
   */
  checkedAgainst?: readonly { family: RuleFamily; policy: string }[];
  /**
   * When an admission family denied the request: its Status (`allowed` is false). Absent when the denial is the
   * 422 `Invalid` the API server builds from `errors`.
   */
  status?: DenialStatus;
}

/** A kind the policy set covers. */
export interface CoveredKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  scope: "Namespaced" | "Cluster";
  family: RuleFamily;
  /** Number of rules (OpenAPI value validations and CEL rules) that apply to this kind. */
  rules: number;
  /** Subresources whose updates the policy validates too (`["status"]`); absent or empty: the main resource only. */
  subresources?: readonly string[];
}

/** A compiled family: its stage and, when it has any, the settings it runs with (Pod Security: its defaults). */
export interface FamilySummary {
  family: RuleFamily;
  stage: "schema" | "admission";
  settings?: Readonly<Record<string, unknown>>;
}

/** A document or rule that could not be used, reported at load. */
export interface PolicyFailure {
  /** Errors make a policy unusable; warnings are lint (ignored unknown rule types, unknown formats...). */
  severity: "error" | "warning";
  family: RuleFamily | "config";
  /**
   * Which step found it: `decode` (the document could not be read), `config` (tollgate.yaml, an artifact, a
   * document no family takes), `schema` (a CRD's schema), `pattern` (a CRD `pattern` that does not compile), `cel`
   * (a CEL rule that does not compile or exceeds the cost limits), `compile` (another family's compile).
   */
  stage?: "decode" | "config" | "schema" | "pattern" | "cel" | "compile";
  file?: string;
  /** Index of the document within its file (0-based). */
  document?: number;
  /** Path within the document ("spec.versions[0].schema.openAPIV3Schema..."). */
  path?: string;
  rule?: string;
  /**
   * The "<group>/<version>/<Kind>"s (or template) the failure makes unusable; {@link EVERY_KIND} alone when they
   * cannot be known (a document that could not be decoded or recognised, a Go file that does not parse, a family
   * that failed as a whole): the policy of any kind may be in it, so every object is treated as its kind's policy
   * failed (the bundle's failure policy decides).
   */
  kinds?: string[];
  message: string;
}

/**
 * A rule of a ValidatingWebhookConfiguration (admissionregistration/v1 RuleWithOperations): the requests a family
 * judges by resource rather than by kind (admission policies' `matchConstraints.resourceRules`).
 */
export interface AdmissionRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  /** `deployments`, `deployments/scale`, `*` (every resource; a subresource needs its own entry). */
  resources: string[];
  scope: "*" | "Cluster" | "Namespaced";
}

/** {@link PolicyFailure.kinds} of a failure whose kinds cannot be known: every kind. */
export const EVERY_KIND = "*";

/**
 * Something the bundle loader noticed that is not a problem: a document or file it ignored (a Kubernetes object no
 * family reads as a policy, kept as cluster state). Never a policy failure: notes fail no command and count nowhere.
 */
export interface PolicyNote {
  file?: string;
  /** Index of the document within its file (0-based). */
  document?: number;
  /** Where within the document ("items[3]" for an item of a `kind: List`). */
  path?: string;
  message: string;
}

/** A compiled, immutable set of policies. */
export interface PolicySet {
  /** Content hash of the bundle (sha256 of every document's path and content). */
  readonly digest: string;
  readonly kinds: readonly CoveredKind[];
  /** Requests families judge by resource (admission policies), for `tollgate webhook-config`; beside `kinds`. */
  readonly admissionRules: readonly AdmissionRule[];
  readonly failures: readonly PolicyFailure[];
  /** Documents and files the loader ignored (not policy failures: see {@link PolicyNote}). */
  readonly notes: readonly PolicyNote[];
  /**
   * The waivers in force: the bundle's `tollgate.dev/v1alpha1` `Waiver` documents and those of
   * {@link BundleOptions.waivers}. Never applied by `validate` (which reads no clock): callers apply them to its
   * verdicts at a time of their choosing (lib/waivers: compileWaivers, waiveVerdict).
   */
  readonly waivers: readonly Waiver[];
  /** The compiled families, in the order they run, with what each runs with (for `/healthz`). */
  readonly families: readonly FamilySummary[];
  /** The resolved bundle configuration in force. */
  readonly config: ResolvedBundleConfig;
  /**
   * Whether a compiled admission family consults this object as cluster state (a Namespace, an RBAC object, a
   * ValidatingAdmissionPolicy's param): the auditor takes such objects from its input.
   */
  consultsState(obj: Record<string, unknown>): boolean;
  covers(apiVersion: string, kind: string): boolean;
  /** Synchronous and pure; never throws for a bad object. */
  validate(req: ValidateRequest): Verdict;
}

export type FailurePolicy = "Fail" | "Ignore";

/** Bounds for decoding untrusted documents. */
export interface DecodeLimits {
  /** Largest document, in bytes of UTF-8 text. Default 8 MiB, the per-document limit of every input path. */
  documentBytes?: number;
  /** How a user raises `documentBytes` (a flag, a variable), named in the error text of a document over it. */
  documentBytesSetting?: string;
  /** Deepest nesting of arrays and objects. Default 128. */
  depth?: number;
}

export interface BundleOptions {
  /** Bounds for each policy document. Defaults: `documentBytes` 8 MiB (the per-document limit), `depth` 256. */
  limits?: DecodeLimits;
  /** Feature gates (name → enabled), over the bundle's tollgate.yaml and the built-in defaults. */
  featureGates?: Record<string, boolean>;
  /** Over the bundle's tollgate.yaml; default `Fail`. */
  failurePolicy?: FailurePolicy;
  /**
   * When CEL rules compile: `eager` (default for folders and files) compiles every rule at load and reports every
   * failure; `lazy` (always used for bundle artifacts, whose build recorded the failures) compiles a CRD version's
   * rules on its first validation, so a cold start pays only for the kinds it serves.
   */
  compile?: "eager" | "lazy";
  /** Rule families to enable or disable, over the bundle's tollgate.yaml; all on by default. */
  families?: Partial<Record<RuleFamily, boolean>>;
  /**
   * Cluster state beside the bundle's own (Namespaces, RBAC objects, parameter objects), e.g. the Namespaces of an
   * audited export. Not part of the digest. Objects here never become policies.
   */
  clusterState?: readonly unknown[];
  /**
   * What answers the authorization checks of admission policies (CEL `authorizer`). Default: an offline RBAC
   * authorizer over the Roles, ClusterRoles and bindings of the cluster state (with none, checks cannot be decided
   * and evaluate to an error under the policy's failurePolicy).
   */
  authorizer?: Authorizer;
  /** Pod Security options beyond the bundle's PodSecurityConfiguration. */
  podSecurity?: PodSecurityOptions;
  /** How to reach S3 for `s3://` sources. Default: AWS S3, with the AWS SDK's default region and credential chains. */
  s3?: BundleS3Options;
  /**
   * Waiver files beside the bundle (the auditor's `--waivers`): every document must be a `tollgate.dev/v1alpha1`
   * `Waiver`. They join the bundle's own waivers; not part of the digest (like `clusterState`). Default: none.
   */
  waivers?: readonly BundleFile[];
}

/** BundleOptions.podSecurity. */
export interface PodSecurityOptions {
  /**
   * `<level>[:<version>]` (`restricted`, `baseline:v1.30`): evaluate every Pod and workload as if its namespace
   * enforced this level (the auditor's what-if, `tollgate audit --pod-security`): failed checks of a workload's
   * template are violations too, and a namespace the cluster state does not hold is taken as unlabelled. Enables the
   * family with the default configuration when the bundle holds none. Default: the namespaces' own levels.
   */
  enforce?: string;
}

/** How loadBundle reaches S3 (lib/storage's S3 options; every field optional). */
export interface BundleS3Options {
  /** Endpoint URL of an S3-compatible server (`http://127.0.0.1:4569`). Default: AWS S3 for the region. */
  endpoint?: string;
  /** Path-style addressing (`endpoint/bucket/key`). Default: true when `endpoint` is set, false otherwise. */
  pathStyle?: boolean;
  /** Region. Default: the SDK's chain (`AWS_REGION`, profile), or `us-east-1` when `endpoint` is set. */
  region?: string;
  /** Static credentials. Default: the SDK's default chain (environment, profile, container or instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /**
   * The SDK's flexible checksums: `WHEN_SUPPORTED` or `WHEN_REQUIRED`. Default: `WHEN_REQUIRED` when `endpoint` is
   * set (S3-compatible servers such as s3rver mishandle streamed checksummed bodies), `WHEN_SUPPORTED` otherwise.
   */
  checksums?: "WHEN_SUPPORTED" | "WHEN_REQUIRED";
}

/** The bundle configuration after defaults: built-ins, then tollgate.yaml, then BundleOptions. */
export interface ResolvedBundleConfig {
  featureGates: Readonly<Record<string, boolean>>;
  failurePolicy: FailurePolicy;
  families: Readonly<Record<RuleFamily, boolean>>;
  limits: Readonly<{ documentBytes: number; depth: number }>;
}

/** An in-memory bundle file. */
export interface BundleFile {
  path: string;
  content: string;
}
