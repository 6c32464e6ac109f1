/**
 * `s3://bucket/prefix` sources, through lib/storage's BlobStore: every object under the prefix is one unit, read
 * like a file of a folder tree (`*.yaml`, `*.yml`, `*.json`; documents that are not Kubernetes objects skipped;
 * `.git`, `node_modules` and hidden folders left out, as lib/storage's folder walk leaves them out).
 * `s3://bucket/key` naming one object is that object alone, read like a file named on the command line; a key that
 * names no object is the prefix `key/` (S3 has no folders). A location with no document or archive object at all
 * is a ConfigError (exit 2), since S3 cannot tell a mistyped prefix from an empty one.
 *
 * Archives: a `.tar`, `.tar.gz` or `.tgz` object (under a prefix, or named alone) is read exactly as a local archive
 * (archive.ts {@link archiveUnits}, shown as its `s3://bucket/key` URL): one unit per document member, named
 * `s3://bucket/key!member`, with locations `{ file: "s3://bucket/key", entry: member }`. The object is downloaded
 * whole when the listing reaches it (bounded by `maxArchiveBytes`, checked against the listed size first); an object
 * over the bound, a corrupt archive and a rejected member are input errors, and the run goes on.
 *
 * Failures: an object that disappears between the listing and the read, or that is too large, is an input error of
 * that object (the run goes on); anything else the store reports (the server fails or cannot be reached after the
 * SDK's retries, access denied, the bucket is gone) is a StorageError that ends the run with exit 3: a report over a
 * silently partial export would look complete when it is not.
 */

import { ConfigError } from "#lib";
import {
  type BlobStore,
  folderPrefix,
  formatS3Url,
  isSkippedFolder,
  openS3Location,
  type S3Location,
  type S3Options,
} from "#lib/storage";
import { ARCHIVE_FILE, archiveErrorUnit, archiveTooLarge, archiveUnits } from "./archive.js";
import { decodeOptionsOf, decodeText } from "./decode.js";
import {
  DOCUMENT_FILE,
  fileTooLarge,
  type RawPart,
  type Source,
  type SourceDoc,
  type SourceOptions,
  type SourceUnit,
} from "./types.js";

/** The failure kind of a lib StorageError (told apart by `name`, never by message text). */
function storageFailure(err: unknown): string | undefined {
  if (!(err instanceof Error) || err.name !== "StorageError") return undefined;
  return (err as Error & { failure?: string }).failure;
}

const OBJECT_GONE = "object no longer exists (deleted after the listing)";

/** One object an S3 location lists (see the file comment for which). */
export interface S3Entry {
  key: string;
  size: number;
  /** A `.tar`, `.tar.gz` or `.tgz` object: read as an archive. */
  archive: boolean;
  /** The location names this object itself (not a prefix): it is the whole source, read like a file named alone. */
  alone: boolean;
}

/**
 * The objects of an S3 location, in key order, as the auditor reads them: the object the location names, or the
 * document and archive objects under it (skipped folders left out). Nothing is read.
 *
 * @throws ConfigError when there is no such object at all (a mistyped prefix must not look like a clean pass)
 */
export async function* s3Entries(url: string, store: BlobStore, location: S3Location): AsyncGenerator<S3Entry> {
  const key = location.key;
  // One listing gives both answers: the object `key` itself, or the objects under `key/`.
  const under = location.isPrefix ? key : folderPrefix(key);
  let found = 0;
  for await (const blob of store.list(key)) {
    // Keys list in order, so an object named exactly `key` comes first: then it is the whole source.
    if (!location.isPrefix && blob.key === key) {
      yield { key, size: blob.size, archive: ARCHIVE_FILE.test(key), alone: true };
      return;
    }
    if (!blob.key.startsWith(under)) continue;
    const parts = blob.key.slice(under.length).split("/");
    const name = parts.pop() ?? "";
    if (parts.some(isSkippedFolder)) continue;
    const archive = ARCHIVE_FILE.test(name);
    if (!archive && !DOCUMENT_FILE.test(name)) continue;
    found++;
    yield { key: blob.key, size: blob.size, archive, alone: false };
  }
  // S3 cannot tell a mistyped prefix from an empty one: auditing nothing must not look like a clean pass.
  if (found === 0) {
    throw new ConfigError(
      `source ${JSON.stringify(url)}: no object, and no *.yaml, *.yml, *.json, *.tar, *.tar.gz or *.tgz object under it`,
    );
  }
}

/** The units of one listed object: an archive's members, or the object read as one document file. */
export function s3EntryUnits(
  store: BlobStore,
  bucket: string,
  entry: Omit<S3Entry, "archive">,
  options: SourceOptions,
): AsyncIterable<SourceUnit> {
  if (ARCHIVE_FILE.test(entry.key)) return archiveObjectUnits(store, bucket, entry.key, entry.size, options);
  // A file named alone holds objects only; one found under a prefix may be a CI file or Helm values.
  const nonKubernetes = entry.alone ? "error" : (options.nonKubernetes ?? "skip");
  return oneUnit(objectUnit(store, bucket, entry.key, entry.size, options, nonKubernetes));
}

async function* oneUnit(unit: SourceUnit): AsyncGenerator<SourceUnit> {
  yield unit;
}

/** An S3 source; the bucket is opened on first use and released by `close()`. */
export function s3Source(url: string, options: SourceOptions, s3: Readonly<S3Options>): Source {
  return s3ObjectsSource(url, s3, async function* (store, location) {
    for await (const entry of s3Entries(url, store, location)) {
      yield* s3EntryUnits(store, location.bucket, entry, options);
    }
  });
}

/**
 * An S3 source whose units `units` gives from the opened bucket: the whole location ({@link s3Source}), or objects
 * listed before (a shard's, listing.ts).
 */
export function s3ObjectsSource(
  url: string,
  s3: Readonly<S3Options>,
  units: (store: BlobStore, location: S3Location) => AsyncIterable<SourceUnit>,
): Source {
  let opened: Promise<{ store: BlobStore; location: S3Location }> | undefined;
  const open = () => {
    opened ??= openS3Location(url, s3);
    return opened;
  };
  return {
    spec: url,
    kind: "s3",
    async *units() {
      const { store, location } = await open();
      yield* units(store, location);
    },
    async close() {
      if (opened === undefined) return;
      const o = opened;
      opened = undefined;
      try {
        (await o).store.close();
      } catch {
        // The store never opened (a malformed location): nothing to release.
      }
    },
  };
}

function objectUnit(
  store: BlobStore,
  bucket: string,
  key: string,
  size: number,
  options: SourceOptions,
  nonKubernetes: "skip" | "error",
): SourceUnit {
  const file = formatS3Url(bucket, key);
  const decodeOptions = decodeOptionsOf(options, nonKubernetes);
  /** The object's text, or its one input error. */
  const readWhole = async (): Promise<{ text: string } | { docs: SourceDoc[] }> => {
    if (size > options.maxFileBytes) {
      return {
        docs: [
          {
            kind: "error",
            location: { file },
            error: fileTooLarge("object", size, options.maxFileBytes),
          },
        ],
      };
    }
    try {
      return { text: await store.readText(key) };
    } catch (err) {
      // Gone since the listing: that object's result. Anything else ends the run (see the file comment).
      if (storageFailure(err) === "not-found") {
        return { docs: [{ kind: "error", location: { file }, error: OBJECT_GONE }] };
      }
      throw err;
    }
  };
  return {
    name: file,
    async read(): Promise<SourceDoc[]> {
      const whole = await readWhole();
      return "docs" in whole ? whole.docs : decodeText(whole.text, { file }, decodeOptions);
    },
    async *raw(): AsyncGenerator<RawPart> {
      const whole = await readWhole();
      if ("docs" in whole) yield { kind: "docs", docs: whole.docs };
      else yield { kind: "text", text: whole.text, base: { file }, options: decodeOptions };
    },
  };
}

/** The units of an archive object: its members, or one input error when it is too large, gone or unreadable. */
async function* archiveObjectUnits(
  store: BlobStore,
  bucket: string,
  key: string,
  size: number,
  options: SourceOptions,
): AsyncGenerator<SourceUnit> {
  const file = formatS3Url(bucket, key);
  if (size > options.maxArchiveBytes) {
    yield archiveErrorUnit(file, archiveTooLarge(size, options));
    return;
  }
  let bytes: Uint8Array;
  try {
    bytes = await store.readBytes(key);
  } catch (err) {
    // Gone since the listing: that archive's result. Anything else ends the run (see the file comment).
    if (storageFailure(err) === "not-found") {
      yield archiveErrorUnit(file, OBJECT_GONE);
      return;
    }
    throw err;
  }
  // The listed size said it fits; an object replaced since by a larger one is held to the same bound.
  if (bytes.byteLength > options.maxArchiveBytes) {
    yield archiveErrorUnit(file, archiveTooLarge(bytes.byteLength, options));
    return;
  }
  yield* archiveUnits(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), file, options);
}
