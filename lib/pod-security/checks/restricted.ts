/**
 * The checks of the restricted level, with their per-version revisions and the baseline checks each revision
 * replaces, as k8s.io/pod-security-admission defines them (policy/check_*.go): ids, minimum versions, reasons and
 * details word for word. Since v1.25, Windows pods (`spec.os.name: windows`) are exempt from the checks whose fields
 * Windows pods may not set (allowPrivilegeEscalation, capabilities, seccompProfile).
 */
import {
  type Check,
  type CheckPod,
  containerPath,
  containersText,
  inUserNamespace,
  joinQuote,
  pluralize,
  sortedSet,
} from "../check.js";
import { procMountDefaultOnly, validSeccompType } from "./baseline.js";

/** The revision of `check` from v1.25 on: Windows pods are allowed (API validation forbids them the fields). */
function exemptWindows(check: CheckPod): CheckPod {
  return (pod) => (pod.windows ? undefined : check(pod));
}

/** The revision of `check` from v1.35 on: pods in a user namespace (`hostUsers: false`) are allowed. */
function exemptUserNamespace(check: CheckPod): CheckPod {
  return (pod) => (inUserNamespace(pod) ? undefined : check(pod));
}

/** allowPrivilegeEscalation (v1.8): every container sets allowPrivilegeEscalation=false. */
const allowPrivilegeEscalation: CheckPod = (pod) => {
  const bad: string[] = [];
  let field = "";
  for (const c of pod.containers) {
    if (c.securityContext?.allowPrivilegeEscalation === false) continue;
    if (field === "") field = `${containerPath(pod, c)}.securityContext.allowPrivilegeEscalation`;
    bad.push(c.name);
  }
  if (bad.length === 0) return undefined;
  return {
    reason: "allowPrivilegeEscalation != false",
    detail: `${containersText(bad)} must set securityContext.allowPrivilegeEscalation=false`,
    field,
  };
};

/** capabilities_restricted (v1.22): every container drops ALL and adds at most NET_BIND_SERVICE. */
const capabilitiesRestricted: CheckPod = (pod) => {
  const missingDropAll: string[] = [];
  const adding: string[] = [];
  const forbidden = new Set<string>();
  let dropField = "";
  let addField = "";
  for (const c of pod.containers) {
    const caps = c.securityContext?.capabilities;
    if (caps === undefined) {
      missingDropAll.push(c.name);
      dropField ||= `${containerPath(pod, c)}.securityContext.capabilities`;
      continue;
    }
    if (!caps.drop.includes("ALL")) {
      missingDropAll.push(c.name);
      dropField ||= `${containerPath(pod, c)}.securityContext.capabilities.drop`;
    }
    let addsForbidden = false;
    for (const [i, cap] of caps.add.entries()) {
      if (cap === "NET_BIND_SERVICE") continue;
      addField ||= `${containerPath(pod, c)}.securityContext.capabilities.add[${i}]`;
      addsForbidden = true;
      forbidden.add(cap);
    }
    if (addsForbidden) adding.push(c.name);
  }
  const details: string[] = [];
  if (missingDropAll.length > 0) {
    details.push(`${containersText(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  }
  if (adding.length > 0) {
    details.push(
      `${containersText(adding)} must not include ${joinQuote(sortedSet(forbidden))} in securityContext.capabilities.add`,
    );
  }
  if (details.length === 0) return undefined;
  return { reason: "unrestricted capabilities", detail: details.join("; "), field: dropField || addField };
};

/**
 * The volume sources the restricted level allows. A volume that sets one of them passes, whatever else it sets
 * (the library tests these first).
 */
const ALLOWED_VOLUME_SOURCES = new Set([
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "image",
  "persistentVolumeClaim",
  "projected",
  "secret",
]);

/** restrictedVolumes (v1.0): only the allowed volume sources. */
const restrictedVolumes: CheckPod = (pod) => {
  const bad: string[] = [];
  const types = new Set<string>();
  let field = "";
  for (const [i, v] of pod.volumes.entries()) {
    if (v.sources.some((s) => ALLOWED_VOLUME_SOURCES.has(s))) continue;
    bad.push(v.name);
    // The sources left are in the library's order of restricted types; a volume with none is "unknown".
    const type = v.sources[0] ?? "unknown";
    types.add(type);
    if (field === "") field = `${pod.specPath}.volumes[${i}]${type === "unknown" ? "" : `.${type}`}`;
  }
  if (bad.length === 0) return undefined;
  const typeList = sortedSet(types);
  return {
    reason: "restricted volume types",
    detail: `${pluralize("volume", "volumes", bad.length)} ${joinQuote(bad)} ${pluralize("uses", "use", bad.length)} ${pluralize("restricted volume type", "restricted volume types", typeList.length)} ${joinQuote(typeList)}`,
    field,
  };
};

/** runAsNonRoot (v1.0): runAsNonRoot=true on the pod, or on every container that does not inherit it. */
const runAsNonRoot: CheckPod = (pod) => {
  const setters: string[] = [];
  let podNonRoot = false;
  let field = "";
  const podValue = pod.securityContext?.runAsNonRoot;
  if (podValue === false) {
    setters.push("pod");
    field = `${pod.specPath}.securityContext.runAsNonRoot`;
  } else if (podValue === true) podNonRoot = true;
  const explicit: string[] = [];
  const implicit: string[] = [];
  let implicitField = "";
  for (const c of pod.containers) {
    const v = c.securityContext?.runAsNonRoot;
    if (v === false) {
      explicit.push(c.name);
      field ||= `${containerPath(pod, c)}.securityContext.runAsNonRoot`;
    } else if (v === undefined && !podNonRoot) {
      implicit.push(c.name);
      implicitField ||= `${containerPath(pod, c)}.securityContext.runAsNonRoot`;
    }
  }
  if (explicit.length > 0) setters.push(containersText(explicit));
  if (setters.length > 0) {
    return {
      reason: "runAsNonRoot != true",
      detail: `${setters.join(" and ")} must not set securityContext.runAsNonRoot=false`,
      field,
    };
  }
  if (implicit.length === 0) return undefined;
  return {
    reason: "runAsNonRoot != true",
    detail: `pod or ${containersText(implicit)} must set securityContext.runAsNonRoot=true`,
    field: implicitField,
  };
};

/** runAsUser (v1.23): runAsUser is never 0. */
const runAsUser: CheckPod = (pod) => {
  const setters: string[] = [];
  let field = "";
  if (pod.securityContext?.runAsUserZero === true) {
    setters.push("pod");
    field = `${pod.specPath}.securityContext.runAsUser`;
  }
  const bad: string[] = [];
  for (const c of pod.containers) {
    if (c.securityContext?.runAsUserZero !== true) continue;
    field ||= `${containerPath(pod, c)}.securityContext.runAsUser`;
    bad.push(c.name);
  }
  if (bad.length > 0) setters.push(containersText(bad));
  if (setters.length === 0) return undefined;
  return { reason: "runAsUser=0", detail: `${setters.join(" and ")} must not set runAsUser=0`, field };
};

/** seccompProfile_restricted (v1.19): RuntimeDefault or Localhost on the pod, or on every container. */
const seccompProfileRestricted: CheckPod = (pod) => {
  const setters: string[] = [];
  const badValues = new Set<string>();
  let podSet = false;
  let field = "";
  const podType = pod.securityContext?.seccompType;
  if (podType !== undefined) {
    if (validSeccompType(podType)) podSet = true;
    else {
      setters.push("pod");
      badValues.add(podType);
      field = `${pod.specPath}.securityContext.seccompProfile.type`;
    }
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  let implicitField = "";
  for (const c of pod.containers) {
    const t = c.securityContext?.seccompType;
    if (t !== undefined) {
      if (validSeccompType(t)) continue;
      explicit.push(c.name);
      badValues.add(t);
      field ||= `${containerPath(pod, c)}.securityContext.seccompProfile.type`;
    } else if (!podSet) {
      implicit.push(c.name);
      implicitField ||= `${containerPath(pod, c)}.securityContext.seccompProfile`;
    }
  }
  if (explicit.length > 0) setters.push(containersText(explicit));
  if (setters.length > 0) {
    return {
      reason: "seccompProfile",
      detail: `${setters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badValues))}`,
      field,
    };
  }
  if (implicit.length === 0) return undefined;
  return {
    reason: "seccompProfile",
    detail: `pod or ${containersText(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
    field: implicitField,
  };
};

export const RESTRICTED_CHECKS: readonly Check[] = [
  {
    id: "allowPrivilegeEscalation",
    level: "restricted",
    versions: [
      { minimumMinor: 8, check: allowPrivilegeEscalation },
      { minimumMinor: 25, check: exemptWindows(allowPrivilegeEscalation) },
    ],
  },
  {
    id: "capabilities_restricted",
    level: "restricted",
    versions: [
      { minimumMinor: 22, check: capabilitiesRestricted, overrides: ["capabilities_baseline"] },
      { minimumMinor: 25, check: exemptWindows(capabilitiesRestricted), overrides: ["capabilities_baseline"] },
    ],
  },
  {
    id: "procMount_restricted",
    level: "restricted",
    // From v1.35 the baseline check lets user-namespace pods through; restricted keeps the unconditional one.
    versions: [{ minimumMinor: 35, check: procMountDefaultOnly, overrides: ["procMount"] }],
  },
  {
    id: "restrictedVolumes",
    level: "restricted",
    versions: [{ minimumMinor: 0, check: restrictedVolumes, overrides: ["hostPathVolumes"] }],
  },
  {
    id: "runAsNonRoot",
    level: "restricted",
    versions: [
      { minimumMinor: 0, check: runAsNonRoot },
      { minimumMinor: 35, check: exemptUserNamespace(runAsNonRoot) },
    ],
  },
  {
    id: "runAsUser",
    level: "restricted",
    versions: [
      { minimumMinor: 23, check: runAsUser },
      { minimumMinor: 35, check: exemptUserNamespace(runAsUser) },
    ],
  },
  {
    id: "seccompProfile_restricted",
    level: "restricted",
    versions: [
      { minimumMinor: 19, check: seccompProfileRestricted, overrides: ["seccompProfile_baseline"] },
      { minimumMinor: 25, check: exemptWindows(seccompProfileRestricted), overrides: ["seccompProfile_baseline"] },
    ],
  },
];
