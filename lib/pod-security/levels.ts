/**
 * Pod Security levels, policy versions and the namespace policy (k8s.io/pod-security-admission api/helpers.go,
 * api/constants.go): how a level and a version are parsed, how the namespace labels resolve to the enforce, audit
 * and warn level-versions over the configured defaults, and how two policies compare.
 */

export type Level = "privileged" | "baseline" | "restricted";

export const LEVELS: readonly Level[] = ["privileged", "baseline", "restricted"];

/**
 * A policy version: `v1.<minor>` or `latest`. `minor` of `latest` is Infinity (newer than any version, as the
 * library's Version.Older treats it). `text` is Version.String(): `latest` or `v1.<minor>` as parsed (the minor has
 * no leading zeros, so equal texts are equal versions, even for a minor too large for a double).
 */
export interface Version {
  readonly latest: boolean;
  readonly minor: number;
  readonly text: string;
}

export interface LevelVersion {
  readonly level: Level;
  readonly version: Version;
}

/** The policy of a namespace: one level-version per mode. */
export interface Policy {
  readonly enforce: LevelVersion;
  readonly audit: LevelVersion;
  readonly warn: LevelVersion;
}

export const LATEST: Version = Object.freeze({ latest: true, minor: Number.POSITIVE_INFINITY, text: "latest" });

const LABEL_PREFIX = "pod-security.kubernetes.io/";

/** The namespace labels and the audit annotation keys (unprefixed; the in-tree plugin prefixes them). */
export const LABELS = Object.freeze({
  enforce: `${LABEL_PREFIX}enforce`,
  enforceVersion: `${LABEL_PREFIX}enforce-version`,
  audit: `${LABEL_PREFIX}audit`,
  auditVersion: `${LABEL_PREFIX}audit-version`,
  warn: `${LABEL_PREFIX}warn`,
  warnVersion: `${LABEL_PREFIX}warn-version`,
});

/** The prefix kube-apiserver's PodSecurity plugin puts before the library's audit annotation keys. */
export const AUDIT_ANNOTATION_PREFIX = LABEL_PREFIX;

export const ANNOTATION_KEYS = Object.freeze({
  exempt: "exempt",
  auditViolations: "audit-violations",
  enforcePolicy: "enforce-policy",
  error: "error",
});

export function version(minor: number): Version {
  return { latest: false, minor, text: `v1.${minor}` };
}

/** `<level>:<version>`, as LevelVersion.String() prints it. */
export function policyName(lv: LevelVersion): string {
  return `${lv.level}:${lv.version.text}`;
}

/** Version.Older: `latest` is never older; every version is older than `latest`. */
export function isOlder(a: Version, b: Version): boolean {
  if (a.latest) return false;
  if (b.latest) return true;
  return a.minor < b.minor;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && a.version.text === b.version.text;
}

const LEVEL_ERROR = "must be one of privileged, baseline, restricted";
const VERSION_ERROR = 'must be "latest" or "v1.x"';

export type Parsed<T> = { value: T; error?: undefined } | { value: T; error: string };

/** ParseLevel: an unknown level reads as `restricted`, with an error. */
export function parseLevel(text: string): Parsed<Level> {
  if (text === "privileged" || text === "baseline" || text === "restricted") return { value: text };
  return { value: "restricted", error: LEVEL_ERROR };
}

const VERSION_RE = /^v1\.([0-9]|[1-9][0-9]*)$/;
/** Go's strconv.Atoi on a 64-bit build: the largest minor that parses. */
const MAX_INT64 = 9223372036854775807n;

/** ParseVersion: `latest` or `v1.<n>` (no leading zeros); anything else reads as `latest`, with an error. */
export function parseVersion(text: string): Parsed<Version> {
  if (text === "latest") return { value: LATEST };
  const m = VERSION_RE.exec(text);
  if (m === null || BigInt(m[1]!) > MAX_INT64) return { value: LATEST, error: VERSION_ERROR };
  // A minor beyond the checks' newest version evaluates as the newest (the evaluator caps it), so a minor too large
  // for a double loses nothing: its text is kept for messages.
  return { value: { latest: false, minor: Number(m[1]), text } };
}

/** CompareLevels: -1, 0 or 1 by strictness. */
export function compareLevels(a: Level, b: Level): number {
  if (a === b) return 0;
  return LEVELS.indexOf(a) < LEVELS.indexOf(b) ? -1 : 1;
}

/** A problem with one namespace label: field.Invalid at `metadata.labels[<label>]`. */
export interface LabelError {
  label: string;
  value: string;
  detail: string;
}

/**
 * PolicyToEvaluate: the namespace's labels over the defaults. An invalid enforce level reads as `restricted`
 * (fail closed); invalid audit and warn levels as `privileged` (fail open); an invalid version as `latest`. When
 * enforce is set explicitly (and valid) to a level stricter than warn and no warn level is set, warn follows it
 * (its version too, unless a warn version is set). A valid policy is always returned with the label errors.
 */
export function policyToEvaluate(
  labels: Readonly<Record<string, string>> | undefined,
  defaults: Policy,
): { policy: Policy; errors: LabelError[] } {
  const errors: LabelError[] = [];
  if (labels === undefined || Object.keys(labels).length === 0) return { policy: defaults, errors };
  let { enforce, audit, warn } = defaults;
  const has = (label: string) => Object.hasOwn(labels, label);
  const level = (label: string, failOpen: boolean): Level => {
    const value = labels[label]!;
    const p = parseLevel(value);
    if (p.error === undefined) return p.value;
    errors.push({ label, value, detail: p.error });
    return failOpen ? "privileged" : p.value;
  };
  const ver = (label: string): Version => {
    const value = labels[label]!;
    const p = parseVersion(value);
    if (p.error !== undefined) errors.push({ label, value, detail: p.error });
    return p.value;
  };
  let hasEnforceLevel = false;
  if (has(LABELS.enforce)) {
    const before = errors.length;
    enforce = { ...enforce, level: level(LABELS.enforce, false) };
    hasEnforceLevel = errors.length === before;
  }
  if (has(LABELS.enforceVersion)) enforce = { ...enforce, version: ver(LABELS.enforceVersion) };
  if (has(LABELS.audit)) audit = { ...audit, level: level(LABELS.audit, true) };
  if (has(LABELS.auditVersion)) audit = { ...audit, version: ver(LABELS.auditVersion) };
  const hasWarnLevel = has(LABELS.warn);
  const hasWarnVersion = has(LABELS.warnVersion);
  if (hasWarnLevel) warn = { ...warn, level: level(LABELS.warn, true) };
  if (hasWarnVersion) warn = { ...warn, version: ver(LABELS.warnVersion) };
  if (!hasWarnLevel && hasEnforceLevel && compareLevels(enforce.level, warn.level) > 0) {
    warn = hasWarnVersion ? { ...warn, level: enforce.level } : { level: enforce.level, version: enforce.version };
  }
  return { policy: { enforce, audit, warn }, errors };
}

/** LevelVersion.Equivalent: both privileged, or the same level and version. */
export function equivalentLevelVersions(a: LevelVersion, b: LevelVersion): boolean {
  return (a.level === "privileged" && b.level === "privileged") || sameLevelVersion(a, b);
}

export function equivalentPolicies(a: Policy, b: Policy): boolean {
  return (
    equivalentLevelVersions(a.enforce, b.enforce) &&
    equivalentLevelVersions(a.audit, b.audit) &&
    equivalentLevelVersions(a.warn, b.warn)
  );
}

export function isFullyPrivileged(p: Policy): boolean {
  return p.enforce.level === "privileged" && p.audit.level === "privileged" && p.warn.level === "privileged";
}
