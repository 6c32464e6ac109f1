/**
 * Tags whose payload applies to a part of the value: every element or map value (`+k8s:eachVal`), every map key
 * (`+k8s:eachKey`), the list-map item with given key values (`+k8s:item(key: value...)`), and one field of a struct
 * (`+k8s:subfield(name)`). The payload compiles at a scope of its own; item and subfield rules run as a group with
 * their own short-circuiting (spec/declarative-validation-behaviour.md section 6).
 */
import { isMapping } from "../../objects/mapping.js";
import type { GoType, StructField } from "../go-types.js";
import { typeText } from "../go-types.js";
import * as V from "../validators.js";
import { fieldRaw, view } from "../values.js";
import type { Iter, Validator } from "../walk.js";
import {
  baseOf,
  defaultOf,
  findField,
  IDENTITY,
  namedOf,
  newUnit,
  payloadName,
  peelLevel,
  positional,
  type Scope,
  ScopeAcc,
  shortName,
  stringArg,
  type TagCall,
  type TagTable,
} from "./context.js";
import type { Tag, TagScalar } from "./syntax.js";

function eachVal(call: TagCall): void {
  const p = call.payload();
  if (p === undefined) return;
  const b = call.base;
  if (b.t === "slice") each(call, p, "list", b.elem);
  else if (b.t === "map") each(call, p, "mapValues", b.elem);
  else call.problem(`can only be used on lists and maps, not ${typeText(call.t)}`);
}

function eachKey(call: TagCall): void {
  const p = call.payload();
  if (p === undefined) return;
  const b = call.base;
  if (b.t === "map") each(call, p, "mapKeys", b.key);
  else call.problem(`can only be used on maps, not ${typeText(call.t)}`);
}

/** The payload of eachVal / eachKey, compiled for the element (or key) type and run for each element. */
function each(call: TagCall, p: Tag, kind: Iter["kind"], elem: GoType): void {
  const pn = payloadName(p);
  const acc = call.site.acc;
  if (pn === "opaqueType") {
    if (kind === "mapKeys") acc.keyOpaque = true;
    else acc.elemOpaque = true;
    return;
  }
  const scope = call.scope;
  const inner = new ScopeAcc();
  const sub: Scope = {
    kind: kind === "list" ? "listValue" : kind === "mapKeys" ? "mapKey" : "mapValue",
    t: elem,
    label: `${scope.label}[*]`,
    at: scope.at,
    unit: scope.unit,
  };
  if (pn === "update" && kind === "list" && scope.sem?.kind !== "map")
    call.problem("+k8s:eachVal=+k8s:update on a list needs listType=map or unique=map");
  call.compilePayload(p, { scope: sub, acc: inner, level: "standard", wrap: IDENTITY });
  const res = inner.finish(sub);
  if (res.groups.length > 0) call.problem("item and subfield rules cannot be used inside eachVal/eachKey");
  if (res.list.sc.length + res.list.rest.length === 0) return;
  call.add(V.each(kind, elem, kind === "list" ? scope.sem : undefined, res.list, call.rule));
}

/** The key fields and values an item(...) selects, every key field given once; undefined after a problem. */
function itemKeys(call: TagCall, keys: readonly StructField[]): { field: StructField; value: TagScalar }[] | undefined {
  const named = new Map<string, TagScalar>();
  for (const a of call.tag.args) {
    if (a.name === undefined) {
      call.problem("needs named arguments (key field: value)");
      return undefined;
    }
    named.set(a.name, a.value);
  }
  for (const k of keys) {
    if (!named.has(k.jsonName)) {
      call.problem(`every key field must be given; ${k.jsonName} is missing`);
      return undefined;
    }
  }
  const out: { field: StructField; value: TagScalar }[] = [];
  for (const [k, value] of named) {
    const f = keys.find((x) => x.jsonName === k);
    if (f === undefined) {
      call.problem(`${k} is not a key field of the list`);
      return undefined;
    }
    out.push({ field: f, value });
  }
  return out;
}

function item(call: TagCall): void {
  const p = call.payload();
  if (p === undefined) return;
  const scope = call.scope;
  const sem = scope.sem;
  if (sem === undefined || sem.kind !== "map") {
    call.problem("can only be used on lists with listType=map or unique=map");
    return;
  }
  const keyFields = itemKeys(call, sem.keys);
  if (keyFields === undefined) return;
  const matches = (e: unknown): boolean => {
    if (!isMapping(e)) return false;
    for (const { field, value } of keyFields) {
      const x = view(field.type, fieldRaw(field, e));
      if (value.kind === "int") {
        if (!(typeof x === "number" || typeof x === "bigint") || BigInt(x) !== value.value) return false;
      } else if (x !== value.value) return false;
    }
    return true;
  };
  const { level: innerLevel, tag: inner } = peelLevel(p);
  const pn = shortName(inner.name);
  if (pn === "zeroOrOneOfMember" || pn === "unionMember") {
    // A union over items of the list: each member is "the item with these keys is present".
    const selector = `{${keyFields
      .map(
        ({ field, value }) =>
          `${JSON.stringify(field.jsonName)}: ${value.kind === "string" ? JSON.stringify(value.value) : String(value.value)}`,
      )
      .join(", ")}}`;
    const memberName = stringArg(inner, "memberName");
    call.site.acc.addListUnion(
      pn === "unionMember" ? "union" : "zeroOrOneOf",
      stringArg(inner, "union") ?? "",
      innerLevel !== "standard" ? innerLevel : call.site.level,
      call.rule,
      {
        name: `${scope.listName ?? ""}[${selector}]`,
        discriminatorValue: memberName ?? selector,
        isSet: (list) => Array.isArray(list) && list.some((raw) => matches(view(sem.elem, raw))),
      },
    );
    return;
  }
  const sub: Scope = {
    kind: "listValue",
    t: sem.elem,
    label: `${scope.label}[${call.tag.args.map((a) => a.name).join(",")}]`,
    at: scope.at,
    unit: scope.unit,
  };
  const innerAcc = new ScopeAcc();
  call.compilePayload(p, { scope: sub, acc: innerAcc, level: "standard", wrap: IDENTITY });
  const res = innerAcc.finish(sub);
  call.site.acc.groups.push(V.groupWithLevel(call.site.level, V.itemGroup(sem, matches, res.list, res.groups)));
}

/**
 * The short-circuit validators of a sub-field's own tags: they guard the subfield rules, as in the generated code
 * (not for opaque fields or fields of an opaque type).
 */
function subfieldGuards(call: TagCall, f: StructField): Validator[] {
  const host = call.host;
  const unit = newUnit();
  const ownTags: Tag[] = [];
  let opaque = false;
  for (const t of host.parseTags(f.tags, f.at.file, unit)) {
    const n = payloadName(t);
    if (n === "opaqueType") opaque = true;
    if (host.definition(n)?.member === undefined) ownTags.push(t);
  }
  const ownNamed = namedOf(f.type);
  if (
    ownNamed !== undefined &&
    host.parseTags(ownNamed.decl.doc, ownNamed.decl.file, unit).some((t) => shortName(t.name) === "opaqueType")
  )
    opaque = true;
  if (opaque) return [];
  const ownScope: Scope = {
    kind: "field",
    t: f.type,
    label: `${call.scope.label}.${f.goName}`,
    at: f.at,
    unit,
    field: f,
    defaultValue: defaultOf(f.tags),
  };
  const meta = host.listMeta(ownTags, ownScope);
  const base = baseOf(f.type);
  if (base.t === "slice") ownScope.sem = host.listSem(meta, base.elem, ownScope);
  return host.compileScope(ownTags, ownScope, meta).list.sc;
}

function subfield(call: TagCall): void {
  const p = call.payload();
  if (p === undefined) return;
  const scope = call.scope;
  const base = call.base;
  const arg = positional(call.tag);
  if (base.t !== "struct") {
    call.problem(`can only be used on structs, not ${typeText(scope.t)}`);
    return;
  }
  if (arg === undefined || arg.kind !== "string") {
    call.problem("needs the JSON name of a field as its only argument");
    return;
  }
  if (payloadName(p) === "subfield") {
    call.problem("subfield rules cannot be nested");
    return;
  }
  const f = findField(base.struct, arg.value);
  if (f === undefined) {
    call.problem(`${typeText(scope.t)} has no field ${JSON.stringify(arg.value)}`);
    return;
  }
  const guards = subfieldGuards(call, f);
  const sub: Scope = {
    kind: "field",
    t: f.type,
    label: `${scope.label}.${f.goName}`,
    at: scope.at,
    unit: scope.unit,
    field: f,
    listName: f.jsonName,
  };
  const subBase = baseOf(f.type);
  if (subBase.t === "slice") sub.sem = call.host.listSem(call.host.listMeta([], sub), subBase.elem, sub);
  const innerAcc = new ScopeAcc();
  call.compilePayload(p, { scope: sub, acc: innerAcc, level: "standard" });
  const res = innerAcc.finish(sub);
  call.site.acc.groups.push(V.groupWithLevel(call.site.level, V.subfieldGroup(f, guards, res.list, res.groups)));
}

export const SELECTOR_TAGS: TagTable = {
  eachVal: { compile: eachVal },
  eachKey: { compile: eachKey },
  item: { compile: item },
  subfield: { compile: subfield },
};
