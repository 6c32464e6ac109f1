/**
 * ObjectMeta validation (apimachinery pkg/api/validation ValidateObjectMetaAccessor, as the custom-resource
 * strategy calls it) and embedded-resource validation (apiextensions-apiserver schema/objectmeta/validation.go).
 */
import { type ErrorContext, type FieldError, forbidden, invalid, required, tooLong } from "../field/error.js";
import { childOf, indexOf, keyOf, type Path } from "../field/path.js";
import { parseGroupVersion } from "../objects/gvk.js";
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
} from "../objects/names.js";
import type { SchemaNode } from "./structural.js";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

type NameFn = (name: string, prefix: boolean) => string[];

/** NameIsDNSSubdomain: a generateName prefix may end with '-'. */
export const nameIsDNSSubdomain: NameFn = (name, prefix) => isDNS1123Subdomain(name, prefix ? "prefix" : "name");

/** path.ValidatePathSegmentName */
export const pathSegmentName: NameFn = (name, prefix) => (prefix ? [] : isValidPathSegmentName(name));

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/**
 * The metadata the API server's accessor reads: an absent or null `metadata` is empty ObjectMeta (the unstructured
 * getters answer "" for every field), so such an object still needs a name. Any other non-mapping is not ObjectMeta
 * at all (the API server fails to decode it) and gives undefined.
 */
function accessorMeta(meta: unknown): Record<string, unknown> | undefined {
  if (meta === undefined || meta === null) return {};
  return isRecord(meta) ? meta : undefined;
}

/**
 * ValidateObjectMetaAccessor. `requiresNamespace` null means "do not check the namespace" (offline objects often
 * leave it to the client's current namespace). An object without metadata is validated as one with empty metadata:
 * `metadata.name: Required value: name or generateName is required`.
 */
export function validateObjectMeta(
  metadata: unknown,
  requiresNamespace: boolean | null,
  nameFn: NameFn,
  path: Path,
  ctx: ErrorContext,
  out: FieldError[],
): void {
  const meta = accessorMeta(metadata);
  if (meta === undefined) return;
  const name = typeof meta.name === "string" ? meta.name : "";
  const generateName = typeof meta.generateName === "string" ? meta.generateName : "";
  const namespace = typeof meta.namespace === "string" ? meta.namespace : "";
  if (generateName.length > 0) {
    for (const msg of nameFn(generateName, true))
      out.push(invalid(childOf(path, "generateName"), generateName, msg, ctx));
  }
  if (name.length === 0) {
    // The API server generates the name from generateName before validating.
    if (generateName.length === 0) out.push(required(childOf(path, "name"), "name or generateName is required", ctx));
  } else {
    for (const msg of nameFn(name, false)) out.push(invalid(childOf(path, "name"), name, msg, ctx));
  }
  if (requiresNamespace === true) {
    if (namespace.length > 0) {
      for (const msg of isDNS1123Label(namespace)) out.push(invalid(childOf(path, "namespace"), namespace, msg, ctx));
    }
  } else if (requiresNamespace === false && namespace.length > 0) {
    out.push(forbidden(childOf(path, "namespace"), "not allowed on this type", ctx));
  }
  const gen = meta.generation;
  if ((typeof gen === "number" || typeof gen === "bigint") && gen < 0) {
    out.push(invalid(childOf(path, "generation"), gen, "must be greater than or equal to 0", ctx));
  }
  validateLabels(meta.labels, childOf(path, "labels"), ctx, out);
  validateAnnotations(meta.annotations, childOf(path, "annotations"), ctx, out);
  validateFinalizers(meta.finalizers, childOf(path, "finalizers"), ctx, out);
}

function validateLabels(labels: unknown, path: Path, ctx: ErrorContext, out: FieldError[]): void {
  if (!isRecord(labels)) return;
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of isQualifiedName(k)) out.push(invalid(path, k, msg, ctx));
    if (typeof v === "string") for (const msg of isValidLabelValue(v)) out.push(invalid(path, v, msg, ctx));
  }
}

function validateAnnotations(annotations: unknown, path: Path, ctx: ErrorContext, out: FieldError[]): void {
  if (!isRecord(annotations)) return;
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) out.push(invalid(path, k, msg, ctx));
    total += Buffer.byteLength(k) + (typeof v === "string" ? Buffer.byteLength(v) : 0);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) out.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT, ctx));
}

function validateFinalizers(finalizers: unknown, path: Path, ctx: ErrorContext, out: FieldError[]): void {
  if (!Array.isArray(finalizers)) return;
  finalizers.forEach((f, i) => {
    if (typeof f !== "string") return;
    for (const msg of isQualifiedName(f)) out.push(invalid(indexOf(path, i), f, msg, ctx));
  });
}

/**
 * ValidateObjectMetaUpdate's immutable-field checks that apply offline (name and namespace); absent metadata reads
 * as empty, as in {@link validateObjectMeta}.
 */
export function validateObjectMetaUpdate(
  metadata: unknown,
  oldMetadata: unknown,
  path: Path,
  ctx: ErrorContext,
  out: FieldError[],
): void {
  const meta = accessorMeta(metadata);
  const oldMeta = accessorMeta(oldMetadata);
  if (meta === undefined || oldMeta === undefined) return;
  for (const field of ["name", "namespace"] as const) {
    const a = meta[field] ?? "";
    const b = oldMeta[field] ?? "";
    if (a !== b) out.push(invalid(childOf(path, field), a, "field is immutable", ctx));
  }
}

/**
 * Embedded-resource checks below the root (apiextensions schema/objectmeta Validate): apiVersion and kind are
 * required and well-formed, metadata is valid ObjectMeta with path-segment names. Not ratcheted.
 */
export function validateEmbeddedResources(
  path: Path | null,
  obj: unknown,
  s: SchemaNode | null,
  isRoot: boolean,
  ctx: ErrorContext,
  out: FieldError[],
): void {
  if (s === null) return;
  if (s.embeddedResource && !isRoot && isRecord(obj)) validateEmbedded(path, obj, ctx, out);
  if (isRecord(obj)) {
    for (const k of Object.keys(obj)) {
      const prop = s.properties?.get(k);
      if (prop !== undefined) validateEmbeddedResources(childOf(path, k), obj[k], prop, false, ctx, out);
      else if (s.additionalProperties !== null)
        validateEmbeddedResources(keyOf(path, k), obj[k], s.additionalProperties, false, ctx, out);
    }
  } else if (Array.isArray(obj)) {
    for (let i = 0; i < obj.length; i++) validateEmbeddedResources(indexOf(path, i), obj[i], s.items, false, ctx, out);
  }
}

function validateEmbedded(path: Path | null, x: Record<string, unknown>, ctx: ErrorContext, out: FieldError[]): void {
  if (!("apiVersion" in x)) out.push(required(childOf(path, "apiVersion"), "must not be empty", ctx));
  if (!("kind" in x)) out.push(required(childOf(path, "kind"), "must not be empty", ctx));
  for (const [k, v] of Object.entries(x)) {
    if (k === "apiVersion") {
      const p = childOf(path, "apiVersion");
      if (typeof v !== "string") out.push(invalid(p, v, "must be a string", ctx));
      else if (v.length === 0) out.push(invalid(p, v, "must not be empty", ctx));
      else {
        const gv = parseGroupVersion(v);
        if ("error" in gv) out.push(invalid(p, v, gv.error, ctx));
      }
    } else if (k === "kind") {
      const p = childOf(path, "kind");
      if (typeof v !== "string") out.push(invalid(p, v, "must be a string", ctx));
      else if (v.length === 0) out.push(invalid(p, v, "must not be empty", ctx));
      else {
        const errs = isDNS1035Label(v.toLowerCase());
        if (errs.length > 0)
          out.push(invalid(p, v, `may have mixed case, but should otherwise match: ${errs.join(",")}`, ctx));
      }
    } else if (k === "metadata") {
      const p = childOf(path, "metadata");
      if (!isRecord(v)) {
        out.push(invalid(p, v, "must be an object", ctx));
        continue;
      }
      const meta = { ...v };
      if (typeof meta.name !== "string" || meta.name.length === 0) meta.name = "fakename";
      const ns = typeof meta.namespace === "string" && meta.namespace.length > 0;
      validateObjectMeta(meta, !!ns, pathSegmentName, p, ctx, out);
    }
  }
}
