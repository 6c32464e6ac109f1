/**
 * Whether a struct field must, may or must not be set: `+k8s:required`, `+k8s:optional`, `+k8s:forbidden`
 * (spec/declarative-validation-behaviour.md section 5.1). All three short-circuit the field's other rules.
 */
import * as V from "../validators.js";
import type { TagCall, TagTable } from "./context.js";

/** Where the three can be written: struct fields that are not non-pointer structs (those are always "set"). */
function placed(call: TagCall): boolean {
  if (call.scope.kind !== "field") {
    call.problem("can only be used on struct fields");
    return false;
  }
  if (call.t.t !== "pointer" && call.base.t === "struct") {
    call.problem(`cannot be used on a non-pointer struct field (${call.scope.label})`);
    return false;
  }
  return true;
}

function required(call: TagCall): void {
  if (placed(call)) call.add(V.required(call.t, call.rule));
}

function forbidden(call: TagCall): void {
  if (placed(call)) call.add(V.forbidden(call.t, call.rule));
}

/**
 * With a `+default`, the server validates after defaulting, so an unset value cannot happen: the field is then
 * required, unless it is a value kind that defaults to its zero value (then the tag has nothing to check).
 */
function optional(call: TagCall): void {
  if (!placed(call)) return;
  const t = call.t;
  const d = call.scope.defaultValue;
  if (d === undefined) {
    call.add(V.optional(t, call.rule));
    return;
  }
  const nilable = t.t === "pointer" || call.base.t === "slice" || call.base.t === "map";
  const zeroDefault = d.ok && (d.value === "" || d.value === 0 || d.value === false);
  if (nilable || !zeroDefault) call.add(V.required(t, call.rule));
}

export const PRESENCE_TAGS: TagTable = {
  required: { compile: required },
  optional: { compile: optional },
  forbidden: { compile: forbidden },
};
