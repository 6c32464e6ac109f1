/**
 * The Pod Security family through loadBundle and PolicySet.validate: enabling it with a PodSecurityConfiguration
 * (v1, v1beta1, embedded in an AdmissionConfiguration), configuration problems, namespaces from the bundle and from
 * BundleOptions.clusterState, the workload kinds' pod templates, results by severity, audit annotation keys, and
 * kube-apiserver 1.36's version semantics.
 */
import { describe, expect, it } from "vitest";
import { loadBundle } from "../../../../lib/index.js";
import type { BundleFile, BundleOptions } from "../../../../lib/policy/types.js";

const CONFIG = `apiVersion: pod-security.admission.config.k8s.io/v1
kind: PodSecurityConfiguration
defaults:
  audit: restricted
exemptions:
  usernames: [system:serviceaccount:kube-system:replicaset-controller]
  runtimeClasses: [kata]
`;

const NAMESPACES = `apiVersion: v1
kind: Namespace
metadata:
  name: team
  labels:
    pod-security.kubernetes.io/enforce: baseline
---
apiVersion: v1
kind: Namespace
metadata:
  name: latest-ns
  labels:
    pod-security.kubernetes.io/enforce: baseline
    pod-security.kubernetes.io/enforce-version: v1.37
`;

function bundle(...contents: string[]): BundleFile[] {
  return contents.map((content, i) => ({ path: `f${i}.yaml`, content }));
}

const privilegedSpec = { containers: [{ name: "app", image: "app", securityContext: { privileged: true } }] };

function pod(namespace: string | undefined, spec: Record<string, unknown> = privilegedSpec) {
  const metadata: Record<string, unknown> = { name: "p" };
  if (namespace !== undefined) metadata.namespace = namespace;
  return { apiVersion: "v1", kind: "Pod", metadata, spec };
}

async function load(files: BundleFile[], options?: BundleOptions) {
  return loadBundle(files, options);
}

describe("pod-security family: configuration", () => {
  it("is off without a PodSecurityConfiguration", async () => {
    const set = await load(bundle(NAMESPACES));
    expect(set.covers("v1", "Pod")).toBe(false);
    expect(set.notes.map((f) => f.message)).toEqual([
      'not a policy document (v1 Namespace "team"): ignored',
      'not a policy document (v1 Namespace "latest-ns"): ignored',
    ]);
  });

  it("is on with one; the Namespaces it consults are not reported as ignored", async () => {
    const set = await load(bundle(CONFIG, NAMESPACES));
    expect(set.failures).toEqual([]);
    expect(set.notes).toEqual([]);
    expect(set.kinds.filter((k) => k.family === "pod-security").map((k) => `${k.group}/${k.kind}`)).toEqual([
      "/Pod",
      "/Namespace",
      "/PodTemplate",
      "/ReplicationController",
      "apps/ReplicaSet",
      "apps/Deployment",
      "apps/StatefulSet",
      "apps/DaemonSet",
      "batch/Job",
      "batch/CronJob",
    ]);
  });

  it("tollgate.yaml can switch it off", async () => {
    const set = await load(bundle(CONFIG), { families: { "pod-security": false } });
    expect(set.covers("v1", "Pod")).toBe(false);
  });

  it.each([
    { name: "v1beta1", doc: CONFIG.replace("/v1\n", "/v1beta1\n") },
    {
      name: "an AdmissionConfiguration's PodSecurity plugin",
      doc: `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults: {enforce: baseline}
`,
    },
  ])("reads $name", async ({ doc }) => {
    const set = await load(bundle(doc));
    expect(set.failures).toEqual([]);
    expect(set.covers("v1", "Pod")).toBe(true);
  });

  it.each([
    {
      name: "an invalid level",
      doc: CONFIG.replace("audit: restricted", "audit: strict"),
      path: "defaults.audit",
      message: 'defaults.audit: Invalid value: "strict": must be one of privileged, baseline, restricted',
    },
    {
      name: "an invalid version",
      doc: CONFIG.replace("audit: restricted", "warn-version: v1"),
      path: "defaults.warn-version",
      message: 'defaults.warn-version: Invalid value: "v1": must be "latest" or "v1.x"',
    },
    {
      name: "an unknown field",
      doc: CONFIG.replace("audit: restricted", "audit: restricted\n  enforcee: baseline"),
      path: "defaults.enforcee",
      message: 'strict decoding error: unknown field "defaults.enforcee"',
    },
    {
      name: "a duplicate exemption",
      doc: CONFIG.replace("runtimeClasses: [kata]", "runtimeClasses: [kata, kata]"),
      path: "exemptions.runtimeClasses[1]",
      message: 'exemptions.runtimeClasses[1]: Duplicate value: "kata"',
    },
    {
      name: "an invalid namespace exemption",
      doc: `${CONFIG}  namespaces: [Kube_System]\n`,
      path: "exemptions.namespaces[0]",
      message:
        "exemptions.namespaces[0]: Invalid value: \"Kube_System\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    },
  ])("reports $name and fails its kinds per the failure policy", async ({ doc, path, message }) => {
    const set = await load(bundle(doc));
    expect(
      set.failures.map((f) => ({ family: f.family, severity: f.severity, path: f.path, message: f.message })),
    ).toEqual([{ family: "pod-security", severity: "error", path, message }]);
    const v = set.validate({ operation: "CREATE", object: pod("team") });
    expect(v.allowed).toBe(false);
    expect(v.errors[0]?.message).toBe(
      `Internal error: the policy for v1/Pod cannot be used: f0.yaml#0 ${path}: ${message.startsWith(`${path}: `) ? message.slice(path.length + 2) : message}`,
    );
  });

  it("reports a second configuration", async () => {
    const set = await load(bundle(CONFIG, CONFIG));
    expect(set.failures.map((f) => f.message)).toEqual([
      "a second PodSecurityConfiguration; the bundle already has one in f0.yaml",
    ]);
  });
});

describe("pod-security family: evaluation", () => {
  it("denies a privileged Pod in an enforce=baseline namespace with the admission controller's message", async () => {
    const set = await load(bundle(CONFIG, NAMESPACES));
    const v = set.validate({ operation: "CREATE", object: pod("team") });
    expect(v.allowed).toBe(false);
    expect(v.status).toEqual({
      code: 403,
      reason: "Forbidden",
      message:
        'pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "app" must not set securityContext.privileged=true)',
      details: { kind: "pods", name: "p" },
      family: "pod-security",
    });
    expect(v.errors.map((e) => [e.field, e.source.policy, e.source.rule, e.severity])).toEqual([
      ["spec.containers[0].securityContext.privileged", "baseline:latest", "privileged", "error"],
    ]);
    expect(v.audits.map((e) => e.source.rule)).toEqual([
      "privileged",
      "allowPrivilegeEscalation",
      "capabilities_restricted",
      "runAsNonRoot",
      "seccompProfile_restricted",
    ]);
    expect(Object.keys(v.auditAnnotations)).toEqual([
      "pod-security.kubernetes.io/enforce-policy",
      "pod-security.kubernetes.io/audit-violations",
    ]);
    expect(v.auditAnnotationWebhookKeys).toEqual({
      "pod-security.kubernetes.io/enforce-policy": "enforce-policy",
      "pod-security.kubernetes.io/audit-violations": "audit-violations",
    });
  });

  it("a user exemption comes from the request's userInfo", async () => {
    const set = await load(bundle(CONFIG, NAMESPACES));
    const v = set.validate({
      operation: "CREATE",
      object: pod("team"),
      userInfo: { username: "system:serviceaccount:kube-system:replicaset-controller" },
    });
    expect(v.allowed).toBe(true);
    expect(v.auditAnnotations).toEqual({ "pod-security.kubernetes.io/exempt": "user" });
  });

  it("evaluates v1.37 and latest as kube-apiserver 1.36 does (its emulation version)", async () => {
    const set = await load(bundle(CONFIG, NAMESPACES));
    const spec = {
      securityContext: { sysctls: [{ name: "net.ipv4.tcp_notsent_lowat" }] },
      containers: [{ name: "a", image: "a" }],
    };
    for (const ns of ["team", "latest-ns"]) {
      const v = set.validate({ operation: "CREATE", object: pod(ns, spec) });
      expect(v.errors.map((e) => e.source.rule)).toEqual(["sysctls"]);
    }
    expect(set.validate({ operation: "CREATE", object: pod("latest-ns", spec) }).status?.message).toBe(
      'pods "p" is forbidden: violates PodSecurity "baseline:v1.37": forbidden sysctls (net.ipv4.tcp_notsent_lowat)',
    );
  });

  it("a namespace the state does not hold is a failed lookup", async () => {
    const set = await load(bundle(CONFIG, NAMESPACES));
    const v = set.validate({ operation: "CREATE", object: pod("missing") });
    expect(v.status?.code).toBe(500);
    expect(v.errors[0]?.message).toBe(
      'Internal error: failed to lookup namespace "missing": namespaces "missing" not found',
    );
  });

  it("without any Namespace, every namespace has the defaults; an object without a namespace is in default", async () => {
    const set = await load(bundle(CONFIG));
    const v = set.validate({ operation: "CREATE", object: pod(undefined) });
    expect(v.allowed).toBe(true);
    expect(v.audits.length).toBeGreaterThan(0);
    expect(v.auditAnnotations["pod-security.kubernetes.io/enforce-policy"]).toBe("privileged:latest");
  });

  it("takes Namespaces from BundleOptions.clusterState", async () => {
    const ns = {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "default", labels: { "pod-security.kubernetes.io/enforce": "baseline" } },
    };
    const set = await load(bundle(CONFIG), { clusterState: [ns] });
    expect(set.validate({ operation: "CREATE", object: pod(undefined) }).status?.code).toBe(403);
  });

  it("a Windows pod at restricted needs no seccomp, capabilities or privilege escalation settings", async () => {
    const set = await load(bundle(CONFIG));
    const windows = pod("team", {
      os: { name: "windows" },
      securityContext: { runAsNonRoot: true },
      containers: [{ name: "w", image: "w" }],
    });
    expect(set.validate({ operation: "CREATE", object: windows }).audits).toEqual([]);
  });

  it.each([
    {
      kind: "Deployment",
      apiVersion: "apps/v1",
      wrap: (t: unknown) => ({ spec: { template: t } }),
      at: "spec.template.spec",
    },
    {
      kind: "ReplicaSet",
      apiVersion: "apps/v1",
      wrap: (t: unknown) => ({ spec: { template: t } }),
      at: "spec.template.spec",
    },
    {
      kind: "StatefulSet",
      apiVersion: "apps/v1",
      wrap: (t: unknown) => ({ spec: { template: t } }),
      at: "spec.template.spec",
    },
    {
      kind: "DaemonSet",
      apiVersion: "apps/v1",
      wrap: (t: unknown) => ({ spec: { template: t } }),
      at: "spec.template.spec",
    },
    {
      kind: "Job",
      apiVersion: "batch/v1",
      wrap: (t: unknown) => ({ spec: { template: t } }),
      at: "spec.template.spec",
    },
    {
      kind: "CronJob",
      apiVersion: "batch/v1",
      wrap: (t: unknown) => ({ spec: { schedule: "* * * * *", jobTemplate: { spec: { template: t } } } }),
      at: "spec.jobTemplate.spec.template.spec",
    },
    {
      kind: "ReplicationController",
      apiVersion: "v1",
      wrap: (t: unknown) => ({ spec: { template: t } }),
      at: "spec.template.spec",
    },
    { kind: "PodTemplate", apiVersion: "v1", wrap: (t: unknown) => ({ template: t }), at: "template.spec" },
  ])("$kind: its pod template gets warnings, never a denial", async ({ kind, apiVersion, wrap, at }) => {
    const set = await load(bundle(CONFIG, NAMESPACES));
    const object = { apiVersion, kind, metadata: { name: "w", namespace: "team" }, ...wrap({ spec: privilegedSpec }) };
    const v = set.validate({ operation: "CREATE", object });
    expect(v.allowed).toBe(true);
    expect(v.warningTexts).toEqual([
      'would violate PodSecurity "baseline:latest": privileged (container "app" must not set securityContext.privileged=true)',
    ]);
    expect(v.warnings.map((w) => [w.field, w.severity, w.source.rule])).toEqual([
      [`${at}.containers[0].securityContext.privileged`, "warning", "privileged"],
    ]);
    expect(v.audits.every((a) => a.field.startsWith(at) && a.severity === "audit")).toBe(true);
  });

  it("a Namespace with invalid labels is invalid (422 from its field errors)", async () => {
    const set = await load(bundle(CONFIG));
    const ns = {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "x", labels: { "pod-security.kubernetes.io/warn": "none" } },
    };
    const v = set.validate({ operation: "CREATE", object: ns });
    expect(v.allowed).toBe(false);
    expect(v.status).toBeUndefined();
    expect(v.errors.map((e) => `${e.field}: ${e.message}`)).toEqual([
      'metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "none": must be one of privileged, baseline, restricted',
    ]);
  });

  it("deletes are not evaluated", async () => {
    const set = await load(bundle(CONFIG, NAMESPACES));
    expect(set.validate({ operation: "DELETE", object: pod("team") }).covered).toBe(false);
  });
});

it("a document of the configuration's group that is not one tollgate reads makes the bundle unusable", async () => {
  const set = await load(bundle(CONFIG.replace("kind: PodSecurityConfiguration", "kind: PodSecurityConfig")));
  expect(set.failures.map((f) => [f.severity, f.message])).toEqual([
    [
      "error",
      "pod-security.admission.config.k8s.io/v1 PodSecurityConfig is not a policy tollgate recognises, though pod-security.admission.config.k8s.io holds policy documents (a misspelt kind, or a version tollgate does not read?)",
    ],
  ]);
});

describe("pod-security family: the what-if enforce level", () => {
  const deployment = (namespace: string) => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace },
    spec: { template: { spec: { containers: [{ name: "app", image: "app" }] } } },
  });

  it("enables the family without a configuration; templates fail as violations, without a Status", async () => {
    const set = await load(bundle(NAMESPACES), { podSecurity: { enforce: "restricted" } });
    expect(set.failures).toEqual([]);
    const v = set.validate({ operation: "CREATE", object: deployment("team") });
    expect(v.allowed).toBe(false);
    expect(v.status).toBeUndefined();
    expect(v.errors.map((e) => [e.source.policy, e.source.rule])).toEqual([
      ["restricted:latest", "allowPrivilegeEscalation"],
      ["restricted:latest", "capabilities_restricted"],
      ["restricted:latest", "runAsNonRoot"],
      ["restricted:latest", "seccompProfile_restricted"],
    ]);
    expect(v.checkedAgainst).toEqual([{ family: "pod-security", policy: "restricted:latest" }]);
    expect(set.families.find((f) => f.family === "pod-security")?.settings?.whatIf).toBe("restricted:latest");
  });

  it("overrides the namespace's enforce level for Pods, and a namespace the state lacks is unlabelled", async () => {
    const set = await load(bundle(CONFIG, NAMESPACES), { podSecurity: { enforce: "baseline:v1.30" } });
    for (const ns of ["team", "missing"]) {
      const v = set.validate({ operation: "CREATE", object: pod(ns) });
      expect(v.status?.message).toBe(
        'pods "p" is forbidden: violates PodSecurity "baseline:v1.30": privileged (container "app" must not set securityContext.privileged=true)',
      );
      // audit (restricted, from the configuration) is still evaluated
      expect(v.checkedAgainst).toEqual([
        { family: "pod-security", policy: "baseline:v1.30" },
        { family: "pod-security", policy: "restricted:latest" },
      ]);
    }
  });

  it("keeps exemptions", async () => {
    const set = await load(bundle(CONFIG, NAMESPACES), { podSecurity: { enforce: "restricted" } });
    const object = { ...pod("team"), spec: { ...privilegedSpec, runtimeClassName: "kata" } };
    expect(set.validate({ operation: "CREATE", object }).auditAnnotations).toEqual({
      "pod-security.kubernetes.io/exempt": "runtimeClass",
    });
  });

  it.each([
    { value: "strict", message: 'Pod Security level "strict": must be one of privileged, baseline, restricted' },
    { value: "baseline:1.30", message: 'Pod Security version "1.30": must be "latest" or "v1.x"' },
  ])("refuses $value", async ({ value, message }) => {
    const set = await load(bundle(CONFIG), { podSecurity: { enforce: value } });
    expect(set.failures.map((f) => f.message)).toEqual([message]);
  });
});
