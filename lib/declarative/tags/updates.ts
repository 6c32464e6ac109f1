/**
 * Transition rules, checked on UPDATE against the old object: `+k8s:immutable`, `+k8s:update=<constraint>`
 * (NoSet, NoUnset, NoModify, NoAddItem, NoRemoveItem) and `+k8s:monotonic` (an integer that may not decrease).
 */
import { typeText } from "../go-types.js";
import * as V from "../validators.js";
import { IDENTITY, isIntKind, type TagCall, type TagTable } from "./context.js";

function immutable(call: TagCall): void {
  if (call.scope.kind === "mapKey") {
    call.problem("cannot be used on map keys");
    return;
  }
  call.add(V.immutable(call.t, call.rule));
}

function isConstraint(c: string | undefined): c is V.UpdateConstraint {
  return c === "NoSet" || c === "NoUnset" || c === "NoModify" || c === "NoAddItem" || c === "NoRemoveItem";
}

/** Why a constraint cannot be used on this value, if it cannot. */
function misplaced(call: TagCall, c: V.UpdateConstraint): string | undefined {
  const base = call.base;
  const isList = base.t === "slice" || base.t === "map";
  const perItem = c === "NoAddItem" || c === "NoRemoveItem";
  if (c === "NoModify" && isList)
    return "NoModify is not supported on lists and maps; use +k8s:eachVal=+k8s:update=NoModify";
  if (perItem && !isList) return `${c} can only be used on lists and maps`;
  if (perItem && base.t === "slice" && (call.scope.sem?.kind ?? "none") === "none")
    return `${c} on a list needs listType=set, listType=map or unique`;
  return undefined;
}

/**
 * The constraints written directly on a field (no lifecycle prefix, no option) make one validator for the field,
 * as validation-gen merges them; the others are validators of their own.
 */
function update(call: TagCall): void {
  const c = call.tag.value?.kind === "string" ? call.tag.value.value : undefined;
  if (!isConstraint(c)) {
    call.problem(`unknown +k8s:update constraint ${JSON.stringify(c ?? "")}`);
    return;
  }
  const why = misplaced(call, c);
  if (why !== undefined) {
    call.problem(why);
    return;
  }
  if ((c === "NoSet" || c === "NoUnset") && call.t.t !== "pointer" && call.base.t === "struct")
    call.problem(`${c} has no effect on a non-pointer struct`, "warning");
  const { scope, acc, level, wrap } = call.site;
  if (scope.kind === "field" && level === "standard" && wrap === IDENTITY) acc.updates.push(c);
  else call.add(V.update(call.t, [c], scope.sem, call.rule));
  if (acc.updateRule === undefined) acc.updateRule = call.rule;
}

function monotonic(call: TagCall): void {
  if (isIntKind(call.t) === undefined) {
    call.problem(`can only be used on integer types, not ${typeText(call.t)}`);
    return;
  }
  call.add(V.monotonic(call.rule));
}

export const UPDATE_TAGS: TagTable = {
  immutable: { compile: immutable },
  update: { compile: update },
  monotonic: { compile: monotonic },
};
