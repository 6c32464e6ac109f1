/**
 * The shared conformance corpus, read in place (never copied into the repository).
 *
 * The corpus root is `$TOLLGATE_CORPUS`, resolved against the repository root, and defaults to `../shared/corpus`
 * relative to the repository root. It holds `cases/` (see its README.md) and `crds/` (see crds/INVENTORY.md).
 * This is the one file under test/ that reads the environment.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The projects whose cases carry `expect.real` (the Kubernetes 1.36.3 outcome) and are checked against CRDs. */
export const CRD_CASE_PROJECTS = ["gateway-api", "network-policy-api", "openshift-api"] as const;

/** One `details.causes[]` entry of a 422 `Invalid` Status. */
export interface CorpusCause {
  type: string;
  field: string;
  message: string;
}

/** `expect.real`: what kube-apiserver 1.36.3 answered. Authoritative. */
export interface RealOutcome {
  allowed: boolean;
  causes: CorpusCause[];
  warnings?: string[];
  message?: string;
  defaulted?: unknown;
}

/** One case of `cases/{gateway-api,network-policy-api,openshift-api}/*.json`. */
export interface CrdCase {
  name: string;
  /** Relative to `<corpus>/crds/`. */
  crd: string;
  operation: "CREATE" | "UPDATE";
  subresource?: "status";
  object: unknown;
  oldObject?: unknown;
  expect: { real: RealOutcome; valid?: boolean; errorsContain?: string[]; upstreamDisagrees?: string };
  source?: Record<string, unknown>;
}

export interface CaseFile {
  /** Relative to `<corpus>/cases/`, with forward slashes: `gateway-api/httproute.json`. */
  file: string;
  cases: CrdCase[];
}

/**
 * The corpus root: `$TOLLGATE_CORPUS` or `../shared/corpus`, both relative to the repository root.
 * Throws a descriptive error when the folder (or its `cases/` and `crds/`) is missing, so a missing corpus never
 * looks like a run with zero cases.
 */
export function resolveCorpusRoot(): string {
  const fromEnv = process.env.TOLLGATE_CORPUS;
  const root = resolve(REPO_ROOT, fromEnv !== undefined && fromEnv !== "" ? fromEnv : "../shared/corpus");
  const origin =
    fromEnv !== undefined && fromEnv !== ""
      ? `TOLLGATE_CORPUS=${fromEnv}`
      : "the default ../shared/corpus (relative to the repository root)";
  for (const sub of ["cases", "crds"]) {
    const dir = join(root, sub);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw new Error(
        `Conformance corpus not found: ${dir} does not exist (corpus root ${root}, from ${origin}). ` +
          "Set TOLLGATE_CORPUS to the folder that holds cases/ and crds/.",
      );
    }
  }
  return root;
}

/** Reads every case file of the given projects, in sorted order. Throws on a missing project or a malformed case. */
export function readCrdCaseFiles(corpusRoot: string, projects: readonly string[] = CRD_CASE_PROJECTS): CaseFile[] {
  const out: CaseFile[] = [];
  for (const project of projects) {
    const dir = join(corpusRoot, "cases", project);
    if (!existsSync(dir)) throw new Error(`Conformance corpus: ${dir} is missing`);
    const names = readdirSync(dir)
      .filter((n) => n.endsWith(".json"))
      .sort();
    if (names.length === 0) throw new Error(`Conformance corpus: no case files (*.json) in ${dir}`);
    for (const name of names) {
      const file = `${project}/${name}`;
      const parsed: unknown = JSON.parse(readFileSync(join(dir, name), "utf8"));
      if (!Array.isArray(parsed)) throw new Error(`Conformance corpus: ${file} is not a JSON array of cases`);
      for (const [i, c] of parsed.entries()) assertCrdCase(c, `${file}[${i}]`);
      out.push({ file, cases: parsed as CrdCase[] });
    }
  }
  return out;
}

function assertCrdCase(value: unknown, where: string): void {
  const c = value as Partial<CrdCase> | null;
  const real = c?.expect?.real;
  const ok =
    c !== null &&
    typeof c === "object" &&
    typeof c.name === "string" &&
    typeof c.crd === "string" &&
    (c.operation === "CREATE" || c.operation === "UPDATE") &&
    real !== undefined &&
    typeof real.allowed === "boolean" &&
    Array.isArray(real.causes);
  if (!ok) throw new Error(`Conformance corpus: ${where} is not a CRD case with expect.real`);
}

/** The key of a case in known-failures.yaml: `<case file>#<case name>` (names repeat across files). */
export function caseKey(file: string, name: string): string {
  return `${file}#${name}`;
}
