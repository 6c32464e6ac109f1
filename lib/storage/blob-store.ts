/**
 * The BlobStore: the one storage interface of tollgate (bundles, audit inputs, reports). Keys are `/`-separated and
 * relative to the store's root: a folder for the filesystem store, a bucket for the S3 store. Every failure is a
 * StorageError whose message names the location and the operation, with `failure` saying what kind it was.
 */
import type { Readable } from "node:stream";

/** One stored object, as a listing returns it. */
export interface BlobInfo {
  /** The key relative to the store's root (`reports/2026/index.json`). */
  key: string;
  /** Size in bytes. */
  size: number;
  /** Last modification time, when the store knows it. */
  lastModified?: Date;
}

/** A body to write: text (written as UTF-8), bytes, or a stream of unknown length. */
export type BlobBody = string | Uint8Array | Readable;

export interface WriteOptions {
  /** Content-Type to record (S3 only). Default `application/octet-stream`, or `text/plain; charset=utf-8` for text. */
  contentType?: string;
}

export interface BlobStore {
  /** Where the store points, for messages: `s3://bucket` or a folder path. */
  readonly location: string;
  /** The text of an object, decoded as UTF-8. */
  readText(key: string): Promise<string>;
  /** The bytes of an object. */
  readBytes(key: string): Promise<Uint8Array>;
  /**
   * The bytes of an object as a stream, for objects too large to hold (a previous run's report.json). A missing
   * object fails here, as a StorageError; a failure while the stream is read is an error of the stream.
   */
  readStream(key: string): Promise<Readable>;
  /**
   * Every object whose key starts with `prefix` (all objects when empty), at any depth, in key order. A prefix that
   * matches nothing lists nothing (an empty S3 prefix is not an error). Listing pages are fetched as iteration goes.
   */
  list(prefix?: string): AsyncIterable<BlobInfo>;
  /**
   * Writes an object whole, replacing any object with the same key. Readers never see a partial object: the
   * filesystem store writes a temporary file and renames it; S3 makes an object visible only once it is complete
   * (large bodies and streams go up as multipart uploads).
   */
  write(key: string, body: BlobBody, options?: WriteOptions): Promise<void>;
  /**
   * Deletes objects. A key that names no object is not an error (deleting twice is deleting once), so a step that is
   * retried can clean up again. S3 deletes up to 1,000 keys per request.
   */
  remove(keys: readonly string[]): Promise<void>;
  /** Releases network resources (idle sockets). The store must not be used afterwards. */
  close(): void;
}

/** One object of {@link writeInOrder}. */
export interface BlobWrite {
  key: string;
  body: BlobBody;
  options?: WriteOptions;
}

/**
 * Writes a set of objects so that a reader who looks for the `commit` objects never sees a partial set: every
 * `data` object first (at most `concurrency` at a time), then each `commit` object in the given order (an index,
 * then a `latest` pointer). If any data write fails, no commit object is written and the error is thrown.
 */
export async function writeInOrder(
  store: BlobStore,
  data: readonly BlobWrite[],
  commit: readonly BlobWrite[],
  concurrency = 4,
): Promise<void> {
  let next = 0;
  let failed: unknown;
  let hasFailed = false;
  async function worker(): Promise<void> {
    while (!hasFailed && next < data.length) {
      const w = data[next++]!;
      try {
        await store.write(w.key, w.body, w.options);
      } catch (e) {
        if (!hasFailed) {
          hasFailed = true;
          failed = e;
        }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, data.length)) }, worker));
  if (hasFailed) throw failed;
  for (const w of commit) await store.write(w.key, w.body, w.options);
}

/** A key prefix that ends with `/` (an empty prefix stays empty): `reports` → `reports/`. */
export function folderPrefix(prefix: string): string {
  return prefix === "" || prefix.endsWith("/") ? prefix : `${prefix}/`;
}
