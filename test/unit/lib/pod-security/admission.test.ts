/**
 * The Pod Security admission logic (k8s.io/pod-security-admission admission/admission.go, response.go): the order
 * of exemptions, the namespace policy, enforce/audit/warn and their texts, pod updates, subresources, workloads,
 * namespace requests, failed namespace lookups and objects that cannot be decoded. Expected texts are those of the
 * library's format strings.
 */
import { describe, expect, it } from "vitest";
import {
  createAdmission,
  type NamespaceLookup,
  type PodSecurityAttributes,
} from "../../../../lib/pod-security/admission.js";
import { defaultConfig, type PodSecurityConfig } from "../../../../lib/pod-security/config.js";
import { LABELS } from "../../../../lib/pod-security/levels.js";
import { createEvaluator } from "../../../../lib/pod-security/registry.js";

const evaluator = createEvaluator();

function admission(
  namespaces: Record<string, Record<string, string>>,
  config: Partial<PodSecurityConfig["exemptions"]> = {},
  pods: Record<string, unknown>[] = [],
) {
  const base = defaultConfig();
  const cfg: PodSecurityConfig = { ...base, exemptions: { ...base.exemptions, ...config } };
  return createAdmission({
    config: cfg,
    evaluator,
    namespace: (name): NamespaceLookup =>
      name in namespaces ? { labels: namespaces[name]! } : { error: `namespaces "${name}" not found` },
    pods: (ns) => pods.filter((p) => (p.metadata as Record<string, unknown>).namespace === ns),
  });
}

const privilegedPod = (name = "p", extra: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "team" },
  spec: { containers: [{ name: "app", image: "app:1", securityContext: { privileged: true } }], ...extra },
});

function podRequest(object: Record<string, unknown>, over: Partial<PodSecurityAttributes> = {}): PodSecurityAttributes {
  return {
    operation: "CREATE",
    group: "",
    resource: "pods",
    subresource: "",
    kind: "Pod",
    namespace: "team",
    name: (object.metadata as { name: string }).name,
    username: "alice",
    object,
    ...over,
  };
}

function deploymentRequest(template: Record<string, unknown>, over: Partial<PodSecurityAttributes> = {}) {
  return podRequest(
    { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" }, spec: { template } },
    { group: "apps", resource: "deployments", kind: "Deployment", name: "d", ...over },
  );
}

const BASELINE = { [LABELS.enforce]: "baseline", [LABELS.audit]: "restricted", [LABELS.auditVersion]: "v1.30" };
const PRIVILEGED_DETAIL = 'privileged (container "app" must not set securityContext.privileged=true)';

describe("pods", () => {
  it("enforce: 403 Forbidden with the library's message; audit annotations; no warnings on a denial", () => {
    const r = admission({ team: { ...BASELINE, [LABELS.warn]: "restricted" } }).validate(podRequest(privilegedPod()));
    expect(r.allowed).toBe(false);
    expect(r.status).toEqual({
      code: 403,
      reason: "Forbidden",
      message: `pods "p" is forbidden: violates PodSecurity "baseline:latest": ${PRIVILEGED_DETAIL}`,
      details: { kind: "pods", name: "p" },
    });
    expect(r.warnings).toEqual([]);
    expect(r.auditAnnotations["enforce-policy"]).toBe("baseline:latest");
    expect(r.auditAnnotations["audit-violations"]).toMatch(
      new RegExp(`^would violate PodSecurity "restricted:v1.30": ${PRIVILEGED_DETAIL.replace(/[()]/g, "\\$&")}, `),
    );
    expect(r.evaluations.map((e) => e.mode)).toEqual(["enforce", "audit"]);
  });

  it("a pod without a name (generateName) is 'pods is forbidden'", () => {
    const r = admission({ team: BASELINE }).validate(podRequest(privilegedPod(), { name: "" }));
    expect(r.status?.message).toBe(`pods is forbidden: violates PodSecurity "baseline:latest": ${PRIVILEGED_DETAIL}`);
    expect(r.status?.details).toEqual({ kind: "pods" });
  });

  it("warn: the warning text when allowed", () => {
    const r = admission({ team: { [LABELS.warn]: "baseline", [LABELS.warnVersion]: "v1.28" } }).validate(
      podRequest(privilegedPod()),
    );
    expect(r.allowed).toBe(true);
    expect(r.warnings).toEqual([`would violate PodSecurity "baseline:v1.28": ${PRIVILEGED_DETAIL}`]);
    expect(r.auditAnnotations).toEqual({ "enforce-policy": "privileged:latest" });
  });

  it("a fully privileged namespace: allowed with enforce-policy privileged:latest", () => {
    const r = admission({ team: { [LABELS.enforce]: "privileged", [LABELS.enforceVersion]: "v1.20" } }).validate(
      podRequest(privilegedPod()),
    );
    expect(r).toMatchObject({ allowed: true, auditAnnotations: { "enforce-policy": "privileged:latest" } });
  });

  it.each([
    {
      name: "exempt namespace before exempt user",
      exemptions: { namespaces: new Set(["team"]), usernames: new Set(["alice"]) },
      want: "namespace",
    },
    { name: "exempt user", exemptions: { usernames: new Set(["alice"]) }, want: "user" },
    { name: "exempt runtime class", exemptions: { runtimeClasses: new Set(["kata"]) }, want: "runtimeClass" },
  ])("$name", ({ exemptions, want }) => {
    const pod = privilegedPod("p", { runtimeClassName: "kata" });
    const r = admission({ team: BASELINE }, exemptions).validate(podRequest(pod));
    expect(r).toMatchObject({ allowed: true, auditAnnotations: { exempt: want }, warnings: [] });
  });

  it("exempt users and namespaces apply before the namespace is looked up", () => {
    const r = admission({}, { usernames: new Set(["alice"]) }).validate(podRequest(privilegedPod()));
    expect(r.auditAnnotations).toEqual({ exempt: "user" });
  });

  it("invalid labels: enforce falls back to restricted, with the error annotation", () => {
    const r = admission({ team: { [LABELS.enforce]: "strict" } }).validate(podRequest(privilegedPod()));
    expect(r.allowed).toBe(false);
    expect(r.status?.message).toMatch(/^pods "p" is forbidden: violates PodSecurity "restricted:latest": privileged/);
    expect(r.auditAnnotations.error).toBe(
      `Failed to parse policy: metadata.labels[${LABELS.enforce}]: Invalid value: "strict": must be one of privileged, baseline, restricted`,
    );
  });

  it("a namespace that cannot be found: 500 InternalError", () => {
    const r = admission({}).validate(podRequest(privilegedPod()));
    expect(r.status).toEqual({
      code: 500,
      reason: "InternalError",
      message: 'Internal error occurred: failed to lookup namespace "team"',
      details: { causes: [{ message: 'failed to lookup namespace "team"' }] },
    });
    expect(r.auditAnnotations).toEqual({
      error: 'Internal error occurred: failed to lookup namespace "team": namespaces "team" not found',
    });
  });

  it("a value of the wrong type: 400 failed to decode object", () => {
    const pod = privilegedPod();
    pod.spec.containers[0]!.securityContext = { privileged: "yes" as unknown as boolean };
    const r = admission({ team: BASELINE }).validate(podRequest(pod));
    expect(r.status).toEqual({ code: 400, reason: "BadRequest", message: "failed to decode object" });
    expect(r.auditAnnotations.error).toBe(
      "failed to decode object: json: cannot unmarshal string into Go struct field SecurityContext.spec.containers.securityContext.privileged of type bool",
    );
    expect(r.decodeError?.field).toBe("spec.containers[0].securityContext.privileged");
  });

  it.each(["status", "exec", "binding", "eviction"])("subresource %s is not evaluated", (subresource) => {
    const r = admission({ team: BASELINE }).validate(podRequest(privilegedPod(), { subresource }));
    expect(r).toEqual({ allowed: true, warnings: [], auditAnnotations: {}, evaluations: [], checked: [] });
  });

  it("subresource ephemeralcontainers is evaluated", () => {
    const r = admission({ team: BASELINE }).validate(
      podRequest(privilegedPod(), { subresource: "ephemeralcontainers" }),
    );
    expect(r.allowed).toBe(false);
  });

  it.each([
    {
      name: "labels only",
      change: (p: ReturnType<typeof privilegedPod>) => ({ ...p, metadata: { ...p.metadata, labels: { a: "b" } } }),
      significant: false,
    },
    {
      name: "a new image",
      change: (p: ReturnType<typeof privilegedPod>) => ({
        ...p,
        spec: { containers: [{ ...p.spec.containers[0]!, image: "app:2" }] },
      }),
      significant: true,
    },
    {
      name: "a new ephemeral container",
      change: (p: ReturnType<typeof privilegedPod>) => ({
        ...p,
        spec: { ...p.spec, ephemeralContainers: [{ name: "debug", image: "busybox" }] },
      }),
      significant: true,
    },
  ])("pod update with $name: evaluated = $significant", ({ change, significant }) => {
    const old = privilegedPod();
    const r = admission({ team: BASELINE }).validate(podRequest(change(old), { operation: "UPDATE", oldObject: old }));
    expect(r.allowed).toBe(!significant);
    if (!significant) expect(r.auditAnnotations).toEqual({});
  });
});

describe("workloads", () => {
  it("enforce is not applied; warn and audit are", () => {
    const r = admission({ team: BASELINE }).validate(deploymentRequest({ spec: privilegedPod().spec }));
    expect(r.allowed).toBe(true);
    expect(r.status).toBeUndefined();
    // warn follows the explicit enforce level
    expect(r.warnings).toEqual([`would violate PodSecurity "baseline:latest": ${PRIVILEGED_DETAIL}`]);
    expect(Object.keys(r.auditAnnotations)).toEqual(["audit-violations"]);
    expect(r.evaluations.map((e) => e.mode)).toEqual(["audit", "warn"]);
  });

  it("warn and audit privileged: not evaluated", () => {
    const r = admission({ team: { [LABELS.enforce]: "restricted", [LABELS.warn]: "privileged" } }).validate(
      deploymentRequest({ spec: privilegedPod().spec }),
    );
    expect(r).toEqual({ allowed: true, warnings: [], auditAnnotations: {}, evaluations: [], checked: [] });
  });

  it("a subresource is not evaluated", () => {
    const r = admission({ team: BASELINE }).validate(
      deploymentRequest({ spec: privilegedPod().spec }, { subresource: "scale" }),
    );
    expect(r.evaluations).toEqual([]);
  });

  it("a failed namespace lookup allows, with the error annotation", () => {
    const r = admission({}).validate(deploymentRequest({ spec: privilegedPod().spec }));
    expect(r).toMatchObject({
      allowed: true,
      auditAnnotations: { error: 'failed to lookup namespace "team": namespaces "team" not found' },
    });
  });

  it("a template that cannot be decoded allows, with the error annotation", () => {
    const r = admission({ team: BASELINE }).validate(deploymentRequest({ spec: { hostPID: "true" } }));
    expect(r).toMatchObject({
      allowed: true,
      auditAnnotations: {
        error:
          "failed to decode object: json: cannot unmarshal string into Go struct field PodSpec.spec.template.spec.hostPID of type bool",
      },
    });
  });

  it("a ReplicationController without a template is not evaluated", () => {
    const rc = { apiVersion: "v1", kind: "ReplicationController", metadata: { name: "rc" }, spec: {} };
    const r = admission({ team: BASELINE }).validate(
      podRequest(rc, { resource: "replicationcontrollers", kind: "ReplicationController" }),
    );
    expect(r).toEqual({ allowed: true, warnings: [], auditAnnotations: {}, evaluations: [], checked: [] });
  });
});

describe("namespaces", () => {
  const nsRequest = (labels: Record<string, string>, over: Partial<PodSecurityAttributes> = {}) =>
    podRequest(
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "team", labels } },
      { resource: "namespaces", kind: "Namespace", name: "team", namespace: "", ...over },
    );

  it("invalid labels on create: the 422 field errors", () => {
    const r = admission({}).validate(nsRequest({ [LABELS.enforce]: "strict", [LABELS.auditVersion]: "1.30" }));
    expect(r.allowed).toBe(false);
    expect(r.invalid?.map((e) => `${e.field}: ${e.message}`)).toEqual([
      `metadata.labels[${LABELS.enforce}]: Invalid value: "strict": must be one of privileged, baseline, restricted`,
      `metadata.labels[${LABELS.auditVersion}]: Invalid value: "1.30": must be "latest" or "v1.x"`,
    ]);
  });

  it("an update keeping the same invalid labels is allowed", () => {
    const labels = { [LABELS.enforce]: "strict" };
    const old = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team", labels } };
    const r = admission({}).validate(
      nsRequest({ ...labels, other: "x" }, { operation: "UPDATE", oldObject: old, namespace: "team" }),
    );
    expect(r.allowed).toBe(true);
  });

  it("an exempt namespace with labels: the warning names the explicitly set modes", () => {
    const r = admission({}, { namespaces: new Set(["team"]) }).validate(
      nsRequest({ [LABELS.enforce]: "baseline", [LABELS.auditVersion]: "v1.25" }, { namespace: "team" }),
    );
    expect(r.warnings).toEqual([
      'namespace "team" is exempt from Pod Security, and the policy (enforce=baseline:latest) will be ignored',
    ]);
  });

  it("a tighter enforce level: the existing pods that violate it, grouped", () => {
    const pod = (name: string, ns = "team", extra: Record<string, unknown> = {}) => ({
      ...privilegedPod(name),
      metadata: { name, namespace: ns, ...extra },
    });
    const pods = [
      pod("web-2", "team", { ownerReferences: [{ uid: "rs1", controller: true }] }),
      pod("web-1", "team", { ownerReferences: [{ uid: "rs1", controller: true }] }),
      pod("solo"),
      { ...pod("fine"), spec: { containers: [{ name: "c", image: "i" }] } },
      pod("elsewhere", "other"),
    ];
    const old = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } };
    const r = admission({}, {}, pods).validate(
      nsRequest({ [LABELS.enforce]: "baseline" }, { operation: "UPDATE", oldObject: old, namespace: "team" }),
    );
    expect(r.warnings).toEqual([
      'existing pods in namespace "team" violate the new PodSecurity enforce level "baseline:latest"',
      "solo (and 2 other pods): privileged",
    ]);
  });

  it.each([
    { name: "enforce unchanged", from: "baseline", to: "baseline" },
    { name: "relaxed at the same version", from: "restricted", to: "baseline" },
    { name: "privileged", from: "baseline", to: "privileged" },
  ])("no pod check when $name", ({ from, to }) => {
    const old = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team", labels: { [LABELS.enforce]: from } } };
    const r = admission({}, {}, [privilegedPod()]).validate(
      nsRequest({ [LABELS.enforce]: to }, { operation: "UPDATE", oldObject: old, namespace: "team" }),
    );
    expect(r.warnings).toEqual([]);
  });
});
