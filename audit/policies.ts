/**
 * The policy set of a run: the `--bundle`, plus with `--policies-from-input` the policy documents of the audited
 * input itself (a cluster export holds its CRDs and KubeVirt Templates: audit a cluster against its own schemas).
 *
 * Only CRDs (`apiextensions.k8s.io` `CustomResourceDefinition`) and Templates (`template.openshift.io/v1`
 * `Template`) are taken from the input. The bundle wins for a kind it defines (a CRD's group and kind) or a Template
 * it holds (namespace and name); the input adds the others. Input documents with identical content are one policy,
 * not duplicates (an export and a Git checkout of the same CRD); different documents for the same kind are a policy
 * failure, as in a bundle.
 */
import type { Dirent } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { type BundleFile, ConfigError, loadBundle, type PolicySet, parseDocuments, unwrapList } from "#lib";
import { folderPrefix, isS3Url, openS3Location, type S3Options } from "#lib/storage";
import { locationText } from "./model.js";
import type { Source, SourceDoc } from "./sources/index.js";

/** Files a bundle folder is made of (as lib/bundle reads them). */
const BUNDLE_FILE = /\.(ya?ml|json|go)$|^go\.mod$/i;

export interface LoadedPolicies {
  policySet: PolicySet;
  /** Policy documents taken from the input (after the bundle won and identical ones merged). */
  policiesFromInput: number;
  /** How to load the same policy set again (a worker thread builds its own): {@link loadPolicySource}. */
  source: PolicySource;
}

/** What a policy set was compiled from: a bundle location, or the files (bundle and input policies) given to it. */
export type PolicySource = { bundle: string; s3?: S3Options } | { files: BundleFile[] };

/**
 * The policy set of a {@link PolicySource}: the same digest as the set it describes. Compiled eagerly, as the main
 * thread's: a lazy compile (lib's `compile: "lazy"`) starts faster but validates a kind whose CEL rules do not compile
 * differently (measured by test/unit/audit/workers.test.ts on test/fixtures/audit/bundle/broken-crd.yaml).
 */
export function loadPolicySource(source: PolicySource): Promise<PolicySet> {
  if ("files" in source) return loadBundle(source.files);
  return source.s3 === undefined ? loadBundle(source.bundle) : loadBundle(source.bundle, { s3: source.s3 });
}

/**
 * Loads the bundle (a folder, a file, or `s3://bucket/key` / `s3://bucket/prefix`); with `sources`, adds the
 * input's policy documents the bundle lacks.
 *
 * @throws ConfigError when the bundle path does not exist; StorageError when an S3 bundle cannot be read
 */
export async function loadPolicies(
  bundle: string,
  inputSources?: readonly Source[],
  s3: Readonly<S3Options> = {},
): Promise<LoadedPolicies> {
  if (isS3Url(bundle)) {
    if (inputSources === undefined) {
      return { policySet: await loadBundle(bundle, { s3 }), policiesFromInput: 0, source: { bundle, s3: { ...s3 } } };
    }
    return withInputPolicies(await readS3BundleFiles(bundle, s3), inputSources);
  }
  let isDir: boolean;
  try {
    isDir = (await stat(bundle)).isDirectory();
  } catch (err) {
    throw new ConfigError(`bundle path ${JSON.stringify(bundle)} does not exist`, { cause: err });
  }
  if (inputSources === undefined)
    return { policySet: await loadBundle(bundle), policiesFromInput: 0, source: { bundle } };
  const files = isDir ? await readBundleFolder(bundle) : [{ path: baseName(bundle), content: await readText(bundle) }];
  return withInputPolicies(files, inputSources);
}

async function withInputPolicies(files: BundleFile[], inputSources: readonly Source[]): Promise<LoadedPolicies> {
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
        const key = doc.kind === "object" ? policyKey(doc.object) : undefined;
        if (key === undefined || defined.has(key)) continue;
        const content = stableJson((doc as SourceDoc & { kind: "object" }).object);
        if (added.has(content)) continue;
        added.set(content, { path: `input/${locationText(doc.location).replace(/:\d+$/, "")}.json`, content });
      }
    }
  }
  const all = [...files, ...added.values()];
  const policySet = await loadBundle(all);
  return { policySet, policiesFromInput: added.size, source: { files: all } };
}

/** `crd:<group>/<kind>` or `template:<namespace>/<name>` for a policy document; undefined for anything else. */
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
  return undefined;
}

/** JSON with sorted keys; int64 values decoded as bigint keep every digit. */
export function stableJson(v: unknown): string {
  if (typeof v === "bigint") return v.toString();
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
    .join(",")}}`;
}

/**
 * An S3 bundle's files, as lib/bundle reads them: one object, or every policy file under the prefix (named relative
 * to it; `.git`, `node_modules` and hidden folders left out). Used only with `--policies-from-input`, which needs
 * the bundle's documents before compiling; without it loadBundle reads S3 itself.
 */
async function readS3BundleFiles(url: string, s3: Readonly<S3Options>): Promise<BundleFile[]> {
  const { store, location } = await openS3Location(url, s3);
  try {
    const exact: string[] = [];
    const under: string[] = [];
    const prefix = location.isPrefix ? location.key : folderPrefix(location.key);
    for await (const blob of store.list(location.key)) {
      if (!location.isPrefix && blob.key === location.key) exact.push(blob.key);
      else if (blob.key.startsWith(prefix)) {
        const parts = blob.key.slice(prefix.length).split("/");
        const name = parts.pop() ?? "";
        if (parts.some((p) => p === "node_modules" || p.startsWith("."))) continue;
        if (BUNDLE_FILE.test(name)) under.push(blob.key);
      }
    }
    const keys = exact.length > 0 ? exact : under;
    if (keys.length === 0) throw new ConfigError(`bundle ${JSON.stringify(url)}: no policy files there`);
    const out: BundleFile[] = [];
    for (const key of keys) {
      const path = exact.length > 0 ? baseName(key) : key.slice(prefix.length);
      out.push({ path, content: await store.readText(key) });
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  } finally {
    store.close();
  }
}

async function readBundleFolder(root: string): Promise<BundleFile[]> {
  const out: BundleFile[] = [];
  async function walk(dir: string): Promise<void> {
    const entries: Dirent[] = await readdir(dir, { withFileTypes: true });
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name === "node_modules" || e.name.startsWith(".")) continue;
        await walk(p);
      } else if (e.isFile() && BUNDLE_FILE.test(e.name)) {
        const rel = relative(root, p);
        out.push({ path: sep === "/" ? rel : rel.split(sep).join("/"), content: await readText(p) });
      }
    }
  }
  await walk(root);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    throw new ConfigError(`bundle file ${JSON.stringify(path)} cannot be read`, { cause: err });
  }
}

function baseName(path: string): string {
  const parts = path.split(/[/\\]/);
  return parts[parts.length - 1] ?? path;
}
