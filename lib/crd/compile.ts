/**
 * Compiles a CustomResourceDefinition (apiextensions.k8s.io/v1) into per-version structural schemas, and reports
 * what the API server would reject when the CRD is written (as compile issues with its messages and paths).
 */

import { formatValue } from "../field/message.js";
import { sameJson } from "../objects/stable-json.js";
import { type CompileIssue, compileSchema, type SchemaCompileOptions, type SchemaNode } from "../schema/structural.js";
import { checkStructural } from "../schema/structural-check.js";

export interface CompiledCrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  /** The warning the API server returns for requests to a deprecated version. */
  deprecationWarning?: string;
  schema: SchemaNode | null;
  hasStatusSubresource: boolean;
  hasDefaults: boolean;
  hasListSetsOrMaps: boolean;
  hasEmbeddedResources: boolean;
  /** Number of `x-kubernetes-validations` rules in this version's schema. */
  celRuleCount: number;
  /** Number of OpenAPI value validations (keywords) in this version's schema. */
  openAPIRuleCount: number;
}

export interface CompiledCrd {
  name: string;
  group: string;
  kind: string;
  plural: string;
  singular: string;
  listKind: string;
  scope: "Namespaced" | "Cluster";
  versions: Map<string, CompiledCrdVersion>;
}

export interface CrdCompileResult {
  crd?: CompiledCrd;
  /** Errors make the CRD (or the named versions) unusable; warnings are lint. */
  issues: (CompileIssue & { versions?: string[] })[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** The value validations schemaFacts counts once each (besides `required`, counted per name, and list types). */
const COUNTED_KEYWORDS = [
  "format",
  "maximum",
  "minimum",
  "maxLength",
  "minLength",
  "patternSource",
  "maxItems",
  "minItems",
  "multipleOf",
  "enum",
  "maxProperties",
  "minProperties",
] as const;

/** What a version's validation needs to know about its whole schema, and its rule counts. */
interface SchemaFacts {
  /** `x-kubernetes-validations` rules, junctors' included. */
  cel: number;
  /** OpenAPI value validations (types, the counted keywords, required names, set/map list types), junctors' included. */
  openapi: number;
  /** Whether a node of the structure (properties, additionalProperties, items; not junctors) has a default. */
  hasDefaults: boolean;
  /** Whether a node of the structure is a set or map list. */
  hasListSetsOrMaps: boolean;
  /** Whether a node of the structure below the root is an embedded resource. */
  hasEmbeddedResources: boolean;
}

/** The facts of a schema, in one walk (a compiled schema is a tree: each node is met once). */
function schemaFacts(root: SchemaNode | null): SchemaFacts {
  const out: SchemaFacts = {
    cel: 0,
    openapi: 0,
    hasDefaults: false,
    hasListSetsOrMaps: false,
    hasEmbeddedResources: false,
  };
  const walk = (n: SchemaNode | null, structural: boolean): void => {
    if (n === null) return;
    out.cel += n.validations.length;
    if (n.type !== "") out.openapi++;
    const setOrMap = n.listType === "set" || n.listType === "map";
    if (setOrMap) out.openapi++;
    if (structural) {
      if (n.hasDefault) out.hasDefaults = true;
      if (setOrMap) out.hasListSetsOrMaps = true;
      if (n.embeddedResource && n !== root) out.hasEmbeddedResources = true;
    }
    const vv = n.vv;
    if (vv !== null) {
      for (const k of COUNTED_KEYWORDS) if (vv[k] !== undefined) out.openapi++;
      out.openapi += vv.required?.length ?? 0;
      for (const junctor of [vv.allOf, vv.anyOf, vv.oneOf])
        if (junctor !== undefined) for (const j of junctor) walk(j, false);
      if (vv.not !== undefined) walk(vv.not, false);
    }
    if (n.properties !== null) for (const p of n.properties.values()) walk(p, structural);
    walk(n.additionalProperties, structural);
    walk(n.items, structural);
  };
  walk(root, true);
  return out;
}

/** The default deprecation warning (apiextensions-apiserver customresource_handler.go defaultDeprecationWarning). */
function defaultDeprecationWarning(
  group: string,
  version: string,
  kind: string,
  others: { name: string; deprecated: boolean; served: boolean }[],
): string {
  let msg = `${group}/${version} ${kind} is deprecated`;
  const candidates = others.filter((v) => v.served && !v.deprecated && v.name !== version);
  const best = candidates.sort((a, b) => compareKubeAwareVersion(b.name, a.name))[0];
  if (best !== undefined && compareKubeAwareVersion(best.name, version) > 0)
    msg += `; use ${group}/${best.name} ${kind}`;
  return msg;
}

/** version.CompareKubeAwareVersionStrings: GA > beta > alpha, then by major, then by minor; non-kube names last. */
export function compareKubeAwareVersion(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return null;
    return {
      major: Number(m[1]),
      level: m[2] === undefined ? 2 : m[2] === "beta" ? 1 : 0,
      minor: m[3] === undefined ? 0 : Number(m[3]),
    };
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa === null && pb === null) return a < b ? 1 : a > b ? -1 : 0;
  if (pa === null) return -1;
  if (pb === null) return 1;
  if (pa.level !== pb.level) return pa.level - pb.level;
  if (pa.major !== pb.major) return pa.major - pb.major;
  return pa.minor - pb.minor;
}

/** A further compile step per served version (the CEL family), with issues relative to openAPIV3Schema. */
export type VersionCompiler = (version: CompiledCrdVersion, issues: CompileIssue[]) => void;

/** The fields of a CRD every version shares, checked as the API server checks them; undefined when unusable. */
function readCrdHeader(
  doc: Record<string, unknown>,
  err: (path: string, message: string) => void,
):
  | {
      group: string;
      kind: string;
      plural: string;
      singular: string;
      listKind: string;
      scope: unknown;
      name: string;
      versionsRaw: unknown[];
    }
  | undefined {
  let ok = true;
  const fail = (path: string, message: string) => {
    ok = false;
    err(path, message);
  };
  if (doc.apiVersion !== "apiextensions.k8s.io/v1") {
    fail(
      "apiVersion",
      `Unsupported value: ${formatValue(doc.apiVersion)}: supported values: "apiextensions.k8s.io/v1" (apiextensions.k8s.io/v1beta1 was removed in Kubernetes 1.22)`,
    );
    return undefined;
  }
  const meta = isRecord(doc.metadata) ? doc.metadata : {};
  const spec = isRecord(doc.spec) ? doc.spec : undefined;
  if (spec === undefined) {
    fail("spec", "Required value");
    return undefined;
  }
  const group = str(spec.group) ?? "";
  const names = isRecord(spec.names) ? spec.names : {};
  const kind = str(names.kind) ?? "";
  const plural = str(names.plural) ?? "";
  const singular = str(names.singular) ?? kind.toLowerCase();
  const listKind = str(names.listKind) ?? `${kind}List`;
  const scope = spec.scope;
  const name = str(meta.name) ?? "";
  if (group === "") fail("spec.group", "Required value");
  if (kind === "") fail("spec.names.kind", "Required value");
  if (plural === "") fail("spec.names.plural", "Required value");
  if (scope !== "Namespaced" && scope !== "Cluster") {
    fail("spec.scope", `Unsupported value: ${formatValue(scope ?? "")}: supported values: "Cluster", "Namespaced"`);
  }
  if (name !== "" && plural !== "" && group !== "" && name !== `${plural}.${group}`) {
    fail("metadata.name", `Invalid value: ${formatValue(name)}: must be spec.names.plural+"."+spec.group`);
  }
  const versionsRaw = Array.isArray(spec.versions) ? spec.versions : [];
  if (versionsRaw.length === 0)
    fail("spec.versions", "Invalid value: null: must have exactly one version marked as storage version");
  return ok ? { group, kind, plural, singular, listKind, scope, name, versionsRaw } : undefined;
}

/**
 * The group and kind of a CRD document whose fields every version shares are as the API server accepts them (when
 * compileCrd gives a CompiledCrd for it), else undefined. Checks only what compileCrd checks before its schemas.
 */
export function crdIdentity(doc: Record<string, unknown>): { group: string; kind: string } | undefined {
  const header = readCrdHeader(doc, () => {});
  return header === undefined ? undefined : { group: header.group, kind: header.kind };
}

/** Compiles one decoded CRD document. Never throws. */
export function compileCrd(
  doc: Record<string, unknown>,
  extra?: VersionCompiler,
  options: SchemaCompileOptions = {},
): CrdCompileResult {
  const issues: CrdCompileResult["issues"] = [];
  const err = (path: string, message: string, versions?: string[]) => {
    const i: CrdCompileResult["issues"][number] = { path, message, severity: "error" };
    if (versions !== undefined) i.versions = versions;
    issues.push(i);
  };
  const header = readCrdHeader(doc, err);
  if (header === undefined) return { issues };
  const { group, kind, plural, singular, listKind, scope, name, versionsRaw } = header;

  const rawVersions = versionsRaw.filter(isRecord);
  const storageCount = rawVersions.filter((v) => v.storage === true).length;
  if (storageCount !== 1) {
    err(
      "spec.versions",
      `Invalid value: ${formatValue(rawVersions.map((v) => v.name))}: must have exactly one version marked as storage version`,
    );
  }
  // When every version has the same schema the API server keeps one at spec.validation (internal form), which is
  // how it names paths in its messages.
  const schemas = rawVersions.map((v) => (isRecord(v.schema) ? v.schema.openAPIV3Schema : undefined));
  const allSame = schemas.length >= 1 && schemas.every((s) => sameJson(s, schemas[0]));
  const versions = new Map<string, CompiledCrdVersion>();
  const versionInfo = rawVersions.map((v) => ({
    name: str(v.name) ?? "",
    deprecated: v.deprecated === true,
    served: v.served === true,
  }));
  const compiledShared = new Map<string, { schema: SchemaNode | null; facts: SchemaFacts }>();
  rawVersions.forEach((v, i) => {
    const vname = str(v.name) ?? "";
    const base = allSame ? "spec.validation.openAPIV3Schema" : `spec.versions[${i}].schema.openAPIV3Schema`;
    const raw = schemas[i];
    let schema: SchemaNode | null = null;
    let facts: SchemaFacts | undefined;
    if (raw === undefined) {
      err(`spec.versions[${i}].schema.openAPIV3Schema`, "Required value: schemas are required", [vname]);
    } else {
      const key = allSame ? "shared" : String(i);
      const shared = compiledShared.get(key);
      if (shared !== undefined) {
        schema = shared.schema;
        facts = shared.facts;
      } else {
        const local: CompileIssue[] = [];
        schema = compileSchema(raw, local, "", options);
        checkStructural(raw, local);
        for (const li of local) {
          const full = li.path === "" ? base : `${base}.${li.path}`;
          const issue: CrdCompileResult["issues"][number] = {
            path: full,
            message: li.message,
            severity: li.severity,
            versions: allSame ? versionInfo.map((x) => x.name) : [vname],
          };
          if (li.stage !== undefined) issue.stage = li.stage;
          issues.push(issue);
        }
        facts = schemaFacts(schema);
        compiledShared.set(key, { schema, facts });
      }
    }
    facts ??= schemaFacts(schema);
    const sub = isRecord(v.subresources) ? v.subresources : {};
    const compiled: CompiledCrdVersion = {
      name: vname,
      served: v.served === true,
      storage: v.storage === true,
      deprecated: v.deprecated === true,
      schema,
      hasStatusSubresource: isRecord(sub.status),
      hasDefaults: facts.hasDefaults,
      hasListSetsOrMaps: facts.hasListSetsOrMaps,
      hasEmbeddedResources: facts.hasEmbeddedResources,
      celRuleCount: facts.cel,
      openAPIRuleCount: facts.openapi,
    };
    if (extra !== undefined && schema !== null) {
      const hasSchemaErrors = issues.some(
        (x) => x.severity === "error" && (x.versions === undefined || x.versions.includes(vname)),
      );
      if (!hasSchemaErrors) {
        const local: CompileIssue[] = [];
        extra(compiled, local);
        const reported = allSame && i > 0;
        if (!reported) {
          const full = (p: string) => (p === "" ? base : `${base}.${p}`);
          for (const li of local) {
            const vs = allSame ? versionInfo.map((x) => x.name) : [vname];
            const message = li.messagePath === undefined ? li.message : li.message + full(li.messagePath);
            issues.push({ path: full(li.path), message, severity: li.severity, versions: vs, stage: "cel" });
          }
        }
      }
    }
    if (compiled.deprecated) {
      compiled.deprecationWarning =
        str(v.deprecationWarning) ?? defaultDeprecationWarning(group, vname, kind, versionInfo);
    }
    versions.set(vname, compiled);
  });
  return {
    crd: {
      name: name || `${plural}.${group}`,
      group,
      kind,
      plural,
      singular,
      listKind,
      scope: scope as "Namespaced" | "Cluster",
      versions,
    },
    issues,
  };
}
