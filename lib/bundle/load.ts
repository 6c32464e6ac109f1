/**
 * loadBundle(source): list the documents of a policy bundle (a folder, a file, or in-memory files), recognise
 * each by content, parse tollgate.yaml, compile each family once, collect PolicyFailures, freeze.
 * Never throws because a policy is bad: only an unreadable source (StorageError) is thrown.
 */
import { createHash } from "node:crypto";
import { basename } from "node:path";
import { createCelFamily } from "../cel/runner.js";
import { parseDocuments } from "../objects/decode.js";
import { unwrapList } from "../objects/list.js";
import type { BundleDocument, FamilyPolicy } from "../policy/family.js";
import { createPolicySet } from "../policy/policy-set.js";
import type { BundleFile, BundleOptions, PolicyFailure, PolicySet } from "../policy/types.js";
import { type CompiledCrd, compileCrd } from "../schema/crd.js";
import { isDirectory, listFiles, POLICY_FILE, readText, relativePath } from "../storage/fs.js";
import {
  BUNDLE_CONFIG_API_VERSION,
  BUNDLE_CONFIG_KIND,
  type BundleConfigDoc,
  DEFAULT_LIMITS,
  parseBundleConfig,
  resolveBundleConfig,
} from "./config.js";
import { FAMILY_COMPILERS } from "./families.js";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function stableJson(v: unknown): string {
  if (v === null || typeof v !== "object") return typeof v === "bigint" ? v.toString() : JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
    .join(",")}}`;
}

/** Reads the bundle's files: a folder (recursively), one file, or the given in-memory files. */
async function readSource(source: string | BundleFile[]): Promise<BundleFile[]> {
  if (Array.isArray(source)) return source.map((f) => ({ path: f.path, content: f.content }));
  if (await isDirectory(source)) {
    const files = await listFiles(source, POLICY_FILE);
    return Promise.all(files.map(async (f) => ({ path: relativePath(source, f), content: await readText(f) })));
  }
  return [{ path: basename(source), content: await readText(source) }];
}

interface CrdEntry {
  crd: CompiledCrd;
  file: string;
  document: number;
  content: string;
}

/**
 * Loads and compiles a policy bundle once. `source` is a folder, a file, or in-memory files. Options override the
 * bundle's tollgate.yaml, which overrides the built-in defaults.
 */
export async function loadBundle(source: string | BundleFile[], options: BundleOptions = {}): Promise<PolicySet> {
  const files = await readSource(source);
  const failures: PolicyFailure[] = [];
  const limits = {
    maxBytes: options.limits?.documentBytes ?? DEFAULT_LIMITS.documentBytes,
    maxDepth: options.limits?.depth ?? DEFAULT_LIMITS.depth,
  };
  const hash = createHash("sha256");
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    hash.update(f.path);
    hash.update("\0");
    hash.update(f.content);
    hash.update("\0");
  }
  const digest = `sha256:${hash.digest("hex")}`;

  let config: BundleConfigDoc = {};
  let configFile: string | undefined;
  const crds = new Map<string, CrdEntry>();
  const duplicates = new Map<string, CrdEntry[]>();

  const compilers = FAMILY_COMPILERS.map((make) => make());
  const cel = createCelFamily();
  for (const file of files) {
    if (!/\.(ya?ml|json)$/i.test(file.path)) {
      if (!compilers.some((c) => c.claimFile(file))) {
        failures.push({
          severity: "warning",
          family: "config",
          file: file.path,
          message: "not a policy file: ignored",
        });
      }
      continue;
    }
    for (const doc of parseDocuments(file.content, limits)) {
      if (doc.error !== undefined) {
        failures.push({
          severity: "error",
          family: "config",
          file: file.path,
          document: doc.document,
          message: doc.error,
        });
        continue;
      }
      const items = unwrapList(doc.object);
      const objects = items ?? [doc.object];
      objects.forEach((obj: unknown, itemIndex: number) => {
        const where = items === undefined ? "" : `items[${itemIndex}]`;
        classify(obj, file, doc.document, where);
      });
    }
  }

  function classify(obj: unknown, file: BundleFile, document: number, where: string): void {
    const base = { file: file.path, document };
    if (!isRecord(obj)) {
      failures.push({
        ...base,
        severity: "warning",
        family: "config",
        path: where || undefined,
        message: "not a Kubernetes object: ignored",
      } as PolicyFailure);
      return;
    }
    const apiVersion = typeof obj.apiVersion === "string" ? obj.apiVersion : "";
    const kind = typeof obj.kind === "string" ? obj.kind : "";
    if (kind === "CustomResourceDefinition" && apiVersion.startsWith("apiextensions.k8s.io/")) {
      addCrd(obj, file, document);
      return;
    }
    if (apiVersion === BUNDLE_CONFIG_API_VERSION && kind === BUNDLE_CONFIG_KIND) {
      if (configFile !== undefined) {
        failures.push({
          ...base,
          severity: "error",
          family: "config",
          message: `a second BundleConfig; the bundle already has one in ${configFile}`,
        });
        return;
      }
      configFile = file.path;
      config = parseBundleConfig(obj, file.path, document, failures);
      return;
    }
    const offered: BundleDocument =
      where === ""
        ? { object: obj, file: file.path, document }
        : { object: obj, file: file.path, document, item: where };
    if (compilers.some((c) => c.claimDocument(offered))) return;
    const name = isRecord(obj.metadata) && typeof obj.metadata.name === "string" ? ` "${obj.metadata.name}"` : "";
    failures.push({
      ...base,
      severity: "warning",
      family: "config",
      message: `not a policy document (${apiVersion || "<no apiVersion>"} ${kind || "<no kind>"}${name}): ignored`,
    });
  }

  function addCrd(obj: Record<string, unknown>, file: BundleFile, document: number): void {
    const result = compileCrd(obj, cel.compileVersion);
    const crdName = isRecord(obj.metadata) && typeof obj.metadata.name === "string" ? obj.metadata.name : undefined;
    for (const issue of result.issues) {
      const f: PolicyFailure = {
        severity: issue.severity,
        family: "crd",
        file: file.path,
        document,
        path: issue.path,
        message: issue.message,
      };
      if (crdName !== undefined) f.rule = crdName;
      if (issue.severity === "error" && result.crd !== undefined) {
        const c = result.crd;
        const versions = issue.versions ?? [...c.versions.keys()];
        f.kinds = versions.map((v) => `${c.group}/${v}/${c.kind}`);
      }
      failures.push(f);
    }
    if (result.crd === undefined) return;
    const key = `${result.crd.group}/${result.crd.kind}`;
    const entry: CrdEntry = { crd: result.crd, file: file.path, document, content: stableJson(obj) };
    const existing = crds.get(key);
    if (existing === undefined) {
      crds.set(key, entry);
      return;
    }
    if (existing.content === entry.content) return; // the same document twice is not a duplicate
    const list = duplicates.get(key) ?? [existing];
    list.push(entry);
    duplicates.set(key, list);
  }

  for (const [key, list] of duplicates) {
    const first = list[0]!.crd;
    const kinds = new Set<string>();
    for (const e of list) for (const v of e.crd.versions.keys()) kinds.add(`${e.crd.group}/${v}/${e.crd.kind}`);
    failures.push({
      severity: "error",
      family: "crd",
      file: list[0]!.file,
      document: list[0]!.document,
      kinds: [...kinds],
      message: `${first.kind}.${first.group} is defined by more than one document: ${list.map((e) => `${e.file}#${e.document}`).join(", ")}`,
    });
    crds.delete(key);
  }

  const resolved = resolveBundleConfig(config, options);
  const families: FamilyPolicy[] = [];
  for (const c of compilers) {
    if (!resolved.families[c.family]) continue;
    try {
      const r = await c.compile(resolved);
      failures.push(...r.failures);
      if (r.policy !== null) families.push(r.policy);
    } catch (e) {
      const message = `internal error while compiling the ${c.family} family: ${e instanceof Error ? e.message : String(e)}`;
      failures.push({ severity: "error", family: c.family, message });
    }
  }
  return createPolicySet({
    digest,
    config: resolved,
    crds: [...crds.values()].map((e) => e.crd),
    families,
    cel: cel.runner,
    failures,
  });
}
