/**
 * Which waiver covers a result, at a given time: the one place the auditor (a finding per field error) and the
 * webhook (a verdict's errors) apply waivers, after validation and never inside it. The time is the caller's (the
 * audit's start, the webhook's clock), so the engine reads no clock and tests pass a fixed one.
 *
 * A waiver covers a field error when its policy (and rule, when it names one) are the error's, its globs match the
 * object's kind, namespace and name, and its field is the error's field or a parent of it. An expired waiver (its
 * `expires` at or before the time) waives nothing: the match says so, so each result it used to cover can say so
 * too. Errors about tollgate itself and internal errors (a policy that failed to compile, an evaluation that could
 * not finish, a deadline) are never waived: they say nothing about the object, and the webhook stays fail-closed.
 */
import picomatch from "picomatch";
import type { FieldError } from "../field/error.js";
import { isMapping } from "../objects/mapping.js";
import type { ValidateRequest, Verdict } from "../policy/types.js";
import type { Waiver } from "./waiver.js";

/** The object a result is about: its kind, namespace (none when cluster-scoped) and name. */
export interface WaiverTarget {
  kind: string;
  namespace?: string;
  name: string;
}

/** A waiver that covers a result, and whether it has expired (then it waives nothing). */
export interface WaiverMatch {
  waiver: Waiver;
  expired: boolean;
}

/** Waivers compiled for matching at one time. */
export interface WaiverMatcher {
  readonly waivers: readonly Waiver[];
  /** The time expiry is judged at, in milliseconds since the epoch. */
  readonly now: number;
  /** The first active waiver covering the error, else the first expired one, else undefined. */
  match(error: FieldError, target: WaiverTarget): WaiverMatch | undefined;
}

/** Whether a waiver can ever cover this error (never internal errors, never tollgate's own). */
export function isWaivable(error: FieldError): boolean {
  return error.type !== "InternalError" && error.source.kind !== "tollgate";
}

type Glob = (text: string) => boolean;

/** Globs: `*`, `?`, `[a-z]` and `{a,b}`; extglobs (`@(a|b)`) are off, so a pattern stays a plain, bounded match. */
function globs(patterns: readonly string[] | undefined): Glob | undefined {
  if (patterns === undefined) return undefined;
  return picomatch([...patterns], { dot: true, noextglob: true });
}

/** Whether `field` is `parent` or a field under it (`spec.template` covers `spec.template.spec.containers[0]`). */
export function fieldCovers(parent: string, field: string): boolean {
  if (field === parent) return true;
  if (!field.startsWith(parent)) return false;
  const next = field[parent.length];
  return next === "." || next === "[";
}

export function compileWaivers(waivers: readonly Waiver[], now: Date | number): WaiverMatcher {
  const at = typeof now === "number" ? now : now.getTime();
  const byPolicy = new Map<string, { waiver: Waiver; kinds?: Glob; namespaces?: Glob; names?: Glob }[]>();
  for (const waiver of waivers) {
    const list = byPolicy.get(waiver.policy) ?? [];
    const entry: { waiver: Waiver; kinds?: Glob; namespaces?: Glob; names?: Glob } = { waiver };
    const kinds = globs(waiver.kinds);
    if (kinds !== undefined) entry.kinds = kinds;
    const namespaces = globs(waiver.namespaces);
    if (namespaces !== undefined) entry.namespaces = namespaces;
    const names = globs(waiver.names);
    if (names !== undefined) entry.names = names;
    list.push(entry);
    byPolicy.set(waiver.policy, list);
  }
  return {
    waivers,
    now: at,
    match(error, target) {
      const candidates = byPolicy.get(error.source.policy);
      if (candidates === undefined || !isWaivable(error)) return undefined;
      let expired: Waiver | undefined;
      for (const c of candidates) {
        const w = c.waiver;
        if (w.rule !== undefined && w.rule !== error.source.rule) continue;
        if (w.field !== undefined && !fieldCovers(w.field, error.field)) continue;
        if (c.kinds !== undefined && !c.kinds(target.kind)) continue;
        if (c.namespaces !== undefined && (target.namespace === undefined || !c.namespaces(target.namespace))) continue;
        if (c.names !== undefined && !c.names(target.name)) continue;
        if (w.expiresAt > at) return { waiver: w, expired: false };
        expired ??= w;
      }
      return expired === undefined ? undefined : { waiver: expired, expired: true };
    },
  };
}

/** The standing of a waiver at a time: expired, expiring within the warning window, or active. */
export type WaiverStanding = "active" | "expiring" | "expired";

/** `warnDays`: a waiver expiring within this many days of `now` is `expiring`. */
export function waiverStanding(waiver: Waiver, now: number, warnDays: number): WaiverStanding {
  if (waiver.expiresAt <= now) return "expired";
  return waiver.expiresAt - now <= warnDays * 86_400_000 ? "expiring" : "active";
}

/** The object a request is about: the request's kind, namespace and name, else the object's (the old one for a DELETE). */
export function waiverTargetOf(req: ValidateRequest): WaiverTarget {
  const obj = isMapping(req.object) ? req.object : isMapping(req.oldObject) ? req.oldObject : {};
  const meta = isMapping(obj.metadata) ? obj.metadata : {};
  const namespace = req.namespace ?? (typeof meta.namespace === "string" ? meta.namespace : "");
  const target: WaiverTarget = {
    kind: req.kind?.kind ?? (typeof obj.kind === "string" ? obj.kind : ""),
    name: req.name ?? (typeof meta.name === "string" ? meta.name : ""),
  };
  if (namespace !== "") target.namespace = namespace;
  return target;
}

/** A verdict after waivers: what was waived (by which waiver), and what an expired waiver no longer covers. */
export interface WaivedVerdict {
  verdict: Verdict;
  waived: { error: FieldError; waiver: Waiver }[];
  expired: { error: FieldError; waiver: Waiver }[];
}

/**
 * Applies waivers to an admission verdict (the webhook's answer): a request denied only by errors that active
 * waivers cover is allowed, with a warning per waived error naming the waiver, its owner and its expiry. Anything
 * else is left as it is: a denial with one error no active waiver covers stays a denial (with every error, waived or
 * not, as the API server would list them), and a denial without field errors (an admission plugin's own Status with
 * no causes) is never waived. Each error an expired waiver matched gets a warning saying the waiver has expired.
 */
export function waiveVerdict(verdict: Verdict, matcher: WaiverMatcher, target: WaiverTarget): WaivedVerdict {
  const out: WaivedVerdict = { verdict, waived: [], expired: [] };
  if (verdict.allowed || verdict.errors.length === 0 || matcher.waivers.length === 0) return out;
  let allWaived = true;
  for (const error of verdict.errors) {
    const m = matcher.match(error, target);
    if (m === undefined) allWaived = false;
    else if (m.expired) {
      allWaived = false;
      out.expired.push({ error, waiver: m.waiver });
    } else out.waived.push({ error, waiver: m.waiver });
  }
  const expiredTexts = out.expired.map(
    ({ error, waiver }) =>
      `waiver ${waiver.name} expired at ${waiver.expires} and no longer waives ${error.field}: ${error.message}`,
  );
  if (!allWaived) {
    out.waived = [];
    if (expiredTexts.length > 0) out.verdict = { ...verdict, warningTexts: [...verdict.warningTexts, ...expiredTexts] };
    return out;
  }
  const waivedTexts = out.waived.map(
    ({ error, waiver }) =>
      `waived by ${waiver.name} (owner ${waiver.owner}, expires ${waiver.expires}): ${error.field}: ${error.message}`,
  );
  const { status: _status, ...rest } = verdict;
  out.verdict = { ...rest, allowed: true, errors: [], warningTexts: [...verdict.warningTexts, ...waivedTexts] };
  return out;
}
