/**
 * The declarative-validation corpus (`<corpus>/cases/declarative/cases.json`, Go types in
 * `<corpus>/declarative/types/`) and how a Verdict is compared with a case (format: `<corpus>/declarative/README.md`).
 *
 * A case passes when `Verdict.errors` equal `expect.errors` and `Verdict.shadowed` equal `expect.shadowed`, each as
 * a multiset over: `type`, `field`, `origin` ("" = none), `detail` (exact) or `detailContains` (substring), and
 * `level` (`alpha`/`beta`, absent = a standard rule). tollgate names the tag behind every declarative error in
 * `source.rule`, wrappers included (`+k8s:beta=+k8s:maxItems=4`), so the level is the rule's lifecycle prefix.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { FieldError, PolicySet, ValidateRequest, Verdict } from "#lib";

export interface ExpectedError {
  type: string;
  field: string;
  origin: string;
  detail?: string;
  detailContains?: string;
  level?: "alpha" | "beta";
}

export interface DeclarativeCase {
  name: string;
  why?: string;
  note?: string;
  /** The package folder, relative to `<corpus>/declarative/`. */
  types: string;
  kind: string;
  operation: "CREATE" | "UPDATE";
  object: Record<string, unknown>;
  oldObject?: Record<string, unknown>;
  options?: { enabled?: string[]; DeclarativeValidationBeta?: boolean };
  subresource?: string;
  expect: { errors?: ExpectedError[]; shadowed?: ExpectedError[] };
}

/** Reads cases.json in place; throws on a missing file or a malformed case. */
export function readDeclarativeCases(corpusRoot: string): DeclarativeCase[] {
  const file = join(corpusRoot, "cases", "declarative", "cases.json");
  const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
  if (!Array.isArray(parsed)) throw new Error(`Conformance corpus: ${file} is not a JSON array of cases`);
  parsed.forEach((c: Partial<DeclarativeCase> | null, i) => {
    const ok =
      c !== null &&
      typeof c === "object" &&
      typeof c.name === "string" &&
      typeof c.types === "string" &&
      typeof c.kind === "string" &&
      (c.operation === "CREATE" || c.operation === "UPDATE") &&
      typeof c.object === "object" &&
      c.expect !== undefined;
    if (!ok) throw new Error(`Conformance corpus: ${file}[${i}] is not a declarative case`);
  });
  return parsed as DeclarativeCase[];
}

/** A case's options as the bundle's feature gates: listed options on, the others off; the Beta gate as given. */
export function featureGatesOf(c: DeclarativeCase): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const name of c.options?.enabled ?? []) gates[name] = true;
  if (c.options?.DeclarativeValidationBeta !== undefined)
    gates.DeclarativeValidationBeta = c.options.DeclarativeValidationBeta;
  return gates;
}

export function requestOf(c: DeclarativeCase): ValidateRequest {
  const req: ValidateRequest = { operation: c.operation, object: c.object };
  if (c.oldObject !== undefined) req.oldObject = c.oldObject;
  if (c.subresource !== undefined) req.subresource = c.subresource;
  return req;
}

/** An error as the corpus describes errors. */
export interface SeenError {
  type: string;
  field: string;
  origin: string;
  detail: string;
  level: "alpha" | "beta" | undefined;
}

export function seen(e: FieldError): SeenError {
  const level = /^\+k8s:(alpha|beta)\b/.exec(e.source.rule ?? "")?.[1] as "alpha" | "beta" | undefined;
  return { type: e.type, field: e.field, origin: e.origin ?? "", detail: e.detail, level };
}

function matches(w: ExpectedError, g: SeenError): boolean {
  return (
    w.type === g.type &&
    w.field === g.field &&
    w.origin === g.origin &&
    (w.detail === undefined || w.detail === g.detail) &&
    (w.detailContains === undefined || g.detail.includes(w.detailContains)) &&
    w.level === g.level
  );
}

export interface Difference {
  list: "errors" | "shadowed";
  kind: "missing" | "extra";
  text: string;
}

function describe(e: ExpectedError | SeenError): string {
  const detail =
    "detailContains" in e && e.detailContains !== undefined
      ? `~${JSON.stringify(e.detailContains)}`
      : JSON.stringify(e.detail ?? "");
  return `${e.type} ${e.field} origin=${JSON.stringify(e.origin)} detail=${detail}${e.level ? ` level=${e.level}` : ""}`;
}

/** Multiset comparison of one list. */
function compareList(list: Difference["list"], want: ExpectedError[], got: SeenError[], out: Difference[]): void {
  const left = [...got];
  for (const w of want) {
    const i = left.findIndex((g) => matches(w, g));
    if (i === -1) out.push({ list, kind: "missing", text: describe(w) });
    else left.splice(i, 1);
  }
  for (const g of left) out.push({ list, kind: "extra", text: describe(g) });
}

export function compareVerdict(c: DeclarativeCase, v: Verdict): Difference[] {
  const out: Difference[] = [];
  compareList("errors", c.expect.errors ?? [], v.errors.map(seen), out);
  compareList("shadowed", c.expect.shadowed ?? [], v.shadowed.map(seen), out);
  return out;
}

export interface CaseOutcome {
  passed: boolean;
  differences: Difference[];
  threw?: string;
}

export function runCase(set: PolicySet, c: DeclarativeCase): CaseOutcome {
  let v: Verdict;
  try {
    v = set.validate(requestOf(c));
  } catch (e) {
    const threw = e instanceof Error ? e.message : String(e);
    return { passed: false, differences: [], threw };
  }
  const differences = compareVerdict(c, v);
  if (!v.covered) differences.push({ list: "errors", kind: "missing", text: `the bundle does not cover ${c.kind}` });
  return { passed: differences.length === 0, differences };
}

/** want/got texts for known-failures.yaml and failure messages. */
export function summarize(o: CaseOutcome): { want: string; got: string } {
  if (o.threw !== undefined) return { want: "a verdict", got: `threw: ${o.threw}` };
  const want = o.differences.filter((d) => d.kind === "missing").map((d) => `${d.list}: ${d.text}`);
  const got = o.differences.filter((d) => d.kind === "extra").map((d) => `${d.list}: ${d.text}`);
  return { want: want.join("; ") || "nothing more", got: got.join("; ") || "nothing more" };
}
