/**
 * OpenAPI value validation with kube-openapi's semantics (k8s.io/kube-openapi pkg/validation/validate, as pinned by
 * Kubernetes 1.36), and the conversion of its results into field errors done by apiextensions-apiserver
 * (pkg/apiserver/validation/validation.go). On UPDATE, errors of nodes that are correlated with an old value and
 * unchanged are ratcheted (apiextensions-apiserver pkg/apiserver/validation/ratcheting.go).
 *
 * Per schema node, validators run in kube-openapi's order and each applies by the datum's kind: type, junctors
 * (allOf/anyOf/oneOf/not), string (maxLength, minLength, pattern: the first failure only), format, number
 * (range check, multipleOf, maximum, minimum), array (items, minItems, maxItems), enum, object
 * (min/maxProperties, which stop the object's other checks, then properties, additionalProperties, required).
 * A match count is kept as kube-openapi does, because anyOf/oneOf report the failures of the branch with the
 * most passed checks.
 */

import type { ErrorContext, FieldError } from "../field/error.js";
import { goQuote } from "../go/strconv.js";
import { correlatedEqual, correlateListMapItem, deepEqualJson, isRecord } from "./equality.js";
import { toFieldErrors } from "./field-errors.js";
import { checkStringFormat } from "./formats.js";
import { asFloat, isFloat64AJSONInteger, type Kind, kindOf, schemaInfo } from "./numbers.js";
import { Acc, inBody, NO_OLD, type Old } from "./result.js";
import type { SchemaNode } from "./structural.js";
import { enumCheck, numberChecks, stringChecks } from "./value-checks.js";

/** Options of one validation run. */
export interface ValidateOptions {
  /** Ratcheting: the old object correlated with the root. */
  old?: unknown;
  hasOld?: boolean;
}

/** Validation output: field errors and the errors that ratcheting suppressed. */
export interface SchemaValidationResult {
  errors: FieldError[];
  ratcheted: FieldError[];
}

/**
 * Validates `data` against the schema rooted at `node`, as apiextensions ValidateCustomResource does with a
 * kube-openapi SchemaValidator rooted at path "" (field errors are children of `fieldPrefix`, which is null at
 * the resource root and "status" for the status subresource).
 */
export function validateValue(
  node: SchemaNode,
  data: unknown,
  fieldPrefix: string | null,
  ctx: ErrorContext,
  opts: ValidateOptions = {},
): SchemaValidationResult {
  const acc = new Acc();
  validateNode(node, data, "", acc, opts.hasOld === true ? opts.old : NO_OLD, false);
  return {
    errors: acc.errors.length === 0 ? [] : toFieldErrors(acc.errors, fieldPrefix, ctx),
    ratcheted:
      acc.ratcheted.length === 0 ? [] : toFieldErrors(acc.ratcheted, fieldPrefix, { ...ctx, severity: "warning" }),
  };
}

/**
 * One SchemaValidator.Validate at `path`. With an old value: a node that is deep-equal to its correlated old value
 * has all its errors (and its descendants') ratcheted.
 */
function validateNode(node: SchemaNode, data: unknown, path: string, acc: Acc, old: Old, ratcheting: boolean): void {
  if (old !== NO_OLD && !ratcheting && correlatedEqual(node, data, old)) {
    const sub = new Acc();
    validateNodeInner(node, data, path, sub, old, true);
    acc.mergeAsRatcheted(sub);
    return;
  }
  validateNodeInner(node, data, path, acc, old, ratcheting);
}

const INT_OR_STRING: readonly string[] = Object.freeze(["integer", "string"]);

const NO_TYPES: readonly string[] = Object.freeze([]);

const TYPE_LISTS = Object.freeze({
  object: Object.freeze(["object"]),
  array: Object.freeze(["array"]),
  string: Object.freeze(["string"]),
  integer: Object.freeze(["integer"]),
  number: Object.freeze(["number"]),
  boolean: Object.freeze(["boolean"]),
});

/** The type list kube-openapi sees (apiextensions makes int-or-string `["integer","string"]`). */
function schemaTypes(node: SchemaNode): readonly string[] {
  if (node.intOrString) return INT_OR_STRING;
  switch (node.type) {
    case "object":
      return TYPE_LISTS.object;
    case "array":
      return TYPE_LISTS.array;
    case "string":
      return TYPE_LISTS.string;
    case "integer":
      return TYPE_LISTS.integer;
    case "number":
      return TYPE_LISTS.number;
    case "boolean":
      return TYPE_LISTS.boolean;
    default:
      return NO_TYPES;
  }
}

function validateNodeInner(
  node: SchemaNode,
  data: unknown,
  path: string,
  acc: Acc,
  old: Old,
  ratcheting: boolean,
): void {
  const types = schemaTypes(node);
  const vv = node.vv;
  const format = vv?.keptFormat ?? "";
  const kind = kindOf(data);

  if (kind === "nil") {
    // Only the type and enum validators run on null.
    typeCheckNull(node, types, path, acc);
    if (vv?.enum !== undefined && vv.enum.length > 0) enumCheck(vv.enum, data, path, acc);
    return;
  }

  // 1. type
  if (types.length > 0 || format !== "") {
    typeCheck(types, format, data, kind, path, acc);
    acc.count++;
  }
  // 2. junctors (the schemaProps validator always applies)
  if (
    vv !== null &&
    (vv.allOf !== undefined || vv.anyOf !== undefined || vv.oneOf !== undefined || vv.not !== undefined)
  ) {
    junctors(vv.allOf, vv.anyOf, vv.oneOf, vv.not, data, path, acc, old, ratcheting);
  } else {
    acc.count++; // schemaProps Validate: mainResult.Inc()
  }
  acc.count++;
  // 3. string
  if (kind === "string") {
    if (vv !== null) stringChecks(vv, data as string, path, acc);
    acc.count++;
    // 4. format
    if (vv?.format !== undefined) {
      if (!checkStringFormat(vv.format, data as string)) {
        acc.add({
          plain: false,
          code: "invalidType",
          name: path,
          value: data,
          message: inBody(path, `must be of type ${vv.rawFormat}: ${goQuote(data as string)}`),
        });
      }
      acc.count++;
    }
  }
  // 5. number
  if (kind === "int" || kind === "float") {
    numberChecks(node, types, format, data, kind, path, acc);
    acc.count++;
  }
  // 6. slice
  if (kind === "slice") {
    sliceChecks(node, data as unknown[], path, acc, old, ratcheting);
    acc.count++;
  }
  // 7. enum (common validator)
  if (vv?.enum !== undefined && vv.enum.length > 0) enumCheck(vv.enum, data, path, acc);
  acc.count++;
  // 8. object
  if (kind === "map") {
    objectChecks(node, data as Record<string, unknown>, path, acc, old, ratcheting);
    acc.count++;
  }
  acc.count++;
}

function typeCheckNull(node: SchemaNode, types: readonly string[], path: string, acc: Acc): void {
  if (types.length > 0 && !node.nullable) {
    acc.add({
      plain: false,
      code: "invalidType",
      name: path,
      value: "null",
      message: inBody(path, `must be of type ${types.join(",")}: "null"`),
    });
  } else {
    acc.count++;
  }
}

function typeCheck(types: readonly string[], format: string, data: unknown, kind: Kind, path: string, acc: Acc): void {
  const info = schemaInfo(kind);
  const schType = info[0];
  const dataFormat = info[1];
  const isLowerInt = format === "int64" && dataFormat === "int32";
  const isLowerFloat = format === "float64" && dataFormat === "float32";
  const isFloatInt = schType === "number" && isFloat64AJSONInteger(asFloat(data)) && types.includes("integer");
  const isIntFloat = schType === "integer" && types.includes("number");
  if (
    kind !== "string" &&
    kind !== "slice" &&
    format !== "" &&
    !(types.includes(schType) || dataFormat === format || isFloatInt || isIntFloat || isLowerInt || isLowerFloat)
  ) {
    acc.add({
      plain: false,
      code: "invalidType",
      name: path,
      value: dataFormat,
      message: inBody(path, `must be of type ${format}: ${goQuote(dataFormat)}`),
    });
    return;
  }
  if (
    format !== "" &&
    (kind === "string" || kind === "slice") &&
    !(types.includes("number") || types.includes("integer"))
  ) {
    acc.count++;
    return;
  }
  if (!(types.includes(schType) || isFloatInt || isIntFloat)) {
    acc.add({
      plain: false,
      code: "invalidType",
      name: path,
      value: schType,
      message: inBody(path, `must be of type ${types.join(",")}: ${goQuote(schType)}`),
    });
    return;
  }
  acc.count++;
}

function junctors(
  allOf: SchemaNode[] | undefined,
  anyOf: SchemaNode[] | undefined,
  oneOf: SchemaNode[] | undefined,
  not: SchemaNode | undefined,
  data: unknown,
  path: string,
  acc: Acc,
  old: Old,
  ratcheting: boolean,
): void {
  const main = new Acc();
  if (anyOf !== undefined && anyOf.length > 0) {
    let best: Acc | null = null;
    let firstSuccess: Acc | null = null;
    let succeeded = false;
    for (const s of anyOf) {
      const r = new Acc();
      validateBranch(s, data, path, r, old, ratcheting);
      if (r.errors.length === 0) {
        best = null;
        succeeded = true;
        firstSuccess ??= r;
        break;
      }
      if (best === null || r.count > best.count) best = r;
    }
    if (!succeeded) {
      main.add({
        plain: true,
        code: "other",
        name: path,
        value: "",
        message: `${goQuote(path)} must validate at least one schema (anyOf)`,
      });
    }
    if (best !== null) main.merge(best);
    else if (firstSuccess !== null) main.merge(firstSuccess);
  }
  if (oneOf !== undefined && oneOf.length > 0) {
    let best: Acc | null = null;
    let firstSuccess: Acc | null = null;
    let validated = 0;
    for (const s of oneOf) {
      const r = new Acc();
      validateBranch(s, data, path, r, old, ratcheting);
      if (r.errors.length === 0) {
        validated++;
        best = null;
        firstSuccess ??= r;
        continue;
      }
      if (validated === 0 && (best === null || r.count > best.count)) best = r;
    }
    if (validated !== 1) {
      const more = validated === 0 ? "Found none valid" : `Found ${validated} valid alternatives`;
      main.add({
        plain: true,
        code: "other",
        name: path,
        value: "",
        message: `${goQuote(path)} must validate one and only one schema (oneOf). ${more}`,
      });
      if (best !== null) main.merge(best);
    } else if (firstSuccess !== null) {
      main.merge(firstSuccess);
    }
  }
  if (allOf !== undefined && allOf.length > 0) {
    let validated = 0;
    for (const s of allOf) {
      const r = new Acc();
      validateBranch(s, data, path, r, old, ratcheting);
      if (r.errors.length === 0) validated++;
      main.merge(r);
    }
    if (validated !== allOf.length) {
      const more = validated === 0 ? ". None validated" : "";
      main.add({
        plain: true,
        code: "other",
        name: path,
        value: "",
        message: `${goQuote(path)} must validate all the schemas (allOf)${more}`,
      });
    }
  }
  if (not !== undefined) {
    const r = new Acc();
    validateBranch(not, data, path, r, old, ratcheting);
    if (r.errors.length === 0) {
      main.add({
        plain: true,
        code: "other",
        name: path,
        value: "",
        message: `${goQuote(path)} must not validate the schema (not)`,
      });
    }
  }
  main.count++;
  acc.merge(main);
}

/** A junctor branch is a plain SchemaValidator at the same path (not itself ratcheted; its children are). */
function validateBranch(s: SchemaNode, data: unknown, path: string, acc: Acc, old: Old, ratcheting: boolean): void {
  validateNodeInner(s, data, path, acc, old, ratcheting);
}

function sliceChecks(node: SchemaNode, arr: unknown[], path: string, acc: Acc, old: Old, ratcheting: boolean): void {
  const items = node.items;
  if (items !== null) {
    for (let i = 0; i < arr.length; i++) {
      let itemOld: Old = NO_OLD;
      if (old !== NO_OLD && node.listType === "map") itemOld = correlateListMapItem(node, arr[i], old);
      validateNode(items, arr[i], `${path}[${i}]`, acc, itemOld, ratcheting);
    }
  }
  const vv = node.vv;
  if (vv !== null) {
    if (vv.minItems !== undefined && arr.length < vv.minItems) {
      acc.add({
        plain: false,
        code: "other",
        name: path,
        value: arr.length,
        message: inBody(path, `should have at least ${vv.minItems} items`),
      });
    }
    if (vv.maxItems !== undefined && arr.length > vv.maxItems) {
      acc.add({
        plain: false,
        code: "maxItems",
        name: path,
        value: arr.length,
        valid: vv.maxItems,
        message: inBody(path, `should have at most ${vv.maxItems} items`),
      });
    }
    if (vv.uniqueItems) {
      outer: for (let i = 0; i < arr.length; i++) {
        for (let j = 0; j < i; j++) {
          if (deepEqualJson(arr[i], arr[j])) {
            acc.add({
              plain: false,
              code: "other",
              name: path,
              value: "",
              message: inBody(path, "shouldn't contain duplicates"),
            });
            break outer;
          }
        }
      }
    }
  }
  acc.count++;
}

const entriesOf = new WeakMap<ReadonlyMap<string, SchemaNode>, readonly (readonly [string, SchemaNode])[]>();

/** A node's properties as an array (in their order), made once per schema node. */
function propertyEntries(props: ReadonlyMap<string, SchemaNode>): readonly (readonly [string, SchemaNode])[] {
  let e = entriesOf.get(props);
  if (e === undefined) {
    e = [...props];
    entriesOf.set(props, e);
  }
  return e;
}

function objectChecks(
  node: SchemaNode,
  obj: Record<string, unknown>,
  path: string,
  acc: Acc,
  old: Old,
  ratcheting: boolean,
): void {
  const vv = node.vv;
  if (vv !== null && (vv.minProperties !== undefined || vv.maxProperties !== undefined)) {
    const n = Object.keys(obj).length;
    if (vv.minProperties !== undefined && n < vv.minProperties) {
      acc.add({
        plain: false,
        code: "other",
        name: path,
        value: n,
        message: inBody(path, `should have at least ${vv.minProperties} properties`),
      });
    }
    if (vv.maxProperties !== undefined && n > vv.maxProperties) {
      acc.add({
        plain: false,
        code: "maxProperties",
        name: path,
        value: n,
        valid: vv.maxProperties,
        message: inBody(path, `should have at most ${vv.maxProperties} properties`),
      });
    }
  }
  const props = node.properties;
  const entries = props === null ? null : propertyEntries(props);
  const oldObj = old !== NO_OLD && isRecord(old) ? old : null;
  if (node.additionalPropertiesFalse) {
    for (const k of Object.keys(obj)) {
      if (props === null || !props.has(k)) {
        acc.add({
          plain: false,
          code: "other",
          name: path,
          value: k,
          message: `${path}.${k} in body is a forbidden property`,
        });
      }
    }
  } else if (node.additionalProperties !== null) {
    const ap = node.additionalProperties;
    for (const k of Object.keys(obj)) {
      if (props?.has(k)) continue;
      const childOld: Old = oldObj !== null && Object.hasOwn(oldObj, k) ? oldObj[k] : NO_OLD;
      validateNode(ap, obj[k], `${path}.${k}`, acc, childOld, ratcheting);
    }
  }
  if (entries !== null) {
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      const name = entry[0];
      const sub = entry[1];
      if (!Object.hasOwn(obj, name)) continue;
      const childOld: Old = oldObj !== null && Object.hasOwn(oldObj, name) ? oldObj[name] : NO_OLD;
      validateNode(sub, obj[name], path === "" ? name : `${path}.${name}`, acc, childOld, ratcheting);
    }
  }
  if (vv?.required !== undefined) {
    for (const k of vv.required) {
      if (!Object.hasOwn(obj, k)) {
        acc.add({
          plain: false,
          code: "required",
          name: `${path}.${k}`,
          value: undefined,
          message: inBody(`${path}.${k}`, "is required"),
        });
      }
    }
  }
}
