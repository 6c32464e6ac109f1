/**
 * The `Waiver` document (`apiVersion: tollgate.dev/v1alpha1`, `kind: Waiver`): a governed exception to one policy,
 * kept where admins keep policies (the bundle, or the `--waivers` location), never taken from the audited objects.
 *
 * ```yaml
 * apiVersion: tollgate.dev/v1alpha1
 * kind: Waiver
 * metadata:
 *   name: checkout-replicas
 * spec:
 *   policy: widgets.demo.tollgate.dev     # the finding's policy (FieldError.source.policy), exactly
 *   rule: maximum                         # optional: the finding's rule, exactly
 *   kinds: [Widget]                       # optional globs on the object's kind
 *   namespaces: [shop]                    # optional globs on its namespace (a cluster-scoped object has none)
 *   names: [checkout, "checkout-*"]       # optional globs on its name
 *   field: spec.replicas                  # optional: this field and the fields under it
 *   reason: the load test needs 11 replicas until the new cache lands
 *   owner: team-shop
 *   expires: 2030-06-30T00:00:00Z         # RFC 3339, required
 *   ticket: SHOP-1234                     # optional
 * ```
 *
 * Parsing is strict: an unknown field (a misspelt `namespace:`) is an error naming it, so a waiver never waives more
 * than its author meant. Pure: no clock (expiry is judged by lib/waivers/match.ts against a given time).
 */
import { isMapping } from "../objects/mapping.js";

export const WAIVER_API_VERSION = "tollgate.dev/v1alpha1";
export const WAIVER_KIND = "Waiver";

/** A parsed waiver. Selectors absent (undefined) match anything; present, one of their globs must match. */
export interface Waiver {
  /** `metadata.name`: unique among the waivers in force. */
  name: string;
  /** The policy of the findings it waives (a CRD's name, `<level>:<version>` for Pod Security...). */
  policy: string;
  /** The rule (CEL text, OpenAPI keyword, Pod Security check id...); absent: every rule of the policy. */
  rule?: string;
  /** Globs on the object's kind (`Widget`, `Deploy*`). */
  kinds?: readonly string[];
  /** Globs on the object's namespace: a cluster-scoped object matches only a waiver without namespaces. */
  namespaces?: readonly string[];
  /** Globs on the object's name. */
  names?: readonly string[];
  /** A field path (`spec.replicas`): the field itself and every field under it (`spec.template` covers its containers). */
  field?: string;
  reason: string;
  owner: string;
  /** RFC 3339, as written. */
  expires: string;
  /** `expires` in milliseconds since the epoch. */
  expiresAt: number;
  ticket?: string;
  /** Where the waiver was read: the file (relative to the bundle or the `--waivers` location) and document. */
  file?: string;
  document?: number;
}

/** Whether a decoded object is a Waiver document (by apiVersion and kind). */
export function isWaiverDocument(obj: Record<string, unknown>): boolean {
  return obj.apiVersion === WAIVER_API_VERSION && obj.kind === WAIVER_KIND;
}

/** The most globs a selector holds, and the longest text of a glob, a policy, rule or field. */
const MAX_GLOBS = 100;
const MAX_TEXT = 4096;

const SPEC_FIELDS = new Set([
  "policy",
  "rule",
  "kinds",
  "namespaces",
  "names",
  "field",
  "reason",
  "owner",
  "expires",
  "ticket",
]);
const TOP_FIELDS = new Set(["apiVersion", "kind", "metadata", "spec"]);

/** RFC 3339 `date-time`: full date, `T`, full time with optional fraction, and `Z` or a numeric offset. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** Milliseconds since the epoch of an RFC 3339 date-time, or undefined when the text is not one. */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as number[];
  const days = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  const offsetOk = m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
  if (month! < 1 || month! > 12 || day! < 1 || day! > days || hour! > 23 || minute! > 59 || second! > 60) return;
  if (!offsetOk) return undefined;
  const ms = Date.parse(text.toUpperCase().replace(/:60(\.\d+)?/, ":59$1"));
  return Number.isNaN(ms) ? undefined : ms;
}

/** A waiver, or what is wrong with the document: each problem names its field (`spec.expires: ...`). */
export type ParsedWaiver = { waiver: Waiver; errors?: undefined } | { waiver?: undefined; errors: string[] };

/** Reads a Waiver document; `at` is where it was found (kept on the waiver for reports and lint). */
export function parseWaiver(obj: Record<string, unknown>, at: { file?: string; document?: number } = {}): ParsedWaiver {
  const errors: string[] = [];
  for (const k of Object.keys(obj)) if (!TOP_FIELDS.has(k)) errors.push(`${k}: Forbidden: unknown field`);
  const meta = isMapping(obj.metadata) ? obj.metadata : undefined;
  const name = meta?.name;
  if (typeof name !== "string" || name === "") errors.push("metadata.name: Required value: a waiver needs a name");
  else if (name.length > 253) errors.push("metadata.name: Too long: may not be more than 253 bytes");
  if (!isMapping(obj.spec)) {
    errors.push("spec: Required value: policy, reason, owner and expires are required");
    return { errors };
  }
  const spec = obj.spec;
  for (const k of Object.keys(spec)) if (!SPEC_FIELDS.has(k)) errors.push(`spec.${k}: Forbidden: unknown field`);
  const read = new SpecReader(spec, errors);
  const policy = read.text("policy", true);
  const reason = read.text("reason", true);
  const owner = read.text("owner", true);
  const expires = read.text("expires", true);
  let expiresAt: number | undefined;
  if (expires !== undefined) {
    expiresAt = parseRfc3339(expires);
    if (expiresAt === undefined) {
      errors.push(
        `spec.expires: Invalid value: ${JSON.stringify(expires)}: must be an RFC 3339 date-time (2026-12-31T00:00:00Z)`,
      );
    }
  }
  const waiver: Partial<Waiver> = { policy, reason, owner, expires, expiresAt };
  const rule = read.text("rule", false);
  if (rule !== undefined) waiver.rule = rule;
  const field = read.text("field", false);
  if (field !== undefined) waiver.field = field;
  const ticket = read.text("ticket", false);
  if (ticket !== undefined) waiver.ticket = ticket;
  for (const key of ["kinds", "namespaces", "names"] as const) {
    const globs = read.globs(key);
    if (globs !== undefined) waiver[key] = globs;
  }
  if (errors.length > 0) return { errors };
  waiver.name = name as string;
  if (at.file !== undefined) waiver.file = at.file;
  if (at.document !== undefined) waiver.document = at.document;
  return { waiver: waiver as Waiver };
}

/** Reads the fields of `spec`, recording what is wrong with each in `errors`. */
class SpecReader {
  constructor(
    private readonly spec: Record<string, unknown>,
    private readonly errors: string[],
  ) {}

  text(key: string, required: boolean): string | undefined {
    const v = this.spec[key];
    if (v === undefined || v === null) {
      if (required) this.errors.push(`spec.${key}: Required value`);
      return undefined;
    }
    if (typeof v !== "string") {
      this.errors.push(`spec.${key}: Invalid value: must be a string`);
      return undefined;
    }
    if (v.trim() === "") {
      this.errors.push(`spec.${key}: Required value: must not be empty`);
      return undefined;
    }
    if (v.length > MAX_TEXT) {
      this.errors.push(`spec.${key}: Too long: may not be more than ${MAX_TEXT} characters`);
      return undefined;
    }
    return v;
  }

  globs(key: string): string[] | undefined {
    const v = this.spec[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.length === 0) {
      this.errors.push(`spec.${key}: Invalid value: must be a non-empty list of globs (leave it out to match any)`);
      return undefined;
    }
    if (v.length > MAX_GLOBS) {
      this.errors.push(`spec.${key}: Too many: ${v.length}: must have at most ${MAX_GLOBS} items`);
      return undefined;
    }
    const out: string[] = [];
    for (const [i, g] of v.entries()) {
      if (typeof g !== "string" || g === "") this.errors.push(`spec.${key}[${i}]: Invalid value: must be a glob`);
      else if (g.length > 253) this.errors.push(`spec.${key}[${i}]: Too long: may not be more than 253 characters`);
      else out.push(g);
    }
    return out.length === v.length ? out : undefined;
  }
}
