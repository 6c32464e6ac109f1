/**
 * The plug-in contract of the rule families. Every family (CRD schemas and CEL rules, KubeVirt template validations,
 * declarative +k8s: tags, Pod Security, ValidatingAdmissionPolicy) lives in its own folder and exports one
 * {@link FamilyCompilerFactory}; lib/bundle offers it the bundle's files and documents, compiles it once, and the
 * PolicySet consults the compiled {@link FamilyPolicy} for every object whose kind it covers. The PolicySet knows no
 * family by name: it routes by kind, merges results on one path and applies the failure policy.
 *
 * Families come in two stages, applied in the API server's order (see RULE_FAMILIES in lib/field/error.ts):
 * - `schema` families answer as the resource's strategy validation does: field errors that deny with 422 `Invalid`.
 *   When any of them denies, the admission stage does not run (the registry validates before it calls the
 *   validating admission plugins: k8s.io/apiserver registry/generic/registry/store.go, Create and Update).
 * - `admission` families answer as validating admission plugins do, in order; the first that denies gives the
 *   request's Status ({@link FamilyResult.status}); warnings and audit annotations of every family are kept.
 */
import type { ErrorContext, FieldError, RuleFamily } from "../field/error.js";
import type { SchemaNode } from "../schema/structural.js";
import type { Authorizer } from "./authorizer.js";
import type { ClusterState } from "./cluster-state.js";
import type { ResourceCatalogue } from "./resources.js";
import type {
  AdmissionRule,
  BundleFile,
  BundleOptions,
  CoveredKind,
  DenialStatus,
  GroupVersionKind,
  GroupVersionResource,
  Operation,
  PolicyFailure,
  ResolvedBundleConfig,
  UserInfo,
} from "./types.js";

export type FamilyStage = "schema" | "admission";

/** A decoded bundle document offered to the families (BundleConfig is taken before). */
export interface BundleDocument {
  object: Record<string, unknown>;
  file: string;
  /** Index of the document within its file. */
  document: number;
  /** "items[3]" when the document came out of a `kind: List`. */
  item?: string;
}

/**
 * The request as a family sees it: a decoded object and everything known about the request, resolved once by the
 * PolicySet (the defaults of ValidateRequest applied).
 */
export interface FamilyRequest {
  operation: Operation;
  /** The object (for DELETE: the stored object, as the API server's admission attributes give it). */
  object: Record<string, unknown>;
  oldObject?: Record<string, unknown>;
  /** Without a leading "/"; absent for the main resource. */
  subresource?: string;
  /** The object's own group, version and kind (from its apiVersion and kind). */
  group: string;
  version: string;
  kind: string;
  /** The request's namespace ("" for cluster-scoped objects and for unknown ones). */
  namespace: string;
  /** The request's name ("" when the object has none yet, e.g. generateName). */
  name: string;
  /** The resource the request is for, when the catalogue or the AdmissionReview knows it. */
  resource?: GroupVersionResource;
  /** `request.kind` of an AdmissionReview, else the object's group/version/kind. */
  requestKind: GroupVersionKind;
  /** `request.requestKind`... when the client asked for another version (matchPolicy Equivalent). */
  originalKind?: GroupVersionKind;
  originalResource?: GroupVersionResource;
  originalSubresource?: string;
  userInfo: UserInfo;
  dryRun: boolean;
  options?: Record<string, unknown>;
  /**
   * Whether values must never appear in what the family returns: the object is a core/v1 Secret. Families build
   * their errors with {@link errorContext}, which also drops values of credential-named fields.
   */
  secret: boolean;
}

/** What one family says about one object. Severity decides the list each error lands in. */
export interface FamilyResult {
  errors: FieldError[];
  warnings: FieldError[];
  shadowed: FieldError[];
  ratcheted: FieldError[];
  /** Results only recorded (VAP `Audit` action, Pod Security audit level). */
  audits?: FieldError[];
  /**
   * Warning texts returned to the client beyond `${field}: ${message}` of `warnings` (which the PolicySet adds
   * unless {@link FamilyResult.warningTexts} is given).
   */
  extraWarningTexts?: string[];
  /**
   * The exact warning texts, when the family words its warnings itself (admission families: `Validation failed for
   * ValidatingAdmissionPolicy ...`, `would violate PodSecurity ...`); replaces the `${field}: ${message}` texts.
   */
  warningTexts?: string[];
  /** The object as the API server would store it (schema families: pruned and defaulted). */
  object?: unknown;
  /** Admission families: the Status of a denial (`errors` then holds the findings behind it). */
  status?: DenialStatus;
  /** Admission families: audit annotations as the in-tree plugin records them. */
  auditAnnotations?: Record<string, string>;
  /** Admission families: the policies the object was checked against (Verdict.checkedAgainst). */
  checkedAgainst?: readonly string[];
  /** Admission families: the keys a webhook returns instead (see Verdict.auditAnnotationWebhookKeys). */
  auditAnnotationWebhookKeys?: Record<string, string>;
}

/** What a family's validate() gets besides the request. */
export interface FamilyValidateContext {
  config: ResolvedBundleConfig;
}

/** A compiled family: immutable, pure, synchronous. */
export interface FamilyPolicy {
  readonly family: RuleFamily;
  readonly stage: FamilyStage;
  /** The kinds it has something to check for (CoveredKind.rules > 0). */
  readonly kinds: readonly CoveredKind[];
  /** Families that judge requests by resource: the requests they match (`tollgate webhook-config` registers them). */
  readonly admissionRules?: readonly AdmissionRule[];
  /** What the family runs with, when it has settings of its own (shown by `/healthz`). */
  readonly settings?: Readonly<Record<string, unknown>>;
  /**
   * Whether this family may have something to say about objects of this group/version/kind: a fast filter. The
   * verdict is what counts (`covered` is true only when a family really checked the object).
   */
  covers(group: string, version: string, kind: string): boolean;
  /** Validates one object; undefined when the family has nothing to check for it. Never throws for a bad object. */
  validate(req: FamilyRequest, ctx: FamilyValidateContext): FamilyResult | undefined;
  /**
   * Schema families: the structural schema objects of this kind are validated against (admission policies
   * type-check their expressions against it, as kube-controller-manager's status.typeChecking does).
   */
  schemaOf?(group: string, version: string, kind: string): SchemaNode | undefined;
}

/** What a bundle artifact's build recorded (BundleArtifact.build). */
export interface BuildRecord {
  readonly kinds: readonly CoveredKind[];
  readonly failures: readonly PolicyFailure[];
}

/** What a family's compile() gets. */
export interface FamilyCompileContext {
  config: ResolvedBundleConfig;
  /** The options loadBundle was given (a family reads its own, e.g. BundleOptions.podSecurity). */
  options: Readonly<BundleOptions>;
  /**
   * `eager` checks every rule at load and reports every failure (a family may still make a rule's program on its
   * first use); `lazy` (bundle artifacts, whose build recorded the failures) may compile on first use.
   */
  compile: "eager" | "lazy";
  /**
   * Bundle artifacts: what their build compiled and found, every rule compiled (in the build's order). A family
   * whose failures and kinds do not depend on loadBundle's options may take them from here instead of compiling
   * at load (the CRD family: its schemas then compile on a kind's first use). Undefined for other sources.
   */
  built?: BuildRecord;
  /**
   * Admission families only (schema families see an empty one): the bundle's objects that no family took as a
   * policy (Namespaces, RBAC objects, parameter objects) and BundleOptions.clusterState.
   */
  cluster: ClusterState;
  /**
   * Admission families only: the built-in resources of Kubernetes 1.36 and the kinds of the schema families (CRDs).
   */
  resources: ResourceCatalogue;
  /** Admission families only: BundleOptions.authorizer, when given. */
  authorizer?: Authorizer;
  /** Admission families only: the structural schema of a kind, from the schema families (their CRDs). */
  schemaOf?(group: string, version: string, kind: string): SchemaNode | undefined;
}

/** Builds a family's policy from the bundle. One compiler instance per loadBundle call. */
export interface FamilyCompiler {
  readonly family: RuleFamily;
  readonly stage: FamilyStage;
  /**
   * API groups whose every kind is a policy document of this family (`apiextensions.k8s.io` for CRDs). A bundle
   * document of such a group that no family claims promises a policy that could not be recognised (a misspelt kind,
   * a version the family does not read): an error-severity failure of unknown kinds. Default: none.
   */
  readonly policyGroups?: readonly string[];
  /** Offered every non-YAML/JSON file of the bundle (e.g. Go sources); true when the family takes it. */
  claimFile(file: BundleFile): boolean;
  /** Offered every decoded document but BundleConfig; true when the family takes it as (part of) a policy. */
  claimDocument(doc: BundleDocument): boolean;
  /** Compiles everything claimed. Problems are PolicyFailures, never exceptions. */
  compile(ctx: FamilyCompileContext): Promise<{ policy: FamilyPolicy | null; failures: PolicyFailure[] }>;
  /**
   * Admission families: whether the compiled policy consults this cluster-state object (a Namespace for Pod
   * Security). A bundle object that a compiled family consults is not reported as "not a policy document".
   */
  consultsState?(obj: Record<string, unknown>): boolean;
}

/** Creates the family compilers of one loadBundle call. */
export type FamilyCompilerFactory = () => FamilyCompiler;

/**
 * The ErrorContext a family builds errors with. `secret` (FamilyRequest.secret) drops every value; credential-named
 * fields lose theirs anyway (lib/field/redact.ts).
 */
export function errorContext(
  kind: RuleFamily,
  policy: string,
  options: { rule?: string; secret?: boolean; severity?: ErrorContext["severity"] } = {},
): ErrorContext {
  const source = options.rule === undefined ? { kind, policy } : { kind, policy, rule: options.rule };
  const ctx: ErrorContext = { source };
  if (options.severity !== undefined) ctx.severity = options.severity;
  if (options.secret === true) ctx.redact = true;
  return ctx;
}
