/**
 * The PodSecurityConfiguration (`pod-security.admission.config.k8s.io/v1`; v1beta1 and v1alpha1 are read too, as
 * the library's scheme still decodes them), read as k8s.io/pod-security-admission admission/api reads it: strict
 * decoding (an unknown field is an error), the defaults (`privileged` and `latest` for every empty mode), validation
 * (levels, versions, exemptions: namespaces are DNS labels, runtime classes DNS subdomains, usernames not empty, no
 * duplicates) and the default policy. kube-apiserver also takes it embedded in an AdmissionConfiguration
 * (`apiserver.config.k8s.io/v1`, the `PodSecurity` plugin's `configuration`), which is read here as well.
 */
import { goQuote } from "../go/strconv.js";
import { isMapping } from "../objects/mapping.js";
import { isDNS1123Label, isDNS1123Subdomain } from "../objects/names.js";
import { type Level, type Parsed, type Policy, parseLevel, parseVersion, type Version } from "./levels.js";

export const CONFIG_GROUP = "pod-security.admission.config.k8s.io";
export const CONFIG_KIND = "PodSecurityConfiguration";
const CONFIG_VERSIONS = ["v1", "v1beta1", "v1alpha1"];

/** The configuration in force. */
export interface PodSecurityConfig {
  defaults: Policy;
  exemptions: {
    usernames: ReadonlySet<string>;
    namespaces: ReadonlySet<string>;
    runtimeClasses: ReadonlySet<string>;
  };
}

/** The configuration with no document: every mode privileged at latest, no exemptions. */
export function defaultConfig(): PodSecurityConfig {
  const lv = { level: "privileged" as Level, version: parseVersion("latest").value };
  return {
    defaults: { enforce: lv, audit: lv, warn: lv },
    exemptions: { usernames: new Set(), namespaces: new Set(), runtimeClasses: new Set() },
  };
}

/** One problem with the configuration document. */
export interface ConfigProblem {
  /** The field (`defaults.enforce`, `exemptions.namespaces[0]`). */
  path?: string;
  message: string;
}

export function isPodSecurityConfiguration(obj: Record<string, unknown>): boolean {
  if (obj.kind !== CONFIG_KIND || typeof obj.apiVersion !== "string") return false;
  const [group, version] = obj.apiVersion.split("/");
  return group === CONFIG_GROUP && version !== undefined && CONFIG_VERSIONS.includes(version);
}

/** The `PodSecurity` plugin entry of an AdmissionConfiguration, when it has one. */
export function podSecurityPluginOf(obj: Record<string, unknown>): Record<string, unknown> | undefined {
  if (obj.kind !== "AdmissionConfiguration") return undefined;
  if (obj.apiVersion !== "apiserver.config.k8s.io/v1" && obj.apiVersion !== "apiserver.k8s.io/v1alpha1")
    return undefined;
  if (!Array.isArray(obj.plugins)) return undefined;
  for (const p of obj.plugins) if (isMapping(p) && p.name === "PodSecurity") return p;
  return undefined;
}

const DEFAULT_FIELDS = ["enforce", "enforce-version", "audit", "audit-version", "warn", "warn-version"] as const;
const EXEMPTION_FIELDS = ["usernames", "namespaces", "runtimeClasses"] as const;

function goKind(value: unknown): string {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number" || typeof value === "bigint") return "number";
  return Array.isArray(value) ? "array" : "object";
}

/** Strict decoding: the unknown fields and the values of the wrong type. */
function decodeProblems(doc: Record<string, unknown>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const unknown = (path: string) =>
    problems.push({ path, message: `strict decoding error: unknown field ${goQuote(path)}` });
  const typeError = (path: string, value: unknown, goType: string) =>
    problems.push({
      path,
      message: `json: cannot unmarshal ${goKind(value)} into Go struct field PodSecurityConfiguration.${path} of type ${goType}`,
    });
  for (const key of Object.keys(doc)) if (!["apiVersion", "kind", "defaults", "exemptions"].includes(key)) unknown(key);
  const check = (section: "defaults" | "exemptions", fields: readonly string[], goType: string) => {
    const value = doc[section];
    if (value === undefined || value === null) return;
    if (!isMapping(value))
      return typeError(section, value, `v1.PodSecurity${section === "defaults" ? "Defaults" : "Exemptions"}`);
    for (const [k, v] of Object.entries(value)) {
      const path = `${section}.${k}`;
      if (!fields.includes(k)) unknown(path);
      else if (v === null) continue;
      else if (goType === "string" && typeof v !== "string") typeError(path, v, "string");
      else if (goType === "[]string") {
        if (!Array.isArray(v)) typeError(path, v, "[]string");
        else if (v.some((x) => x !== null && typeof x !== "string"))
          typeError(
            path,
            v.find((x) => typeof x !== "string"),
            "string",
          );
      }
    }
  };
  check("defaults", DEFAULT_FIELDS, "string");
  check("exemptions", EXEMPTION_FIELDS, "[]string");
  return problems;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.map((v) => (typeof v === "string" ? v : "")) : [];
}

/** Invalid and duplicate exemptions (validateNamespaces, validateRuntimeClasses, validateUsernames). */
function exemptionProblems(
  field: (typeof EXEMPTION_FIELDS)[number],
  values: readonly string[],
  check: (v: string) => string[],
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  for (const [i, v] of values.entries()) {
    const path = `exemptions.${field}[${i}]`;
    const errs = check(v);
    if (errs.length > 0) {
      problems.push({ path, message: `${path}: Invalid value: ${goQuote(v)}: ${errs.join(", ")}` });
    } else if (seen.has(v)) {
      problems.push({ path, message: `${path}: Duplicate value: ${goQuote(v)}` });
    } else seen.add(v);
  }
  return problems;
}

/**
 * Reads a PodSecurityConfiguration document: the configuration, or the problems that make it unusable (kube-apiserver
 * would not start with it).
 */
export function parsePodSecurityConfiguration(doc: Record<string, unknown>): {
  config?: PodSecurityConfig;
  problems: ConfigProblem[];
} {
  const problems = decodeProblems(doc);
  if (problems.length > 0) return { problems };
  const defaults = isMapping(doc.defaults) ? doc.defaults : {};
  const exemptions = isMapping(doc.exemptions) ? doc.exemptions : {};
  // SetDefaults_PodSecurityDefaults: an empty level is privileged, an empty version latest.
  const text = (k: (typeof DEFAULT_FIELDS)[number]) => {
    const v = typeof defaults[k] === "string" ? (defaults[k] as string) : "";
    return v !== "" ? v : k.endsWith("-version") ? "latest" : "privileged";
  };
  /** A default's value as parsed, recording why it is invalid when it is. */
  const checked = <T>(field: (typeof DEFAULT_FIELDS)[number], parse: (t: string) => Parsed<T>): T => {
    const p = parse(text(field));
    const path = `defaults.${field}`;
    if (p.error !== undefined)
      problems.push({ path, message: `${path}: Invalid value: ${goQuote(text(field))}: ${p.error}` });
    return p.value;
  };
  const levels: Partial<Record<string, Level>> = {};
  const versions: Partial<Record<string, Version>> = {};
  // ValidatePodSecurityConfiguration's order: enforce, warn, audit.
  for (const mode of ["enforce", "warn", "audit"] as const) {
    levels[mode] = checked(mode, parseLevel);
    versions[mode] = checked(`${mode}-version`, parseVersion);
  }
  const namespaces = stringList(exemptions.namespaces);
  const runtimeClasses = stringList(exemptions.runtimeClasses);
  const usernames = stringList(exemptions.usernames);
  problems.push(
    ...exemptionProblems("namespaces", namespaces, isDNS1123Label),
    ...exemptionProblems("runtimeClasses", runtimeClasses, isDNS1123Subdomain),
    ...exemptionProblems("usernames", usernames, (u) => (u === "" ? ["username must not be empty"] : [])),
  );
  if (problems.length > 0) return { problems };
  const lv = (mode: "enforce" | "audit" | "warn") => ({ level: levels[mode]!, version: versions[mode]! });
  return {
    config: {
      defaults: { enforce: lv("enforce"), audit: lv("audit"), warn: lv("warn") },
      exemptions: {
        usernames: new Set(usernames),
        namespaces: new Set(namespaces),
        runtimeClasses: new Set(runtimeClasses),
      },
    },
    problems,
  };
}
