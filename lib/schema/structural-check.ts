/**
 * The CRD-creation checks of a schema that make the API server reject a CRD (apiextensions-apiserver
 * pkg/apis/apiextensions/validation and pkg/apiserver/schema/validation.go): non-structural schemas and
 * unsupported keywords. Messages and paths are the API server's (paths relative to openAPIV3Schema).
 */
import { formatValue } from "../field/message.js";
import type { CompileIssue } from "./structural.js";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const UNSUPPORTED = ["id", "$ref", "definitions", "dependencies", "patternProperties", "additionalItems"];
const JUNCTORS = ["allOf", "anyOf", "oneOf"] as const;

/** Appends the structural problems of `raw` (the openAPIV3Schema) to `issues`. */
export function checkStructural(raw: unknown, issues: CompileIssue[]): void {
  if (!isRecord(raw)) return;
  const err = (path: string, message: string) => issues.push({ path, message, severity: "error" });
  if (raw.nullable === true) err("nullable", "Forbidden: nullable cannot be true at the root");
  if (raw.type !== undefined && raw.type !== "object")
    err("type", `Invalid value: ${formatValue(raw.type)}: must be object at the root`);
  if (raw.additionalProperties !== undefined && raw.additionalProperties !== true) {
    err("additionalProperties", "Forbidden: must not be used at the root");
  }
  walk(raw, "", { root: true, inJunctor: false }, err);
}

interface Where {
  root: boolean;
  inJunctor: boolean;
}

function join(p: string, k: string): string {
  return p === "" ? k : `${p}.${k}`;
}

function walk(s: Record<string, unknown>, path: string, where: Where, err: (p: string, m: string) => void): void {
  for (const k of UNSUPPORTED) {
    if (k in s) err(join(path, k), `Forbidden: ${k} is not supported`);
  }
  if (s.uniqueItems === true) {
    err(
      join(path, "uniqueItems"),
      "Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
    );
  }
  if (s.type === null || s.type === "null") {
    err(join(path, "type"), "Forbidden: type cannot be set to null, use nullable as an alternative");
  }
  if (s["x-kubernetes-preserve-unknown-fields"] === false) {
    err(join(path, "x-kubernetes-preserve-unknown-fields"), "Invalid value: false: must be true or undefined");
  }
  const hasProps = isRecord(s.properties) && Object.keys(s.properties).length > 0;
  if (hasProps && s.additionalProperties !== undefined && s.additionalProperties !== true) {
    err(join(path, "additionalProperties"), "Forbidden: additionalProperties and properties are mutual exclusive");
  }
  if (where.inJunctor) {
    for (const k of ["type", "title", "description", "x-kubernetes-list-map-keys", "x-kubernetes-validations"]) {
      if (k in s) err(join(path, k), "Forbidden: must be empty to be structural");
    }
    for (const k of [
      "default",
      "additionalProperties",
      "externalDocs",
      "x-kubernetes-list-type",
      "x-kubernetes-map-type",
    ]) {
      if (k in s) err(join(path, k), "Forbidden: must be undefined to be structural");
    }
    for (const k of [
      "nullable",
      "x-kubernetes-preserve-unknown-fields",
      "x-kubernetes-embedded-resource",
      "x-kubernetes-int-or-string",
    ]) {
      if (s[k] === true) err(join(path, k), "Forbidden: must be false to be structural");
    }
  } else if (!where.root) {
    const exempt = s["x-kubernetes-int-or-string"] === true || s["x-kubernetes-preserve-unknown-fields"] === true;
    if ((s.type === undefined || s.type === "") && !exempt) {
      err(join(path, "type"), "Required value: must not be empty for specified object fields");
    }
  }
  if (s.type === "array" && !where.inJunctor && s.items === undefined)
    err(join(path, "items"), "Required value: must be specified");
  if (Array.isArray(s.items)) err(join(path, "items"), "Forbidden: items must be a schema object and not an array");
  const lt = s["x-kubernetes-list-type"];
  const keys = s["x-kubernetes-list-map-keys"];
  if (lt !== undefined && s.type !== "array")
    err(join(path, "type"), "Invalid value: must be array if x-kubernetes-list-type is specified");
  if (lt === "map" && (!Array.isArray(keys) || keys.length === 0)) {
    err(join(path, "x-kubernetes-list-map-keys"), "Required value: must not be empty if x-kubernetes-list-type is map");
  }
  if (Array.isArray(keys) && keys.length > 0 && lt !== "map") {
    err(join(path, "x-kubernetes-list-type"), "Required value: must be map if x-kubernetes-list-map-keys is non-empty");
  }
  if (lt === "map" && Array.isArray(keys) && isRecord(s.items)) {
    const itemProps = isRecord(s.items.properties) ? s.items.properties : {};
    for (const k of keys) {
      if (typeof k !== "string" || !(k in itemProps)) {
        err(
          join(path, "x-kubernetes-list-map-keys"),
          `Invalid value: ${formatValue(keys)}: entries must all be names of item properties`,
        );
        break;
      }
    }
  }
  if (s["x-kubernetes-map-type"] !== undefined && s.type !== "object") {
    err(join(path, "type"), "Invalid value: must be object if x-kubernetes-map-type is specified");
  }
  if (s["x-kubernetes-embedded-resource"] === true) {
    if (s.type !== "object")
      err(join(path, "type"), "Invalid value: must be object if x-kubernetes-embedded-resource is true");
    if (s["x-kubernetes-preserve-unknown-fields"] !== true && !hasProps) {
      err(
        join(path, "properties"),
        "Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
      );
    }
  }
  const inner: Where = { root: false, inJunctor: where.inJunctor };
  if (isRecord(s.properties))
    for (const [k, v] of Object.entries(s.properties))
      if (isRecord(v)) walk(v, join(path, `properties[${k}]`), inner, err);
  if (isRecord(s.additionalProperties)) walk(s.additionalProperties, join(path, "additionalProperties"), inner, err);
  if (isRecord(s.items)) walk(s.items, join(path, "items"), inner, err);
  for (const j of JUNCTORS) {
    const list = s[j];
    if (!Array.isArray(list)) continue;
    list.forEach((b, i) => {
      if (isRecord(b)) walkJunctor(b, join(path, `${j}[${i}]`), err);
    });
  }
  if (isRecord(s.not)) walkJunctor(s.not, join(path, "not"), err);
}

/** Junctor members: int-or-string patterns (`anyOf: [{type: integer}, {type: string}]`) may carry a type. */
function walkJunctor(s: Record<string, unknown>, path: string, err: (p: string, m: string) => void): void {
  if ((s.type === "integer" || s.type === "string") && Object.keys(s).length === 1) return;
  walk(s, path, { root: false, inJunctor: true }, err);
}
