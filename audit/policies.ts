/**
 * The policy set of a run: the `--bundle`, plus with `--policies-from-input` the policy documents of the audited
 * input itself (a cluster export holds its CRDs and KubeVirt Templates: audit a cluster against its own schemas).
 *
 * Only CRDs (`apiextensions.k8s.io` `CustomResourceDefinition`), Templates (`template.openshift.io/v1` `Template`)
 * and ValidatingAdmissionPolicies and their bindings (`admissionregistration.k8s.io`) are taken from the input. The
 * bundle wins for a kind it defines (a CRD's group and kind), a Template it holds (namespace and name) or a policy or
 * binding it holds (name); the input adds the others. Input documents with identical content are one policy,
 * not duplicates (an export and a Git checkout of the same CRD); different documents for the same kind are a policy
 * failure, as in a bundle.
 *
 * Waivers come from the bundle and from `--waivers` (a file, a folder or an S3 prefix of Waiver documents), never
 * from the input: a Waiver among the audited objects is audited as any object is (no policy covers it) and noted.
 */
import {
  artifactOfLoaded,
  type BundleFile,
  type BundleOptions,
  loadBundle,
  type PolicySet,
  parseDocuments,
  readBundleFiles,
  stableJson,
  unwrapList,
} from "#lib";
import type { S3Options } from "#lib/storage";
import { locationText } from "./model.js";
import { requireLocation, type Source } from "./sources/index.js";

export interface LoadedPolicies {
  policySet: PolicySet;
  /** Policy documents taken from the input (after the bundle won and identical ones merged). */
  policiesFromInput: number;
  /** How to load the same policy set again (a worker thread builds its own): {@link loadPolicySource}. */
  source: PolicySource;
}

/**
 * What a policy set was compiled from: a bundle location, the files (bundle and input policies) given to it, or
 * the bundle artifact of a set already compiled ({@link artifactSource}); and the options it was compiled with
 * (audit/cluster-state.ts: the input's Namespaces, the what-if Pod Security level).
 */
export type PolicySource = ({ bundle: string; s3?: S3Options } | { files: BundleFile[] } | { artifact: string }) & {
  options?: PolicySourceOptions;
};

/** The BundleOptions of an audit beyond the bundle itself. */
export type PolicySourceOptions = Pick<BundleOptions, "clusterState" | "podSecurity" | "waivers" | "limits">;

/**
 * The policy set of a {@link PolicySource}: the same digest as the set it describes. A bundle or files are compiled
 * eagerly, as the main thread's: a lazy compile (lib's `compile: "lazy"`) of them would start faster but validate a
 * kind whose CEL rules do not compile differently (measured by test/unit/audit/workers.test.ts on
 * test/fixtures/audit/bundle/broken-crd.yaml). An artifact carries the failures its build found, so it loads
 * lazily with the same verdicts: each kind's rules compile when its first object comes.
 */
export function loadPolicySource(source: PolicySource): Promise<PolicySet> {
  const options: BundleOptions = { ...source.options };
  if ("artifact" in source) return loadBundle([{ path: "policies.bundle.json", content: source.artifact }], options);
  if ("files" in source) return loadBundle(source.files, options);
  if (source.s3 !== undefined) options.s3 = source.s3;
  return loadBundle(source.bundle, options);
}

/**
 * A source's policy set (already loaded from it as `policySet`) as a bundle artifact, for worker threads: they
 * start from pre-decoded JSON and the build's failures instead of decoding and compiling every rule again. A source
 * the set was not loaded from (another digest) is handed on as it is: the workers compile it and refuse to start.
 */
export async function artifactSource(source: PolicySource, policySet: PolicySet): Promise<PolicySource> {
  if ("artifact" in source) return source;
  const files = "files" in source ? source.files : await readBundleFiles(source.bundle, source.s3);
  const built = artifactOfLoaded(files, policySet);
  if (built === undefined) return source;
  const artifact: PolicySource = { artifact: built.text };
  if (source.options !== undefined) artifact.options = source.options;
  return artifact;
}

/**
 * Loads the bundle (a folder, a file, or `s3://bucket/key` / `s3://bucket/prefix`); with `sources`, adds the
 * input's policy documents the bundle lacks. The bundle's files are read by lib/bundle either way.
 *
 * @throws ConfigError when the bundle path does not exist; StorageError when the bundle cannot be read
 */
export async function loadPolicies(
  bundle: string,
  inputSources?: readonly Source[],
  s3: Readonly<S3Options> = {},
  load: { waivers?: string | undefined; limits?: BundleOptions["limits"] } = {},
): Promise<LoadedPolicies> {
  await requireLocation(bundle, "bundle path");
  const { waivers, limits } = load;
  const options: PolicySourceOptions = {};
  if (waivers !== undefined) options.waivers = await readWaiverFiles(waivers, s3);
  if (limits !== undefined) options.limits = limits;
  if (inputSources === undefined) {
    return {
      policySet: await loadBundle(bundle, { s3, ...options }),
      policiesFromInput: 0,
      source: { bundle, s3: { ...s3 }, ...(Object.keys(options).length > 0 && { options }) },
    };
  }
  return withInputPolicies(await readBundleFiles(bundle, s3), inputSources, options);
}

/**
 * The files of a `--waivers` location (a file, a folder, `s3://bucket/key` or `s3://bucket/prefix/`), each named as
 * the user would find it: the location itself for one file, else the location joined to the file's relative path.
 *
 * @throws ConfigError when the location does not exist; StorageError when it cannot be read
 */
export async function readWaiverFiles(location: string, s3: Readonly<S3Options> = {}): Promise<BundleFile[]> {
  await requireLocation(location, "waivers path");
  const files = await readBundleFiles(location, s3);
  const base = location.replace(/\/+$/, "");
  return files.map((f) => ({
    path: base === f.path || base.endsWith(`/${f.path}`) ? base : `${base}/${f.path}`,
    content: f.content,
  }));
}

async function withInputPolicies(
  files: BundleFile[],
  inputSources: readonly Source[],
  options: PolicySourceOptions,
): Promise<LoadedPolicies> {
  const defined = new Set<string>();
  for (const f of files) {
    if (!/\.(ya?ml|json)$/i.test(f.path)) continue;
    for (const doc of parseDocuments(f.content)) {
      for (const obj of unwrapList(doc.object) ?? [doc.object]) {
        const key = policyKey(obj);
        if (key !== undefined) defined.add(key);
      }
    }
  }

  const added = new Map<string, BundleFile>();
  for (const source of inputSources) {
    for await (const unit of source.units()) {
      for (const doc of await unit.read()) {
        if (doc.kind !== "object") continue;
        const key = policyKey(doc.object);
        if (key === undefined || defined.has(key)) continue;
        const content = stableJson(doc.object);
        if (added.has(content)) continue;
        added.set(content, { path: `input/${locationText(doc.location).replace(/:\d+$/, "")}.json`, content });
      }
    }
  }
  const all = [...files, ...added.values()];
  const policySet = await loadBundle(all, options);
  return {
    policySet,
    policiesFromInput: added.size,
    source: { files: all, ...(options.waivers !== undefined && { options }) },
  };
}

/**
 * `crd:<group>/<kind>`, `template:<namespace>/<name>`, `ValidatingAdmissionPolicy:<name>` or
 * `ValidatingAdmissionPolicyBinding:<name>` for a policy document; undefined for anything else.
 */
function policyKey(obj: unknown): string | undefined {
  if (typeof obj !== "object" || obj === null) return undefined;
  const o = obj as Record<string, unknown>;
  const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : "";
  const meta = (typeof o.metadata === "object" && o.metadata !== null ? o.metadata : {}) as Record<string, unknown>;
  if (o.kind === "CustomResourceDefinition" && apiVersion.startsWith("apiextensions.k8s.io/")) {
    const spec = (typeof o.spec === "object" && o.spec !== null ? o.spec : {}) as Record<string, unknown>;
    const names = (typeof spec.names === "object" && spec.names !== null ? spec.names : {}) as Record<string, unknown>;
    return `crd:${String(spec.group)}/${String(names.kind)}`;
  }
  if (o.kind === "Template" && apiVersion === "template.openshift.io/v1") {
    return `template:${String(meta.namespace ?? "")}/${String(meta.name ?? "")}`;
  }
  if (
    (o.kind === "ValidatingAdmissionPolicy" || o.kind === "ValidatingAdmissionPolicyBinding") &&
    apiVersion.startsWith("admissionregistration.k8s.io/")
  ) {
    return `${o.kind}:${String(meta.name ?? "")}`;
  }
  return undefined;
}
