/**
 * kube-openapi results as field errors, as apiextensions-apiserver converts them (pkg/apiserver/validation/
 * validation.go kubeOpenAPIResultToFieldErrors): each error code to its field error type, the path under the
 * request's prefix, and at most MAX_CAUSES of them (lib/field/bounds.ts) with one standing for the rest.
 */

import { MAX_CAUSES, MAX_TEXT_CHARS } from "../field/bounds.js";
import {
  type ErrorContext,
  type FieldError,
  type FieldErrorType,
  invalid,
  notSupported,
  omittedErrors,
  required,
  tooLong,
  tooMany,
  typeInvalid,
} from "../field/error.js";
import { goJson } from "../field/message.js";
import type { Code, RawError } from "./result.js";

/**
 * Field errors of the first {@link MAX_CAUSES} raw errors, and one standing for the rest (the verdict keeps no
 * more: lib/field/bounds.ts), typed as the first of them that blocks CEL does, so the blocking gate is unchanged.
 */
export function toFieldErrors(raw: RawError[], prefix: string | null, ctx: ErrorContext): FieldError[] {
  if (raw.length <= MAX_CAUSES) return raw.map((e) => toFieldError(e, prefix, ctx));
  const out: FieldError[] = [];
  for (let i = 0; i < MAX_CAUSES; i++) out.push(toFieldError(raw[i]!, prefix, ctx));
  let type: FieldErrorType = "FieldValueInvalid";
  for (let i = MAX_CAUSES; i < raw.length; i++) {
    const t = BLOCKING_TYPE[raw[i]!.code];
    if (t !== undefined && !raw[i]!.plain) {
      type = t;
      break;
    }
  }
  out.push(omittedErrors(raw.length - MAX_CAUSES, MAX_CAUSES, ctx, type));
  return out;
}

/** The field error types of the codes that keep CEL from running (lib/crd/request.ts BLOCKING). */
const BLOCKING_TYPE: Partial<Record<Code, FieldErrorType>> = {
  required: "FieldValueRequired",
  enum: "FieldValueNotSupported",
  tooLong: "FieldValueTooLong",
  maxItems: "FieldValueTooMany",
  maxProperties: "FieldValueTooMany",
  invalidType: "FieldValueTypeInvalid",
};

/**
 * The enum values as NotSupported lists them. Past the message bound they are left empty: notSupported cuts its
 * list there anyway, so a 100,000-value enum is not printed in full to be cut.
 */
function enumTexts(values: unknown[]): string[] {
  const out: string[] = [];
  let length = 0;
  for (const v of values) {
    if (length > MAX_TEXT_CHARS) {
      out.push("");
      continue;
    }
    const t = typeof v === "string" ? v : goJson(v);
    length += t.length + 2;
    out.push(t);
  }
  return out;
}

/** apiextensions kubeOpenAPIResultToFieldErrors for one error. */
function toFieldError(e: RawError, prefix: string | null, ctx: ErrorContext): FieldError {
  if (e.plain) return invalid(prefix, "", e.message, ctx);
  let field: string | null = prefix;
  if (e.name.length > 0 && e.name !== ".") {
    const n = e.name.startsWith(".") ? e.name.slice(1) : e.name;
    field = prefix === null ? n : `${prefix}.${n}`;
  }
  const c = { ...ctx, origin: ctx.origin };
  switch (e.code) {
    case "required":
      return required(field, "", c);
    case "enum":
      return notSupported(field, e.value, enumTexts(e.values ?? []), c);
    case "tooLong":
      return tooLong(field, e.valid ?? -1, c);
    case "maxItems":
    case "maxProperties":
      return tooMany(field, typeof e.value === "number" ? e.value : -1, e.valid ?? -1, c);
    case "invalidType":
      return typeInvalid(field, e.value ?? "", e.message, c);
    default:
      return invalid(field, e.value ?? "", e.message, c);
  }
}
