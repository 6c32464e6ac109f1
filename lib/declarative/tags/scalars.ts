/**
 * Constraints on one scalar value: integer bounds (`+k8s:minimum`, `+k8s:maximum`), `+k8s:neq`, string lengths
 * (`+k8s:minLength`, `+k8s:maxLength`, `+k8s:maxBytes`), `+k8s:format` and enums (`+k8s:enum` on a named string
 * type, `+k8s:enumExclude` on its constants). Each checks, as validation-gen does, that the value's Go type suits it.
 */
import { typeText } from "../go-types.js";
import * as V from "../validators.js";
import { isBoolKind, isIntKind, isStringKind, type TagCall, type TagTable } from "./context.js";

function fitsWidth(v: bigint, w: { bits: number; unsigned: boolean }): boolean {
  const b = BigInt(w.bits);
  return w.unsigned ? v >= 0n && v < 1n << b : v >= -(1n << (b - 1n)) && v < 1n << (b - 1n);
}

/** The bound of +k8s:minimum / +k8s:maximum: an integer that the field's integer type can hold. */
function integerBound(call: TagCall): bigint | undefined {
  const w = isIntKind(call.t);
  if (w === undefined) {
    call.problem(`can only be used on integer types, not ${typeText(call.t)}`);
    return undefined;
  }
  const v = call.intValue();
  if (v === undefined) return undefined;
  if (!fitsWidth(v, w)) {
    call.problem(`${v} does not fit the field's type ${typeText(call.t)}`);
    return undefined;
  }
  return v;
}

function minimum(call: TagCall): void {
  const v = integerBound(call);
  if (v !== undefined) call.add(V.minimum(v, call.rule));
}

function maximum(call: TagCall): void {
  const v = integerBound(call);
  if (v !== undefined) call.add(V.maximum(v, call.rule));
}

function neq(call: TagCall): void {
  const val = call.tag.value;
  if (val === undefined || val.kind === "tag") {
    call.problem("needs a value");
    return;
  }
  const t = call.t;
  if (isStringKind(t) && val.kind === "string") call.add(V.neq(val.value, call.rule));
  else if (isIntKind(t) && val.kind === "int") call.add(V.neq(val.value, call.rule));
  else if (isBoolKind(t) && val.kind === "bool") call.add(V.neq(val.value, call.rule));
  else
    call.problem(`the value does not match the type ${typeText(t)} (neq supports string, integer and boolean types)`);
}

/** The length of +k8s:minLength / +k8s:maxLength / +k8s:maxBytes: a non-negative integer, on a string type. */
function stringLength(call: TagCall): bigint | undefined {
  if (!isStringKind(call.t)) {
    call.problem(`can only be used on string types, not ${typeText(call.t)}`);
    return undefined;
  }
  return call.intValue(0n);
}

/** A minimum length of 0 checks nothing. */
function minLength(call: TagCall): void {
  const v = stringLength(call);
  if (v !== undefined && v > 0n) call.add(V.minLength(v, call.rule));
}

function maxLength(call: TagCall): void {
  const v = stringLength(call);
  if (v !== undefined) call.add(V.maxLength(v, call.rule));
}

function maxBytes(call: TagCall): void {
  const v = stringLength(call);
  if (v !== undefined) call.add(V.maxBytes(v, call.rule));
}

function format(call: TagCall): void {
  if (!isStringKind(call.t)) {
    call.problem(`can only be used on string types, not ${typeText(call.t)}`);
    return;
  }
  const name = call.tag.value?.kind === "string" ? call.tag.value.value : undefined;
  const v = name === undefined ? undefined : V.format(name, call.rule);
  if (v === undefined) call.problem(`unsupported validation format ${JSON.stringify(name ?? "")}`);
  else call.add(v);
}

/** The allowed values are the typed constants of the type (family.ts indexes them, with their exclusions). */
function enumeration(call: TagCall): void {
  const t = call.t;
  const nt = call.scope.kind === "type" && t.t === "named" ? t.named : undefined;
  if (nt === undefined || !isStringKind(t)) {
    call.problem("can only be used on a named string type declaration");
    return;
  }
  const members = call.host.enums.get(nt) ?? [];
  if (members.length === 0) call.problem(`enum type ${nt.name} has no constants`, "warning");
  call.add(V.enumeration(members, call.rule));
}

/** Read with the constants when the enum index is built; anywhere else it is misplaced. */
function enumExclude(call: TagCall): void {
  call.problem("can only be used on constants of an enum type");
}

export const SCALAR_TAGS: TagTable = {
  minimum: { compile: minimum },
  maximum: { compile: maximum },
  neq: { compile: neq },
  minLength: { compile: minLength },
  maxLength: { compile: maxLength },
  maxBytes: { compile: maxBytes },
  format: { compile: format },
  enum: { compile: enumeration },
  enumExclude: { compile: enumExclude },
};
