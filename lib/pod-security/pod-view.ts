/**
 * The part of a pod (or of a workload's pod template) the Pod Security checks read, taken from a decoded object
 * once per evaluation. The library reads typed corev1 objects: a value of the wrong JSON type could not have been
 * decoded, so reading one fails with a {@link PodDecodeError} worded as Go's encoding/json words it (the library
 * then answers "failed to decode object"). Only the fields the checks read are looked at.
 */
import { isMapping } from "../objects/mapping.js";

/** A value of the wrong type in a field a check reads. */
export class PodDecodeError extends Error {
  override readonly name = "PodDecodeError";
  /** The field, as a Kubernetes field path (`spec.containers[0].securityContext.privileged`). */
  readonly field: string;
  constructor(message: string, field: string) {
    super(message);
    this.field = field;
  }
}

export interface SELinuxView {
  type: string;
  user: string;
  role: string;
}

/** The security context fields shared by pods and containers. */
interface CommonSecurityContext {
  runAsNonRoot?: boolean;
  /** Whether runAsUser is set to 0 (the only value a check looks at); undefined when unset. */
  runAsUserZero?: boolean;
  seLinuxOptions?: SELinuxView;
  /** seccompProfile.type when seccompProfile is set ("" when it has no type). */
  seccompType?: string;
  /** appArmorProfile.type when appArmorProfile is set. */
  appArmorType?: string;
  /** windowsOptions.hostProcess. */
  hostProcess?: boolean;
}

export interface ContainerSecurityContext extends CommonSecurityContext {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  /** Set when `capabilities` is set. */
  capabilities?: { add: string[]; drop: string[] };
  procMount?: string;
}

export interface PodSecurityContext extends CommonSecurityContext {
  sysctls: string[];
}

/** A probe or lifecycle handler host (httpGet.host, tcpSocket.host) that is not empty. */
export interface HostField {
  host: string;
  /** Relative to the container: `livenessProbe.httpGet.host`. */
  field: string;
}

export type ContainerList = "initContainers" | "containers" | "ephemeralContainers";

export interface ContainerView {
  list: ContainerList;
  index: number;
  name: string;
  image: string;
  securityContext?: ContainerSecurityContext;
  /** Non-zero hostPorts with their port index. */
  hostPorts: { port: number; index: number }[];
  hosts: HostField[];
}

export interface VolumeView {
  name: string;
  /** The volume sources set, in the order of corev1.VolumeSource's fields (API validation allows one). */
  sources: string[];
}

export interface PodView {
  /** Where the pod spec is: `spec`, `spec.template.spec`, `spec.jobTemplate.spec.template.spec`. */
  specPath: string;
  /** Where the pod metadata is. */
  metadataPath: string;
  annotations: Readonly<Record<string, string>>;
  hostNetwork: boolean;
  hostPID: boolean;
  hostIPC: boolean;
  hostUsers?: boolean;
  /** spec.os.name == "windows". */
  windows: boolean;
  runtimeClassName?: string;
  securityContext?: PodSecurityContext;
  volumes: VolumeView[];
  /** Init containers, then containers, then ephemeral containers: the library's visit order. */
  containers: ContainerView[];
}

/**
 * corev1.VolumeSource's fields in declaration order, with the Go type each holds (for decode errors).
 */
const VOLUME_SOURCES: readonly (readonly [string, string])[] = [
  ["hostPath", "HostPathVolumeSource"],
  ["emptyDir", "EmptyDirVolumeSource"],
  ["gcePersistentDisk", "GCEPersistentDiskVolumeSource"],
  ["awsElasticBlockStore", "AWSElasticBlockStoreVolumeSource"],
  ["gitRepo", "GitRepoVolumeSource"],
  ["secret", "SecretVolumeSource"],
  ["nfs", "NFSVolumeSource"],
  ["iscsi", "ISCSIVolumeSource"],
  ["glusterfs", "GlusterfsVolumeSource"],
  ["persistentVolumeClaim", "PersistentVolumeClaimVolumeSource"],
  ["rbd", "RBDVolumeSource"],
  ["flexVolume", "FlexVolumeSource"],
  ["cinder", "CinderVolumeSource"],
  ["cephfs", "CephFSVolumeSource"],
  ["flocker", "FlockerVolumeSource"],
  ["downwardAPI", "DownwardAPIVolumeSource"],
  ["fc", "FCVolumeSource"],
  ["azureFile", "AzureFileVolumeSource"],
  ["configMap", "ConfigMapVolumeSource"],
  ["vsphereVolume", "VsphereVirtualDiskVolumeSource"],
  ["quobyte", "QuobyteVolumeSource"],
  ["azureDisk", "AzureDiskVolumeSource"],
  ["photonPersistentDisk", "PhotonPersistentDiskVolumeSource"],
  ["projected", "ProjectedVolumeSource"],
  ["portworxVolume", "PortworxVolumeSource"],
  ["scaleIO", "ScaleIOVolumeSource"],
  ["storageos", "StorageOSVolumeSource"],
  ["csi", "CSIVolumeSource"],
  ["ephemeral", "EphemeralVolumeSource"],
  ["image", "ImageVolumeSource"],
];

const PROBES = ["livenessProbe", "readinessProbe", "startupProbe"] as const;
const HANDLERS = ["postStart", "preStop"] as const;

/** Reads typed fields, remembering the JSON path (for Go's wording) and the field path (for findings). */
class Reader {
  constructor(
    /** JSON keys from the object's root, dot-separated, without indexes (Go's UnmarshalTypeError.Field). */
    readonly jsonPath: string,
    /** The Kubernetes field path, with indexes. */
    readonly fieldPath: string,
    /** The Go struct that holds the fields read here. */
    readonly goStruct: string,
    readonly obj: Record<string, unknown>,
  ) {}

  fail(key: string, value: unknown, goType: string): never {
    throw new PodDecodeError(
      `json: cannot unmarshal ${jsonKind(value, goType)} into Go struct field ${this.goStruct}.${join(this.jsonPath, key)} of type ${goType}`,
      join(this.fieldPath, key),
    );
  }

  bool(key: string): boolean | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "boolean") this.fail(key, v, "bool");
    return v;
  }

  string(key: string): string | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string") this.fail(key, v, "string");
    return v;
  }

  /** An integer field; `bits` 32 or 64. */
  integer(key: string, bits: 32 | 64): number | bigint | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    const goType = bits === 32 ? "int32" : "int64";
    if (typeof v === "bigint") {
      if (bits === 32) this.fail(key, v, goType);
      return v;
    }
    if (typeof v !== "number" || !Number.isInteger(v)) this.fail(key, v, goType);
    if (bits === 32 && (v < -(2 ** 31) || v > 2 ** 31 - 1)) this.fail(key, v, goType);
    if (bits === 64 && !Number.isSafeInteger(v)) this.fail(key, v, goType);
    return v;
  }

  /** A nested struct; undefined when absent or null. */
  struct(key: string, struct: string): Reader | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (!isMapping(v)) this.fail(key, v, `v1.${struct}`);
    return new Reader(join(this.jsonPath, key), join(this.fieldPath, key), struct, v);
  }

  /** A list of structs (each element read by `each`). */
  structs<T>(key: string, struct: string, each: (r: Reader, index: number) => T): T[] {
    const v = this.obj[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(key, v, `[]v1.${struct}`);
    const out: T[] = [];
    const jsonPath = join(this.jsonPath, key);
    const fieldPath = join(this.fieldPath, key);
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      // Go decodes null into a zero struct.
      if (item !== null && !isMapping(item)) this.fail(key, item, `v1.${struct}`);
      out.push(each(new Reader(jsonPath, `${fieldPath}[${i}]`, struct, item ?? {}), i));
    }
    return out;
  }

  /** A list of strings of the Go type `goType` (null elements read as ""). */
  strings(key: string, goType: string): string[] {
    const v = this.obj[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(key, v, `[]${goType}`);
    const out: string[] = [];
    for (const item of v) {
      if (item === null) out.push("");
      else if (typeof item !== "string") this.fail(key, item, goType);
      else out.push(item);
    }
    return out;
  }

  /** A map[string]string. */
  stringMap(key: string): Record<string, string> {
    const v = this.obj[key];
    if (v === undefined || v === null) return {};
    if (!isMapping(v)) this.fail(key, v, "map[string]string");
    for (const item of Object.values(v)) {
      if (item !== null && typeof item !== "string") this.fail(key, item, "string");
    }
    return v as Record<string, string>;
  }
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

/** How Go's UnmarshalTypeError names the JSON value. */
export function jsonKind(value: unknown, goType: string): string {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" || typeof value === "bigint") {
    // A number that does not fit an integer type is named with its literal.
    return goType.startsWith("int") ? `number ${String(value)}` : "number";
  }
  return "object";
}

function seLinux(r: Reader | undefined): SELinuxView | undefined {
  if (r === undefined) return undefined;
  return { type: r.string("type") ?? "", user: r.string("user") ?? "", role: r.string("role") ?? "" };
}

function readCommon(r: Reader, out: CommonSecurityContext): void {
  const runAsNonRoot = r.bool("runAsNonRoot");
  if (runAsNonRoot !== undefined) out.runAsNonRoot = runAsNonRoot;
  const runAsUser = r.integer("runAsUser", 64);
  if (runAsUser !== undefined) out.runAsUserZero = runAsUser === 0 || runAsUser === 0n;
  const se = seLinux(r.struct("seLinuxOptions", "SELinuxOptions"));
  if (se !== undefined) out.seLinuxOptions = se;
  const seccomp = r.struct("seccompProfile", "SeccompProfile");
  if (seccomp !== undefined) out.seccompType = seccomp.string("type") ?? "";
  const appArmor = r.struct("appArmorProfile", "AppArmorProfile");
  if (appArmor !== undefined) out.appArmorType = appArmor.string("type") ?? "";
  const hostProcess = r.struct("windowsOptions", "WindowsSecurityContextOptions")?.bool("hostProcess");
  if (hostProcess !== undefined) out.hostProcess = hostProcess;
}

function containerSecurityContext(r: Reader): ContainerSecurityContext {
  const out: ContainerSecurityContext = {};
  const privileged = r.bool("privileged");
  if (privileged !== undefined) out.privileged = privileged;
  const ape = r.bool("allowPrivilegeEscalation");
  if (ape !== undefined) out.allowPrivilegeEscalation = ape;
  const caps = r.struct("capabilities", "Capabilities");
  if (caps !== undefined)
    out.capabilities = { add: caps.strings("add", "v1.Capability"), drop: caps.strings("drop", "v1.Capability") };
  const procMount = r.string("procMount");
  if (procMount !== undefined) out.procMount = procMount;
  readCommon(r, out);
  return out;
}

/** Non-empty hosts of an httpGet or tcpSocket handler. */
function handlerHosts(r: Reader | undefined, prefix: string, out: HostField[]): void {
  if (r === undefined) return;
  for (const [key, struct] of [
    ["httpGet", "HTTPGetAction"],
    ["tcpSocket", "TCPSocketAction"],
  ] as const) {
    const host = r.struct(key, struct)?.string("host");
    if (host !== undefined && host !== "") out.push({ host, field: `${prefix}.${key}.host` });
  }
}

function container(r: Reader, list: ContainerList, index: number): ContainerView {
  const view: ContainerView = {
    list,
    index,
    name: r.string("name") ?? "",
    image: r.string("image") ?? "",
    hostPorts: [],
    hosts: [],
  };
  const sc = r.struct("securityContext", "SecurityContext");
  if (sc !== undefined) view.securityContext = containerSecurityContext(sc);
  r.structs("ports", "ContainerPort", (p, i) => {
    const port = p.integer("hostPort", 32);
    if (port !== undefined && port !== 0) view.hostPorts.push({ port: Number(port), index: i });
  });
  for (const probe of PROBES) handlerHosts(r.struct(probe, "Probe"), probe, view.hosts);
  const lifecycle = r.struct("lifecycle", "Lifecycle");
  if (lifecycle !== undefined) {
    for (const h of HANDLERS) handlerHosts(lifecycle.struct(h, "LifecycleHandler"), `lifecycle.${h}`, view.hosts);
  }
  return view;
}

function volume(r: Reader): VolumeView {
  const sources: string[] = [];
  for (const [key, struct] of VOLUME_SOURCES) {
    if (r.struct(key, struct) !== undefined) sources.push(key);
  }
  // A volume without a source is defaulted to an emptyDir (corev1 SetDefaults_Volume) before admission sees it.
  if (sources.length === 0) sources.push("emptyDir");
  return { name: r.string("name") ?? "", sources };
}

/** Reads the pod metadata and spec (either may be absent: an empty pod). */
function readPod(
  metadata: Reader | undefined,
  spec: Reader | undefined,
  specPath: string,
  metadataPath: string,
): PodView {
  const metaReader = metadata ?? new Reader(metadataPath, metadataPath, "ObjectMeta", {});
  const specReader = spec ?? new Reader(specPath, specPath, "PodSpec", {});
  const view: PodView = {
    specPath,
    metadataPath,
    annotations: metaReader.stringMap("annotations"),
    hostNetwork: specReader.bool("hostNetwork") === true,
    hostPID: specReader.bool("hostPID") === true,
    hostIPC: specReader.bool("hostIPC") === true,
    windows: specReader.struct("os", "PodOS")?.string("name") === "windows",
    volumes: specReader.structs("volumes", "Volume", volume),
    containers: [],
  };
  const hostUsers = specReader.bool("hostUsers");
  if (hostUsers !== undefined) view.hostUsers = hostUsers;
  const runtimeClassName = specReader.string("runtimeClassName");
  if (runtimeClassName !== undefined) view.runtimeClassName = runtimeClassName;
  const sc = specReader.struct("securityContext", "PodSecurityContext");
  if (sc !== undefined) {
    const psc: PodSecurityContext = { sysctls: sc.structs("sysctls", "Sysctl", (s) => s.string("name") ?? "") };
    readCommon(sc, psc);
    view.securityContext = psc;
  }
  for (const list of ["initContainers", "containers", "ephemeralContainers"] as const) {
    const struct = list === "ephemeralContainers" ? "EphemeralContainer" : "Container";
    view.containers.push(...specReader.structs(list, struct, (r, i) => container(r, list, i)));
  }
  return view;
}

/** A pod template (corev1.PodTemplateSpec): its metadata and spec. */
function readTemplate(template: Reader | undefined, path: string): PodView {
  return readPod(
    template?.struct("metadata", "ObjectMeta"),
    template?.struct("spec", "PodSpec"),
    `${path}.spec`,
    `${path}.metadata`,
  );
}

/** The kinds whose objects hold a pod or a pod template, with the Go struct of their `spec`. */
export const POD_SPEC_KINDS: Readonly<Record<string, { group: string; specStruct: string }>> = {
  Pod: { group: "", specStruct: "PodSpec" },
  PodTemplate: { group: "", specStruct: "" },
  ReplicationController: { group: "", specStruct: "ReplicationControllerSpec" },
  ReplicaSet: { group: "apps", specStruct: "ReplicaSetSpec" },
  Deployment: { group: "apps", specStruct: "DeploymentSpec" },
  StatefulSet: { group: "apps", specStruct: "StatefulSetSpec" },
  DaemonSet: { group: "apps", specStruct: "DaemonSetSpec" },
  Job: { group: "batch", specStruct: "JobSpec" },
  CronJob: { group: "batch", specStruct: "CronJobSpec" },
};

/**
 * The pod of a Pod, or the pod template of a workload (the library's DefaultPodSpecExtractor): undefined when the
 * object has none (a ReplicationController without `spec.template`). Throws {@link PodDecodeError} for a value of
 * the wrong type in a field the checks read.
 */
export function readPodOf(object: Record<string, unknown>, kind: string): PodView | undefined {
  const root = new Reader("", "", kind, object);
  switch (kind) {
    case "Pod":
      return readPod(root.struct("metadata", "ObjectMeta"), root.struct("spec", "PodSpec"), "spec", "metadata");
    case "PodTemplate":
      return readTemplate(root.struct("template", "PodTemplateSpec"), "template");
    case "ReplicationController": {
      const template = root.struct("spec", "ReplicationControllerSpec")?.struct("template", "PodTemplateSpec");
      return template === undefined ? undefined : readTemplate(template, "spec.template");
    }
    case "CronJob": {
      const jobTemplate = root.struct("spec", "CronJobSpec")?.struct("jobTemplate", "JobTemplateSpec");
      const template = jobTemplate?.struct("spec", "JobSpec")?.struct("template", "PodTemplateSpec");
      return readTemplate(template, "spec.jobTemplate.spec.template");
    }
    default: {
      const info = POD_SPEC_KINDS[kind];
      if (info === undefined) return undefined;
      const template = root.struct("spec", info.specStruct)?.struct("template", "PodTemplateSpec");
      return readTemplate(template, "spec.template");
    }
  }
}
