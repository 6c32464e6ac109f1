/**
 * The compiled, immutable PolicySet: it routes each object to the families that cover its kind, merges their results
 * on one path in the API server's order (schema families, then admission families: see lib/policy/family.ts), and
 * applies the bundle's failure policy to kinds whose policy failed to compile and to internal faults. A failure whose
 * kinds cannot be known (PolicyFailure.kinds is [EVERY_KIND]: a bundle document that could not be decoded or
 * recognised) applies the failure policy to every object, of any kind: its policy may be in that document. It knows
 * no family by name. Pure: no I/O, no clock, no environment.
 */
import {
  type ErrorContext,
  type FieldError,
  internal,
  invalid,
  RULE_FAMILIES,
  type RuleFamily,
} from "../field/error.js";
import { isSecretKind } from "../field/redact.js";
import { appendAll } from "../objects/append.js";
import { type GroupVersion, parseGroupVersion } from "../objects/gvk.js";
import { isMapping } from "../objects/mapping.js";
import type { Waiver } from "../waivers/waiver.js";
import { boundVerdict } from "./bounds.js";
import type { FamilyPolicy, FamilyRequest, FamilyResult } from "./family.js";
import type { ResourceCatalogue } from "./resources.js";
import {
  type AdmissionRule,
  type CoveredKind,
  EVERY_KIND,
  type PolicyFailure,
  type PolicyNote,
  type PolicySet,
  type ResolvedBundleConfig,
  type UserInfo,
  type ValidateRequest,
  type Verdict,
} from "./types.js";

export interface PolicySetParts {
  digest: string;
  config: ResolvedBundleConfig;
  failures: PolicyFailure[];
  /** Documents and files the loader ignored. Default: none. */
  notes?: PolicyNote[];
  families: FamilyPolicy[];
  resources: ResourceCatalogue;
  /** Whether a compiled family consults a cluster-state object (its compiler's consultsState). Default: none. */
  consultsState?: (obj: Record<string, unknown>) => boolean;
  /** The waivers in force (the bundle's and those given beside it). Default: none. */
  waivers?: readonly Waiver[];
}

/** Errors about the request itself or tollgate, not about a family's rules. */
const TOLLGATE: ErrorContext = { source: { kind: "tollgate", policy: "tollgate" } };

const NO_USER: UserInfo = Object.freeze({ username: "" });

function emptyVerdict(): Verdict {
  return {
    allowed: true,
    covered: false,
    errors: [],
    warnings: [],
    shadowed: [],
    ratcheted: [],
    audits: [],
    warningTexts: [],
    auditAnnotations: {},
  };
}

function rejected(errors: FieldError[]): Verdict {
  return { ...emptyVerdict(), allowed: false, errors };
}

/**
 * Error-severity failures per "<group>/<version>/<Kind>" they make unusable, and those that make every kind unusable
 * (kinds [EVERY_KIND]).
 */
function failuresByKind(failures: readonly PolicyFailure[]): {
  byKind: Map<string, PolicyFailure[]>;
  everyKind: PolicyFailure[];
} {
  const byKind = new Map<string, PolicyFailure[]>();
  const everyKind: PolicyFailure[] = [];
  for (const f of failures) {
    if (f.severity !== "error") continue;
    for (const k of f.kinds ?? []) {
      if (k === EVERY_KIND) {
        everyKind.push(f);
        continue;
      }
      const list = byKind.get(k) ?? [];
      list.push(f);
      byKind.set(k, list);
    }
  }
  return { byKind, everyKind };
}

/**
 * The text of a failed-policy error: what cannot be checked (`<apiVersion>/<kind>`), which file or document is to
 * blame (`<file>#<document>`), where in it, and why. A failure of known kinds is that kind's policy; one of unknown kinds may hold it.
 */
function failedPolicyDetail(f: PolicyFailure, gvk: string, kindText: string): string {
  let where = f.file ?? "the bundle";
  if (f.document !== undefined) where += `#${f.document}`;
  let why = f.message;
  const path = f.path ?? "";
  if (path !== "" && why.startsWith(`${path}: `)) why = why.slice(path.length + 2);
  if (f.kinds?.includes(gvk) === true) {
    return `the policy for ${kindText} cannot be used: ${path === "" ? where : `${where} ${path}`}: ${why}`;
  }
  return `the policy for ${kindText} may be in ${where}, which cannot be used: ${path === "" ? why : `${path}: ${why}`}`;
}

/** Adds one family's result to the verdict (loops, not spreads: a family may return 100,000 errors). */
function merge(verdict: Verdict, r: FamilyResult, family: RuleFamily): void {
  verdict.covered = true;
  appendAll(verdict.errors, r.errors);
  appendAll(verdict.warnings, r.warnings);
  appendAll(verdict.shadowed, r.shadowed);
  appendAll(verdict.ratcheted, r.ratcheted);
  if (r.audits !== undefined) appendAll(verdict.audits, r.audits);
  if (r.warningTexts !== undefined) appendAll(verdict.warningTexts, r.warningTexts);
  else {
    for (const w of r.warnings) verdict.warningTexts.push(`${w.field}: ${w.message}`);
    if (r.extraWarningTexts !== undefined) appendAll(verdict.warningTexts, r.extraWarningTexts);
  }
  if (r.object !== undefined && verdict.object === undefined) verdict.object = r.object;
  // Admission annotations cannot be overwritten: the first value of a key stays (k8s.io/apiserver admission
  // attributes AddAnnotation).
  if (r.auditAnnotations !== undefined) {
    for (const [k, v] of Object.entries(r.auditAnnotations)) {
      if (Object.hasOwn(verdict.auditAnnotations, k)) continue;
      verdict.auditAnnotations[k] = v;
      const webhookKey = r.auditAnnotationWebhookKeys?.[k];
      if (webhookKey === undefined) continue;
      verdict.auditAnnotationWebhookKeys ??= {};
      verdict.auditAnnotationWebhookKeys[k] = webhookKey;
    }
  }
  if (r.status !== undefined && verdict.status === undefined) verdict.status = r.status;
  if (r.checkedAgainst !== undefined && r.checkedAgainst.length > 0) {
    const list = [...(verdict.checkedAgainst ?? [])];
    for (const policy of r.checkedAgainst) list.push({ family, policy });
    verdict.checkedAgainst = list;
  }
}

/**
 * The group and version objects of this apiVersion are served at: apimachinery's ParseGroupVersion ("/v1" is the
 * core group's v1), refusing what no API server serves: more than one "/", or an empty version ("apps/").
 */
function servedGroupVersion(apiVersion: string): GroupVersion | undefined {
  const gv = parseGroupVersion(apiVersion);
  return "error" in gv || gv.version === "" ? undefined : gv;
}

export function createPolicySet(parts: PolicySetParts): PolicySet {
  const { config, resources } = parts;
  const order = (f: FamilyPolicy) => RULE_FAMILIES.indexOf(f.family);
  const families = [...parts.families].sort((a, b) => order(a) - order(b));
  const schemaFamilies = families.filter((f) => f.stage === "schema");
  const admissionFamilies = families.filter((f) => f.stage === "admission");
  const { byKind: failedKinds, everyKind } = failuresByKind(parts.failures);
  const kinds: CoveredKind[] = families.flatMap((f) => f.kinds);
  const admissionRules: AdmissionRule[] = families.flatMap((f) => f.admissionRules ?? []);

  /**
   * The failure policy's verdict for an object whose kind's policy cannot be used. The error is on `kind` (the
   * object's kind is what cannot be checked) and names the document, where in it, and why.
   */
  function failedPolicyVerdict(failed: PolicyFailure[], gvk: string, kindText: string): Verdict {
    const errs = failed.map((f) => {
      const ctx: ErrorContext = {
        source: { kind: f.family === "config" ? "tollgate" : f.family, policy: f.file ?? "bundle" },
      };
      return internal("kind", failedPolicyDetail(f, gvk, kindText), ctx);
    });
    return failurePolicyVerdict(config, errs);
  }

  /** The families' verdict: schema families first; admission families only when they allowed, until one denies. */
  function runFamilies(freq: FamilyRequest, shouldStop: (() => boolean) | undefined): Verdict {
    const verdict = emptyVerdict();
    const ctx = { config };
    // A CONNECT's object is its options (PodExecOptions): nothing to store, only admission plugins judge it.
    for (const f of freq.operation === "CONNECT" ? [] : schemaFamilies) {
      if (!f.covers(freq.group, freq.version, freq.kind)) continue;
      stopIfAsked(shouldStop);
      const r = f.validate(freq, ctx);
      if (r !== undefined) merge(verdict, r, f.family);
    }
    if (verdict.errors.length === 0) {
      // Admission plugins see the object as it would be stored (pruned and defaulted by the schema).
      const admitted = isMapping(verdict.object) ? { ...freq, object: verdict.object } : freq;
      for (const f of admissionFamilies) {
        if (!f.covers(freq.group, freq.version, freq.kind)) continue;
        stopIfAsked(shouldStop);
        const r = f.validate(admitted, ctx);
        if (r === undefined) continue;
        merge(verdict, r, f.family);
        // The validating admission chain stops at the first plugin that denies.
        if (r.errors.length > 0 || r.status !== undefined) break;
      }
    }
    verdict.allowed = verdict.errors.length === 0 && verdict.status === undefined;
    return verdict;
  }

  function validateOne(req: ValidateRequest): Verdict {
    const obj = req.object;
    if (!isMapping(obj)) {
      return rejected([
        invalid(null, "", "the object must be a JSON object (a Kubernetes object with apiVersion and kind)", TOLLGATE),
      ]);
    }
    const { apiVersion, kind } = obj;
    if (typeof apiVersion !== "string" || typeof kind !== "string" || apiVersion === "" || kind === "") {
      const errs: FieldError[] = [];
      if (typeof apiVersion !== "string" || apiVersion === "")
        errs.push(invalid("apiVersion", apiVersion ?? "", "must be a non-empty string", TOLLGATE));
      if (typeof kind !== "string" || kind === "")
        errs.push(invalid("kind", kind ?? "", "must be a non-empty string", TOLLGATE));
      return rejected(errs);
    }
    const gv = servedGroupVersion(apiVersion);
    if (gv === undefined) {
      return rejected([invalid("apiVersion", apiVersion, `unexpected GroupVersion string: ${apiVersion}`, TOLLGATE)]);
    }
    const gvk = `${gv.group}/${gv.version}/${kind}`;
    const failed = failedKinds.get(gvk);
    if (failed !== undefined || everyKind.length > 0) {
      return failedPolicyVerdict([...(failed ?? []), ...everyKind], gvk, `${apiVersion}/${kind}`);
    }
    return runFamilies(familyRequest(req, obj, gv, resources), req.shouldStop);
  }

  const set: PolicySet = {
    digest: parts.digest,
    kinds: Object.freeze(kinds),
    admissionRules: Object.freeze(admissionRules),
    failures: Object.freeze([...parts.failures]),
    notes: Object.freeze([...(parts.notes ?? [])]),
    waivers: Object.freeze((parts.waivers ?? []).map((w) => Object.freeze({ ...w }))),
    families: Object.freeze(
      families.map((f) =>
        f.settings === undefined
          ? { family: f.family, stage: f.stage }
          : { family: f.family, stage: f.stage, settings: f.settings },
      ),
    ),
    config,
    consultsState: parts.consultsState ?? (() => false),
    covers(apiVersion: string, kind: string): boolean {
      const gv = servedGroupVersion(apiVersion);
      if (gv === undefined) return false;
      if (everyKind.length > 0) return true;
      if (failedKinds.has(`${gv.group}/${gv.version}/${kind}`)) return true;
      return families.some((f) => f.covers(gv.group, gv.version, kind));
    },
    validate(req: ValidateRequest): Verdict {
      const object = req.object;
      const secret = isMapping(object) && isSecretKind(object.apiVersion, object.kind);
      const source = { object, oldObject: req.oldObject, secret };
      try {
        return boundVerdict(validateOne(req), source);
      } catch (e) {
        return thrownVerdict(config, e);
      }
    },
  };
  return Object.freeze(set);
}

/** What the families see of a request: its attributes, with the object's own where the request gives none. */
function familyRequest(
  req: ValidateRequest,
  obj: Record<string, unknown>,
  gv: GroupVersion,
  resources: PolicySetParts["resources"],
): FamilyRequest {
  const { group, version } = gv;
  const kind = obj.kind as string;
  const meta = isMapping(obj.metadata) ? obj.metadata : {};
  const out: FamilyRequest = {
    operation: req.operation,
    object: obj,
    group,
    version,
    kind,
    namespace: req.namespace ?? (typeof meta.namespace === "string" ? meta.namespace : ""),
    name: req.name ?? (typeof meta.name === "string" ? meta.name : ""),
    requestKind: req.kind ?? { group, version, kind },
    userInfo: req.userInfo ?? NO_USER,
    dryRun: req.dryRun === true,
    secret: isSecretKind(obj.apiVersion, kind),
  };
  if (isMapping(req.oldObject)) out.oldObject = req.oldObject;
  if (req.subresource !== undefined && req.subresource !== "") out.subresource = req.subresource.replace(/^\//, "");
  const info = req.resource === undefined ? resources.forKind(group, version, kind) : undefined;
  if (req.resource !== undefined) out.resource = req.resource;
  else if (info !== undefined) out.resource = { group, version, resource: info.resource };
  if (req.requestKind !== undefined) out.originalKind = req.requestKind;
  if (req.requestResource !== undefined) out.originalResource = req.requestResource;
  if (req.requestSubResource !== undefined) out.originalSubresource = req.requestSubResource;
  if (req.options !== undefined) out.options = req.options;
  return out;
}

/** The bundle's failure policy applied to errors of tollgate's own (Fail: denied; Ignore: allowed with warnings). */
function failurePolicyVerdict(config: PolicySetParts["config"], errs: FieldError[]): Verdict {
  const v = emptyVerdict();
  v.covered = true;
  if (config.failurePolicy === "Ignore") {
    v.warnings = errs.map((e) => ({ ...e, severity: "warning" as const }));
    v.warningTexts = v.warnings.map((w) => `${w.field}: ${w.message}`);
    return v;
  }
  v.allowed = false;
  v.errors = errs;
  return v;
}

/**
 * The verdict when validation threw. It never throws for a bad object; what is thrown anyway is either a resource the
 * request exhausted (the stack, a string or array length: the request is too large to evaluate), which is the
 * request's fault and denies under either failure policy, or a fault of tollgate's, reported per the failure policy.
 */
function thrownVerdict(config: PolicySetParts["config"], e: unknown): Verdict {
  if (isExhaustion(e)) {
    const detail = `the object is too large or too deeply nested to validate (${e.message})`;
    return rejected([internal(null, detail, TOLLGATE)]);
  }
  if (e instanceof Stopped) {
    return failurePolicyVerdict(config, [
      internal(null, "validation was stopped: it would exceed the deadline", TOLLGATE),
    ]);
  }
  const detail = `internal error while validating: ${e instanceof Error ? e.message : String(e)}`;
  return failurePolicyVerdict(config, [internal(null, detail, TOLLGATE)]);
}

/** Thrown when the caller's shouldStop says to stop (ValidateRequest.shouldStop). */
class Stopped extends Error {}

function stopIfAsked(shouldStop: (() => boolean) | undefined): void {
  if (shouldStop?.() === true) throw new Stopped("stopped");
}

/**
 * Whether a thrown value says the request exhausted a resource of the process: the call stack, or the length of a
 * string or an array (V8's RangeErrors). Such a request cannot be evaluated, which is never a reason to allow it.
 */
export function isExhaustion(e: unknown): e is RangeError {
  return (
    e instanceof RangeError &&
    /Maximum call stack size exceeded|Invalid string length|Invalid array length|Array buffer allocation failed/.test(
      e.message,
    )
  );
}
