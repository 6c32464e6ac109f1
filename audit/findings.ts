/**
 * Findings are built from lib `Verdict`s here, and nowhere else:
 * - `errors` → `violation` (on an UPDATE against `--previous`: `ratchet: "blocking"`), except lint problems of a
 *   KubeVirt `Template` validated itself (`evaluationError` on a Template) → `template-annotation-failure`;
 * - `ratcheted` (UPDATE only) → `violation` with `ratchet: "grandfathered"`: the error is on a value the update did
 *   not change, so an unchanged update would still be admitted. CEL failures ratcheted this way come back from the
 *   API server (and lib) as warnings of the CRD family; on an UPDATE those are grandfathered violations too;
 * - `warnings` → `warning`; `audits` (results the API server only records: a ValidatingAdmissionPolicy's `Audit`
 *   action, Pod Security's audit level) → `audit`; `shadowed` → `shadow`;
 * - a `PolicyFailure` → `policy-failure`; a document that cannot be used → `input-error`;
 * - a violation, warning or audit finding an active waiver covers (lib/waivers, judged at the run's start) →
 *   `waived`, naming the waiver (its id stays the one it has without the waiver, so waiving a finding neither
 *   resolves it nor makes it new); one a waiver covered until it expired keeps its severity and names the waiver
 *   with `expired: true`.
 *
 * Secrets: nothing here copies object content into a finding except identity (apiVersion, kind, namespace, name,
 * uid), the team label or annotation value, the owner reference's kind and name, and lib's field error texts, which lib already redacts for v1
 * Secrets and credential-named fields. `badValue` is never copied.
 */
import { hash } from "node:crypto";
import type { FieldError, PolicyFailure, Verdict, Waiver, WaiverMatcher } from "#lib";
import {
  type Finding,
  type FindingSeverity,
  type FindingWaiver,
  identityKey,
  type Location,
  type ObjectRef,
  type RuleRef,
} from "./model.js";
import type { KubeObject } from "./sources/types.js";

/** Team detection: the first of these keys an object carries, as a label or else as an annotation, names its team. */
export interface OwnerOptions {
  /** The configured keys (audit/config.ts, default `DEFAULT_OWNER_LABELS`). */
  labels: readonly string[];
}

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

/** The team: for each configured key in order, the object's label of that key, else its annotation of that key. */
export function teamOf(object: KubeObject, options: OwnerOptions): string | undefined {
  const meta = record(object.metadata);
  if (meta === undefined) return undefined;
  const labels = record(meta.labels);
  const annotations = record(meta.annotations);
  for (const key of options.labels) {
    const v = str(labels?.[key]) ?? str(annotations?.[key]);
    if (v !== undefined) return v;
  }
  return undefined;
}

/**
 * The object's own controller as `<Kind>/<name>`: the owner reference marked `controller: true`, else the first
 * one. The run follows these links up through the input to the top of the chain (recorder.ts).
 */
export function controllerRefOf(object: KubeObject): string | undefined {
  const refs = record(object.metadata)?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  let first: string | undefined;
  for (const o of refs) {
    const r = record(o);
    const kind = str(r?.kind);
    const name = str(r?.name);
    if (kind === undefined || name === undefined) continue;
    if (r?.controller === true) return `${kind}/${name}`;
    first ??= `${kind}/${name}`;
  }
  return first;
}

/**
 * A stable id: sha256 over the parts, each followed by a NUL, 16 hex digits. One text hashed in one call (a Hash
 * object per finding, updated twice a part, cost three times as much).
 */
export function findingId(parts: readonly (string | number | undefined)[]): string {
  let text = "";
  for (const p of parts) text += `${p === undefined ? "" : p}\0`;
  return hash("sha256", text, "hex").slice(0, 16);
}

/** What a verdict's findings need to know about the object and the run. */
export interface FindingContext {
  object: KubeObject;
  ref: ObjectRef;
  location: Location;
  team?: string;
  /** The direct controller (`<Kind>/<name>`); the recorder replaces it with the top of the chain. */
  controller?: string;
  /** The object was validated as an UPDATE of its previous version. */
  isUpdate: boolean;
  /** The run's start time, the first-seen time of new findings. */
  startedAt: string;
  /** The waivers in force, judged at the run's start; absent: none. */
  waivers?: WaiverMatcher;
}

/** The findings of one verdict, in a stable order: errors, ratcheted, warnings, audits, shadowed. */
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
  for (const e of verdict.audits) out.push(fieldFinding(e, "audit", ctx));
  for (const e of verdict.shadowed) out.push(fieldFinding(e, "shadow", ctx));
  return out;
}

function errorKey(e: FieldError): string {
  return `${e.source.kind}\0${e.source.policy}\0${e.source.rule ?? ""}\0${e.field}\0${e.message}`;
}

function fieldFinding(e: FieldError, severity: FindingSeverity, ctx: FindingContext): Finding {
  const { kind, policy, rule: name, binding, param, index } = e.source;
  const rule: RuleRef = { family: kind, policy };
  if (name !== undefined) rule.rule = name;
  if (binding !== undefined) rule.binding = binding;
  if (param !== undefined) rule.param = param;
  if (index !== undefined) rule.index = index;
  // binding, param and index only when present: the ids of other families' findings stay what they were.
  const admission = binding === undefined && param === undefined && index === undefined ? [] : [binding, param, index];
  const f: Finding = {
    id: findingId([severity, kind, policy, name, ...admission, identityKey(ctx.ref), e.field, e.type]),
    severity,
    object: ctx.ref,
    location: ctx.location,
    rule,
    field: e.field,
    type: e.type,
    message: e.message,
    firstSeen: ctx.startedAt,
  };
  if (ctx.team !== undefined) f.team = ctx.team;
  if (ctx.controller !== undefined) f.controller = ctx.controller;
  if (ctx.waivers !== undefined && (severity === "violation" || severity === "warning" || severity === "audit")) {
    const m = ctx.waivers.match(e, ctx.ref);
    if (m !== undefined) {
      f.waiver = findingWaiver(m.waiver);
      if (m.expired) f.waiver.expired = true;
      else {
        f.waiver.severity = severity;
        f.severity = "waived";
      }
    }
  }
  return f;
}

/** What a finding says of its waiver. */
function findingWaiver(w: Waiver): FindingWaiver {
  const out: FindingWaiver = { name: w.name, owner: w.owner, expires: w.expires, reason: w.reason };
  if (w.ticket !== undefined) out.ticket = w.ticket;
  return out;
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
