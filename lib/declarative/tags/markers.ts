/**
 * Tags that add no validator where they are written: `+k8s:opaqueType` (the value's type is not validated here),
 * the subresource markers `+k8s:supportsSubresource` / `+k8s:isSubresource` (read by family.ts, on type
 * declarations), and `+k8s:customValidation` (hand-written Go that tollgate cannot run: a warning).
 */
import type { TagCall, TagTable } from "./context.js";

/** Payloads may only make list elements or map values opaque (through eachVal). */
function opaqueType(call: TagCall): void {
  if (call.site.nested && call.scope.kind !== "listValue" && call.scope.kind !== "mapValue") {
    call.problem("cannot be used as a payload here");
    return;
  }
  call.site.acc.opaque = true;
}

function subresourceMarker(call: TagCall): void {
  if (call.scope.kind !== "type") call.problem("can only be used on type declarations");
}

function customValidation(call: TagCall): void {
  call.problem("hand-written validation (ValidateCustom_...) cannot be interpreted: skipped", "warning");
}

export const MARKER_TAGS: TagTable = {
  opaqueType: { compile: opaqueType, underOption: false },
  supportsSubresource: { compile: subresourceMarker },
  isSubresource: { compile: subresourceMarker },
  customValidation: { compile: customValidation },
};
