/**
 * Where a bundle's files come from: a folder (recursively), one file, an `s3://bucket/key` object, an
 * `s3://bucket/prefix/` folder, or in-memory files. All I/O goes through lib/storage; the AWS SDK is loaded only for
 * `s3://` sources.
 */
import { createHash } from "node:crypto";
import { basename } from "node:path";
import { StorageError } from "../errors.js";
import type { BundleFile, BundleOptions } from "../policy/types.js";
import { isDirectory, POLICY_FILE, readText } from "../storage/fs.js";
import { folderPrefix, isS3Url, openS3Location } from "../storage/index.js";
import { isSkippedFolder, walkFolder } from "../storage/walk.js";

/** Files read from S3 at once. */
const S3_READ_CONCURRENCY = 8;

/**
 * Reads the bundle's files: a folder (recursively, walked as lib/storage/walk.ts walks: links followed inside it,
 * `.git`, `node_modules` and hidden folders left out), one file, an s3:// object or prefix, or the given files.
 */
export async function readBundleFiles(
  source: string | readonly BundleFile[],
  s3: BundleOptions["s3"] = {},
): Promise<BundleFile[]> {
  if (typeof source !== "string") return source.map((f) => ({ path: f.path, content: f.content }));
  if (isS3Url(source)) return readS3Source(source, s3);
  if (await isDirectory(source)) return readFolder(source);
  return [{ path: basename(source), content: await readText(source) }];
}

/** The policy files of a folder, named relative to it, in path order. */
async function readFolder(root: string): Promise<BundleFile[]> {
  const found: { path: string; relative: string }[] = [];
  for await (const entry of walkFolder(root, { accept: (name) => POLICY_FILE.test(name) })) {
    if (entry.kind === "file") found.push(entry);
  }
  found.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
  return Promise.all(found.map(async (f) => ({ path: f.relative, content: await readText(f.path) })));
}

/**
 * `s3://bucket/key` is one file; `s3://bucket/prefix/` (or a key with no object but objects under `key/`) is a
 * folder: every object under it whose name is a policy file, named relative to the prefix, skipping `.git`,
 * `node_modules` and hidden folders as for a local folder. An S3 folder with no policy file is a not-found
 * StorageError (an empty prefix is almost always a wrong name).
 */
async function readS3Source(url: string, s3: NonNullable<BundleOptions["s3"]>): Promise<BundleFile[]> {
  const { store, location } = await openS3Location(url, s3);
  try {
    let prefix = location.key;
    if (!location.isPrefix) {
      try {
        return [{ path: basename(location.key), content: await store.readText(location.key) }];
      } catch (e) {
        // S3 has no folders: `s3://bucket/policies` may name the objects under `policies/`.
        if (!(e instanceof StorageError) || e.failure !== "not-found") throw e;
        const probe = store.list(folderPrefix(location.key))[Symbol.asyncIterator]();
        const first = await probe.next();
        await probe.return?.();
        if (first.done === true) throw e;
        prefix = folderPrefix(location.key);
      }
    }
    const keys: string[] = [];
    for await (const blob of store.list(prefix)) {
      const rel = blob.key.slice(prefix.length);
      const parts = rel.split("/");
      const name = parts.pop() ?? "";
      if (parts.some(isSkippedFolder)) continue;
      if (POLICY_FILE.test(name)) keys.push(blob.key);
    }
    if (keys.length === 0) {
      throw new StorageError(
        `no policy files (*.yaml, *.yml, *.json, *.go, go.mod) under s3://${location.bucket}/${prefix}`,
        {
          failure: "not-found",
        },
      );
    }
    const files: BundleFile[] = new Array(keys.length);
    let next = 0;
    async function worker(): Promise<void> {
      while (next < keys.length) {
        const i = next++;
        const key = keys[i]!;
        files[i] = { path: key.slice(prefix.length), content: await store.readText(key) };
      }
    }
    await Promise.all(Array.from({ length: Math.min(S3_READ_CONCURRENCY, keys.length) }, worker));
    return files;
  } finally {
    store.close();
  }
}

/** The bundle's content hash: sha256 over every file's path and content, in path order. */
export function bundleDigest(files: readonly BundleFile[]): string {
  const hash = createHash("sha256");
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    hash.update(f.path);
    hash.update("\0");
    hash.update(f.content);
    hash.update("\0");
  }
  return `sha256:${hash.digest("hex")}`;
}
