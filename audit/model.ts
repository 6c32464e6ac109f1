/**
 * The auditor's result model: one {@link AuditRun} per run, made of {@link Finding}s and one {@link ObjectRecord} per
 * document. Every report writer (audit/report/*) reads this model and lib's public types only, never lib internals
 * (STYLE.md, "audit/report/* reads audit/model.ts").
 *
 * Findings are built from lib `Verdict`s here, and nowhere else:
 * - `errors` → `violation` (on an UPDATE against `--previous`: `ratchet: "blocking"`), except lint problems of a
 *   KubeVirt `Template` validated itself (`evaluationError` on a Template) → `template-annotation-failure`;
 * - `ratcheted` (UPDATE only) → `violation` with `ratchet: "grandfathered"`: the error is on a value the update did
 *   not change, so an unchanged update would still be admitted. CEL failures ratcheted this way come back from the
 *   API server (and lib) as warnings of the CRD family; on an UPDATE those are grandfathered violations too;
 * - `warnings` → `warning`; `shadowed` → `shadow`;
 * - a `PolicyFailure` → `policy-failure`; a document that cannot be used → `input-error`.
 *
 * Secrets: nothing here copies object content into a finding except identity (apiVersion, kind, namespace, name,
 * uid), the owner label value or owner reference, and lib's field error texts, which lib already redacts for v1
 * Secrets and credential-named fields. `badValue` is never copied.
 */
import { createHash } from "node:crypto";
import type { FieldError, PolicyFailure, RuleFamily, Verdict } from "#lib";
import type { Spool } from "./spool.js";

/** The `reportVersion` of report.json; bumped on any incompatible change of this model. */
export const REPORT_VERSION = 1;
export const REPORT_API_VERSION = "tollgate.dev/v1alpha1";
export const REPORT_KIND = "AuditReport";

export const FINDING_SEVERITIES = [
  "violation",
  "warning",
  "shadow",
  "template-annotation-failure",
  "policy-failure",
  "input-error",
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
  /** CEL rule text, OpenAPI keyword, KubeVirt rule name, declarative tag. */
  rule?: string;
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
  /** From the owner labels (see {@link OwnerOptions}), else the first owner reference (`<Kind>/<name>`). */
  owner?: string;
  /** ISO time of the first run that reported this finding id (this run's start when new). */
  firstSeen: string;
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
  owner?: string;
  /** Whether the object has a `status`, and a `status.fieldErrors` (for the fielderrors.ndjson patches). */
  hasStatus?: boolean;
  hasFieldErrors?: boolean;
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
}

/**
 * A finished run as the runner hands it to the reports: the header, and the objects and findings in spools (memory
 * while small, a temporary file beyond), each readable any number of times in input order. Dispose of it when done.
 */
export interface AuditResult extends AuditRunHeader {
  objects: Spool<ObjectRecord>;
  /** Policy failures first, then findings in input order; each document's findings follow one another. */
  findings: Spool<Finding>;
}

/** Removes the spools' temporary files. */
export function disposeResult(result: AuditResult): void {
  result.objects.dispose();
  result.findings.dispose();
}

export type FailOn = "violation" | "warning" | "never";

/** Every `--fail-on` level. */
export const FAIL_ON: readonly FailOn[] = ["violation", "warning", "never"];

/** Owner detection: the first of these labels an object carries names its owner. */
export interface OwnerOptions {
  /** The configured keys (audit/config.ts, default `DEFAULT_OWNER_LABELS`). */
  labels: readonly string[];
}

/** A decoded object with string apiVersion and kind. */
export type KubeObject = Record<string, unknown> & { apiVersion: string; kind: string };

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** apiVersion, kind, namespace, name, uid: never anything else of the object. */
export function objectRefOf(object: KubeObject): ObjectRef {
  const meta = record(object.metadata) ?? {};
  const ref: ObjectRef = { apiVersion: object.apiVersion, kind: object.kind, name: str(meta.name) ?? "" };
  const namespace = str(meta.namespace);
  if (namespace !== undefined) ref.namespace = namespace;
  const uid = str(meta.uid);
  if (uid !== undefined) ref.uid = uid;
  return ref;
}

/** `apiVersion/kind/namespace/name` (namespace empty for cluster-scoped objects). */
export function identityKey(ref: ObjectRef): string {
  return `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ""}/${ref.name}`;
}

export function locationText(l: Location): string {
  let s = l.entry === undefined ? l.file : `${l.file}!${l.entry}`;
  if (l.document !== undefined) s += `#${l.document}`;
  if (l.item !== undefined) s += `[${l.item}]`;
  if (l.line !== undefined) s += `:${l.line}`;
  return s;
}

/** The owner: the first owner label's value, else the first owner reference as `<Kind>/<name>`. */
export function ownerOf(object: KubeObject, options: OwnerOptions): string | undefined {
  const meta = record(object.metadata);
  if (meta === undefined) return undefined;
  const labels = record(meta.labels);
  if (labels !== undefined) {
    for (const key of options.labels) {
      const v = str(labels[key]);
      if (v !== undefined) return v;
    }
  }
  if (Array.isArray(meta.ownerReferences)) {
    for (const o of meta.ownerReferences) {
      const r = record(o);
      const kind = str(r?.kind);
      const name = str(r?.name);
      if (kind !== undefined && name !== undefined) return `${kind}/${name}`;
    }
  }
  return undefined;
}

/** A stable id: sha256 over the parts, 16 hex digits. */
export function findingId(parts: readonly (string | number | undefined)[]): string {
  const h = createHash("sha256");
  for (const p of parts) {
    h.update(p === undefined ? "" : String(p));
    h.update("\0");
  }
  return h.digest("hex").slice(0, 16);
}

/** What a verdict's findings need to know about the object and the run. */
export interface FindingContext {
  object: KubeObject;
  ref: ObjectRef;
  location: Location;
  owner?: string;
  /** The object was validated as an UPDATE of its previous version. */
  isUpdate: boolean;
  /** The run's start time, the first-seen time of new findings. */
  startedAt: string;
}

/** The findings of one verdict, in a stable order: errors, ratcheted, warnings, shadowed. */
export function findingsFromVerdict(verdict: Verdict, ctx: FindingContext): Finding[] {
  const out: Finding[] = [];
  const isTemplate = ctx.object.kind === "Template" && ctx.object.apiVersion.startsWith("template.openshift.io/");
  for (const e of verdict.errors) {
    const severity = isTemplate && e.source.kind === "kubevirt" && e.evaluationError === true;
    const f = fieldFinding(e, severity ? "template-annotation-failure" : "violation", ctx);
    if (ctx.isUpdate && !severity) f.ratchet = "blocking";
    out.push(f);
  }
  const ratcheted = new Set<string>();
  for (const e of verdict.ratcheted) {
    ratcheted.add(errorKey(e));
    const f = fieldFinding(e, "violation", ctx);
    f.ratchet = "grandfathered";
    out.push(f);
  }
  for (const e of verdict.warnings) {
    if (ratcheted.has(errorKey(e))) continue;
    if (ctx.isUpdate && e.source.kind === "crd") {
      // A CEL failure ratcheted on an unchanged value (lib/cel/evaluate.ts returns it as a warning).
      const f = fieldFinding(e, "violation", ctx);
      f.ratchet = "grandfathered";
      out.push(f);
      continue;
    }
    const templateLint = isTemplate && e.source.kind === "kubevirt" && e.evaluationError === true;
    out.push(fieldFinding(e, templateLint ? "template-annotation-failure" : "warning", ctx));
  }
  for (const e of verdict.shadowed) out.push(fieldFinding(e, "shadow", ctx));
  return out;
}

function errorKey(e: FieldError): string {
  return `${e.source.kind}\0${e.source.policy}\0${e.source.rule ?? ""}\0${e.field}\0${e.message}`;
}

function fieldFinding(e: FieldError, severity: FindingSeverity, ctx: FindingContext): Finding {
  const rule: RuleRef = { family: e.source.kind, policy: e.source.policy };
  if (e.source.rule !== undefined) rule.rule = e.source.rule;
  const f: Finding = {
    id: findingId([severity, e.source.kind, e.source.policy, e.source.rule, identityKey(ctx.ref), e.field, e.type]),
    severity,
    object: ctx.ref,
    location: ctx.location,
    rule,
    field: e.field,
    type: e.type,
    message: e.message,
    firstSeen: ctx.startedAt,
  };
  if (ctx.owner !== undefined) f.owner = ctx.owner;
  return f;
}

/** A document that cannot be used: not decodable, not an object, too large, a bad archive member. */
export function inputErrorFinding(location: Location, message: string, startedAt: string, ref?: ObjectRef): Finding {
  const f: Finding = {
    id: findingId(["input-error", location.file, location.entry, location.document, location.item, message]),
    severity: "input-error",
    location,
    rule: { family: "input" },
    message,
    firstSeen: startedAt,
  };
  if (ref !== undefined) f.object = ref;
  return f;
}

/** A policy of the bundle (or of the input, with --policies-from-input) that could not be used. */
export function policyFailureFinding(p: PolicyFailure, startedAt: string): Finding {
  const rule: RuleRef = { family: p.family };
  if (p.file !== undefined) rule.policy = p.file;
  if (p.rule !== undefined) rule.rule = p.rule;
  const f: Finding = {
    id: findingId(["policy-failure", p.severity, p.family, p.file, p.document, p.path, p.rule, p.message]),
    severity: "policy-failure",
    rule,
    // The failure's own severity: error-severity failures count as violations, warnings as warnings.
    type: p.severity,
    message: p.message,
    firstSeen: startedAt,
  };
  if (p.file !== undefined) {
    const location: Location = { file: p.file };
    if (p.document !== undefined) location.document = p.document;
    f.location = location;
  }
  if (p.path !== undefined) f.field = p.path;
  return f;
}

/** Gives equal ids within a run a suffix (`<id>-2`, `<id>-3`, in the order seen), so every id is unique. */
export class IdAssigner {
  private readonly seen = new Map<string, number>();

  assign(f: Finding): void {
    const n = (this.seen.get(f.id) ?? 0) + 1;
    this.seen.set(f.id, n);
    if (n > 1) f.id = `${f.id}-${n}`;
  }
}

/** {@link IdAssigner} over a list, in order. */
export function uniqueIds(findings: Finding[]): void {
  const ids = new IdAssigner();
  for (const f of findings) ids.assign(f);
}

/** Whether a finding reaches `--fail-on`: input errors and error-severity policy failures count as violations. */
export function reachesFailOn(f: Finding, failOn: FailOn): boolean {
  if (failOn === "never") return false;
  const level = failLevel(f);
  if (level === "violation") return true;
  return failOn === "warning" && level === "warning";
}

/** Whether any finding counted in a summary reaches `--fail-on` (the same levels as {@link reachesFailOn}). */
export function summaryReachesFailOn(s: Summary, failOn: FailOn): boolean {
  if (failOn === "never") return false;
  const f = s.findings;
  if (f.violation + f["input-error"] + f["template-annotation-failure"] + s.policyFailures.error > 0) return true;
  return failOn === "warning" && f.warning + s.policyFailures.warning > 0;
}

function failLevel(f: Finding): "violation" | "warning" | "none" {
  switch (f.severity) {
    case "violation":
    case "input-error":
    case "template-annotation-failure":
      return "violation";
    case "policy-failure":
      return f.type === "warning" ? "warning" : "violation";
    case "warning":
      return "warning";
    case "shadow":
      return "none";
  }
}

/** Counts a run's objects and findings as they come; {@link SummaryCounter.result} gives the {@link Summary}. */
export class SummaryCounter {
  private readonly s: Summary = {
    documents: 0,
    objects: 0,
    valid: 0,
    invalid: 0,
    skippedUncovered: 0,
    skippedByKind: {},
    skippedNotKubernetes: 0,
    inputErrors: 0,
    findings: Object.fromEntries(FINDING_SEVERITIES.map((k) => [k, 0])) as Record<FindingSeverity, number>,
    grandfathered: 0,
    blocking: 0,
    policyFailures: { error: 0, warning: 0 },
    durationMs: 0,
    objectsPerSecond: 0,
  };

  addObject(o: ObjectRecord): void {
    const s = this.s;
    s.documents++;
    switch (o.outcome) {
      case "valid":
        s.valid++;
        s.objects++;
        break;
      case "invalid":
        s.invalid++;
        s.objects++;
        break;
      case "skipped": {
        s.skippedUncovered++;
        s.objects++;
        const k = o.object === undefined ? "?" : `${o.object.apiVersion}/${o.object.kind}`;
        s.skippedByKind[k] = (s.skippedByKind[k] ?? 0) + 1;
        break;
      }
      case "not-kubernetes":
        s.skippedNotKubernetes++;
        break;
      case "error":
        s.inputErrors++;
        break;
    }
  }

  addFinding(f: Finding): void {
    const s = this.s;
    s.findings[f.severity]++;
    if (f.ratchet === "grandfathered") s.grandfathered++;
    if (f.ratchet === "blocking") s.blocking++;
    if (f.severity === "policy-failure") s.policyFailures[f.type === "warning" ? "warning" : "error"]++;
  }

  result(durationMs: number): Summary {
    const s = structuredClone(this.s);
    s.durationMs = durationMs;
    s.objectsPerSecond = durationMs > 0 ? Math.round((s.documents * 1000) / durationMs) : 0;
    return s;
  }
}

/** The summary of a run's objects and findings. */
export function summarize(objects: readonly ObjectRecord[], findings: readonly Finding[], durationMs: number): Summary {
  const counter = new SummaryCounter();
  for (const o of objects) counter.addObject(o);
  for (const f of findings) counter.addFinding(f);
  return counter.result(durationMs);
}

/** `20261122T021500Z` for a start time. */
export function runIdOf(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replace(/[-:]/g, "");
}
