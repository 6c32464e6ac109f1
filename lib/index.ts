/**
 * tollgate's public surface: load a policy bundle once, validate objects against it many times.
 * See ../shared/PRODUCT.md and README.md.
 */

export type { BundleArtifact } from "./bundle/artifact.js";
export { isArtifactText } from "./bundle/artifact.js";
export { artifactOfLoaded, type BuiltArtifact, buildBundleArtifact } from "./bundle/build.js";
export { loadBundle } from "./bundle/load.js";
export { readBundleFiles } from "./bundle/source.js";
export { ConfigError, InputError, InternalError, StorageError, TollgateError } from "./errors.js";
export type { FieldError, FieldErrorSource, FieldErrorType, RuleFamily, Severity } from "./field/error.js";
export { errorText, RULE_FAMILIES } from "./field/error.js";
export { aggregateMessage, formatValue } from "./field/message.js";
export {
  admissionStatus,
  badRequestStatus,
  errorStatus,
  type GroupKind,
  invalidStatus,
  type Status,
  type StatusCause,
  successStatus,
} from "./field/status.js";
export { goQuote } from "./go/strconv.js";
export type { DecodedDocument, ParseOptions } from "./objects/decode.js";
export { parseDocuments } from "./objects/decode.js";
export { notAnObject } from "./objects/document.js";
export { type ObjectIdentity as DecodedIdentity, objectIdentity } from "./objects/gvk.js";
export { DEFAULT_MAX_DOCUMENT_BYTES, documentTooLarge, isOverBytes } from "./objects/limits.js";
export { unwrapList } from "./objects/list.js";
export { stableJson } from "./objects/stable-json.js";
export { parseLevelVersion as parsePodSecurityLevel } from "./pod-security/family.js";
export {
  type AuthorizationAttributes,
  type AuthorizationDecision,
  AuthorizationUndecidable,
  type Authorizer,
} from "./policy/authorizer.js";
export { isExhaustion } from "./policy/policy-set.js";
export type {
  AdmissionRule,
  BundleFile,
  BundleOptions,
  BundleS3Options,
  CoveredKind,
  DecodeLimits,
  DenialStatus,
  FailurePolicy,
  FamilySummary,
  GroupVersionKind,
  GroupVersionResource,
  Operation,
  PodSecurityOptions,
  PolicyFailure,
  PolicyNote,
  PolicySet,
  ResolvedBundleConfig,
  UserInfo,
  ValidateRequest,
  Verdict,
} from "./policy/types.js";
export { EVERY_KIND } from "./policy/types.js";
export { TOLLGATE_VERSION } from "./version.js";
export { lintWaivers } from "./waivers/lint.js";
export {
  compileWaivers,
  fieldCovers,
  isWaivable,
  type WaivedVerdict,
  type WaiverMatch,
  type WaiverMatcher,
  type WaiverStanding,
  type WaiverTarget,
  waiverStanding,
  waiverTargetOf,
  waiveVerdict,
} from "./waivers/match.js";
export { isWaiverDocument, parseRfc3339, WAIVER_API_VERSION, WAIVER_KIND, type Waiver } from "./waivers/waiver.js";
