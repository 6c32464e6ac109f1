/**
 * The audit of one document: its {@link ObjectRecord} and its findings, from the policy set alone. Pure (no run
 * state): the runner calls it on the main thread, and the worker threads (audit/workers/) call it on the documents
 * they decode; ids, first-seen times and the summary are given by the runner afterwards, in input order.
 */
import {
  isWaiverDocument,
  type PolicySet,
  type UserInfo,
  type ValidateRequest,
  type Verdict,
  type WaiverMatcher,
} from "#lib";
import {
  controllerRefOf,
  findingsFromVerdict,
  inputErrorFinding,
  type OwnerOptions,
  objectRefOf,
  teamOf,
} from "./findings.js";
import { type Finding, identityKey, locationText, type ObjectRecord, type ObjectRef } from "./model.js";
import { decodeRawPart } from "./sources/raw-part.js";
import type { KubeObject, RawPart, SourceDoc } from "./sources/types.js";
import type { PartResult } from "./workers/protocol.js";

/** The previous snapshot's objects (`--previous`), by uid and identity. */
export interface PreviousIndex {
  find(object: KubeObject, ref: ObjectRef): KubeObject | undefined;
}

export interface AuditDocumentContext {
  policySet: PolicySet;
  /** The user each object's admission request is made as (request.userInfo); default: none. */
  user?: UserInfo;
  owner: OwnerOptions;
  /** The run's start time: the first-seen time of the findings (the runner may replace it from the comparison). */
  startedAt: string;
  previous?: PreviousIndex;
  /** The waivers in force, judged at the run's start; absent: none. */
  waivers?: WaiverMatcher;
}

export interface AuditedDocument {
  record: ObjectRecord;
  /** Without unique ids yet: the runner's IdAssigner gives them in input order. */
  findings: Finding[];
}

/** The note on a Waiver among the audited objects. */
export const WAIVER_IN_INPUT =
  "a Waiver in the audited input is not applied: waivers come from the bundle or --waivers only";

/** Exactly one record per document (one per `kind: List` item), and the document's findings in a stable order. */
export function auditDocument(doc: SourceDoc, ctx: AuditDocumentContext): AuditedDocument {
  if (doc.kind === "error") {
    return {
      record: { key: locationText(doc.location), location: doc.location, outcome: "error", findings: 1 },
      findings: [inputErrorFinding(doc.location, doc.error, ctx.startedAt)],
    };
  }
  if (doc.kind === "not-kubernetes") {
    return {
      record: { key: locationText(doc.location), location: doc.location, outcome: "not-kubernetes", findings: 0 },
      findings: [],
    };
  }
  const { policySet, startedAt } = ctx;
  const { object, location } = doc;
  const ref = objectRefOf(object);
  const record: ObjectRecord = { key: identityKey(ref), object: ref, location, outcome: "skipped", findings: 0 };
  const team = teamOf(object, ctx.owner);
  if (team !== undefined) record.team = team;
  const controller = controllerRefOf(object);
  if (controller !== undefined) record.controller = controller;
  if (isWaiverDocument(object)) record.note = WAIVER_IN_INPUT;
  if (!policySet.covers(object.apiVersion, object.kind)) return { record, findings: [] };

  const old = ctx.previous?.find(object, ref);
  const request: ValidateRequest = { operation: old === undefined ? "CREATE" : "UPDATE", object };
  if (ctx.user !== undefined) request.userInfo = ctx.user;
  if (old !== undefined) {
    request.oldObject = old;
    record.paired = true;
  }
  let verdict: Verdict;
  try {
    verdict = policySet.validate(request);
  } catch (err) {
    // validate() never throws for a bad object; a fault inside it still gives this document its one result.
    record.outcome = "error";
    record.findings = 1;
    const message = `internal error while validating: ${err instanceof Error ? err.message : String(err)}`;
    return { record, findings: [inputErrorFinding(location, message, startedAt, ref)] };
  }
  if (!verdict.covered && verdict.allowed) return { record, findings: [] };
  const found = findingsFromVerdict(verdict, {
    object,
    ref,
    location,
    isUpdate: old !== undefined,
    startedAt,
    ...(team !== undefined && { team }),
    ...(controller !== undefined && { controller }),
    ...(ctx.waivers !== undefined && { waivers: ctx.waivers }),
  });
  record.findings = found.length;
  record.outcome = found.some((f) => f.severity === "violation" || f.severity === "template-annotation-failure")
    ? "invalid"
    : "valid";
  if (Object.keys(verdict.auditAnnotations).length > 0) record.auditAnnotations = verdict.auditAnnotations;
  const podSecurity = verdict.checkedAgainst?.filter((c) => c.family === "pod-security").map((c) => c.policy);
  if (podSecurity !== undefined && podSecurity.length > 0) record.podSecurity = podSecurity;
  const status = object.status;
  if (typeof status === "object" && status !== null) {
    record.hasStatus = true;
    if (Array.isArray((status as Record<string, unknown>).fieldErrors)) record.hasFieldErrors = true;
  }
  return { record, findings: found };
}

/** Decodes and audits raw parts (a batch of the worker path), one result per part: on a worker or the main thread. */
export function auditRawParts(parts: readonly RawPart[], ctx: AuditDocumentContext): PartResult[] {
  const results: PartResult[] = [];
  for (const part of parts) {
    const docs = decodeRawPart(part);
    results.push(typeof docs === "string" ? docs : docs.map((d) => auditDocument(d, ctx)));
  }
  return results;
}
