/**
 * lib/storage: the only I/O of lib/ (STYLE.md, "Dependency direction"). The BlobStore interface with a filesystem
 * and an S3 implementation. The S3 one (and so the AWS SDK) is loaded only when an `s3://` location is opened.
 *
 * Used by lib/bundle (bundle sources) and by audit/ (inputs and reports, through `#lib/storage`).
 */
import type { BlobStore } from "./blob-store.js";
import type { S3Options, S3StoreOptions } from "./s3.js";
import { parseS3Url, type S3Location } from "./s3-url.js";

export type { BlobBody, BlobInfo, BlobStore, BlobWrite, WriteOptions } from "./blob-store.js";
export { folderPrefix, writeInOrder } from "./blob-store.js";
export { createFsStore } from "./fs.js";
export type { S3Credentials, S3Options, S3StoreOptions } from "./s3.js";
export { formatS3Url, isS3Url, parseS3Url, type S3Location } from "./s3-url.js";

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
