/**
 * The Pod Security checks' reasons, details and order, with the expected texts taken from the format strings of
 * k8s.io/pod-security-admission policy/check_*.go (pluralisation, quoting, sorting of values, pod before
 * containers, init containers before containers before ephemeral containers), and the field each finding points at.
 */
import { describe, expect, it } from "vitest";
import { type Level, parseVersion } from "../../../../lib/pod-security/levels.js";
import { readPodOf } from "../../../../lib/pod-security/pod-view.js";
import { createEvaluator, forbiddenDetail } from "../../../../lib/pod-security/registry.js";

const evaluator = createEvaluator();

function evaluate(
  level: Level,
  version: string,
  spec: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
) {
  const pod = readPodOf({ apiVersion: "v1", kind: "Pod", metadata, spec }, "Pod")!;
  return evaluator.evaluate({ level, version: parseVersion(version).value }, pod);
}

const c = (name: string, securityContext?: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  securityContext === undefined ? { name, image: "i", ...extra } : { name, image: "i", securityContext, ...extra };

/** A container that passes every restricted check. */
const good = (name: string) => ({
  name,
  image: "i",
  securityContext: {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ["ALL"] },
    runAsNonRoot: true,
    seccompProfile: { type: "RuntimeDefault" },
  } as Record<string, unknown>,
});

interface Case {
  name: string;
  level?: Level;
  version?: string;
  spec: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  want: { id: string; reason: string; detail: string; field?: string }[];
}

const cases: Case[] = [
  {
    name: "privileged: init containers first, then containers, then ephemeral containers",
    spec: {
      initContainers: [c("init", { privileged: true })],
      containers: [c("a", { privileged: false }), c("b", { privileged: true })],
      ephemeralContainers: [c("debug", { privileged: true })],
    },
    want: [
      {
        id: "privileged",
        reason: "privileged",
        detail: 'containers "init", "b", "debug" must not set securityContext.privileged=true',
        field: "spec.initContainers[0].securityContext.privileged",
      },
    ],
  },
  {
    name: "host namespaces in the library's order",
    spec: { hostIPC: true, hostNetwork: true, containers: [c("a")] },
    want: [
      {
        id: "hostNamespaces",
        reason: "host namespaces",
        detail: "hostNetwork=true, hostIPC=true",
        field: "spec.hostNetwork",
      },
    ],
  },
  {
    name: "host ports: unique, sorted as strings",
    spec: {
      containers: [
        c("a", undefined, { ports: [{ containerPort: 1, hostPort: 9090 }, { containerPort: 2 }] }),
        c("b", undefined, {
          ports: [
            { containerPort: 3, hostPort: 10000 },
            { containerPort: 4, hostPort: 9090 },
          ],
        }),
        c("c", undefined, { ports: [{ containerPort: 5, hostPort: 0 }] }),
      ],
    },
    want: [
      {
        id: "hostPorts",
        reason: "hostPort",
        detail: 'containers "a", "b" use hostPorts 10000, 9090',
        field: "spec.containers[0].ports[0].hostPort",
      },
    ],
  },
  {
    name: "one host port",
    spec: { containers: [c("a"), c("b", undefined, { ports: [{ containerPort: 1, hostPort: 20 }] })] },
    want: [{ id: "hostPorts", reason: "hostPort", detail: 'container "b" uses hostPort 20' }],
  },
  {
    name: "hostPath volumes",
    spec: {
      containers: [c("a")],
      volumes: [
        { name: "x", hostPath: { path: "/" } },
        { name: "y", emptyDir: {} },
      ],
    },
    want: [
      { id: "hostPathVolumes", reason: "hostPath volumes", detail: 'volume "x"', field: "spec.volumes[0].hostPath" },
    ],
  },
  {
    name: "non-default capabilities: unique and sorted",
    spec: {
      containers: [
        c("a", { capabilities: { add: ["SYS_ADMIN", "CHOWN", "NET_ADMIN"] } }),
        c("b", { capabilities: { add: ["SYS_ADMIN"] } }),
      ],
    },
    want: [
      {
        id: "capabilities_baseline",
        reason: "non-default capabilities",
        detail: 'containers "a", "b" must not include "NET_ADMIN", "SYS_ADMIN" in securityContext.capabilities.add',
        field: "spec.containers[0].securityContext.capabilities.add[0]",
      },
    ],
  },
  {
    name: "AppArmor: pod, containers and annotations, values sorted (an empty type included)",
    metadata: {
      annotations: {
        "container.apparmor.security.beta.kubernetes.io/b": "unconfined",
        "container.apparmor.security.beta.kubernetes.io/a": "localhost/x",
      },
    },
    spec: {
      securityContext: { appArmorProfile: { type: "Unconfined" } },
      containers: [c("a", { appArmorProfile: {} }), c("b", { appArmorProfile: { type: "Localhost" } })],
    },
    want: [
      {
        id: "appArmorProfile",
        reason: "forbidden AppArmor profiles",
        detail:
          'pod and container "a" and annotation must not set AppArmor profile type to "", "Unconfined", "container.apparmor.security.beta.kubernetes.io/b="unconfined""',
        field: "spec.securityContext.appArmorProfile.type",
      },
    ],
  },
  {
    name: "AppArmor: one annotation",
    metadata: { annotations: { "container.apparmor.security.beta.kubernetes.io/a": "unconfined" } },
    spec: { containers: [c("a")] },
    want: [
      {
        id: "appArmorProfile",
        reason: "forbidden AppArmor profile",
        detail:
          'annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/a="unconfined""',
        field: "metadata.annotations[container.apparmor.security.beta.kubernetes.io/a]",
      },
    ],
  },
  {
    name: "seLinuxOptions: types sorted, then user, then role",
    spec: {
      securityContext: { seLinuxOptions: { type: "foo", user: "u" } },
      containers: [
        c("a", { seLinuxOptions: { type: "bar", role: "r" } }),
        c("b", { seLinuxOptions: { type: "container_t" } }),
      ],
    },
    want: [
      {
        id: "seLinuxOptions",
        reason: "seLinuxOptions",
        detail:
          'pod and container "a" set forbidden securityContext.seLinuxOptions: types "bar", "foo"; user may not be set; role may not be set',
        field: "spec.securityContext.seLinuxOptions.type",
      },
    ],
  },
  {
    name: "seLinuxOptions: container_engine_t is allowed from v1.31",
    version: "v1.30",
    spec: { containers: [c("a", { seLinuxOptions: { type: "container_engine_t" } })] },
    want: [
      {
        id: "seLinuxOptions",
        reason: "seLinuxOptions",
        detail: 'container "a" set forbidden securityContext.seLinuxOptions: type "container_engine_t"',
      },
    ],
  },
  {
    name: "seLinuxOptions: container_engine_t at v1.31",
    version: "v1.31",
    spec: { containers: [c("a", { seLinuxOptions: { type: "container_engine_t" } })] },
    want: [],
  },
  {
    name: "procMount: Unmasked is forbidden outside a user namespace",
    spec: { containers: [c("a", { procMount: "Unmasked" }), c("b", { procMount: "Default" })] },
    want: [
      {
        id: "procMount",
        reason: "procMount",
        detail: 'container "a" must not set securityContext.procMount to "Unmasked"',
      },
    ],
  },
  {
    name: "procMount: any value in a user namespace from v1.35 (baseline)",
    spec: { hostUsers: false, containers: [c("a", { procMount: "Unmasked" })] },
    want: [],
  },
  {
    name: "procMount: a user namespace does not help before v1.35",
    version: "v1.34",
    spec: { hostUsers: false, containers: [c("a", { procMount: "Unmasked" })] },
    want: [
      {
        id: "procMount",
        reason: "procMount",
        detail: 'container "a" must not set securityContext.procMount to "Unmasked"',
      },
    ],
  },
  {
    name: "seccompProfile (v1.0): the alpha annotations, sorted",
    version: "v1.18",
    metadata: {
      annotations: {
        "seccomp.security.alpha.kubernetes.io/pod": "unconfined",
        "container.seccomp.security.alpha.kubernetes.io/b": "unknown",
        "container.seccomp.security.alpha.kubernetes.io/a": "docker/default",
      },
    },
    spec: { containers: [c("a"), c("b")] },
    want: [
      {
        id: "seccompProfile_baseline",
        reason: "seccompProfile",
        detail:
          'forbidden annotations container.seccomp.security.alpha.kubernetes.io/b="unknown", seccomp.security.alpha.kubernetes.io/pod="unconfined"',
        field: "metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]",
      },
    ],
  },
  {
    name: "seccompProfile (v1.19): the fields",
    spec: {
      securityContext: { seccompProfile: { type: "Unconfined" } },
      containers: [
        c("a", { seccompProfile: { type: "Unconfined" } }),
        c("b", { seccompProfile: { type: "Localhost" } }),
      ],
    },
    want: [
      {
        id: "seccompProfile_baseline",
        reason: "seccompProfile",
        detail: 'pod and container "a" must not set securityContext.seccompProfile.type to "Unconfined"',
      },
    ],
  },
  {
    name: "sysctls: in the pod's order, not deduplicated",
    spec: {
      securityContext: {
        sysctls: [{ name: "kernel.msgmax" }, { name: "net.ipv4.tcp_syncookies" }, { name: "kernel.msgmax" }],
      },
      containers: [c("a")],
    },
    want: [
      {
        id: "sysctls",
        reason: "forbidden sysctls",
        detail: "kernel.msgmax, kernel.msgmax",
        field: "spec.securityContext.sysctls[0].name",
      },
    ],
  },
  {
    name: "sysctls: tcp_rmem is safe from v1.32",
    version: "v1.31",
    spec: { securityContext: { sysctls: [{ name: "net.ipv4.tcp_rmem" }] }, containers: [c("a")] },
    want: [{ id: "sysctls", reason: "forbidden sysctls", detail: "net.ipv4.tcp_rmem" }],
  },
  {
    name: "sysctls: tcp_slow_start_after_idle is safe from v1.37",
    version: "v1.37",
    spec: { securityContext: { sysctls: [{ name: "net.ipv4.tcp_slow_start_after_idle" }] }, containers: [c("a")] },
    want: [],
  },
  {
    name: "hostProcess: pod and containers",
    spec: {
      securityContext: { windowsOptions: { hostProcess: true } },
      containers: [
        c("a", { windowsOptions: { hostProcess: true } }),
        c("b", { windowsOptions: { hostProcess: false } }),
      ],
    },
    want: [
      {
        id: "windowsHostProcess",
        reason: "hostProcess",
        detail: 'pod and container "a" must not set securityContext.windowsOptions.hostProcess=true',
      },
    ],
  },
  {
    name: "probe and lifecycle hosts: containers and hosts unique and sorted",
    spec: {
      containers: [
        c("b", undefined, {
          livenessProbe: { httpGet: { host: "z.example", port: 80 } },
          lifecycle: { preStop: { tcpSocket: { host: "a.example", port: 80 } } },
        }),
        c("a", undefined, { readinessProbe: { tcpSocket: { host: "z.example", port: 80 } } }),
        c("c", undefined, { startupProbe: { httpGet: { host: "", port: 80 } } }),
      ],
    },
    want: [
      {
        id: "hostProbesAndHostLifecycle",
        reason: "probe or lifecycle host",
        detail: 'containers "a", "b" use probe or lifecycle hosts "a.example", "z.example"',
        field: "spec.containers[0].livenessProbe.httpGet.host",
      },
    ],
  },
  {
    name: "probe hosts are not checked before v1.34",
    version: "v1.33",
    spec: { containers: [c("a", undefined, { livenessProbe: { httpGet: { host: "x", port: 80 } } })] },
    want: [],
  },
  {
    name: "baseline checks run in the order of their ids",
    spec: {
      hostPID: true,
      securityContext: { sysctls: [{ name: "kernel.x" }] },
      containers: [c("a", { privileged: true, capabilities: { add: ["NET_ADMIN"] } })],
      volumes: [{ name: "v", hostPath: { path: "/" } }],
    },
    want: [
      {
        id: "capabilities_baseline",
        reason: "non-default capabilities",
        detail: 'container "a" must not include "NET_ADMIN" in securityContext.capabilities.add',
      },
      { id: "hostNamespaces", reason: "host namespaces", detail: "hostPID=true" },
      { id: "hostPathVolumes", reason: "hostPath volumes", detail: 'volume "v"' },
      { id: "privileged", reason: "privileged", detail: 'container "a" must not set securityContext.privileged=true' },
      { id: "sysctls", reason: "forbidden sysctls", detail: "kernel.x" },
    ],
  },
  {
    name: "restricted: baseline checks first (overridden ones replaced), then the restricted ones",
    level: "restricted",
    spec: {
      containers: [c("a", { privileged: true, capabilities: { add: ["NET_ADMIN"] } }), c("b")],
      volumes: [
        { name: "v", hostPath: { path: "/" } },
        { name: "n", nfs: { server: "s", path: "/" } },
      ],
    },
    want: [
      { id: "privileged", reason: "privileged", detail: 'container "a" must not set securityContext.privileged=true' },
      {
        id: "allowPrivilegeEscalation",
        reason: "allowPrivilegeEscalation != false",
        detail: 'containers "a", "b" must set securityContext.allowPrivilegeEscalation=false',
      },
      {
        id: "capabilities_restricted",
        reason: "unrestricted capabilities",
        detail:
          'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; container "a" must not include "NET_ADMIN" in securityContext.capabilities.add',
        field: "spec.containers[0].securityContext.capabilities.drop",
      },
      {
        id: "restrictedVolumes",
        reason: "restricted volume types",
        detail: 'volumes "v", "n" use restricted volume types "hostPath", "nfs"',
        field: "spec.volumes[0].hostPath",
      },
      {
        id: "runAsNonRoot",
        reason: "runAsNonRoot != true",
        detail: 'pod or containers "a", "b" must set securityContext.runAsNonRoot=true',
      },
      {
        id: "seccompProfile_restricted",
        reason: "seccompProfile",
        detail:
          'pod or containers "a", "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
      },
    ],
  },
  {
    name: "restricted: explicit runAsNonRoot=false wins over the implicit message",
    level: "restricted",
    spec: {
      securityContext: { runAsNonRoot: false, runAsUser: 0, seccompProfile: { type: "RuntimeDefault" } },
      containers: [
        good("a"),
        { ...good("b"), securityContext: { ...good("b").securityContext, runAsNonRoot: false, runAsUser: 0 } },
      ],
    },
    want: [
      {
        id: "runAsNonRoot",
        reason: "runAsNonRoot != true",
        detail: 'pod and container "b" must not set securityContext.runAsNonRoot=false',
        field: "spec.securityContext.runAsNonRoot",
      },
      { id: "runAsUser", reason: "runAsUser=0", detail: 'pod and container "b" must not set runAsUser=0' },
    ],
  },
  {
    name: "restricted: a container-level setting overrides the pod's",
    level: "restricted",
    spec: {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      containers: [
        {
          ...good("a"),
          securityContext: {
            allowPrivilegeEscalation: false,
            capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] },
          },
        },
        { ...good("b"), securityContext: { ...good("b").securityContext, seccompProfile: { type: "Unconfined" } } },
      ],
    },
    want: [
      {
        id: "seccompProfile_restricted",
        reason: "seccompProfile",
        detail: 'container "b" must not set securityContext.seccompProfile.type to "Unconfined"',
      },
    ],
  },
  {
    name: "restricted: a volume without a source is an emptyDir (API defaulting)",
    level: "restricted",
    spec: { securityContext: { runAsNonRoot: true }, containers: [good("a")], volumes: [{ name: "scratch" }] },
    want: [],
  },
  {
    name: "restricted v1.24: Windows pods are not exempt yet",
    level: "restricted",
    version: "v1.24",
    spec: { os: { name: "windows" }, securityContext: { runAsNonRoot: true }, containers: [c("a")] },
    want: [
      {
        id: "allowPrivilegeEscalation",
        reason: "allowPrivilegeEscalation != false",
        detail: 'container "a" must set securityContext.allowPrivilegeEscalation=false',
      },
      {
        id: "capabilities_restricted",
        reason: "unrestricted capabilities",
        detail: 'container "a" must set securityContext.capabilities.drop=["ALL"]',
      },
      {
        id: "seccompProfile_restricted",
        reason: "seccompProfile",
        detail: 'pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
      },
    ],
  },
  {
    name: "restricted v1.25: Windows pods need no privilege escalation, capabilities or seccomp settings",
    level: "restricted",
    version: "v1.25",
    spec: { os: { name: "windows" }, securityContext: { runAsNonRoot: true }, containers: [c("a")] },
    want: [],
  },
  {
    name: "restricted v1.35: a user namespace relaxes runAsNonRoot and runAsUser, not procMount",
    level: "restricted",
    version: "v1.35",
    spec: {
      hostUsers: false,
      securityContext: { seccompProfile: { type: "RuntimeDefault" }, runAsUser: 0 },
      containers: [
        { ...good("a"), securityContext: { ...good("a").securityContext, runAsNonRoot: false, procMount: "Unmasked" } },
      ],
    },
    want: [
      {
        id: "procMount_restricted",
        reason: "procMount",
        detail: 'container "a" must not set securityContext.procMount to "Unmasked"',
      },
    ],
  },
  {
    name: "restricted v1.7: no allowPrivilegeEscalation check yet",
    level: "restricted",
    version: "v1.7",
    spec: { securityContext: { runAsNonRoot: true }, containers: [c("a")] },
    want: [],
  },
  {
    name: "privileged level: nothing is checked",
    level: "privileged",
    spec: { hostPID: true, containers: [c("a", { privileged: true })] },
    want: [],
  },
];

describe("pod security checks", () => {
  it.each(cases)("$name", ({ level = "baseline", version = "latest", spec, metadata, want }) => {
    // Act
    const got = evaluate(level, version, spec, metadata);
    // Assess
    expect(got.map(({ id, reason, detail }) => ({ id, reason, detail }))).toEqual(
      want.map(({ id, reason, detail }) => ({ id, reason, detail })),
    );
    for (const [i, w] of want.entries()) if (w.field !== undefined) expect(got[i]!.field).toBe(w.field);
  });

  it("aggregates reasons and details as the library's ForbiddenDetail", () => {
    const got = evaluate("baseline", "latest", {
      hostNetwork: true,
      containers: [c("a", { privileged: true })],
      volumes: [{ name: "v", hostPath: { path: "/" } }],
    });
    expect(forbiddenDetail(got)).toBe(
      'host namespaces (hostNetwork=true), hostPath volumes (volume "v"), privileged (container "a" must not set securityContext.privileged=true)',
    );
  });

  it("evaluates versions newer than the newest known one, and latest, as the newest", () => {
    const spec = { securityContext: { sysctls: [{ name: "net.ipv4.tcp_notsent_lowat" }] }, containers: [c("a")] };
    expect(evaluate("baseline", "v1.99", spec)).toEqual([]);
    expect(evaluate("baseline", "latest", spec)).toEqual([]);
    expect(evaluate("baseline", "v1.36", spec).map((v) => v.id)).toEqual(["sysctls"]);
  });

  it("evaluates as an emulated Kubernetes version: newer versions and latest as that one", () => {
    const emulated = createEvaluator(undefined, { emulatedMinor: 36 });
    const pod = readPodOf(
      { kind: "Pod", spec: { securityContext: { sysctls: [{ name: "net.ipv4.tcp_notsent_lowat" }] } } },
      "Pod",
    )!;
    for (const v of ["v1.36", "v1.37", "latest"]) {
      expect(emulated.evaluate({ level: "baseline", version: parseVersion(v).value }, pod).map((x) => x.id)).toEqual([
        "sysctls",
      ]);
    }
    expect(emulated.newestMinor).toBe(36);
  });
});
