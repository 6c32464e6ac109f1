/**
 * loadBundle(source): list the documents of a policy bundle (a folder, a file, an s3:// object or prefix, a bundle
 * artifact, or in-memory files), recognise each by content, parse tollgate.yaml, compile each family once, collect
 * PolicyFailures, freeze. Never throws because a policy is bad: only an unreadable source (StorageError) is thrown.
 */

import { createCelFamily } from "../cel/runner.js";
import { unwrapList } from "../objects/list.js";
import { stableJson } from "../objects/stable-json.js";
import type { BundleDocument, FamilyPolicy } from "../policy/family.js";
import { createPolicySet } from "../policy/policy-set.js";
import type { BundleFile, BundleOptions, PolicyFailure, PolicySet } from "../policy/types.js";
import { type CompiledCrd, compileCrd } from "../schema/crd.js";
import { decodeBundle } from "./artifact.js";
import {
  BUNDLE_CONFIG_API_VERSION,
  BUNDLE_CONFIG_KIND,
  type BundleConfigDoc,
  DEFAULT_LIMITS,
  parseBundleConfig,
  resolveBundleConfig,
} from "./config.js";
import { FAMILY_COMPILERS } from "./families.js";
import { readBundleFiles } from "./source.js";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

interface CrdEntry {
  crd: CompiledCrd;
  file: string;
  document: number;
  object: Record<string, unknown>;
}

/**
 * Loads and compiles a policy bundle once. `source` is a folder, a file, `s3://bucket/key` (one file, or a bundle
 * artifact), `s3://bucket/prefix/` (a folder), or in-memory files. A single file that is a bundle artifact (`tollgate
 * bundle build`) is recognised by content and loaded without YAML decoding. Options override the bundle's
 * tollgate.yaml, which overrides the built-in defaults.
 */
/**
 * A CRD failure that a lazy load does not find by itself, as recorded in an artifact's build: CEL rule compile and
 * cost failures, and `pattern`s that do not compile.
 */
function isDeferredFailure(f: PolicyFailure): boolean {
  if (f.family !== "crd") return false;
  const path = f.path ?? "";
  return (
    path.includes("x-kubernetes-validations") ||
    path.endsWith(".pattern") ||
    /estimated rule cost|cost total/.test(f.message)
  );
}

export async function loadBundle(source: string | BundleFile[], options: BundleOptions = {}): Promise<PolicySet> {
  const files = await readBundleFiles(source, options.s3);
  const limits = {
    maxBytes: options.limits?.documentBytes ?? DEFAULT_LIMITS.documentBytes,
    maxDepth: options.limits?.depth ?? DEFAULT_LIMITS.depth,
  };
  const { digest, entries, failures, builtFailures } = decodeBundle(files, limits);
  // An artifact's build compiled every CEL rule and pattern already: compile those lazily, and take their failures
  // from the build.
  const lazyCel = builtFailures !== undefined || options.compile === "lazy";
  if (builtFailures !== undefined) failures.push(...builtFailures.filter(isDeferredFailure));

  let config: BundleConfigDoc = {};
  let configFile: string | undefined;
  const crds = new Map<string, CrdEntry>();
  const duplicates = new Map<string, CrdEntry[]>();

  const compilers = FAMILY_COMPILERS.map((make) => make());
  const cel = createCelFamily({ lazy: lazyCel });
  for (const { file, documents } of entries) {
    if (documents === undefined) {
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
    for (const doc of documents) {
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
    const result = compileCrd(obj, cel.compileVersion, { lazyPatterns: lazyCel });
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
    const entry: CrdEntry = { crd: result.crd, file: file.path, document, object: obj };
    const existing = crds.get(key);
    if (existing === undefined) {
      crds.set(key, entry);
      return;
    }
    // The same document twice is not a duplicate. Compared only on a clash: serialising every CRD cost ~10% of a
    // Gateway API cold start.
    if (stableJson(existing.object) === stableJson(entry.object)) return;
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
