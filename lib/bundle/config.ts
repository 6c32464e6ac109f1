/**
 * `tollgate.yaml` (apiVersion tollgate.dev/v1alpha1, kind BundleConfig): policy configuration that travels with
 * the bundle. Precedence (resolveBundleConfig): BundleOptions, then tollgate.yaml, then the built-in defaults.
 */

import { RULE_FAMILIES, type RuleFamily } from "../field/error.js";
import { formatValue } from "../field/message.js";
import { DEFAULT_MAX_DOCUMENT_BYTES } from "../objects/limits.js";
import type { BundleOptions, PolicyFailure, ResolvedBundleConfig } from "../policy/types.js";

export const BUNDLE_CONFIG_API_VERSION = "tollgate.dev/v1alpha1";
export const BUNDLE_CONFIG_KIND = "BundleConfig";

/** Feature gates tollgate knows, with their Kubernetes 1.36 defaults. */
export const KNOWN_FEATURE_GATES: Readonly<Record<string, boolean>> = Object.freeze({
  CRDValidationRatcheting: true,
  DeclarativeValidation: true,
  DeclarativeValidationBeta: true,
});

/** Bounds of each policy document: the per-document limit every input path keeps (limits.ts), and a deeper nesting. */
export const DEFAULT_LIMITS = Object.freeze({ documentBytes: DEFAULT_MAX_DOCUMENT_BYTES, depth: 256 });

/** The decoder's bounds of a bundle's documents (BundleOptions over the defaults; tollgate.yaml is read after them). */
export function decodeLimitsOf(options: BundleOptions): {
  maxBytes: number;
  maxDepth: number;
  maxBytesSetting?: string;
} {
  const setting = options.limits?.documentBytesSetting;
  return {
    maxBytes: options.limits?.documentBytes ?? DEFAULT_LIMITS.documentBytes,
    maxDepth: options.limits?.depth ?? DEFAULT_LIMITS.depth,
    ...(setting !== undefined && { maxBytesSetting: setting }),
  };
}

export interface BundleConfigDoc {
  featureGates?: Record<string, boolean>;
  failurePolicy?: "Fail" | "Ignore";
  limits?: { documentBytes?: number; depth?: number };
  families?: Partial<Record<RuleFamily, boolean>>;
}

function isRuleFamily(name: string): name is RuleFamily {
  return (RULE_FAMILIES as readonly string[]).includes(name);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const TOP_LEVEL = new Set(["apiVersion", "kind", "metadata", "featureGates", "failurePolicy", "limits", "families"]);

/** Parses a BundleConfig document; problems become config PolicyFailures (errors for wrong values). */
export function parseBundleConfig(
  doc: Record<string, unknown>,
  file: string,
  document: number,
  failures: PolicyFailure[],
): BundleConfigDoc {
  const out: BundleConfigDoc = {};
  const fail = (path: string, message: string, severity: "error" | "warning" = "error") =>
    failures.push({ severity, family: "config", file, document, path, message });
  for (const k of Object.keys(doc)) if (!TOP_LEVEL.has(k)) fail(k, `unknown field "${k}"`, "warning");
  if (doc.featureGates !== undefined) {
    if (!isRecord(doc.featureGates)) fail("featureGates", "must be a map of feature gate name to true or false");
    else {
      out.featureGates = {};
      for (const [name, v] of Object.entries(doc.featureGates)) {
        if (typeof v !== "boolean")
          fail(`featureGates.${name}`, `Invalid value: ${formatValue(v)}: must be true or false`);
        else {
          // Any name is accepted: besides Kubernetes' gates, declarative `+k8s:ifEnabled(Option)` tags name options
          // of the API's own (KNOWN_FEATURE_GATES only gives defaults).
          out.featureGates[name] = v;
        }
      }
    }
  }
  if (doc.failurePolicy !== undefined) {
    if (doc.failurePolicy === "Fail" || doc.failurePolicy === "Ignore") out.failurePolicy = doc.failurePolicy;
    else
      fail("failurePolicy", `Unsupported value: ${formatValue(doc.failurePolicy)}: supported values: "Fail", "Ignore"`);
  }
  if (doc.limits !== undefined) {
    if (!isRecord(doc.limits)) fail("limits", "must be an object");
    else {
      out.limits = {};
      for (const [k, v] of Object.entries(doc.limits)) {
        if (k !== "documentBytes" && k !== "depth") {
          fail(`limits.${k}`, `unknown field "limits.${k}"`, "warning");
          continue;
        }
        if (typeof v !== "number" || !Number.isInteger(v) || v <= 0)
          fail(`limits.${k}`, `Invalid value: ${formatValue(v)}: must be a positive integer`);
        else out.limits[k] = v;
      }
    }
  }
  if (doc.families !== undefined) {
    if (!isRecord(doc.families)) fail("families", "must be an object");
    else {
      out.families = {};
      for (const [k, v] of Object.entries(doc.families)) {
        if (!isRuleFamily(k)) {
          const supported = [...RULE_FAMILIES].sort().map((f) => `"${f}"`);
          fail(`families.${k}`, `Unsupported value: "${k}": supported values: ${supported.join(", ")}`);
        } else if (typeof v !== "boolean")
          fail(`families.${k}`, `Invalid value: ${formatValue(v)}: must be true or false`);
        else out.families[k] = v;
      }
    }
  }
  return out;
}

/** BundleOptions over tollgate.yaml over built-ins. */
export function resolveBundleConfig(fromFile: BundleConfigDoc, options: BundleOptions = {}): ResolvedBundleConfig {
  return Object.freeze({
    featureGates: Object.freeze({ ...KNOWN_FEATURE_GATES, ...fromFile.featureGates, ...options.featureGates }),
    failurePolicy: options.failurePolicy ?? fromFile.failurePolicy ?? "Fail",
    families: Object.freeze({
      ...(Object.fromEntries(RULE_FAMILIES.map((f) => [f, true])) as Record<RuleFamily, boolean>),
      ...fromFile.families,
      ...options.families,
    }),
    limits: Object.freeze({
      documentBytes: options.limits?.documentBytes ?? fromFile.limits?.documentBytes ?? DEFAULT_LIMITS.documentBytes,
      depth: options.limits?.depth ?? fromFile.limits?.depth ?? DEFAULT_LIMITS.depth,
    }),
  });
}
