/**
 * The custom-resource request path of apiextensions-apiserver 1.36 for one object: decoding (pruning, null
 * dropping, metadata coercion, defaulting), the registry's create/update preparation (status subresource), and
 * the strategy's validation in its order (type meta, object meta, OpenAPI schema with ratcheting, embedded
 * resources, list types, then the CEL seam with its blocking-errors gate). See spec/k8s-cel-semantics.md §1 and
 * corpus/cases/README.md "How to evaluate a case like the apiserver does".
 */

import { type ErrorContext, type FieldError, invalid, notSupported } from "../field/error.js";
import { Path } from "../field/path.js";
import { appendAll } from "../objects/append.js";
import { isMapping } from "../objects/mapping.js";
import type { Operation } from "../policy/types.js";
import { decodedCopy } from "../schema/decode.js";
import { deepCopyJson } from "../schema/default.js";
import { validateListSetsAndMaps } from "../schema/list-type.js";
import {
  nameIsDNSSubdomain,
  pathSegmentName,
  validateEmbeddedResources,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from "../schema/objectmeta.js";
import type { SchemaNode } from "../schema/structural.js";
import { validateValue } from "../schema/validate.js";
import type { CompiledCrd, CompiledCrdVersion } from "./compile.js";
import type { CrdRules } from "./rules.js";

export interface CrdOutcome {
  errors: FieldError[];
  warnings: FieldError[];
  ratcheted: FieldError[];
  warningTexts: string[];
  object?: unknown;
}

/** ObjectMeta fields; anything else in metadata is dropped at decoding with an `unknown field` warning. */
const OBJECT_META_FIELDS = new Set([
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
]);

/** Error types that keep CEL from running (spec/k8s-cel-semantics.md §1, step 7). */
const BLOCKING = new Set([
  "FieldValueNotSupported",
  "FieldValueRequired",
  "FieldValueTooLong",
  "FieldValueTooMany",
  "FieldValueTypeInvalid",
]);

interface Decoded {
  obj: Record<string, unknown>;
  unknown: string[];
}

/**
 * Decoding as customresource_handler does it: metadata coercion, pruning, nulls, defaulting, on a private copy
 * (the copy is decoded as it is made: schema/decode.ts).
 */
function decode(input: Record<string, unknown>, schema: SchemaNode | null): Decoded {
  const unknown: string[] = [];
  let source = input;
  if (isMapping(input.metadata)) {
    const metadata = input.metadata;
    const extra = Object.keys(metadata).filter((k) => !OBJECT_META_FIELDS.has(k));
    if (extra.length > 0) {
      for (const k of extra) unknown.push(`metadata.${k}`);
      const kept: Record<string, unknown> = { ...metadata };
      for (const k of extra) delete kept[k];
      source = { ...input, metadata: kept };
    }
  }
  if (schema === null) return { obj: deepCopyJson(source), unknown };
  const { value, pruned } = decodedCopy(source, schema);
  appendAll(unknown, pruned.sort());
  return { obj: value as Record<string, unknown>, unknown };
}

function hasAnyListTypeError(version: CompiledCrdVersion, obj: unknown, ctx: ErrorContext): boolean {
  const out: FieldError[] = [];
  validateListSetsAndMaps(null, version.schema, obj, ctx, out);
  return out.length > 0;
}

/** Runs the whole custom-resource path for one request against one CRD version. */
export function validateCustomResource(
  crd: CompiledCrd,
  version: CompiledCrdVersion,
  req: {
    operation: Operation;
    object: Record<string, unknown>;
    oldObject?: Record<string, unknown>;
    subresource?: string;
  },
  ctx: ErrorContext,
  rules: CrdRules,
): CrdOutcome {
  const warningTexts: string[] = [];
  if (version.deprecationWarning !== undefined) warningTexts.push(version.deprecationWarning);
  const schema = version.schema;
  const isStatus = req.subresource === "status";
  const isUpdate = req.operation === "UPDATE" && req.oldObject !== undefined;

  const decoded = decode(req.object, schema);
  for (const u of decoded.unknown) warningTexts.push(`unknown field "${u}"`);
  let obj = decoded.obj;
  const old = isUpdate ? decode(req.oldObject!, schema).obj : undefined;

  // Registry preparation (PrepareForCreate / PrepareForUpdate, status strategy).
  if (isStatus && old !== undefined) {
    const next = deepCopyJson(old);
    if (Object.hasOwn(obj, "status")) next.status = obj.status;
    else delete next.status;
    if (isMapping(obj.metadata) && isMapping(next.metadata) && obj.metadata.managedFields !== undefined) {
      next.metadata.managedFields = obj.metadata.managedFields;
    }
    obj = next;
  } else if (version.hasStatusSubresource) {
    if (req.operation === "CREATE") delete obj.status;
    else if (old !== undefined) {
      if (Object.hasOwn(old, "status")) obj.status = deepCopyJson(old.status);
      else delete obj.status;
    }
  }

  const errors: FieldError[] = [];
  const ratcheted: FieldError[] = [];
  const warnings: FieldError[] = [];

  // 1. type meta: only these errors are returned when they fail.
  if (obj.kind !== crd.kind) errors.push(invalid(Path.of("kind"), obj.kind ?? "", `must be ${crd.kind}`, ctx));
  if (errors.length > 0) return { errors, warnings, ratcheted, warningTexts };

  // 2. object meta
  const metaPath = Path.of("metadata");
  if (isUpdate) {
    validateObjectMeta(obj.metadata, null, pathSegmentName, metaPath, ctx, errors);
    validateObjectMetaUpdate(obj.metadata, old?.metadata, metaPath, ctx, errors);
  } else {
    validateObjectMeta(obj.metadata, null, nameIsDNSSubdomain, metaPath, ctx, errors);
  }

  // 3. OpenAPI schema, with ratcheting on UPDATE
  if (schema !== null) {
    if (isStatus) {
      const statusSchema = schema.properties?.get("status") ?? null;
      if (statusSchema !== null && Object.hasOwn(obj, "status")) {
        const oldStatus = old !== undefined && Object.hasOwn(old, "status") ? old.status : undefined;
        const r = validateValue(statusSchema, obj.status, "status", ctx, {
          old: oldStatus,
          hasOld: oldStatus !== undefined,
        });
        appendAll(errors, r.errors);
        appendAll(ratcheted, r.ratcheted);
      }
    } else {
      const r = validateValue(schema, obj, null, ctx, { old, hasOld: old !== undefined });
      appendAll(errors, r.errors);
      appendAll(ratcheted, r.ratcheted);
    }
  }

  // 4. embedded resources (not on status updates, never ratcheted)
  if (!isStatus && version.hasEmbeddedResources) validateEmbeddedResources(null, obj, schema, true, ctx, errors);

  // 5. list types; on UPDATE only when the old object has no list-type error anywhere (customResourceStrategy
  // ValidateUpdate, "ratcheting validation of x-kubernetes-list-type value map and set"): otherwise the API server
  // discards the new object's list-type errors, so they are ratcheted.
  if (version.hasListSetsOrMaps) {
    const ratchets = old !== undefined && hasAnyListTypeError(version, old, ctx);
    validateListSetsAndMaps(null, schema, obj, ctx, ratchets ? ratcheted : errors);
  }

  // 6. CEL, unless a blocking error exists
  if (version.celRuleCount > 0) {
    if (errors.some((e) => BLOCKING.has(e.type))) {
      errors.push(
        invalid(
          null,
          null,
          "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
          ctx,
        ),
      );
    } else {
      const r = rules.evaluate(version, obj, old, ctx);
      appendAll(errors, r.errors);
      for (const w of r.warnings) {
        warnings.push(w);
        warningTexts.push(`${w.field}: ${w.message}`);
      }
    }
  }
  return { errors, warnings, ratcheted, warningTexts, object: obj };
}

/** The error for an apiVersion whose version the CRD does not serve. */
export function unservedVersionError(crd: CompiledCrd, apiVersion: string, ctx: ErrorContext): FieldError {
  const served = [...crd.versions.values()].filter((v) => v.served).map((v) => `${crd.group}/${v.name}`);
  return notSupported(Path.of("apiVersion"), apiVersion, served, ctx);
}
