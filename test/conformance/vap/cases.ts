/**
 * The ValidatingAdmissionPolicy corpus (`<corpus>/cases/vap/cases.json`, see its README.md), read in place: each
 * case becomes an in-memory bundle (its policies, bindings, params and Namespaces, plus CRDs that serve the
 * simulated cluster's example.com and policy.example.com kinds), a PolicySet request with the case's admission
 * attributes, and the case's static authorizer given through BundleOptions.authorizer.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import {
  type AuthorizationAttributes,
  type AuthorizationDecision,
  type Authorizer,
  type BundleFile,
  loadBundle,
  type PolicySet,
  type ValidateRequest,
  type Verdict,
} from "../../../lib/index.js";

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

interface Gvr {
  group: string;
  version: string;
  resource: string;
}

export interface VapRequest {
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  kind: Gvk;
  resource: Gvr;
  subResource?: string;
  name?: string;
  namespace?: string;
  object: Record<string, unknown> | null;
  oldObject?: Record<string, unknown> | null;
  options?: Record<string, unknown>;
  userInfo: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  dryRun?: boolean;
}

export interface AuthorizerRule {
  user?: string;
  group?: string;
  verb?: string;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  path?: string;
  decision: "allow" | "deny" | "noOpinion";
  reason?: string;
  error?: string;
}

export interface VapExpect {
  allowed: boolean;
  code?: number;
  reason?: string;
  message?: string;
  messageOneOf?: string[];
  warnings?: string[];
  warningsOneOf?: string[][];
  auditAnnotations?: Record<string, string>;
  auditAnnotationsOneOf?: Record<string, string>[];
}

export interface VapCase {
  name: string;
  area: string;
  tags?: string[];
  why: string;
  policies: Record<string, unknown>[];
  bindings: Record<string, unknown>[];
  params?: Record<string, unknown>[];
  namespaces?: Record<string, unknown>[];
  authorizer?: { rules: AuthorizerRule[] };
  request: VapRequest;
  expect: VapExpect;
}

export function readVapCases(corpusRoot: string): VapCase[] {
  const cases = JSON.parse(readFileSync(join(corpusRoot, "cases", "vap", "cases.json"), "utf8")) as VapCase[];
  if (!Array.isArray(cases) || cases.length === 0) throw new Error("cases/vap/cases.json holds no cases");
  return cases;
}

/** A CRD of the simulated cluster: every object accepted as is (no schema beyond preserving unknown fields). */
function crd(
  group: string,
  kind: string,
  plural: string,
  scope: "Namespaced" | "Cluster",
  versions: readonly { name: string; status?: boolean }[],
): Record<string, unknown> {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      conversion: { strategy: "None" },
      versions: versions.map((v, i) => ({
        name: v.name,
        served: true,
        storage: i === 0,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        ...(v.status === true ? { subresources: { status: {} } } : {}),
      })),
    },
  };
}

/** The custom resources of the corpus' simulated API surface (README: "The simulated cluster's API surface"). */
export const CATALOGUE_CRDS: readonly Record<string, unknown>[] = [
  crd("example.com", "Widget", "widgets", "Namespaced", [
    { name: "v1", status: true },
    { name: "v1beta1" },
    { name: "v2", status: true },
  ]),
  crd("example.com", "Gadget", "gadgets", "Namespaced", [{ name: "v1" }]),
  crd("example.com", "ClusterWidget", "clusterwidgets", "Cluster", [{ name: "v1" }]),
  crd("example.com", "ParamConfig", "paramconfigs", "Namespaced", [{ name: "v1" }]),
  crd("example.com", "ClusterParam", "clusterparams", "Cluster", [{ name: "v1" }]),
  crd("policy.example.com", "Limit", "limits", "Namespaced", [{ name: "v1" }]),
  crd("policy.example.com", "ClusterLimit", "clusterlimits", "Cluster", [{ name: "v1" }]),
];

const CATALOGUE_FILE: BundleFile = {
  path: "catalogue.yaml",
  content: CATALOGUE_CRDS.map((d) => stringify(d)).join("---\n"),
};

function matchesField(rule: string | undefined, value: string): boolean {
  return rule === undefined || rule === "" || rule === "*" || rule === value;
}

/** The corpus' static authorizer: the first rule whose set fields all equal the request's attributes decides. */
export function staticAuthorizer(rules: readonly AuthorizerRule[]): Authorizer {
  return {
    authorize(a: AuthorizationAttributes): AuthorizationDecision {
      for (const r of rules) {
        if (r.path !== undefined && r.path !== "") {
          if (a.resourceRequest || r.path !== a.path) continue;
        }
        const groupOk = r.group === undefined || r.group === "" || (a.user.groups ?? []).includes(r.group);
        const ok =
          matchesField(r.user, a.user.username) &&
          groupOk &&
          matchesField(r.verb, a.verb) &&
          matchesField(r.apiGroup, a.apiGroup) &&
          matchesField(r.resource, a.resource) &&
          matchesField(r.subresource, a.subresource) &&
          matchesField(r.namespace, a.namespace) &&
          matchesField(r.name, a.name);
        if (!ok) continue;
        const d: AuthorizationDecision = { decision: r.decision, reason: r.reason ?? "" };
        if (r.error !== undefined) d.error = r.error;
        return d;
      }
      return { decision: "noOpinion", reason: "" };
    },
  };
}

/**
 * The case's bundle: the catalogue's CRDs, and its documents as JSON (YAML would read unquoted `n` or `on` as
 * booleans, as kubectl's YAML reading does), one file each.
 */
export function bundleFiles(c: VapCase): BundleFile[] {
  const files = [CATALOGUE_FILE];
  const add = (prefix: string, list: readonly Record<string, unknown>[] | undefined) => {
    for (const [i, d] of (list ?? []).entries())
      files.push({ path: `${prefix}-${i}.json`, content: JSON.stringify(d) });
  };
  add("policy", c.policies);
  add("binding", c.bindings);
  add("param", c.params);
  add("namespace", c.namespaces);
  return files;
}

/** The PolicySet of one case. */
export function loadCaseBundle(c: VapCase): Promise<PolicySet> {
  const options = c.authorizer === undefined ? {} : { authorizer: staticAuthorizer(c.authorizer.rules) };
  return loadBundle(bundleFiles(c), options);
}

/** The case's request as a PolicySet request (a DELETE's object is the stored one, as the webhook passes it). */
export function validateRequest(r: VapRequest): ValidateRequest {
  const stored = r.oldObject ?? null;
  const out: ValidateRequest = {
    operation: r.operation,
    object: r.operation === "DELETE" ? stored : r.object,
    kind: r.kind,
    resource: r.resource,
    userInfo: r.userInfo,
    namespace: r.namespace ?? "",
    name: r.name ?? "",
    dryRun: r.dryRun === true,
  };
  if (stored !== null) out.oldObject = stored;
  if (r.subResource !== undefined && r.subResource !== "") out.subresource = r.subResource;
  if (r.options !== undefined) out.options = r.options;
  return out;
}

/** What the corpus records, from a verdict. */
export interface Observed {
  allowed: boolean;
  code?: number;
  reason?: string;
  message?: string;
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

export function observe(v: Verdict): Observed {
  const out: Observed = { allowed: v.allowed, warnings: v.warningTexts, auditAnnotations: v.auditAnnotations };
  if (!v.allowed) {
    if (v.status !== undefined) {
      out.code = v.status.code;
      out.reason = v.status.reason;
      out.message = v.status.message;
    } else {
      out.code = 422;
      out.reason = "Invalid";
      out.message = v.errors.map((e) => `${e.field}: ${e.message}`).join(", ");
    }
  }
  return out;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function sameAnnotations(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a).sort();
  return sameJson(ka, Object.keys(b).sort()) && ka.every((k) => a[k] === b[k]);
}

/** The differences between what a case expects and what tollgate gives (empty: the case passes). */
export function differences(want: VapExpect, got: Observed): string[] {
  const out: string[] = [];
  if (want.allowed !== got.allowed) out.push(`allowed: want ${want.allowed}, got ${got.allowed}`);
  if (!want.allowed) {
    if (want.code !== got.code) out.push(`code: want ${want.code}, got ${got.code}`);
    if (want.reason !== got.reason) out.push(`reason: want ${want.reason}, got ${got.reason}`);
    const messages = want.messageOneOf ?? (want.message === undefined ? [] : [want.message]);
    if (!messages.includes(got.message ?? "")) {
      out.push(
        `message: want ${JSON.stringify(messages.length === 1 ? messages[0] : messages)}, got ${JSON.stringify(got.message)}`,
      );
    }
  }
  const warnings = want.warningsOneOf ?? [want.warnings ?? []];
  if (!warnings.some((w) => sameJson(w, got.warnings))) {
    out.push(
      `warnings: want ${JSON.stringify(warnings.length === 1 ? warnings[0] : warnings)}, got ${JSON.stringify(got.warnings)}`,
    );
  }
  const annotations = want.auditAnnotationsOneOf ?? [want.auditAnnotations ?? {}];
  if (!annotations.some((a) => sameAnnotations(a, got.auditAnnotations))) {
    out.push(
      `auditAnnotations: want ${JSON.stringify(annotations.length === 1 ? annotations[0] : annotations)}, got ${JSON.stringify(got.auditAnnotations)}`,
    );
  }
  return out;
}
