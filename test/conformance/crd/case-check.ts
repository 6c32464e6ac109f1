/**
 * Runs one corpus case through a PolicySet and compares the Verdict with `expect.real` (Kubernetes 1.36.3).
 *
 * A case passes when (cases/README.md, "Kubernetes 1.36 results"):
 * - `Verdict.allowed` equals `expect.real.allowed`;
 * - `Verdict.errors` equal `expect.real.causes` as a multiset of (`type`, `field`, `message`), where
 *   "may not be longer than" counts as "may not be more than" (older servers' wording, accepted upstream);
 * - `Verdict.warningTexts` equal `expect.real.warnings` as a multiset (absent = empty);
 * - where `expect.real.defaulted` is given, `Verdict.object` equals it, ignoring server-set metadata.
 */
import type { PolicyFailure, PolicySet, ValidateRequest, Verdict } from "#lib";
import type { CorpusCause, CrdCase } from "../corpus.js";
import type { CrdLoader } from "./crd-loader.js";

/** One way a Verdict differs from `expect.real`. */
export type Difference =
  | { kind: "load-error"; text: string }
  | { kind: "threw"; text: string }
  | { kind: "not-covered"; text: string }
  | { kind: "allowed"; want: boolean; got: boolean }
  | { kind: "missing-cause"; cause: CorpusCause }
  | { kind: "extra-cause"; cause: CorpusCause }
  | { kind: "missing-warning"; text: string }
  | { kind: "extra-warning"; text: string }
  | { kind: "defaulted"; path: string; want: unknown; got: unknown };

export interface CaseOutcome {
  passed: boolean;
  differences: Difference[];
  verdict?: Verdict;
  /** Error-severity PolicyFailures of the bundle that concern the case's kind (or name no kind). */
  policyFailures: PolicyFailure[];
}

/** The admission request a case describes. */
export function requestOf(c: CrdCase): ValidateRequest {
  const req: ValidateRequest = { operation: c.operation, object: c.object };
  if (c.oldObject !== undefined) req.oldObject = c.oldObject;
  if (c.subresource !== undefined) req.subresource = c.subresource;
  return req;
}

export async function runCase(loader: CrdLoader, c: CrdCase): Promise<CaseOutcome> {
  let set: PolicySet;
  try {
    set = await loader.load(c.crd);
  } catch (err) {
    return { passed: false, differences: [{ kind: "load-error", text: errorText(err) }], policyFailures: [] };
  }
  const policyFailures = failuresFor(set, c.object);
  let verdict: Verdict;
  try {
    verdict = set.validate(requestOf(c));
  } catch (err) {
    return { passed: false, differences: [{ kind: "threw", text: errorText(err) }], policyFailures };
  }
  const differences = compareVerdict(c, verdict);
  return { passed: differences.length === 0, differences, verdict, policyFailures };
}

/** Every difference between a Verdict and the case's `expect.real`, most telling first. */
export function compareVerdict(c: CrdCase, verdict: Verdict): Difference[] {
  const real = c.expect.real;
  const out: Difference[] = [];
  if (!verdict.covered) {
    out.push({ kind: "not-covered", text: `${gvkText(c.object)} is not covered by ${c.crd}` });
  }
  const got = verdict.errors.map((e) => ({ type: e.type, field: e.field, message: e.message }));
  const causes = multisetDiff(real.causes, got, causeKey);
  for (const cause of causes.missing) out.push({ kind: "missing-cause", cause });
  for (const cause of causes.extra) out.push({ kind: "extra-cause", cause });
  if (verdict.allowed !== real.allowed) out.push({ kind: "allowed", want: real.allowed, got: verdict.allowed });
  const warnings = multisetDiff(real.warnings ?? [], verdict.warningTexts, normalizeMessage);
  for (const text of warnings.missing) out.push({ kind: "missing-warning", text });
  for (const text of warnings.extra) out.push({ kind: "extra-warning", text });
  if (real.defaulted !== undefined) {
    const at = firstDifference(stripServerMetadata(real.defaulted), stripServerMetadata(verdict.object), "");
    if (at !== null) out.push({ kind: "defaulted", ...at, path: at.path === "" ? "<root>" : at.path });
  }
  return out;
}

/** The 1.36 wording is "may not be more than"; older servers said "may not be longer than". */
export function normalizeMessage(message: string): string {
  return message.replaceAll("may not be longer than", "may not be more than");
}

function causeKey(c: CorpusCause): string {
  return `${c.type}\u0000${c.field}\u0000${normalizeMessage(c.message)}`;
}

function multisetDiff<T>(want: readonly T[], got: readonly T[], key: (t: T) => string): { missing: T[]; extra: T[] } {
  const left = new Map<string, number>();
  for (const g of got) left.set(key(g), (left.get(key(g)) ?? 0) + 1);
  const missing: T[] = [];
  for (const w of want) {
    const k = key(w);
    const n = left.get(k) ?? 0;
    if (n > 0) left.set(k, n - 1);
    else missing.push(w);
  }
  const extra: T[] = [];
  for (const g of got) {
    const k = key(g);
    const n = left.get(k) ?? 0;
    if (n > 0) {
      left.set(k, n - 1);
      extra.push(g);
    }
  }
  return { missing, extra };
}

/** Metadata the server sets (cases/README.md, `expect.defaulted`): not part of the comparison. */
const SERVER_METADATA = new Set([
  "uid",
  "generation",
  "creationTimestamp",
  "resourceVersion",
  "managedFields",
  "selfLink",
  "generateName",
]);

export function stripServerMetadata(obj: unknown): unknown {
  if (!isRecord(obj) || !isRecord(obj.metadata)) return obj;
  const metadata: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj.metadata)) {
    if (!SERVER_METADATA.has(k) && !k.startsWith("deletion")) metadata[k] = v;
  }
  return { ...obj, metadata };
}

/** The first path (k8s text form) where two JSON values differ, or null when they are equal. */
export function firstDifference(
  want: unknown,
  got: unknown,
  path: string,
): { path: string; want: unknown; got: unknown } | null {
  if (Object.is(want, got)) return null;
  if (Array.isArray(want) && Array.isArray(got)) {
    const n = Math.max(want.length, got.length);
    for (let i = 0; i < n; i++) {
      if (i >= want.length || i >= got.length) return { path: `${path}[${i}]`, want: want[i], got: got[i] };
      const d = firstDifference(want[i], got[i], `${path}[${i}]`);
      if (d !== null) return d;
    }
    return null;
  }
  if (isRecord(want) && isRecord(got) && !Array.isArray(want) && !Array.isArray(got)) {
    const keys = [...new Set([...Object.keys(want), ...Object.keys(got)])].sort();
    for (const k of keys) {
      const sub = path === "" ? k : `${path}.${k}`;
      if (!(k in got)) return { path: sub, want: want[k], got: undefined };
      if (!(k in want)) return { path: sub, want: undefined, got: got[k] };
      const d = firstDifference(want[k], got[k], sub);
      if (d !== null) return d;
    }
    return null;
  }
  return { path, want, got };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

function failuresFor(set: PolicySet, object: unknown): PolicyFailure[] {
  const gvk = gvkText(object);
  return set.failures.filter((f) => f.severity === "error" && (f.kinds === undefined || f.kinds.includes(gvk)));
}

/** "<group>/<version>/<Kind>" of an object (the form PolicyFailure.kinds uses). */
export function gvkText(object: unknown): string {
  const o = isRecord(object) ? object : {};
  const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : "";
  const kind = typeof o.kind === "string" ? o.kind : "";
  const slash = apiVersion.lastIndexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return `${group}/${version}/${kind}`;
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

export function causeText(c: CorpusCause): string {
  return `${c.type} ${c.field}: ${c.message}`;
}

/** JSON text of a value for messages; `(absent)` for undefined. */
export function valueText(v: unknown): string {
  return v === undefined ? "(absent)" : (JSON.stringify(v) ?? String(v));
}

/** A readable account of every difference (the failure message of a conformance test). */
export function describeDifferences(outcome: CaseOutcome, limit = 12): string {
  const lines = outcome.differences.slice(0, limit).map(describeDifference);
  if (outcome.differences.length > limit) lines.push(`... and ${outcome.differences.length - limit} more`);
  for (const f of outcome.policyFailures.slice(0, 3)) {
    lines.push(`policy failure at load: ${f.path ?? ""} ${f.rule ?? ""} ${f.message}`.replace(/\s+/g, " "));
  }
  return lines.join("\n");
}

function describeDifference(d: Difference): string {
  switch (d.kind) {
    case "load-error":
      return `loadBundle failed: ${d.text}`;
    case "threw":
      return `validate threw: ${d.text}`;
    case "not-covered":
      return `not covered: ${d.text}`;
    case "allowed":
      return `allowed: want ${d.want}, got ${d.got}`;
    case "missing-cause":
      return `missing cause: ${causeText(d.cause)}`;
    case "extra-cause":
      return `extra cause:   ${causeText(d.cause)}`;
    case "missing-warning":
      return `missing warning: ${d.text}`;
    case "extra-warning":
      return `extra warning:   ${d.text}`;
    case "defaulted":
      return `defaulted object differs at ${d.path}: want ${valueText(d.want)}, got ${valueText(d.got)}`;
  }
}
