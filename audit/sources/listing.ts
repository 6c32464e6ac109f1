/**
 * A source listed into the units a sharded audit distributes (audit/shards/), and a source narrowed back to some of
 * those units. A listed unit is what one shard reads on its own:
 *
 * - a document file of a folder tree (the folder source's walk: file.ts `documentFiles`), or a folder of it that
 *   cannot be listed (read as its input error, as the folder source reads it);
 * - a document or archive object under an `s3://` prefix (s3.ts `s3Entries`): an archive stays whole, its members are
 *   read by the shard that gets it;
 * - the whole source, for a file, an archive or an S3 object named as the source.
 *
 * Listing reads no document: only folder entries (and their sizes) and S3 listings. A narrowed source
 * ({@link openUnits}) reads its units as the whole source would (same names, locations and error texts) without
 * listing the folder or prefix again, so a run's units in order give the documents of an unsharded run in order.
 */
import { stat } from "node:fs/promises";
import { sep } from "node:path";
import { ConfigError } from "#lib";
import { formatS3Url, isS3Url, openS3Location, parseS3Url } from "#lib/storage";
import { documentFiles, folderEntryUnit } from "./file.js";
import { type OpenOptions, openSource, statPath } from "./index.js";
import { s3Entries, s3EntryUnits, s3ObjectsSource } from "./s3.js";
import type { Source, SourceOptions } from "./types.js";

/** One unit of a listed source. */
export interface ListedUnit {
  /** The file path or the `s3://bucket/key` URL; absent when the unit is the whole source. */
  name?: string;
  /** Its size in bytes, as the listing gives it (0 for a folder that cannot be listed). */
  bytes: number;
  /** A folder of a folder tree that cannot be listed: it reads as its input error. */
  unreadable?: true;
}

/**
 * The units of a source, in the order the source reads them.
 *
 * @throws ConfigError for standard input (it cannot be shared out), a local path that does not exist, or an S3
 * location with no document or archive object
 */
export async function* listUnits(
  spec: string,
  options: SourceOptions,
  open: OpenOptions = {},
): AsyncGenerator<ListedUnit> {
  if (isS3Url(spec)) {
    const { store, location } = await openS3Location(spec, open.s3 ?? {});
    try {
      for await (const entry of s3Entries(spec, store, location)) {
        yield entry.alone
          ? { bytes: entry.size }
          : { name: formatS3Url(location.bucket, entry.key), bytes: entry.size };
      }
    } finally {
      store.close();
    }
    return;
  }
  if (spec === "-") throw new ConfigError('source "-": standard input cannot be audited in shards');
  const info = await statPath(spec, open.label ?? "source");
  if (!info.isDirectory()) {
    yield { bytes: info.size };
    return;
  }
  for await (const entry of documentFiles(spec, options.excludeFolders)) {
    if (entry.kind !== "file") {
      yield { name: entry.path, bytes: 0, unreadable: true };
      continue;
    }
    let bytes = 0;
    try {
      bytes = (await stat(entry.path)).size;
    } catch {
      // Gone or unreadable since the walk: the shard that reads it reports it.
    }
    yield { name: entry.path, bytes };
  }
}

/**
 * The source narrowed to some of its listed units, read in the given order (which is the source's own when they come
 * from {@link listUnits}). Close it when done.
 *
 * @throws ConfigError for a unit that does not belong to the source (not under its folder or prefix), or a whole-source
 * unit given with others
 */
export async function openUnits(
  spec: string,
  units: readonly ListedUnit[],
  options: SourceOptions,
  open: OpenOptions = {},
): Promise<Source> {
  const whole = units.filter((u) => u.name === undefined).length;
  if (whole > 0) {
    if (units.length !== 1) throw new ConfigError(`source ${JSON.stringify(spec)}: a whole source is one unit`);
    return openSource(spec, options, open);
  }
  if (isS3Url(spec)) {
    const location = parseS3Url(spec);
    const keys = units.map((u) => {
      const url = parseS3Url(u.name as string);
      if (url.bucket !== location.bucket || !url.key.startsWith(location.key)) throw notUnder(spec, u.name as string);
      return { key: url.key, size: u.bytes, alone: false };
    });
    return s3ObjectsSource(spec, open.s3 ?? {}, async function* (store, opened) {
      for (const entry of keys) yield* s3EntryUnits(store, opened.bucket, entry, options);
    });
  }
  const root = spec.endsWith(sep) ? spec : `${spec}${sep}`;
  for (const u of units) if (!(u.name as string).startsWith(root)) throw notUnder(spec, u.name as string);
  return {
    spec,
    kind: "folder",
    async *units() {
      for (const u of units) {
        yield folderEntryUnit({ kind: u.unreadable === true ? "unreadable" : "file", path: u.name as string }, options);
      }
    },
  };
}

function notUnder(spec: string, name: string): ConfigError {
  return new ConfigError(`source ${JSON.stringify(spec)}: ${JSON.stringify(name)} is not one of its units`);
}
