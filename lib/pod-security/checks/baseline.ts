/**
 * The checks of the baseline level, with their per-version revisions, as k8s.io/pod-security-admission defines them
 * (policy/check_*.go): ids, minimum versions, reasons and details word for word. Restricted includes them unless a
 * restricted check overrides one (checks/restricted.ts).
 */
import { goQuote } from "../../go/strconv.js";
import {
  type Check,
  type CheckPod,
  containerPath,
  containersText,
  forbiddenSetters,
  goCompare,
  inUserNamespace,
  joinQuote,
  pluralize,
  sortedSet,
} from "../check.js";
import type { SELinuxView } from "../pod-view.js";

const APPARMOR_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/";

function allowedAppArmorAnnotation(value: string): boolean {
  return value === "" || value === "runtime/default" || value.startsWith("localhost/");
}

function allowedAppArmorType(type: string): boolean {
  return type === "RuntimeDefault" || type === "Localhost";
}

/** appArmorProfile (v1.0): the AppArmor profile type of the pod and its containers, and the beta annotations. */
const appArmorProfile: CheckPod = (pod) => {
  const found = forbiddenSetters(pod, (sc) => sc?.appArmorType, allowedAppArmorType, "appArmorProfile.type");
  const { setters } = found;
  let { field } = found;
  const annotations: { text: string; key: string }[] = [];
  for (const [k, v] of Object.entries(pod.annotations)) {
    if (k.startsWith(APPARMOR_ANNOTATION_PREFIX) && !allowedAppArmorAnnotation(v ?? "")) {
      annotations.push({ text: `${k}=${goQuote(v ?? "")}`, key: k });
    }
  }
  const values = sortedSet(found.values);
  if (annotations.length > 0) {
    annotations.sort((a, b) => goCompare(a.text, b.text));
    values.push(...annotations.map((a) => a.text));
    setters.push(pluralize("annotation", "annotations", annotations.length));
    if (field === "") field = `${pod.metadataPath}.annotations[${annotations[0]!.key}]`;
  }
  if (setters.length === 0) return undefined;
  return {
    reason: pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", values.length),
    detail: `${setters.join(" and ")} must not set AppArmor profile type to ${joinQuote(values)}`,
    field,
  };
};

const DEFAULT_CAPABILITIES = new Set([
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
]);

/** capabilities_baseline (v1.0): only the default capabilities may be added. */
const capabilitiesBaseline: CheckPod = (pod) => {
  const bad: string[] = [];
  const caps = new Set<string>();
  let field = "";
  for (const c of pod.containers) {
    const add = c.securityContext?.capabilities?.add;
    if (add === undefined) continue;
    let valid = true;
    for (const [i, cap] of add.entries()) {
      if (DEFAULT_CAPABILITIES.has(cap)) continue;
      if (valid && field === "") field = `${containerPath(pod, c)}.securityContext.capabilities.add[${i}]`;
      valid = false;
      caps.add(cap);
    }
    if (!valid) bad.push(c.name);
  }
  if (bad.length === 0) return undefined;
  return {
    reason: "non-default capabilities",
    detail: `${containersText(bad)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`,
    field,
  };
};

/** hostNamespaces (v1.0): hostNetwork, hostPID and hostIPC. */
const hostNamespaces: CheckPod = (pod) => {
  const set: string[] = [];
  if (pod.hostNetwork) set.push("hostNetwork");
  if (pod.hostPID) set.push("hostPID");
  if (pod.hostIPC) set.push("hostIPC");
  if (set.length === 0) return undefined;
  return {
    reason: "host namespaces",
    detail: set.map((s) => `${s}=true`).join(", "),
    field: `${pod.specPath}.${set[0]}`,
  };
};

/** hostPathVolumes (v1.0). */
const hostPathVolumes: CheckPod = (pod) => {
  const names: string[] = [];
  let field = "";
  for (const [i, v] of pod.volumes.entries()) {
    if (!v.sources.includes("hostPath")) continue;
    if (field === "") field = `${pod.specPath}.volumes[${i}].hostPath`;
    names.push(v.name);
  }
  if (names.length === 0) return undefined;
  return {
    reason: "hostPath volumes",
    detail: `${pluralize("volume", "volumes", names.length)} ${joinQuote(names)}`,
    field,
  };
};

/** hostPorts (v1.0): no container port may set a hostPort. */
const hostPorts: CheckPod = (pod) => {
  const bad: string[] = [];
  const ports = new Set<string>();
  let field = "";
  for (const c of pod.containers) {
    if (c.hostPorts.length === 0) continue;
    bad.push(c.name);
    if (field === "") field = `${containerPath(pod, c)}.ports[${c.hostPorts[0]!.index}].hostPort`;
    for (const p of c.hostPorts) ports.add(String(p.port));
  }
  if (bad.length === 0) return undefined;
  const list = sortedSet(ports);
  return {
    reason: "hostPort",
    detail: `${containersText(bad)} ${pluralize("uses", "use", bad.length)} ${pluralize("hostPort", "hostPorts", list.length)} ${list.join(", ")}`,
    field,
  };
};

/** hostProbesAndHostLifecycle (v1.34): probe and lifecycle handler hosts must be empty. */
const hostProbesAndHostLifecycle: CheckPod = (pod) => {
  const bad = new Set<string>();
  const hosts = new Set<string>();
  let field = "";
  for (const c of pod.containers) {
    if (c.hosts.length === 0) continue;
    bad.add(c.name);
    if (field === "") field = `${containerPath(pod, c)}.${c.hosts[0]!.field}`;
    for (const h of c.hosts) hosts.add(h.host);
  }
  if (bad.size === 0) return undefined;
  const hostList = sortedSet(hosts);
  return {
    reason: "probe or lifecycle host",
    detail: `${pluralize("container", "containers", bad.size)} ${joinQuote(sortedSet(bad))} ${pluralize("uses", "use", bad.size)} ${pluralize("probe or lifecycle host", "probe or lifecycle hosts", hostList.length)} ${joinQuote(hostList)}`,
    field,
  };
};

/** privileged (v1.0). */
const privileged: CheckPod = (pod) => {
  const bad: string[] = [];
  let field = "";
  for (const c of pod.containers) {
    if (c.securityContext?.privileged !== true) continue;
    if (field === "") field = `${containerPath(pod, c)}.securityContext.privileged`;
    bad.push(c.name);
  }
  if (bad.length === 0) return undefined;
  return {
    reason: "privileged",
    detail: `${containersText(bad)} must not set securityContext.privileged=true`,
    field,
  };
};

/** procMount (v1.0), also procMount_restricted (v1.35): only the Default proc mount. */
export const procMountDefaultOnly: CheckPod = (pod) => {
  const bad: string[] = [];
  const types = new Set<string>();
  let field = "";
  for (const c of pod.containers) {
    const pm = c.securityContext?.procMount;
    if (pm === undefined || pm === "Default") continue;
    if (field === "") field = `${containerPath(pod, c)}.securityContext.procMount`;
    bad.push(c.name);
    types.add(pm);
  }
  if (bad.length === 0) return undefined;
  return {
    reason: "procMount",
    detail: `${containersText(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`,
    field,
  };
};

/** procMount (v1.35): any proc mount in a user namespace. */
const procMountBaseline135: CheckPod = (pod) => (inUserNamespace(pod) ? undefined : procMountDefaultOnly(pod));

const SELINUX_TYPES_1_0 = new Set(["", "container_t", "container_init_t", "container_kvm_t"]);
const SELINUX_TYPES_1_31 = new Set([...SELINUX_TYPES_1_0, "container_engine_t"]);

/** seLinuxOptions: allowed types only; no user, no role. */
function seLinuxOptions(allowed: ReadonlySet<string>): CheckPod {
  return (pod) => {
    const setters: string[] = [];
    const badTypes = new Set<string>();
    let setUser = false;
    let setRole = false;
    let field = "";
    const invalidAt = (opts: SELinuxView, path: string): boolean => {
      let at = "";
      if (!allowed.has(opts.type)) {
        badTypes.add(opts.type);
        at = "type";
      }
      if (opts.user !== "") {
        setUser = true;
        at ||= "user";
      }
      if (opts.role !== "") {
        setRole = true;
        at ||= "role";
      }
      if (at !== "" && field === "") field = `${path}.securityContext.seLinuxOptions.${at}`;
      return at !== "";
    };
    const podOpts = pod.securityContext?.seLinuxOptions;
    if (podOpts !== undefined && invalidAt(podOpts, pod.specPath)) setters.push("pod");
    const bad: string[] = [];
    for (const c of pod.containers) {
      const opts = c.securityContext?.seLinuxOptions;
      if (opts !== undefined && invalidAt(opts, containerPath(pod, c))) bad.push(c.name);
    }
    if (bad.length > 0) setters.push(containersText(bad));
    if (setters.length === 0) return undefined;
    const data: string[] = [];
    if (badTypes.size > 0) {
      data.push(`${pluralize("type", "types", badTypes.size)} ${joinQuote(sortedSet(badTypes))}`);
    }
    if (setUser) data.push("user may not be set");
    if (setRole) data.push("role may not be set");
    return {
      reason: "seLinuxOptions",
      detail: `${setters.join(" and ")} set forbidden securityContext.seLinuxOptions: ${data.join("; ")}`,
      field,
    };
  };
}

const SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod";
const SECCOMP_CONTAINER_ANNOTATION_PREFIX = "container.seccomp.security.alpha.kubernetes.io/";

function validSeccompAnnotation(value: string): boolean {
  return value === "runtime/default" || value === "docker/default" || value.startsWith("localhost/");
}

export function validSeccompType(type: string): boolean {
  return type === "Localhost" || type === "RuntimeDefault";
}

/** seccompProfile_baseline (v1.0): the alpha seccomp annotations. */
const seccompProfileBaseline10: CheckPod = (pod) => {
  const forbidden = new Set<string>();
  let field = "";
  const check = (key: string) => {
    if (!Object.hasOwn(pod.annotations, key)) return;
    const value = pod.annotations[key] ?? "";
    if (validSeccompAnnotation(value)) return;
    forbidden.add(`${key}=${goQuote(value)}`);
    if (field === "") field = `${pod.metadataPath}.annotations[${key}]`;
  };
  check(SECCOMP_POD_ANNOTATION);
  for (const c of pod.containers) check(SECCOMP_CONTAINER_ANNOTATION_PREFIX + c.name);
  if (forbidden.size === 0) return undefined;
  return {
    reason: "seccompProfile",
    detail: `forbidden ${pluralize("annotation", "annotations", forbidden.size)} ${sortedSet(forbidden).join(", ")}`,
    field,
  };
};

/** seccompProfile_baseline (v1.19): the seccompProfile fields, when set, must be RuntimeDefault or Localhost. */
const seccompProfileBaseline119: CheckPod = (pod) => {
  const { setters, values, field } = forbiddenSetters(
    pod,
    (sc) => sc?.seccompType,
    validSeccompType,
    "seccompProfile.type",
  );
  if (setters.length === 0) return undefined;
  return {
    reason: "seccompProfile",
    detail: `${setters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}`,
    field,
  };
};

const SYSCTLS_1_0 = [
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_unprivileged_port_start",
];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, "net.ipv4.ip_local_reserved_ports"];
const SYSCTLS_1_29 = [
  ...SYSCTLS_1_27,
  "net.ipv4.tcp_keepalive_time",
  "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl",
  "net.ipv4.tcp_keepalive_probes",
];
const SYSCTLS_1_32 = [...SYSCTLS_1_29, "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"];
const SYSCTLS_1_37 = [...SYSCTLS_1_32, "net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat"];

/** sysctls: only the safe sysctls of the version. */
function sysctls(safe: readonly string[]): CheckPod {
  const allowed = new Set(safe);
  return (pod) => {
    const names = pod.securityContext?.sysctls ?? [];
    const forbidden: string[] = [];
    let field = "";
    for (const [i, name] of names.entries()) {
      if (allowed.has(name)) continue;
      if (field === "") field = `${pod.specPath}.securityContext.sysctls[${i}].name`;
      forbidden.push(name);
    }
    if (forbidden.length === 0) return undefined;
    return { reason: "forbidden sysctls", detail: forbidden.join(", "), field };
  };
}

/** windowsHostProcess (v1.0). */
const windowsHostProcess: CheckPod = (pod) => {
  const setters: string[] = [];
  let field = "";
  if (pod.securityContext?.hostProcess === true) {
    setters.push("pod");
    field = `${pod.specPath}.securityContext.windowsOptions.hostProcess`;
  }
  const bad: string[] = [];
  for (const c of pod.containers) {
    if (c.securityContext?.hostProcess !== true) continue;
    if (field === "") field = `${containerPath(pod, c)}.securityContext.windowsOptions.hostProcess`;
    bad.push(c.name);
  }
  if (bad.length > 0) setters.push(containersText(bad));
  if (setters.length === 0) return undefined;
  return {
    reason: "hostProcess",
    detail: `${setters.join(" and ")} must not set securityContext.windowsOptions.hostProcess=true`,
    field,
  };
};

export const BASELINE_CHECKS: readonly Check[] = [
  { id: "appArmorProfile", level: "baseline", versions: [{ minimumMinor: 0, check: appArmorProfile }] },
  { id: "capabilities_baseline", level: "baseline", versions: [{ minimumMinor: 0, check: capabilitiesBaseline }] },
  { id: "hostNamespaces", level: "baseline", versions: [{ minimumMinor: 0, check: hostNamespaces }] },
  { id: "hostPathVolumes", level: "baseline", versions: [{ minimumMinor: 0, check: hostPathVolumes }] },
  { id: "hostPorts", level: "baseline", versions: [{ minimumMinor: 0, check: hostPorts }] },
  {
    id: "hostProbesAndHostLifecycle",
    level: "baseline",
    versions: [{ minimumMinor: 34, check: hostProbesAndHostLifecycle }],
  },
  { id: "privileged", level: "baseline", versions: [{ minimumMinor: 0, check: privileged }] },
  {
    id: "procMount",
    level: "baseline",
    versions: [
      { minimumMinor: 0, check: procMountDefaultOnly },
      { minimumMinor: 35, check: procMountBaseline135 },
    ],
  },
  {
    id: "seLinuxOptions",
    level: "baseline",
    versions: [
      { minimumMinor: 0, check: seLinuxOptions(SELINUX_TYPES_1_0) },
      { minimumMinor: 31, check: seLinuxOptions(SELINUX_TYPES_1_31) },
    ],
  },
  {
    id: "seccompProfile_baseline",
    level: "baseline",
    versions: [
      { minimumMinor: 0, check: seccompProfileBaseline10 },
      { minimumMinor: 19, check: seccompProfileBaseline119 },
    ],
  },
  {
    id: "sysctls",
    level: "baseline",
    versions: [
      { minimumMinor: 0, check: sysctls(SYSCTLS_1_0) },
      { minimumMinor: 27, check: sysctls(SYSCTLS_1_27) },
      { minimumMinor: 29, check: sysctls(SYSCTLS_1_29) },
      { minimumMinor: 32, check: sysctls(SYSCTLS_1_32) },
      { minimumMinor: 37, check: sysctls(SYSCTLS_1_37) },
    ],
  },
  { id: "windowsHostProcess", level: "baseline", versions: [{ minimumMinor: 0, check: windowsHostProcess }] },
];
