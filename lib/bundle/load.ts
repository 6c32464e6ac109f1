/**
 * loadBundle(source): list the documents of a policy bundle (a folder, a file, an s3:// object or prefix, a bundle
 * artifact, or in-memory files), recognise each by content, parse tollgate.yaml, compile each family once (schema
 * families first, then the admission families, which see the schema families' kinds and the cluster state),
 * collect PolicyFailures, freeze. Never throws because a policy is bad: only an unreadable source (StorageError) is
 * thrown.
 */

import { appendAll } from "../objects/append.js";
import { unwrapList } from "../objects/list.js";
import { isMapping } from "../objects/mapping.js";
import { builtinResources } from "../policy/builtin-resources.js";
import { createClusterState } from "../policy/cluster-state.js";
import type { BundleDocument, FamilyCompileContext, FamilyCompiler, FamilyPolicy } from "../policy/family.js";
import { createPolicySet } from "../policy/policy-set.js";
import { createResourceCatalogue, resourcesOfKinds } from "../policy/resources.js";
import type { BundleFile, BundleOptions, PolicyFailure, PolicySet, ResolvedBundleConfig } from "../policy/types.js";
import { type BundleEntry, decodeBundle } from "./artifact.js";
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

/** What classifying the bundle's documents found. */
interface Classified {
  config: BundleConfigDoc;
  /** Objects no family took as a policy: the bundle's cluster state (Namespaces, RBAC objects, parameters). */
  state: Record<string, unknown>[];
}

/**
 * Loads and compiles a policy bundle once. `source` is a folder, a file, `s3://bucket/key` (one file, or a bundle
 * artifact), `s3://bucket/prefix/` (a folder), or in-memory files. A single file that is a bundle artifact (`tollgate
 * bundle build`) is recognised by content and loaded without YAML decoding. Options override the bundle's
 * tollgate.yaml, which overrides the built-in defaults.
 */
export async function loadBundle(source: string | BundleFile[], options: BundleOptions = {}): Promise<PolicySet> {
  const files = await readBundleFiles(source, options.s3);
  const limits = {
    maxBytes: options.limits?.documentBytes ?? DEFAULT_LIMITS.documentBytes,
    maxDepth: options.limits?.depth ?? DEFAULT_LIMITS.depth,
  };
  const { digest, entries, failures, builtFailures } = decodeBundle(files, limits);
  // An artifact's build compiled every CEL rule and pattern already: compile those lazily, and take their failures
  // from the build (a lazy load does not find them by itself).
  const lazy = builtFailures !== undefined || options.compile === "lazy";
  if (builtFailures !== undefined) {
    appendAll(
      failures,
      builtFailures.filter((f) => f.stage === "cel" || f.stage === "pattern"),
    );
  }
  const compilers = FAMILY_COMPILERS.map((make) => make());
  const classified = classifyEntries(entries, compilers, failures);
  const config = resolveBundleConfig(classified.config, options);
  const families = await compileFamilies(compilers, config, lazy ? "lazy" : "eager", failures, options, [
    ...classified.state,
    ...(options.clusterState ?? []),
  ]);
  return createPolicySet({ digest, config, families: families.policies, resources: families.resources, failures });
}

/** Offers every file and document to the families; takes tollgate.yaml; keeps the rest as cluster state. */
function classifyEntries(
  entries: readonly BundleEntry[],
  compilers: readonly FamilyCompiler[],
  failures: PolicyFailure[],
): Classified {
  const out: Classified = { config: {}, state: [] };
  let configFile: string | undefined;
  const classify = (obj: unknown, file: BundleFile, document: number, where: string): void => {
    const base = { file: file.path, document };
    if (!isMapping(obj)) {
      const f: PolicyFailure = { ...base, severity: "warning", family: "config", stage: "config", message: "" };
      if (where !== "") f.path = where;
      f.message = "not a Kubernetes object: ignored";
      failures.push(f);
      return;
    }
    if (obj.apiVersion === BUNDLE_CONFIG_API_VERSION && obj.kind === BUNDLE_CONFIG_KIND) {
      if (configFile !== undefined) {
        const message = `a second BundleConfig; the bundle already has one in ${configFile}`;
        failures.push({ ...base, severity: "error", family: "config", stage: "config", message });
        return;
      }
      configFile = file.path;
      out.config = parseBundleConfig(obj, file.path, document, failures);
      return;
    }
    const offered: BundleDocument = where === "" ? { object: obj, ...base } : { object: obj, ...base, item: where };
    if (compilers.some((c) => c.claimDocument(offered))) return;
    out.state.push(obj);
    const meta = isMapping(obj.metadata) ? obj.metadata : {};
    const name = typeof meta.name === "string" ? ` "${meta.name}"` : "";
    const apiVersion = typeof obj.apiVersion === "string" && obj.apiVersion !== "" ? obj.apiVersion : "<no apiVersion>";
    const kind = typeof obj.kind === "string" && obj.kind !== "" ? obj.kind : "<no kind>";
    const message = `not a policy document (${apiVersion} ${kind}${name}): ignored`;
    failures.push({ ...base, severity: "warning", family: "config", stage: "config", message });
  };
  for (const { file, documents } of entries) {
    if (documents === undefined) {
      if (!compilers.some((c) => c.claimFile(file))) {
        const message = "not a policy file: ignored";
        failures.push({ severity: "warning", family: "config", stage: "config", file: file.path, message });
      }
      continue;
    }
    for (const doc of documents) {
      if (doc.error !== undefined) {
        const f: PolicyFailure = { severity: "error", family: "config", stage: "decode", message: doc.error };
        failures.push({ ...f, file: file.path, document: doc.document });
        continue;
      }
      const items = unwrapList(doc.object);
      if (items === undefined) classify(doc.object, file, doc.document, "");
      else for (const [i, obj] of items.entries()) classify(obj, file, doc.document, `items[${i}]`);
    }
  }
  return out;
}

/**
 * Compiles the enabled families: the schema stage first, then the admission stage with the catalogue of resources
 * (built-in ones and the schema families' kinds) and the cluster state.
 */
async function compileFamilies(
  compilers: readonly FamilyCompiler[],
  config: ResolvedBundleConfig,
  compile: "eager" | "lazy",
  failures: PolicyFailure[],
  options: BundleOptions,
  state: readonly unknown[],
) {
  const policies: FamilyPolicy[] = [];
  const empty = createClusterState([]);
  let resources = createResourceCatalogue(builtinResources());
  for (const stage of ["schema", "admission"] as const) {
    if (stage === "admission") {
      const schemaKinds = policies.flatMap((p) => p.kinds);
      resources = createResourceCatalogue([...resourcesOfKinds(schemaKinds), ...builtinResources()]);
    }
    const cluster = stage === "admission" ? createClusterState(state) : empty;
    for (const c of compilers) {
      if (c.stage !== stage || !config.families[c.family]) continue;
      try {
        const ctx: FamilyCompileContext = { config, compile, cluster, resources };
        if (stage === "admission" && options.authorizer !== undefined) ctx.authorizer = options.authorizer;
        const r = await c.compile(ctx);
        appendAll(failures, r.failures);
        if (r.policy !== null) policies.push(r.policy);
      } catch (e) {
        const message = `internal error while compiling the ${c.family} family: ${e instanceof Error ? e.message : String(e)}`;
        failures.push({ severity: "error", family: c.family, stage: "compile", message });
      }
    }
  }
  return { policies, resources };
}
