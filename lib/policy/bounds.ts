/**
 * Where every family's results meet: the verdict of one request is bounded (lib/field/bounds.ts) and its texts are
 * masked (lib/field/redact.ts, second layer) before anyone sees it, the webhook, the CLI and the auditor alike. So
 * the bounds and the masking hold for families that word their own texts (warning texts, Status messages, audit
 * annotations) as for field errors.
 */
import { capAuditAnnotations, MAX_CAUSES, MAX_TEXT_CHARS, recordWarnings, truncateText } from "../field/bounds.js";
import { type FieldError, omittedErrors } from "../field/error.js";
import { createMasker, credentialValues } from "../field/redact.js";
import type { Verdict } from "./types.js";

/** The request parts whose credential values are masked in texts. */
export interface MaskSource {
  object: unknown;
  oldObject?: unknown;
  secret: boolean;
}

function hasTexts(v: Verdict): boolean {
  return (
    v.errors.length > 0 ||
    v.warnings.length > 0 ||
    v.warningTexts.length > 0 ||
    v.ratcheted.length > 0 ||
    v.shadowed.length > 0 ||
    v.audits.length > 0 ||
    v.status !== undefined ||
    Object.keys(v.auditAnnotations).length > 0
  );
}

/**
 * The list within {@link MAX_CAUSES}: the first errors, then one that says how many were left out (counting what
 * errors already standing for left-out ones stood for: FieldError.omitted).
 */
function capList(list: FieldError[]): FieldError[] {
  let total = 0;
  let markers = 0;
  for (const e of list) {
    total += e.omitted ?? 1;
    if (e.omitted !== undefined) markers++;
  }
  if (markers === 0 && list.length <= MAX_CAUSES) return list;
  const kept: FieldError[] = [];
  for (const e of list) {
    if (kept.length === MAX_CAUSES) break;
    if (e.omitted === undefined) kept.push(e);
  }
  const sample = list[0]!;
  kept.push(omittedErrors(total - kept.length, MAX_CAUSES, { source: sample.source, severity: sample.severity }));
  return kept;
}

function maskError(e: FieldError, mask: (t: string) => string): FieldError {
  const message = mask(e.message);
  const detail = mask(e.detail);
  const field = mask(e.field);
  if (message === e.message && detail === e.detail && field === e.field) return e;
  const out: FieldError = { ...e, message, detail, field };
  delete out.badValue;
  return out;
}

/** Bounds the verdict's lists and texts and masks credential values in them; returns the same verdict. */
export function boundVerdict(v: Verdict, source: MaskSource | undefined): Verdict {
  if (!hasTexts(v)) return v;
  v.errors = capList(v.errors);
  v.warnings = capList(v.warnings);
  v.ratcheted = capList(v.ratcheted);
  v.shadowed = capList(v.shadowed);
  v.audits = capList(v.audits);
  if (v.status !== undefined) v.status = { ...v.status, message: truncateText(v.status.message, 4 * MAX_TEXT_CHARS) };
  v.auditAnnotations = capAuditAnnotations(v.auditAnnotations);
  if (source !== undefined) {
    const values = credentialValues(source.object, source.secret);
    if (source.oldObject !== undefined) credentialValues(source.oldObject, source.secret, values);
    if (values.size > 0) {
      const mask = createMasker(values);
      const each = (list: FieldError[]) => list.map((e) => maskError(e, mask));
      v.errors = each(v.errors);
      v.warnings = each(v.warnings);
      v.ratcheted = each(v.ratcheted);
      v.shadowed = each(v.shadowed);
      v.audits = each(v.audits);
      v.warningTexts = v.warningTexts.map(mask);
      if (v.status !== undefined) v.status = { ...v.status, message: mask(v.status.message) };
      for (const k of Object.keys(v.auditAnnotations)) v.auditAnnotations[k] = mask(v.auditAnnotations[k]!);
    }
  }
  v.warningTexts = recordWarnings(v.warningTexts);
  return v;
}
