/**
 * The CRD family: CustomResourceDefinitions (apiextensions.k8s.io/v1) of the bundle, their structural schemas and
 * `x-kubernetes-validations` CEL rules compiled once, and custom resources validated as apiextensions-apiserver 1.36
 * validates them (request.ts). A schema family: its errors deny with 422 `Invalid`.
 */
import { isMapping } from "../objects/mapping.js";
import { sameJson } from "../objects/stable-json.js";
import {
  type BundleDocument,
  errorContext,
  type FamilyCompileContext,
  type FamilyCompiler,
  type FamilyPolicy,
  type FamilyRequest,
  type FamilyResult,
} from "../policy/family.js";
import type { CoveredKind, PolicyFailure } from "../policy/types.js";
import { type CompiledCrd, compileCrd, crdIdentity } from "./compile.js";
import { unservedVersionError, validateCustomResource } from "./request.js";
import { type CrdRules, createCrdRules } from "./rules.js";

const FAMILY = "crd" as const;

interface CrdEntry {
  group: string;
  kind: string;
  /** The compiled CRD: compiled at load, or, from an artifact's build record, on its kind's first use. */
  crd(): CompiledCrd;
  file: string;
  document: number;
  object: Record<string, unknown>;
}

/** Whether a document is a CustomResourceDefinition (of any apiextensions version: v1beta1 is refused by compile). */
export function isCrdDocument(obj: Record<string, unknown>): boolean {
  return (
    obj.kind === "CustomResourceDefinition" &&
    typeof obj.apiVersion === "string" &&
    obj.apiVersion.startsWith("apiextensions.k8s.io/")
  );
}

export function createCrdCompiler(): FamilyCompiler {
  const claimed: BundleDocument[] = [];
  return {
    family: FAMILY,
    stage: "schema",
    policyGroups: ["apiextensions.k8s.io"],
    claimFile: () => false,
    claimDocument(doc) {
      if (!isCrdDocument(doc.object)) return false;
      claimed.push(doc);
      return true;
    },
    async compile(ctx: FamilyCompileContext) {
      const rules = createCrdRules({ lazy: ctx.compile === "lazy" });
      const built = ctx.built;
      const failures: PolicyFailure[] = [];
      const crds = new Map<string, CrdEntry>();
      const duplicates = new Map<string, CrdEntry[]>();
      for (const doc of claimed) {
        const entry =
          built === undefined ? compileOne(doc, rules, ctx.compile === "lazy", failures) : deferredEntry(doc, rules);
        if (entry === undefined) continue;
        const key = `${entry.group}/${entry.kind}`;
        const existing = crds.get(key);
        if (existing === undefined) {
          crds.set(key, entry);
          continue;
        }
        // The same document twice is not a duplicate. Compared only on a clash, without serialising either (the
        // corpus' standard and experimental Gateway API CRDs clash: serialising them was ~3% of loading it).
        if (sameJson(existing.object, entry.object)) continue;
        const list = duplicates.get(key) ?? [existing];
        list.push(entry);
        duplicates.set(key, list);
      }
      if (built !== undefined) {
        // The build compiled every CRD of these documents: its kinds and failures are this compile's.
        for (const key of duplicates.keys()) crds.delete(key);
        const kinds = built.kinds.filter((k) => k.family === FAMILY);
        const policy = crds.size === 0 ? null : createCrdPolicy([...crds.values()], rules, kinds);
        return { policy, failures: built.failures.filter((f) => f.family === FAMILY) };
      }
      for (const [key, list] of duplicates) {
        failures.push(duplicateFailure(list));
        crds.delete(key);
      }
      const entries = [...crds.values()];
      const policy =
        crds.size === 0 ? null : createCrdPolicy(entries, rules, coveredKinds(entries.map((e) => e.crd())));
      return { policy, failures };
    },
  };
}

/** Compiles one CRD document; its problems become failures (stage `schema`, `pattern` or `cel`). */
function compileOne(
  doc: BundleDocument,
  rules: CrdRules,
  lazy: boolean,
  failures: PolicyFailure[],
): CrdEntry | undefined {
  const result = compileCrd(doc.object, rules.compileVersion, { lazyPatterns: lazy });
  const meta = doc.object.metadata;
  const crdName = isMapping(meta) && typeof meta.name === "string" ? meta.name : undefined;
  for (const issue of result.issues) {
    const f: PolicyFailure = {
      severity: issue.severity,
      family: FAMILY,
      stage: issue.stage ?? "schema",
      file: doc.file,
      document: doc.document,
      path: issue.path,
      message: issue.message,
    };
    if (crdName !== undefined) f.rule = crdName;
    if (issue.severity === "error" && result.crd !== undefined) {
      const c = result.crd;
      const versions = issue.versions ?? [...c.versions.keys()];
      f.kinds = versions.map((v) => `${c.group}/${v}/${c.kind}`);
    }
    failures.push(f);
  }
  const crd = result.crd;
  if (crd === undefined) return undefined;
  return {
    group: crd.group,
    kind: crd.kind,
    crd: () => crd,
    file: doc.file,
    document: doc.document,
    object: doc.object,
  };
}

/**
 * A CRD document of an artifact, whose build compiled it and recorded its failures: compiled (schemas, then each
 * node's CEL rules as they are met) on its kind's first use. Undefined when compileCrd would give no CRD.
 */
function deferredEntry(doc: BundleDocument, rules: CrdRules): CrdEntry | undefined {
  const identity = crdIdentity(doc.object);
  if (identity === undefined) return undefined;
  let crd: CompiledCrd | undefined;
  return {
    ...identity,
    crd() {
      crd ??= compileCrd(doc.object, rules.compileVersion, { lazyPatterns: true }).crd;
      if (crd === undefined) throw new Error(`CRD ${identity.kind}.${identity.group} no longer compiles`);
      return crd;
    },
    file: doc.file,
    document: doc.document,
    object: doc.object,
  };
}

function duplicateFailure(list: CrdEntry[]): PolicyFailure {
  const first = list[0]!;
  const kinds = new Set<string>();
  for (const e of list) for (const v of e.crd().versions.keys()) kinds.add(`${e.group}/${v}/${e.kind}`);
  return {
    severity: "error",
    family: FAMILY,
    stage: "schema",
    file: first.file,
    document: first.document,
    kinds: [...kinds],
    message: `${first.kind}.${first.group} is defined by more than one document: ${list.map((e) => `${e.file}#${e.document}`).join(", ")}`,
  };
}

function coveredKinds(crds: readonly CompiledCrd[]): CoveredKind[] {
  const kinds: CoveredKind[] = [];
  for (const crd of crds) {
    for (const v of crd.versions.values()) {
      if (!v.served) continue;
      kinds.push({
        group: crd.group,
        version: v.name,
        kind: crd.kind,
        plural: crd.plural,
        scope: crd.scope,
        family: FAMILY,
        rules: v.openAPIRuleCount + v.celRuleCount,
        // The API server validates status updates against the same schema when the status subresource is on.
        ...(v.hasStatusSubresource ? { subresources: ["status"] } : {}),
      });
    }
  }
  return kinds;
}

function createCrdPolicy(crds: readonly CrdEntry[], rules: CrdRules, kinds: CoveredKind[]): FamilyPolicy {
  const byGroupKind = new Map<string, CrdEntry>();
  for (const crd of crds) byGroupKind.set(`${crd.group}/${crd.kind}`, crd);
  return Object.freeze({
    family: FAMILY,
    stage: "schema",
    policyGroups: ["apiextensions.k8s.io"],
    kinds: Object.freeze(kinds),
    // Every version of a CRD's kind is covered: an unserved version is rejected.
    covers: (group: string, _version: string, kind: string) => byGroupKind.has(`${group}/${kind}`),
    schemaOf(group: string, version: string, kind: string) {
      const v = byGroupKind.get(`${group}/${kind}`)?.crd().versions.get(version);
      return v?.served === true && v.schema !== null ? v.schema : undefined;
    },
    validate(req: FamilyRequest): FamilyResult | undefined {
      const crd = byGroupKind.get(`${req.group}/${req.kind}`)?.crd();
      if (crd === undefined) return undefined;
      const ctx = errorContext(FAMILY, crd.name, { secret: req.secret });
      const result: FamilyResult = { errors: [], warnings: [], shadowed: [], ratcheted: [] };
      const version = crd.versions.get(req.version);
      const apiVersion = req.group === "" ? req.version : `${req.group}/${req.version}`;
      if (version === undefined || !version.served) {
        result.errors.push(unservedVersionError(crd, apiVersion, ctx));
        return result;
      }
      if (req.operation === "DELETE" || req.operation === "CONNECT") return result;
      const crdReq: Parameters<typeof validateCustomResource>[2] = { operation: req.operation, object: req.object };
      if (req.oldObject !== undefined) crdReq.oldObject = req.oldObject;
      if (req.subresource !== undefined) crdReq.subresource = req.subresource;
      const out = validateCustomResource(crd, version, crdReq, ctx, rules);
      result.errors = out.errors;
      result.ratcheted = out.ratcheted;
      result.warnings = out.warnings;
      // The API server's warning texts: deprecation, pruned fields, ratcheted CEL failures, in its order.
      result.warningTexts = out.warningTexts;
      if (out.object !== undefined) result.object = out.object;
      return result;
    },
  });
}
