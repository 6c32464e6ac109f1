/**
 * The compiled, immutable PolicySet: policies indexed by group/kind, validate() → Verdict, and the failure policy
 * for kinds whose policy failed to compile. Pure: no I/O, no clock, no environment.
 */
import { type ErrorContext, type FieldError, internal, invalid } from "../field/error.js";
import { REDACTED, renderBody, showsValue } from "../field/message.js";
import { isSecretKind, shouldRedact } from "../field/redact.js";
import type { CompiledCrd } from "../schema/crd.js";
import { type CelRunner, unservedVersionError, validateCustomResource } from "./crd-policy.js";
import type { FamilyPolicy, FamilyRequest } from "./family.js";
import type { CoveredKind, PolicyFailure, PolicySet, ResolvedBundleConfig, ValidateRequest, Verdict } from "./types.js";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Splits an apiVersion into group and version ("v1" → core group ""). */
export function splitApiVersion(apiVersion: string): { group: string; version: string } | undefined {
  if (apiVersion === "") return undefined;
  const i = apiVersion.indexOf("/");
  if (i === -1) return { group: "", version: apiVersion };
  if (apiVersion.indexOf("/", i + 1) !== -1) return undefined;
  const group = apiVersion.slice(0, i);
  const version = apiVersion.slice(i + 1);
  if (version === "") return undefined;
  return { group, version };
}

export interface PolicySetParts {
  digest: string;
  config: ResolvedBundleConfig;
  crds: CompiledCrd[];
  failures: PolicyFailure[];
  families?: FamilyPolicy[];
  cel?: CelRunner | null;
}

const EMPTY: readonly FieldError[] = Object.freeze([]);

function verdict(partial: Partial<Verdict> & { allowed: boolean; covered: boolean }): Verdict {
  return {
    errors: [],
    warnings: [],
    shadowed: [],
    ratcheted: [],
    warningTexts: [],
    ...partial,
  };
}

/** Redacts bad values of Secrets and credential fields: the message shows `"<redacted>"`, badValue is dropped. */
function redact(errors: FieldError[], secret: boolean): FieldError[] {
  for (const e of errors) {
    if (!shouldRedact(secret, e.field)) continue;
    if (!("badValue" in e) && !/^(Invalid value|Unsupported value|Duplicate value|Too many): /.test(e.message))
      continue;
    delete e.badValue;
    if (showsValue(e.type)) e.message = renderBody(e.type, REDACTED, e.detail);
  }
  return errors;
}

export function createPolicySet(parts: PolicySetParts): PolicySet {
  const byGroupKind = new Map<string, CompiledCrd>();
  for (const crd of parts.crds) byGroupKind.set(`${crd.group}/${crd.kind}`, crd);
  // Error-severity failures per "<group>/<version>/<Kind>" they make unusable.
  const failedKinds = new Map<string, PolicyFailure[]>();
  for (const f of parts.failures) {
    if (f.severity !== "error") continue;
    for (const k of f.kinds ?? []) {
      const list = failedKinds.get(k) ?? [];
      list.push(f);
      failedKinds.set(k, list);
    }
  }
  const kinds: CoveredKind[] = [];
  for (const crd of parts.crds) {
    for (const v of crd.versions.values()) {
      if (!v.served) continue;
      kinds.push({
        group: crd.group,
        version: v.name,
        kind: crd.kind,
        plural: crd.plural,
        scope: crd.scope,
        family: "crd",
        rules: v.openAPIRuleCount + v.celRuleCount,
        // The API server validates status updates against the same schema when the status subresource is on.
        ...(v.hasStatusSubresource ? { subresources: ["status"] } : {}),
      });
    }
  }
  const families = parts.families ?? [];
  for (const f of families) kinds.push(...f.kinds);
  const cel = parts.cel ?? null;
  const config = parts.config;

  const set: PolicySet = {
    digest: parts.digest,
    kinds: Object.freeze(kinds),
    failures: Object.freeze([...parts.failures]),
    config,
    covers(apiVersion: string, kind: string): boolean {
      const gv = splitApiVersion(apiVersion);
      if (gv === undefined) return false;
      if (failedKinds.has(`${gv.group}/${gv.version}/${kind}`)) return true;
      if (families.some((f) => f.covers(gv.group, gv.version, kind))) return true;
      return byGroupKind.has(`${gv.group}/${kind}`);
    },
    validate(req: ValidateRequest): Verdict {
      try {
        return validateOne(req);
      } catch (e) {
        // Validation never throws for a bad object; an internal fault is reported per the failure policy.
        const ctx: ErrorContext = { source: { kind: "crd", policy: "tollgate" } };
        const err = internal(
          null,
          `internal error while validating: ${e instanceof Error ? e.message : String(e)}`,
          ctx,
        );
        return failurePolicyVerdict([err]);
      }
    },
  };

  function failurePolicyVerdict(errs: FieldError[]): Verdict {
    if (config.failurePolicy === "Ignore") {
      const warnings = errs.map((e) => ({ ...e, severity: "warning" as const }));
      return verdict({
        allowed: true,
        covered: true,
        warnings,
        warningTexts: warnings.map((w) => `${w.field}: ${w.message}`),
      });
    }
    return verdict({ allowed: false, covered: true, errors: errs });
  }

  function validateOne(req: ValidateRequest): Verdict {
    const obj = req.object;
    const unknownCtx: ErrorContext = { source: { kind: "crd", policy: "tollgate" } };
    if (!isRecord(obj)) {
      return verdict({
        allowed: false,
        covered: false,
        errors: [
          invalid(
            null,
            "",
            "the object must be a JSON object (a Kubernetes object with apiVersion and kind)",
            unknownCtx,
          ),
        ],
      });
    }
    const apiVersion = obj.apiVersion;
    const kind = obj.kind;
    if (typeof apiVersion !== "string" || typeof kind !== "string" || apiVersion === "" || kind === "") {
      const errs: FieldError[] = [];
      if (typeof apiVersion !== "string" || apiVersion === "")
        errs.push(invalid("apiVersion", apiVersion ?? "", "must be a non-empty string", unknownCtx));
      if (typeof kind !== "string" || kind === "")
        errs.push(invalid("kind", kind ?? "", "must be a non-empty string", unknownCtx));
      return verdict({ allowed: false, covered: false, errors: errs });
    }
    const gv = splitApiVersion(apiVersion);
    if (gv === undefined) {
      return verdict({
        allowed: false,
        covered: false,
        errors: [invalid("apiVersion", apiVersion, `unexpected GroupVersion string: ${apiVersion}`, unknownCtx)],
      });
    }
    const failed = failedKinds.get(`${gv.group}/${gv.version}/${kind}`);
    if (failed !== undefined) {
      const ctx: ErrorContext = {
        source: {
          kind: failed[0]!.family === "config" ? "crd" : (failed[0]!.family as "crd"),
          policy: failed[0]!.file ?? "bundle",
        },
      };
      const errs = failed.map((f) =>
        internal(
          null,
          `the policy for ${gv.group}/${gv.version}/${kind} failed to compile (${f.file ?? "bundle"}${f.path ? ` ${f.path}` : ""}: ${f.message})`,
          ctx,
        ),
      );
      return failurePolicyVerdict(errs);
    }
    const crdVerdict = validateCrd(req, obj, apiVersion, kind, gv);
    const secret = isSecretKind(apiVersion, kind);
    const merged = crdVerdict ?? verdict({ allowed: true, covered: false });
    for (const f of families) {
      if (!f.covers(gv.group, gv.version, kind)) continue;
      const familyReq: FamilyRequest = {
        operation: req.operation,
        object: obj,
        group: gv.group,
        version: gv.version,
        kind,
      };
      if (isRecord(req.oldObject)) familyReq.oldObject = req.oldObject;
      if (req.subresource !== undefined && req.subresource !== "")
        familyReq.subresource = req.subresource.replace(/^\//, "");
      const r = f.validate(familyReq, { config });
      if (r === undefined) continue;
      merged.covered = true;
      merged.errors.push(...redact(r.errors, secret));
      merged.warnings.push(...redact(r.warnings, secret));
      merged.shadowed.push(...redact(r.shadowed, secret));
      merged.ratcheted.push(...redact(r.ratcheted, secret));
      for (const w of r.warnings) merged.warningTexts.push(`${w.field}: ${w.message}`);
      if (r.extraWarningTexts !== undefined) merged.warningTexts.push(...r.extraWarningTexts);
    }
    merged.allowed = merged.errors.length === 0;
    return merged;
  }

  function validateCrd(
    req: ValidateRequest,
    obj: Record<string, unknown>,
    apiVersion: string,
    kind: string,
    gv: { group: string; version: string },
  ): Verdict | undefined {
    const crd = byGroupKind.get(`${gv.group}/${kind}`);
    if (crd === undefined || !config.families.crd) return undefined;
    const ctx: ErrorContext = { source: { kind: "crd", policy: crd.name } };
    const version = crd.versions.get(gv.version);
    if (version === undefined || !version.served) {
      return verdict({ allowed: false, covered: true, errors: [unservedVersionError(crd, apiVersion, ctx)] });
    }
    if (req.operation === "DELETE") return verdict({ allowed: true, covered: true });
    const sub =
      req.subresource === undefined || req.subresource === "" ? undefined : req.subresource.replace(/^\//, "");
    const old = isRecord(req.oldObject) ? req.oldObject : undefined;
    const crdReq: Parameters<typeof validateCustomResource>[2] = { operation: req.operation, object: obj };
    if (old !== undefined) crdReq.oldObject = old;
    if (sub !== undefined) crdReq.subresource = sub;
    const out = validateCustomResource(crd, version, crdReq, ctx, cel);
    const secret = isSecretKind(apiVersion, kind);
    const errors = redact(out.errors, secret);
    const ratcheted = redact(out.ratcheted, secret);
    const warnings = redact(out.warnings, secret);
    const v = verdict({
      allowed: errors.length === 0,
      covered: true,
      errors,
      warnings,
      ratcheted,
      warningTexts: out.warningTexts,
    });
    if (out.object !== undefined) v.object = out.object;
    return v;
  }

  void EMPTY;
  return Object.freeze(set);
}
