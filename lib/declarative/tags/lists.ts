/**
 * Lists and maps as a whole. List metadata (`+k8s:listType`, `+k8s:listMapKey`, `+k8s:unique`,
 * `+k8s:customUnique`) says how elements are told apart (atomic, set, map by key fields) and, where it is declared,
 * generates the uniqueness check; the compiler reads it before a scope's other tags (ListMeta), so here it is only
 * read and placed. Sizes: `+k8s:minItems` / `+k8s:maxItems` on lists, `+k8s:minProperties` /
 * `+k8s:maxProperties` on maps.
 */
import { typeText } from "../go-types.js";
import * as V from "../validators.js";
import { IDENTITY, type ListMeta, type ListMetaRead, type TagCall, type TagTable } from "./context.js";

/** Where list metadata can be written: list fields and list types, not as a payload of an option. */
function placeListMeta(call: TagCall): void {
  if (call.base.t !== "slice" || (call.scope.kind !== "field" && call.scope.kind !== "type"))
    call.problem("can only be used on list fields and list types");
  else if (call.site.wrap !== IDENTITY) call.problem("cannot be used as a payload here");
}

function readListType(meta: ListMeta, read: ListMetaRead): void {
  const v = read.value;
  if (v !== "atomic" && v !== "set" && v !== "map")
    read.problem(`unsupported list type ${JSON.stringify(v)} (supported: atomic, map, set)`);
  else meta.listType = { value: v, level: read.level, rule: read.raw.text };
}

function readListMapKey(meta: ListMeta, read: ListMetaRead): void {
  if (read.value === undefined) read.problem("needs a field name");
  else meta.keys.push(read.value);
}

function readUnique(meta: ListMeta, read: ListMetaRead): void {
  const v = read.value;
  if (v !== "set" && v !== "map") read.problem(`unsupported unique type ${JSON.stringify(v)} (supported: map, set)`);
  else meta.unique = { value: v, level: read.level, rule: read.raw.text };
}

/** Uniqueness is checked by hand-written code: the generated check is left out. */
function readCustomUnique(meta: ListMeta): void {
  meta.customUnique = true;
}

/** The size of +k8s:minItems / +k8s:maxItems: a non-negative integer, on a list. */
function itemCount(call: TagCall): bigint | undefined {
  if (call.base.t !== "slice") {
    call.problem(`can only be used on lists, not ${typeText(call.t)}`);
    return undefined;
  }
  return call.intValue(0n);
}

function minItems(call: TagCall): void {
  const v = itemCount(call);
  if (v !== undefined) call.add(V.minItems(v, "minItems", call.rule));
}

function maxItems(call: TagCall): void {
  const v = itemCount(call);
  if (v !== undefined) call.add(V.maxItems(v, "maxItems", call.rule));
}

/** The size of +k8s:minProperties / +k8s:maxProperties: 0 to 100000, on a map. */
function propertyCount(call: TagCall): bigint | undefined {
  if (call.base.t !== "map") {
    call.problem(`can only be used on maps, not ${typeText(call.t)}`);
    return undefined;
  }
  const v = call.intValue(0n);
  if (v === undefined) return undefined;
  if (v > 100000n) {
    call.problem("must be at most 100000");
    return undefined;
  }
  return v;
}

function minProperties(call: TagCall): void {
  const v = propertyCount(call);
  if (v !== undefined) call.add(V.minItems(v, "minProperties", call.rule));
}

function maxProperties(call: TagCall): void {
  const v = propertyCount(call);
  if (v !== undefined) call.add(V.maxItems(v, "maxProperties", call.rule));
}

export const LIST_TAGS: TagTable = {
  listType: { compile: placeListMeta, listMeta: readListType },
  listMapKey: { compile: placeListMeta, listMeta: readListMapKey },
  unique: { compile: placeListMeta, listMeta: readUnique },
  customUnique: { compile: placeListMeta, listMeta: readCustomUnique },
  minItems: { compile: minItems },
  maxItems: { compile: maxItems },
  minProperties: { compile: minProperties },
  maxProperties: { compile: maxProperties },
};
