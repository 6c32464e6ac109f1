/**
 * The Pod Security family: kube-apiserver's PodSecurity admission plugin, offline. A bundle enables it by holding a
 * PodSecurityConfiguration (config.ts); it then answers, after the schema families, for v1 Pods, the pod templates
 * of the workload kinds (PodTemplate, ReplicationController, ReplicaSet, Deployment, StatefulSet, DaemonSet, Job,
 * CronJob) and Namespaces, as admission.ts describes.
 *
 * Namespaces come from the cluster state (the bundle's Namespace objects, and the audited input's). A namespace the
 * state does not hold is a failed lookup, as in the library (a Pod is denied with 500 `InternalError`, a workload is
 * allowed with an `error` audit annotation), unless the state holds no Namespace at all: then every namespace is
 * taken as one without Pod Security labels (the configured defaults apply). A namespaced object without
 * `metadata.namespace` (a manifest in Git) is evaluated in `default`, where kubectl would create it.
 *
 * Results: a denial's Status (403 `Forbidden` with the library's message) and one field error per failed check
 * (`FieldValueForbidden` at the first field at fault, `source.rule` the check id, `source.policy` the
 * `<level>:<version>` as labelled): errors for enforce, warnings for warn (with the exact warning texts), audits for
 * audit; the audit annotations with the in-tree plugin's keys (`pod-security.kubernetes.io/<key>`) and the
 * library's own keys for a webhook.
 */
import { type ErrorContext, type FieldError, forbidden, internal, invalid, OMIT_VALUE } from "../field/error.js";
import { goQuote } from "../go/strconv.js";
import { isMapping } from "../objects/mapping.js";
import type { ClusterState } from "../policy/cluster-state.js";
import type { BundleDocument, FamilyCompiler, FamilyPolicy, FamilyRequest, FamilyResult } from "../policy/family.js";
import type { CoveredKind, DenialStatus, PolicyFailure } from "../policy/types.js";
import {
  createAdmission,
  type NamespaceLookup,
  type PodSecurityAdmission,
  type PodSecurityResponse,
} from "./admission.js";
import {
  CONFIG_GROUP,
  type ConfigProblem,
  defaultConfig,
  isPodSecurityConfiguration,
  type PodSecurityConfig,
  parsePodSecurityConfiguration,
  podSecurityPluginOf,
} from "./config.js";
import { AUDIT_ANNOTATION_PREFIX, type LevelVersion, parseLevel, parseVersion, policyName } from "./levels.js";
import { createEvaluator, DEFAULT_CHECKS, type Evaluator } from "./registry.js";

const FAMILY = "pod-security" as const;

/**
 * The Kubernetes minor version tollgate evaluates as (kube-apiserver 1.36): `latest`, and policy versions newer
 * than it, evaluate as v1.36, as kube-apiserver 1.36 does (the check table knows later revisions, which the
 * library's fixture suite covers).
 */
export const KUBERNETES_MINOR = 36;

/** The kinds the family evaluates: group, version, kind, resource. */
const KINDS: readonly { group: string; kind: string; resource: string }[] = [
  { group: "", kind: "Pod", resource: "pods" },
  { group: "", kind: "Namespace", resource: "namespaces" },
  { group: "", kind: "PodTemplate", resource: "podtemplates" },
  { group: "", kind: "ReplicationController", resource: "replicationcontrollers" },
  { group: "apps", kind: "ReplicaSet", resource: "replicasets" },
  { group: "apps", kind: "Deployment", resource: "deployments" },
  { group: "apps", kind: "StatefulSet", resource: "statefulsets" },
  { group: "apps", kind: "DaemonSet", resource: "daemonsets" },
  { group: "batch", kind: "Job", resource: "jobs" },
  { group: "batch", kind: "CronJob", resource: "cronjobs" },
];

const BY_KIND = new Map(KINDS.map((k) => [`${k.group}/${k.kind}`, k]));

/** The objects the family evaluates (their kinds, at v1). */
export function isPodSecurityKind(group: string, version: string, kind: string): boolean {
  return version === "v1" && BY_KIND.has(`${group}/${kind}`);
}

function coveredKinds(): CoveredKind[] {
  return KINDS.map((k) => {
    const kind: CoveredKind = {
      group: k.group,
      version: "v1",
      kind: k.kind,
      plural: k.resource,
      scope: k.kind === "Namespace" ? "Cluster" : "Namespaced",
      family: FAMILY,
      rules: k.kind === "Namespace" ? 6 : DEFAULT_CHECKS.length,
    };
    // Ephemeral containers are added through their own subresource (an update of the Pod), which is evaluated.
    if (k.kind === "Pod") kind.subresources = ["ephemeralcontainers"];
    return kind;
  });
}

/** What /healthz shows: the defaults, the exemptions and the version `latest` stands for. */
function settingsOf(config: PodSecurityConfig, evaluator: Evaluator, cluster: ClusterState): Record<string, unknown> {
  const { defaults, exemptions } = config;
  return {
    defaults: {
      enforce: policyName(defaults.enforce),
      audit: policyName(defaults.audit),
      warn: policyName(defaults.warn),
    },
    exemptions: {
      usernames: [...exemptions.usernames],
      namespaces: [...exemptions.namespaces],
      runtimeClasses: [...exemptions.runtimeClasses],
    },
    latest: `v1.${evaluator.newestMinor}`,
    namespaces: cluster.objectsOf("", "Namespace").filter((n) => n.apiVersion === "v1").length,
  };
}

/** "<group>/<version>/<Kind>" of the covered kinds, for failures that make the family unusable. */
function failedKinds(): string[] {
  return KINDS.map((k) => `${k.group}/v1/${k.kind}`);
}

/** Namespaces from the cluster state (see the module comment for a namespace the state does not hold). */
function namespaceLookup(cluster: ClusterState): (name: string) => NamespaceLookup {
  return (name) => {
    const ns = cluster.namespace(name);
    if (ns !== undefined) {
      const labels: Record<string, string> = {};
      const meta = ns.metadata;
      if (isMapping(meta) && isMapping(meta.labels)) {
        for (const [k, v] of Object.entries(meta.labels)) if (typeof v === "string") labels[k] = v;
      }
      return { labels };
    }
    if (!cluster.hasNamespaces) return { labels: {} };
    return { error: `namespaces ${goQuote(name)} not found` };
  };
}

function podsIn(cluster: ClusterState): (namespace: string) => readonly Record<string, unknown>[] {
  return (namespace) =>
    cluster
      .objectsOf("", "Pod")
      .filter((p) => p.apiVersion === "v1" && isMapping(p.metadata) && p.metadata.namespace === namespace);
}

/** What one response means as field errors, by severity. */
function findings(r: PodSecurityResponse, freq: FamilyRequest, result: FamilyResult): void {
  const ctx = (policy: LevelVersion | string, rule: string, severity: FieldError["severity"]): ErrorContext => {
    const c: ErrorContext = {
      source: { kind: FAMILY, policy: typeof policy === "string" ? policy : policyName(policy), rule },
      severity,
    };
    if (freq.secret) c.redact = true;
    return c;
  };
  for (const e of r.evaluations) {
    const severity = e.mode === "enforce" ? "error" : e.mode === "warn" ? "warning" : "audit";
    const list = severity === "error" ? result.errors : severity === "warning" ? result.warnings : result.audits!;
    for (const v of e.violations) {
      const detail = v.detail === "" ? v.reason : `${v.reason} (${v.detail})`;
      list.push(forbidden(v.field, detail, ctx(e.policy, v.id, severity)));
    }
  }
  // Problems that keep the object from being evaluated deny a Pod and are only recorded for a workload.
  const problemList = r.allowed ? result.audits! : result.errors;
  const severity = r.allowed ? "audit" : "error";
  if (r.decodeError !== undefined) {
    const e = invalid(r.decodeError.field, OMIT_VALUE, r.decodeError.message, ctx("decode", "decode", severity));
    e.evaluationError = true;
    problemList.push(e);
  }
  if (r.lookupError !== undefined) {
    const detail = `failed to lookup namespace ${goQuote(freq.namespace || "default")}: ${r.lookupError}`;
    const e = internal("metadata.namespace", detail, ctx("namespace", "namespace", severity));
    e.evaluationError = true;
    problemList.push(e);
  }
  if (r.invalid !== undefined) result.errors.push(...r.invalid);
}

function toResult(r: PodSecurityResponse, freq: FamilyRequest): FamilyResult {
  const result: FamilyResult = { errors: [], warnings: [], shadowed: [], ratcheted: [], audits: [] };
  findings(r, freq, result);
  result.warningTexts = r.warnings;
  if (r.checked.length > 0) result.checkedAgainst = r.checked.map(policyName);
  if (r.status !== undefined) {
    const status: DenialStatus = {
      code: r.status.code,
      reason: r.status.reason,
      message: r.status.message,
      family: FAMILY,
    };
    if (r.status.details !== undefined) status.details = r.status.details;
    result.status = status;
  }
  const keys = Object.keys(r.auditAnnotations);
  if (keys.length > 0) {
    result.auditAnnotations = {};
    result.auditAnnotationWebhookKeys = {};
    for (const k of keys) {
      result.auditAnnotations[AUDIT_ANNOTATION_PREFIX + k] = r.auditAnnotations[k]!;
      result.auditAnnotationWebhookKeys[AUDIT_ANNOTATION_PREFIX + k] = k;
    }
  }
  return result;
}

/** The compiled family over one admission. */
function createPolicy(admission: PodSecurityAdmission, settings: Record<string, unknown>): FamilyPolicy {
  const kinds = coveredKinds();
  return Object.freeze({
    family: FAMILY,
    stage: "admission" as const,
    kinds,
    settings,
    covers: isPodSecurityKind,
    validate(freq: FamilyRequest): FamilyResult | undefined {
      // The plugin handles creates and updates only.
      if (freq.operation !== "CREATE" && freq.operation !== "UPDATE") return undefined;
      const info = BY_KIND.get(`${freq.group}/${freq.kind}`);
      if (info === undefined || freq.version !== "v1") return undefined;
      const group = freq.resource?.group ?? info.group;
      const resource = freq.resource?.resource ?? info.resource;
      const namespace = freq.namespace === "" && info.kind !== "Namespace" ? "default" : freq.namespace;
      const attrs = {
        operation: freq.operation,
        group,
        resource,
        subresource: freq.subresource ?? "",
        kind: freq.kind,
        namespace,
        name: freq.name,
        username: freq.userInfo.username,
        object: freq.object,
        ...(freq.oldObject === undefined ? {} : { oldObject: freq.oldObject }),
      };
      return toResult(admission.validate(attrs), freq);
    },
  });
}

/** A configuration document the compiler took. */
interface ConfigDocument {
  doc: BundleDocument;
  /** The PodSecurityConfiguration itself (the document, or an AdmissionConfiguration's embedded one). */
  config: Record<string, unknown> | undefined;
  /** Where the configuration is within the document. */
  path: string;
}

function failure(doc: ConfigDocument, problem: Pick<ConfigProblem, "path" | "message">): PolicyFailure {
  const f: PolicyFailure = {
    severity: "error",
    family: FAMILY,
    stage: "compile",
    file: doc.doc.file,
    document: doc.doc.document,
    kinds: failedKinds(),
    message: problem.message,
  };
  const path = [doc.doc.item, doc.path, problem.path].filter((p) => p !== undefined && p !== "").join(".");
  if (path !== "") f.path = path;
  return f;
}

/**
 * `<level>[:<version>]` (version `latest` when left out), or what is wrong with it. Unlike a namespace label, an
 * invalid value is refused rather than read as restricted or latest.
 */
export function parseLevelVersion(text: string): LevelVersion | string {
  const colon = text.indexOf(":");
  const levelText = colon === -1 ? text : text.slice(0, colon);
  const versionText = colon === -1 ? "latest" : text.slice(colon + 1);
  const level = parseLevel(levelText);
  if (level.error !== undefined) return `Pod Security level ${goQuote(levelText)}: ${level.error}`;
  const version = parseVersion(versionText);
  if (version.error !== undefined) return `Pod Security version ${goQuote(versionText)}: ${version.error}`;
  return { level: level.value, version: version.value };
}

/** The evaluator the family uses: the checks up to kube-apiserver 1.36's emulated version. */
export function familyEvaluator(): Evaluator {
  return createEvaluator(DEFAULT_CHECKS, { emulatedMinor: KUBERNETES_MINOR });
}

/** Reads the one configuration of the bundle; failures when there is more than one or it is invalid. */
function readConfiguration(docs: readonly ConfigDocument[]): { config?: PodSecurityConfig; failures: PolicyFailure[] } {
  const first = docs[0]!;
  const failures: PolicyFailure[] = [];
  for (const extra of docs.slice(1)) {
    const message = `a second PodSecurityConfiguration; the bundle already has one in ${first.doc.file}`;
    failures.push(failure(extra, { message }));
  }
  if (first.config === undefined) {
    failures.push(
      failure(first, {
        message: "the PodSecurity plugin's configuration must be given inline (`configuration`), not by `path`",
      }),
    );
    return { failures };
  }
  const parsed = parsePodSecurityConfiguration(first.config);
  failures.push(...parsed.problems.map((p) => failure(first, p)));
  return parsed.config === undefined || failures.length > 0 ? { failures } : { config: parsed.config, failures };
}

export function createPodSecurityCompiler(): FamilyCompiler {
  const docs: ConfigDocument[] = [];
  return {
    family: FAMILY,
    stage: "admission",
    // A document of this group that is not a configuration tollgate reads (a misspelt kind, an unknown version)
    // makes the bundle unusable rather than being ignored.
    policyGroups: [CONFIG_GROUP],
    claimFile: () => false,
    claimDocument(doc: BundleDocument): boolean {
      if (isPodSecurityConfiguration(doc.object)) {
        docs.push({ doc, config: doc.object, path: "" });
        return true;
      }
      const plugin = podSecurityPluginOf(doc.object);
      if (plugin === undefined) return false;
      const index = (doc.object.plugins as unknown[]).indexOf(plugin);
      const config = isMapping(plugin.configuration) ? plugin.configuration : undefined;
      docs.push({ doc, config, path: `plugins[${index}].configuration` });
      return true;
    },
    consultsState: (obj) => obj.apiVersion === "v1" && obj.kind === "Namespace",
    async compile(ctx) {
      const whatIf = ctx.options.podSecurity?.enforce;
      // A bundle enables the family by holding a configuration (the what-if level does too, with the defaults).
      if (docs.length === 0 && whatIf === undefined) return { policy: null, failures: [] };
      const { config, failures } =
        docs.length === 0 ? { config: defaultConfig(), failures: [] } : readConfiguration(docs);
      if (config === undefined) return { policy: null, failures };
      const override = whatIf === undefined ? undefined : parseLevelVersion(whatIf);
      if (typeof override === "string") {
        failures.push({ severity: "error", family: FAMILY, stage: "config", kinds: failedKinds(), message: override });
        return { policy: null, failures };
      }
      const evaluator = familyEvaluator();
      const admission = createAdmission({
        config,
        evaluator,
        namespace: namespaceLookup(ctx.cluster),
        pods: podsIn(ctx.cluster),
        ...(override === undefined ? {} : { enforceOverride: override }),
      });
      const settings = settingsOf(config, evaluator, ctx.cluster);
      if (override !== undefined) settings.whatIf = policyName(override);
      return { policy: createPolicy(admission, settings), failures };
    },
  };
}
