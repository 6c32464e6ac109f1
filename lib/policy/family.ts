/**
 * The plug-in contract of the rule families other than CRDs (KubeVirt template validations, declarative +k8s:
 * tags). The bundle loader offers every document and file to each family's compiler; the compiled family policy
 * is consulted by PolicySet.validate() for every object, and its results are merged with the CRD family's.
 */
import type { ErrorContext, FieldError } from "../field/error.js";
import type { BundleFile, CoveredKind, Operation, PolicyFailure, ResolvedBundleConfig } from "./types.js";

/** A decoded bundle document offered to the families (CRDs and BundleConfig are taken before). */
export interface BundleDocument {
  object: Record<string, unknown>;
  file: string;
  /** Index of the document within its file. */
  document: number;
  /** "items[3]" when the document came out of a `kind: List`. */
  item?: string;
}

/** The request as a family sees it: an object (a decoded record) and what is known about it. */
export interface FamilyRequest {
  operation: Operation;
  object: Record<string, unknown>;
  oldObject?: Record<string, unknown>;
  subresource?: string;
  group: string;
  version: string;
  kind: string;
}

/** What one family says about one object. Severity decides the list each error lands in. */
export interface FamilyResult {
  errors: FieldError[];
  warnings: FieldError[];
  shadowed: FieldError[];
  ratcheted: FieldError[];
  /** Warning texts beyond `${field}: ${message}` of the warnings (the PolicySet adds those). */
  extraWarningTexts?: string[];
}

/** A compiled family: immutable, pure, synchronous. */
export interface FamilyPolicy {
  readonly family: "kubevirt" | "declarative";
  readonly kinds: readonly CoveredKind[];
  /** Whether this family has rules for objects of this group/version/kind. */
  covers(group: string, version: string, kind: string): boolean;
  /** Validates one object; undefined when the family has nothing to say about it. Never throws for a bad object. */
  validate(req: FamilyRequest, ctx: { config: ResolvedBundleConfig }): FamilyResult | undefined;
}

/** Builds a family's policy from the bundle. One compiler instance per loadBundle call. */
export interface FamilyCompiler {
  readonly family: "kubevirt" | "declarative";
  /** Offered every non-YAML/JSON file of the bundle (e.g. Go sources); true when the family takes it. */
  claimFile(file: BundleFile): boolean;
  /** Offered every decoded document that is not a CRD or BundleConfig; true when the family takes it. */
  claimDocument(doc: BundleDocument): boolean;
  /** Compiles everything claimed. Problems are PolicyFailures, never exceptions. */
  compile(config: ResolvedBundleConfig): Promise<{ policy: FamilyPolicy | null; failures: PolicyFailure[] }>;
}

/** Creates the family compilers of one loadBundle call. */
export type FamilyCompilerFactory = () => FamilyCompiler;

/** A shared ErrorContext builder for families. */
export function familyContext(kind: "kubevirt" | "declarative", policy: string, rule?: string): ErrorContext {
  return rule === undefined ? { source: { kind, policy } } : { source: { kind, policy, rule } };
}
