/**
 * `<corpus>/realworld/` (see its README.md), read in place: the CRD files of twelve projects, their samples with
 * the verdict the API server gives (`samples/manifest.json`), Crossplane's update cases (`updates/updates.json`),
 * and kubectl-validate's own test cases (`kubectl-validate/testcases/`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { resolveCorpusRoot } from "../corpus.js";

/** One sample of `samples/manifest.json`. */
export interface Sample {
  project: string;
  /** Relative to `samples/`: `istio/065-serviceentry-valid-0.yaml`. */
  file: string;
  /** `<group>/<version>/<Kind>`. */
  gvk: string;
  expected: "valid" | "invalid";
  /** Why the sample is expected invalid. */
  reason?: string;
  /** A substring of the message Istio's own validator prints (its testdata's `_err`). */
  expectError?: string;
}

/** One case of `updates/updates.json`: an UPDATE from `old` to `new`, or a CREATE of `new` when `old` is absent. */
export interface UpdateCase {
  project: string;
  /** Relative to `updates/`. */
  new: string;
  old?: string;
  expected: "valid" | "invalid";
  /** The upstream e2e test the case comes from; unique, so it is the case's name. */
  test: string;
}

/** A CRD file of `crds/<project>/`. */
export interface CrdFile {
  project: string;
  /** Relative to `crds/<project>/`. */
  file: string;
}

/** The realworld folder: `<corpus>/realworld`. Throws when it or one of its parts is missing. */
export function resolveRealworldRoot(): string {
  const root = join(resolveCorpusRoot(), "realworld");
  for (const part of ["crds", "samples/manifest.json", "updates/updates.json", "kubectl-validate/testcases"]) {
    if (!existsSync(join(root, part))) throw new Error(`Conformance corpus: ${join(root, part)} is missing`);
  }
  return root;
}

/** The projects of `crds/`, sorted. */
export function readProjects(root: string): string[] {
  return readdirSync(join(root, "crds"))
    .filter((name) => statSync(join(root, "crds", name)).isDirectory())
    .sort();
}

/** Every CRD file of every project, sorted. */
export function readCrdFiles(root: string, projects: readonly string[]): CrdFile[] {
  const out: CrdFile[] = [];
  for (const project of projects) {
    const files = readdirSync(join(root, "crds", project)).sort();
    if (files.length === 0) throw new Error(`Conformance corpus: no CRD files in crds/${project}`);
    for (const file of files) out.push({ project, file });
  }
  return out;
}

export function readSamples(root: string): Sample[] {
  const parsed: unknown = JSON.parse(readFileSync(join(root, "samples", "manifest.json"), "utf8"));
  if (!Array.isArray(parsed)) throw new Error("Conformance corpus: samples/manifest.json is not an array");
  for (const [i, s] of parsed.entries()) {
    const ok =
      typeof s?.project === "string" &&
      typeof s.file === "string" &&
      typeof s.gvk === "string" &&
      (s.expected === "valid" || s.expected === "invalid") &&
      (s.expectError === undefined || typeof s.expectError === "string");
    if (!ok) throw new Error(`Conformance corpus: samples/manifest.json[${i}] is not a sample`);
  }
  return parsed as Sample[];
}

export function readUpdateCases(root: string): UpdateCase[] {
  const parsed: unknown = JSON.parse(readFileSync(join(root, "updates", "updates.json"), "utf8"));
  if (!Array.isArray(parsed)) throw new Error("Conformance corpus: updates/updates.json is not an array");
  for (const [i, u] of parsed.entries()) {
    const ok =
      typeof u?.project === "string" &&
      typeof u.new === "string" &&
      (u.old === undefined || typeof u.old === "string") &&
      (u.expected === "valid" || u.expected === "invalid") &&
      typeof u.test === "string";
    if (!ok) throw new Error(`Conformance corpus: updates/updates.json[${i}] is not an update case`);
  }
  return parsed as UpdateCase[];
}
