/**
 * Writes a run's rendered files to `--out`, a local folder or `s3://bucket/prefix`, through lib/storage's BlobStore:
 * a folder per run named by its UTC start time (`20261122T021500Z`), the run's `index.json` (files, sizes and sha256
 * digests, and the sha256 of the previous run's index.json: the evidence chain, verified by evidence.ts) written
 * after them, then its line appended to `history.json` (history.ts), then `latest.json` at the prefix, so a reader
 * that follows `latest.json` or finds an `index.json` never sees a partial run.
 *
 * Runs at one prefix are written one after another (a schedule): two runs finishing at the same moment could both
 * link to the same previous run, and one history line could be lost (S3 has no append).
 *
 * Every object is whole or absent: the filesystem store writes a temporary file and renames it; S3 makes an object
 * visible only once complete (reports over the multipart threshold go up in parts). When a write fails, no
 * `index.json` is written and {@link writeRun} throws a StorageError that says so and names the run folder.
 */
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { StorageError } from "#lib";
import { type BlobStore, type BlobWrite, openLocation, type S3Options, writeInOrder } from "#lib/storage";
import { type PreviousReport, readPreviousReport } from "./compare.js";
import type { RunGroups } from "./groups.js";
import {
  appendHistory,
  HISTORY_FILE,
  HISTORY_SHOWN,
  type HistoryEntry,
  historyEntryOf,
  parseHistory,
} from "./history.js";
import type { AuditRun, AuditRunHeader } from "./model.js";
import type { ReportFile } from "./report/index.js";
import { ByteChunker } from "./report/stream.js";

/** What `latest.json` holds. */
export interface LatestPointer {
  apiVersion: string;
  kind: "AuditLatest";
  runId: string;
  /** The run folder, relative to the prefix (`20261122T021500Z/`). */
  path: string;
  startedAt: string;
  finishedAt: string;
  /** sha256 of the run's index.json. */
  index?: string;
  summary: AuditRun["summary"];
}

/** What index.json holds. */
export interface RunIndex {
  apiVersion: string;
  kind: "AuditRunIndex";
  runId: string;
  startedAt: string;
  finishedAt: string;
  files: Array<{ name: string; bytes: number; sha256: string; contentType: string }>;
  /**
   * The run `latest.json` pointed at when this run was written, and the sha256 of its index.json (absent when that
   * index.json could not be read: the chain was already broken there). Absent on the first run at a prefix.
   */
  previous?: { runId: string; path: string; sha256?: string };
}

export interface WrittenRun {
  /** The run folder: a path under a local `--out`, or `s3://bucket/prefix/<run>`. */
  folder: string;
  files: Array<{ name: string; bytes: number; sha256: string }>;
  /** Where a file of the run folder is: a local path or an s3:// URL. */
  location(name: string): string;
}

/** How the sink reaches S3, and its multipart settings (lib/storage's defaults when absent). */
export interface SinkOptions {
  s3?: Readonly<S3Options>;
  /** Report files larger than this go up to S3 as multipart uploads. Default 16 MiB (lib/storage). */
  multipartThreshold?: number;
  /**
   * Files written at once before index.json. Default: all of them to a local folder (the files the shared pass
   * renders are then written as it renders them: see audit/report/live-text.ts), 4 to S3 (each upload holds a few
   * parts of 8 MiB in memory).
   */
  concurrency?: number;
  /**
   * Write into the run folder named by the run id even when it exists, replacing what is there, instead of a `-2`...
   * folder beside it: for a step that is retried (a sharded run's merge), whose run id is fixed and whose earlier
   * attempt may have left files and no index.json. Default false.
   */
  sameFolder?: boolean;
}

/** A store opened at a report prefix: keys are relative to the prefix. */
interface ReportStore {
  store: BlobStore;
  /** The key prefix inside the store (empty for a local folder, `prefix/` in a bucket). */
  prefix: string;
  /** A key's location for messages: a path or `s3://bucket/key`. */
  where(key: string): string;
}

async function openReportStore(out: string, options: SinkOptions): Promise<ReportStore> {
  const {
    store,
    key: prefix,
    where,
  } = await openLocation(out, "folder", {
    ...options.s3,
    ...(options.multipartThreshold !== undefined && { multipartThreshold: options.multipartThreshold }),
  });
  return { store, prefix, where: (key) => where(prefix + key) };
}

function failureOf(err: unknown): string | undefined {
  return err instanceof Error && err.name === "StorageError" ? (err as StorageError).failure : undefined;
}

/** What a read gives, or undefined when the object does not exist (other failures are thrown). */
export async function unlessMissing<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (failureOf(err) === "not-found") return undefined;
    throw err;
  }
}

function readOptional(r: ReportStore, key: string): Promise<string | undefined> {
  return unlessMissing(r.store.readText(r.prefix + key));
}

/**
 * `latest.json`'s text as the pointer tollgate wrote; undefined when absent or not one (not JSON, no run id, a path
 * that leaves the prefix).
 */
function parseLatest(text: string | undefined): LatestPointer | undefined {
  if (text === undefined) return undefined;
  let pointer: Partial<LatestPointer>;
  try {
    pointer = JSON.parse(text) as Partial<LatestPointer>;
  } catch {
    return undefined;
  }
  const p = pointer?.path;
  if (typeof p !== "string" || p.includes("..") || p.startsWith("/") || typeof pointer.runId !== "string") {
    return undefined;
  }
  return pointer as LatestPointer;
}

/** The link to the previous run: its id, folder and the sha256 of its index.json as it is now. */
async function previousLink(r: ReportStore): Promise<RunIndex["previous"]> {
  const latest = parseLatest(await readOptional(r, "latest.json"));
  if (latest === undefined) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = await r.store.readBytes(`${r.prefix}${latest.path}index.json`);
  } catch (err) {
    if (failureOf(err) === "not-found") return { runId: latest.runId, path: latest.path };
    throw err;
  }
  return { runId: latest.runId, path: latest.path, sha256: createHash("sha256").update(bytes).digest("hex") };
}

async function folderExists(r: ReportStore, folder: string): Promise<boolean> {
  const it = r.store.list(`${r.prefix}${folder}/`)[Symbol.asyncIterator]();
  const first = await it.next();
  await it.return?.();
  return first.done !== true;
}

/**
 * The file's content as a stream of bytes, counting and hashing them as they are written; small chunks are gathered
 * (a write per chunk of about a megabyte at least).
 */
function measured(f: ReportFile): { body: Readable; digest(): WrittenRun["files"][number] } {
  const hash = createHash("sha256");
  let bytes = 0;
  async function* encode(): AsyncGenerator<Uint8Array> {
    const out = new ByteChunker();
    const counted = (b: Uint8Array): Uint8Array => {
      hash.update(b);
      bytes += b.length;
      return b;
    };
    for await (const chunk of f.chunks()) for (const b of out.push(chunk)) yield counted(b);
    const rest = out.take();
    if (rest.length > 0) yield counted(rest);
  }
  return {
    body: Readable.from(encode(), { objectMode: false }),
    digest: () => ({ name: f.name, bytes, sha256: hash.digest("hex") }),
  };
}

/**
 * Writes the files, then index.json, then latest.json. A run folder that exists already gets a `-2`... suffix.
 *
 * @throws StorageError when a write fails: the message names the run folder and says whether index.json was
 * written (it never is after a failed file write, so readers ignore the partial folder)
 */
export async function writeRun(
  out: string,
  run: AuditRunHeader & { groups?: RunGroups },
  files: readonly ReportFile[],
  options: SinkOptions = {},
): Promise<WrittenRun> {
  const r = await openReportStore(out, options);
  try {
    let folder = run.runId;
    if (options.sameFolder !== true) {
      for (let n = 2; await folderExists(r, folder); n++) folder = `${run.runId}-${n}`;
    }
    const bodies = files.map(measured);
    const data: BlobWrite[] = files.map((f, i) => ({
      key: `${r.prefix}${folder}/${f.name}`,
      body: bodies[i]!.body,
      options: { contentType: f.contentType },
    }));
    try {
      await writeInOrder(r.store, data, [], options.concurrency ?? (out.startsWith("s3://") ? 4 : data.length));
    } catch (err) {
      throw incomplete(err, `the run folder ${r.where(`${folder}/`)} is incomplete and has no index.json`);
    }
    // Every file is written: its size and digest are known.
    const written = bodies.map((b) => b.digest());
    const index: RunIndex = {
      apiVersion: run.apiVersion,
      kind: "AuditRunIndex",
      runId: run.runId,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      files: written.map((w, i) => ({ ...w, contentType: files[i]!.contentType })),
    };
    const previous = await previousLink(r);
    if (previous !== undefined) index.previous = previous;
    const indexText = `${JSON.stringify(index, null, 2)}\n`;
    const indexDigest = createHash("sha256").update(indexText, "utf8").digest("hex");
    const latest: LatestPointer = {
      apiVersion: run.apiVersion,
      kind: "AuditLatest",
      runId: run.runId,
      path: `${folder}/`,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      index: indexDigest,
      summary: run.summary,
    };
    const indexWrite: BlobWrite = {
      key: `${r.prefix}${folder}/index.json`,
      body: indexText,
      options: { contentType: "application/json" },
    };
    const latestWrite: BlobWrite = {
      key: `${r.prefix}latest.json`,
      body: `${JSON.stringify(latest, null, 2)}\n`,
      options: { contentType: "application/json" },
    };
    try {
      await r.store.write(indexWrite.key, indexWrite.body, indexWrite.options);
    } catch (err) {
      throw incomplete(err, `the run folder ${r.where(`${folder}/`)} is incomplete and has no index.json`);
    }
    try {
      const history = await readOptional(r, HISTORY_FILE);
      const entry = historyEntryOf(run, `${folder}/`, indexDigest);
      await r.store.write(`${r.prefix}${HISTORY_FILE}`, appendHistory(history, entry), {
        contentType: "application/x-ndjson",
      });
    } catch (err) {
      throw incomplete(
        err,
        `the run folder ${r.where(`${folder}/`)} is complete (index.json written) but ${r.where(HISTORY_FILE)} has no line for it and ${r.where("latest.json")} still points at the previous run`,
      );
    }
    try {
      await r.store.write(latestWrite.key, latestWrite.body, latestWrite.options);
    } catch (err) {
      throw incomplete(
        err,
        `the run folder ${r.where(`${folder}/`)} is complete (index.json written) but ${r.where("latest.json")} still points at the previous run`,
      );
    }
    return { folder: r.where(folder), files: written, location: (name) => r.where(`${folder}/${name}`) };
  } finally {
    r.store.close();
  }
}

/** `reports not written: <what state is left>: <the storage failure>`, keeping the failure kind. */
function incomplete(err: unknown, state: string): StorageError {
  const message = err instanceof Error ? err.message : String(err);
  const failure = (failureOf(err) ?? "other") as StorageError["failure"];
  return new StorageError(`reports not written: ${state}: ${message}`, { cause: err, failure });
}

/**
 * `latest.json` at the prefix: the last complete run; undefined on a first run, or when it is not one tollgate wrote
 * (not JSON, no run id, a path that leaves the prefix).
 */
export async function readLatestPointer(out: string, options: SinkOptions = {}): Promise<LatestPointer | undefined> {
  const r = await openReportStore(out, options);
  try {
    return parseLatest(await readOptional(r, "latest.json"));
  } finally {
    r.store.close();
  }
}

/**
 * The latest complete run at the prefix (its report.json), for the comparison; undefined on a first run or when the
 * latest run has no report.json (written with `--format` excluding json). The report is read as a stream, never
 * held whole (see compare.ts).
 */
export async function readLatestReport(out: string, options: SinkOptions = {}): Promise<PreviousReport | undefined> {
  const pointer = await readLatestPointer(out, options);
  if (pointer === undefined) return undefined;
  const key = `${pointer.path}report.json`;
  return readReport(async () => {
    const store = await openReportStore(out, options);
    return { store: store.store, key: store.prefix + key, where: store.where(key) };
  });
}

/** The last runs of history.json at the prefix, oldest first, for a report's trend; empty when there is none. */
export async function readHistory(out: string, options: SinkOptions = {}): Promise<HistoryEntry[]> {
  const r = await openReportStore(out, options);
  try {
    const text = await readOptional(r, HISTORY_FILE);
    return text === undefined ? [] : parseHistory(text).slice(-(HISTORY_SHOWN - 1));
  } finally {
    r.store.close();
  }
}

/**
 * A report.json given with `--compare-with` (a path or `s3://bucket/key`); undefined when it does not exist.
 *
 * @throws ConfigError when it is not a report
 */
export async function readReportFile(path: string, options: SinkOptions = {}): Promise<PreviousReport | undefined> {
  return readReport(async () => {
    const { store, key } = await openLocation(path, "object", options.s3);
    return { store, key, where: path };
  });
}

/** Reads a report through a store opened for each read (and closed when the read ends); undefined when absent. */
async function readReport(
  connect: () => Promise<{ store: BlobStore; key: string; where: string }>,
): Promise<PreviousReport | undefined> {
  let where = "";
  const open = async (): Promise<Readable> => {
    const c = await connect();
    where = c.where;
    try {
      const stream = await c.store.readStream(c.key);
      stream.once("close", () => c.store.close());
      return stream;
    } catch (err) {
      c.store.close();
      throw err;
    }
  };
  let first: Readable;
  try {
    first = await open();
  } catch (err) {
    if (failureOf(err) === "not-found") return undefined;
    throw err;
  }
  let used = false;
  return readPreviousReport(async () => {
    if (!used) {
      used = true;
      return first;
    }
    return open();
  }, where);
}
