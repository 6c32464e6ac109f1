/**
 * The auditor's result model, the view every report writer reads: one {@link AuditRun} per run, made of
 * {@link Finding}s and one {@link ObjectRecord} per document. Writers (audit/report/*) read this model and lib's
 * public types only, never lib internals (STYLE.md, "audit/report/* reads audit/model.ts"). Findings are built by
 * findings.ts; a run is recorded by recorder.ts.
 */
import type { RuleFamily } from "#lib";
import type { RunGroups } from "./groups.js";
import type { HistoryEntry } from "./history.js";
import type { Spool } from "./spool.js";

/** The `reportVersion` of report.json; bumped on any incompatible change of this model (2: `owner` became `team` and `controller`). */
export const REPORT_VERSION = 2;
export const REPORT_API_VERSION = "tollgate.dev/v1alpha1";
export const REPORT_KIND = "AuditReport";

export const FINDING_SEVERITIES = [
  "violation",
  "warning",
  "audit",
  "shadow",
  "template-annotation-failure",
  "policy-failure",
  "input-error",
  "waived",
] as const;
export type FindingSeverity = (typeof FINDING_SEVERITIES)[number];

/** What the object is. `uid` is present when the export has one. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
}

/** Where a document comes from. Documents are numbered from 0, lines from 1 (as lib numbers them). */
export interface Location {
  /** The file as named on the command line or found under a named folder; the archive for an archive member. */
  file: string;
  /** The member of an archive (`deploy/app.yaml`), or the key under an S3 prefix. */
  entry?: string;
  document?: number;
  line?: number;
  /** 0-based index within a `kind: List` document. */
  item?: number;
}

/** Which rule produced a finding. */
export interface RuleRef {
  family: RuleFamily | "tollgate" | "config" | "input";
  /** crd: CRD name; kubevirt: `<namespace>/<template>` or `vm-annotation`; declarative: `<group>/<version>.<Kind>`. */
  policy?: string;
  /** CEL rule text, OpenAPI keyword, KubeVirt rule name, declarative tag, Pod Security check id. */
  rule?: string;
  /** admission-policy: the ValidatingAdmissionPolicyBinding. */
  binding?: string;
  /** admission-policy: the param object of the evaluation (`<namespace>/<name>`, or `<name>`). */
  param?: string;
  /** admission-policy: the index of the validation in `spec.validations`. */
  index?: number;
}

export interface Finding {
  /** Stable across runs: a hash of the rule family, policy, rule, object identity and field. */
  id: string;
  severity: FindingSeverity;
  /** Only with `--previous`, for violations of a paired object: whether an unchanged update would be admitted. */
  ratchet?: "grandfathered" | "blocking";
  object?: ObjectRef;
  location?: Location;
  rule: RuleRef;
  /** The Kubernetes field path (`spec.replicas`); absent when the finding is not about a field. */
  field?: string;
  /** The cause type (`FieldValueInvalid`...) for field errors. */
  type?: string;
  /** The message as kube-apiserver words it, without the field prefix. */
  message: string;
  /** The object's team: the first configured label, else annotation, it carries (audit/findings.ts teamOf). */
  team?: string;
  /**
   * The top of the object's `ownerReferences` chain found in the input (`Deployment/api` for a Pod of a ReplicaSet
   * of that Deployment); the object's own controller when its controller is not in the input.
   */
  controller?: string;
  /** ISO time of the first run that reported this finding id (this run's start when new). */
  firstSeen: string;
  /**
   * The waiver covering the finding: with severity `waived`, the waiver in force (the finding fails nothing); on a
   * finding of another severity, a waiver that covered it until it expired (`expired: true`).
   */
  waiver?: FindingWaiver;
}

/** Waivable severities: what a finding waived by a waiver would be without it. */
export type WaivableSeverity = "violation" | "warning" | "audit";

/** A waiver as a finding names it. */
export interface FindingWaiver {
  /** The Waiver's `metadata.name`. */
  name: string;
  owner: string;
  /** RFC 3339, as the waiver gives it. */
  expires: string;
  reason: string;
  ticket?: string;
  /** On a waived finding: its severity without the waiver. */
  severity?: WaivableSeverity;
  /** The waiver has expired: it no longer waives this finding. */
  expired?: true;
}

/** A waiver in force during the run, as the reports list it. */
export interface WaiverRecord {
  name: string;
  policy: string;
  rule?: string;
  owner: string;
  reason: string;
  expires: string;
  ticket?: string;
  /** Where it was read (relative to the bundle, or the `--waivers` location). */
  file?: string;
  document?: number;
  /** At the run's start: expired, expiring within `--warn-expiry` days, or active. */
  standing: "active" | "expiring" | "expired";
  /** Findings it waived in this run. */
  waived: number;
  /** Findings it would have waived had it not expired. */
  lapsed: number;
}

/** The outcome for one document (or one `kind: List` item). */
export type ObjectOutcome = "valid" | "invalid" | "skipped" | "not-kubernetes" | "error";

export interface ObjectRecord {
  /** `apiVersion/kind/namespace/name`, or the location text for a document without identity. */
  key: string;
  object?: ObjectRef;
  location: Location;
  outcome: ObjectOutcome;
  /** With `--previous`: validated as an UPDATE of the paired previous version. */
  paired?: boolean;
  /** Number of findings about this object. */
  findings: number;
  /** As {@link Finding.team}. */
  team?: string;
  /** As {@link Finding.controller}. */
  controller?: string;
  /** Whether the object has a `status`, and a `status.fieldErrors` (for the fielderrors.ndjson patches). */
  hasStatus?: boolean;
  hasFieldErrors?: boolean;
  /**
   * The audit annotations the admission plugins would record for the object's request, keyed as kube-apiserver's
   * in-tree plugins record them (`pod-security.kubernetes.io/enforce-policy`...).
   */
  auditAnnotations?: Record<string, string>;
  /** The Pod Security level-versions (`restricted:latest`) a Pod or a workload's pod template was checked at. */
  podSecurity?: string[];
  /** A note about the document (a Waiver in the audited input: not applied). */
  note?: string;
}

export interface Summary {
  /** Documents read (List items count one each), including unusable ones. */
  documents: number;
  objects: number;
  valid: number;
  invalid: number;
  /** Objects of a kind no policy covers: counted, never mistaken for a pass. */
  skippedUncovered: number;
  /** `apiVersion/kind` → number of uncovered objects. */
  skippedByKind: Record<string, number>;
  /** Documents that are not Kubernetes objects (no apiVersion or kind), in folder trees and archives. */
  skippedNotKubernetes: number;
  inputErrors: number;
  findings: Record<FindingSeverity, number>;
  grandfathered: number;
  blocking: number;
  policyFailures: { error: number; warning: number };
  /**
   * Pods and workloads (objects with a pod template) checked per Pod Security level-version (`restricted:latest`),
   * when any was: "what would break" counts them at the what-if level.
   */
  podSecurity?: Record<string, { pods: number; workloads: number }>;
  /**
   * The waivers in force, when there are any: how many are active, expiring within `--warn-expiry` days, expired,
   * and unused (they matched no finding of the run, expired or not).
   */
  waivers?: { total: number; active: number; expiring: number; expired: number; unused: number };
  /** Waiver documents among the audited objects, when there are any: never applied (waivers are not input). */
  waiversInInput?: number;
  durationMs: number;
  objectsPerSecond: number;
}

export interface Comparison {
  /** The run compared with (its runId), and where its report was read. */
  previousRunId: string;
  newFindings: number;
  resolvedFindings: number;
  persistingFindings: number;
  /** Ids of the resolved findings with their severity and message, for the reports. */
  resolved: Array<Pick<Finding, "id" | "severity" | "message" | "object" | "field">>;
}

/** A run's report.json document: everything, with its objects and findings as arrays. */
export interface AuditRun extends AuditRunHeader {
  objects: ObjectRecord[];
  /** Policy failures first, then findings in input order. */
  findings: Finding[];
}

/** A run without its objects and findings: what summary.json and latest.json hold, and every report's header. */
export interface AuditRunHeader {
  apiVersion: typeof REPORT_API_VERSION;
  kind: typeof REPORT_KIND;
  reportVersion: typeof REPORT_VERSION;
  /** The UTC start time, `20261122T021500Z`: the run folder's name. */
  runId: string;
  startedAt: string;
  finishedAt: string;
  tool: { name: "tollgate"; version: string };
  bundle: { source: string; digest: string; kinds: number; policiesFromInput: number };
  sources: string[];
  previous?: string;
  failOn: FailOn;
  summary: Summary;
  comparison?: Comparison;
  /** The waivers in force, in the order they were read, with what each did in the run; absent when none. */
  waivers?: WaiverRecord[];
  /** What the bundle loader ignored (documents no family reads as a policy): notes, never failures; at most 1,000. */
  notes?: RunNote[];
}

/** A bundle note (lib's PolicyNote): a document or file the loader ignored. */
export interface RunNote {
  file?: string;
  document?: number;
  path?: string;
  message: string;
}

/** A rule of a run's findings, as its first finding names it. */
export interface RunRule {
  /** {@link ruleId} of its findings. */
  id: string;
  /** The first finding's severity. */
  severity: FindingSeverity;
  rule: Pick<RuleRef, "family" | "policy" | "rule">;
}

/**
 * The rule a finding is counted under in a run's rule list (and a report's rule table): `family/policy/rule` (the
 * parts it has), `policy-failure/` before a policy failure's, and one rule, `input-error`, for every input error.
 */
export function ruleId(f: Pick<Finding, "severity" | "rule">): string {
  if (f.severity === "input-error") return "input-error";
  const r = f.rule;
  let id: string = r.family;
  if (r.policy !== undefined) id += `/${r.policy}`;
  if (r.rule !== undefined) id += `/${r.rule}`;
  return f.severity === "policy-failure" ? `policy-failure/${id}` : id;
}

/** Notes a run keeps at most. */
export const MAX_RUN_NOTES = 1000;

/**
 * A finished run as the runner hands it to the reports: the header, and the objects and findings in spools (memory
 * while small, a temporary file beyond), each readable any number of times in input order. Dispose of it when done.
 */
export interface AuditResult extends AuditRunHeader {
  objects: Spool<ObjectRecord>;
  /** Policy failures first, then findings in input order; each document's findings follow one another. */
  findings: Spool<Finding>;
  /** Counts per policy, namespace, team and controller (groups.ts). */
  groups: RunGroups;
  /**
   * The rules of the run's findings, each once ({@link ruleId}), in the order their first findings come: for a report
   * that lists its rules before its results (report.sarif) without reading the findings twice.
   */
  rules: RunRule[];
  /** Earlier runs at the output prefix, oldest first (history.json), for the reports' trend; absent when unknown. */
  history?: HistoryEntry[];
  /**
   * The controller links the spools' reads follow to resolve each controller (audit/controllers.ts), for reading
   * the spools on another thread; absent when none.
   */
  controllerLinks?: [string, string][];
}

export type FailOn = "violation" | "warning" | "audit" | "never";

/** Every `--fail-on` level. */
export const FAIL_ON: readonly FailOn[] = ["violation", "warning", "audit", "never"];

/** `apiVersion/kind/namespace/name` (namespace empty for cluster-scoped objects). */
export function identityKey(ref: ObjectRef): string {
  return `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ""}/${ref.name}`;
}

/** `file!entry#document[item]:line`, leaving out what the location does not have. */
export function locationText(l: Location): string {
  let s = l.entry === undefined ? l.file : `${l.file}!${l.entry}`;
  if (l.document !== undefined) s += `#${l.document}`;
  if (l.item !== undefined) s += `[${l.item}]`;
  if (l.line !== undefined) s += `:${l.line}`;
  return s;
}

/**
 * Whether any finding counted in a summary reaches `--fail-on`: violations, input errors, template annotation
 * failures and error-severity policy failures count as violations; warnings and warning-severity policy failures as
 * warnings; audit findings (only recorded by the API server) fail the run only at `audit`, which includes
 * warnings; shadowed and waived findings never.
 */
export function summaryReachesFailOn(s: Summary, failOn: FailOn): boolean {
  if (failOn === "never") return false;
  const f = s.findings;
  if (f.violation + f["input-error"] + f["template-annotation-failure"] + s.policyFailures.error > 0) return true;
  if (failOn === "violation") return false;
  if (f.warning + s.policyFailures.warning > 0) return true;
  return failOn === "audit" && f.audit > 0;
}
