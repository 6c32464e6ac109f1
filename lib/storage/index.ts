/**
 * lib/storage: the only I/O of lib/ (STYLE.md, "Dependency direction"). The BlobStore interface with a filesystem
 * and an S3 implementation, {@link openLocation} for a location given as a local path or an `s3://` URL, and the one
 * folder walk (walk.ts). The S3 store (and so the AWS SDK) is loaded only when an `s3://` location is opened.
 *
 * Used by lib/bundle (bundle sources) and by audit/ (inputs and reports, through `#lib/storage`).
 */
import { basename, dirname, join } from "node:path";
import { type BlobStore, folderPrefix } from "./blob-store.js";
import { createFsStore } from "./fs.js";
import type { S3Options, S3StoreOptions } from "./s3.js";
import { formatS3Url, isS3Url, parseS3Url, type S3Location } from "./s3-url.js";

export type { BlobBody, BlobInfo, BlobStore, BlobWrite, WriteOptions } from "./blob-store.js";
export { folderPrefix, writeInOrder } from "./blob-store.js";
export { createFsStore } from "./fs.js";
export type { S3Credentials, S3Options, S3StoreOptions } from "./s3.js";
export { formatS3Url, isS3Url, parseS3Url, type S3Location } from "./s3-url.js";
export { isSkippedFolder, type WalkEntry, type WalkOptions, walkFolder } from "./walk.js";

/** An S3 store for one bucket; the AWS SDK is imported on the first call. */
export async function createS3Store(options: S3StoreOptions): Promise<BlobStore> {
  const s3 = await import("./s3.js");
  return s3.createS3Store(options);
}

/**
 * Opens the bucket of an `s3://bucket/key` location: the store and the parsed location (throws ConfigError for a
 * malformed location). Close the store when done.
 */
export async function openS3Location(
  url: string,
  options: S3Options = {},
): Promise<{ store: BlobStore; location: S3Location }> {
  const location = parseS3Url(url);
  return { store: await createS3Store({ ...options, bucket: location.bucket }), location };
}

/** A location opened as a store: the store, where the location is in it, and how to name a key in messages. */
export interface OpenedLocation {
  store: BlobStore;
  /** The object's key (`object`), or the key prefix of what is under the location (`folder`: "" or ending in "/"). */
  key: string;
  /** A key of the store as the user would name it: a local path, or an `s3://bucket/key` URL. */
  where(key: string): string;
}

export interface OpenLocationOptions extends S3Options {
  /** S3 only: bodies larger than this go up as multipart uploads. Default: the S3 store's. */
  multipartThreshold?: number;
}

/**
 * Opens a location given as a local path or an `s3://bucket/key` URL, so the caller reads and writes through one
 * BlobStore without telling the two apart. As an `object`, the store holds the object (a local file's folder, the
 * bucket) and `key` names it; as a `folder`, the store holds what is under the location (the local folder, the
 * bucket) and `key` is their common prefix. Close the store when done.
 *
 * @throws ConfigError for a malformed `s3://` location
 */
export async function openLocation(
  location: string,
  as: "object" | "folder",
  options: OpenLocationOptions = {},
): Promise<OpenedLocation> {
  if (!isS3Url(location)) {
    const root = as === "folder" ? location : dirname(location);
    return { store: createFsStore(root), key: as === "folder" ? "" : basename(location), where: (k) => join(root, k) };
  }
  const parsed = parseS3Url(location);
  const { multipartThreshold, ...s3 } = options;
  const store = await createS3Store({
    ...s3,
    bucket: parsed.bucket,
    ...(multipartThreshold !== undefined && { multipartThreshold }),
  });
  const key = as === "folder" ? folderPrefix(parsed.key) : parsed.key;
  return { store, key, where: (k) => formatS3Url(parsed.bucket, k) };
}
