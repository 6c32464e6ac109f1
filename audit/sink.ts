/**
 * Writes a run's rendered files to `--out`, a local folder or `s3://bucket/prefix`, through lib/storage's BlobStore:
 * a folder per run named by its UTC start time (`20261122T021500Z`), the run's `index.json` (files, sizes and sha256
 * digests) written last, then `latest.json` at the prefix, so a reader that follows `latest.json` or finds an
 * `index.json` never sees a partial run.
 *
 * Every object is whole or absent: the filesystem store writes a temporary file and renames it; S3 makes an object
 * visible only once complete (reports over the multipart threshold go up in parts). When a write fails, no
 * `index.json` is written and {@link writeRun} throws a StorageError that says so and names the run folder.
 */
import { createHash } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { Readable } from "node:stream";
import { ConfigError, StorageError } from "#lib";
import {
  type BlobStore,
  type BlobWrite,
  createFsStore,
  createS3Store,
  folderPrefix,
  formatS3Url,
  isS3Url,
  parseS3Url,
  type S3Options,
  writeInOrder,
} from "#lib/storage";
import { isPreviousReport, type PreviousReport } from "./compare.js";
import type { AuditRun, AuditRunHeader } from "./model.js";
import type { ReportFile } from "./report/index.js";

/** What `latest.json` holds. */
export interface LatestPointer {
  apiVersion: string;
  kind: "AuditLatest";
  runId: string;
  /** The run folder, relative to the prefix (`20261122T021500Z/`). */
  path: string;
  startedAt: string;
  finishedAt: string;
  summary: AuditRun["summary"];
}

export interface WrittenRun {
  /** The run folder: a path under a local `--out`, or `s3://bucket/prefix/<run>/`. */
  folder: string;
  files: Array<{ name: string; bytes: number; sha256: string }>;
}

/** How the sink reaches S3, and its multipart settings (lib/storage's defaults when absent). */
export interface SinkOptions {
  s3?: Readonly<S3Options>;
  /** Report files larger than this go up to S3 as multipart uploads. Default 16 MiB (lib/storage). */
  multipartThreshold?: number;
  /** Files written at once before index.json. Default 4. */
  concurrency?: number;
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
  if (!isS3Url(out)) {
    return { store: createFsStore(out), prefix: "", where: (key) => join(out, key) };
  }
  const location = parseS3Url(out);
  const prefix = folderPrefix(location.key);
  const store = await createS3Store({
    ...options.s3,
    bucket: location.bucket,
    ...(options.multipartThreshold !== undefined && { multipartThreshold: options.multipartThreshold }),
  });
  return { store, prefix, where: (key) => formatS3Url(location.bucket, prefix + key) };
}

function failureOf(err: unknown): string | undefined {
  return err instanceof Error && err.name === "StorageError" ? (err as StorageError).failure : undefined;
}

async function readOptional(r: ReportStore, key: string): Promise<string | undefined> {
  try {
    return await r.store.readText(r.prefix + key);
  } catch (err) {
    if (failureOf(err) === "not-found") return undefined;
    throw err;
  }
}

async function folderExists(r: ReportStore, folder: string): Promise<boolean> {
  const it = r.store.list(`${r.prefix}${folder}/`)[Symbol.asyncIterator]();
  const first = await it.next();
  await it.return?.();
  return first.done !== true;
}

/** The file's content as a stream of bytes, counting and hashing them as they are written. */
function measured(f: ReportFile): { body: Readable; digest(): WrittenRun["files"][number] } {
  const hash = createHash("sha256");
  let bytes = 0;
  async function* encode(): AsyncGenerator<Buffer> {
    for await (const chunk of f.chunks()) {
      if (chunk.length === 0) continue;
      const b = Buffer.from(chunk, "utf8");
      hash.update(b);
      bytes += b.length;
      yield b;
    }
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
  run: AuditRunHeader,
  files: readonly ReportFile[],
  options: SinkOptions = {},
): Promise<WrittenRun> {
  const r = await openReportStore(out, options);
  try {
    let folder = run.runId;
    for (let n = 2; await folderExists(r, folder); n++) folder = `${run.runId}-${n}`;
    const bodies = files.map(measured);
    const data: BlobWrite[] = files.map((f, i) => ({
      key: `${r.prefix}${folder}/${f.name}`,
      body: bodies[i]!.body,
      options: { contentType: f.contentType },
    }));
    try {
      await writeInOrder(r.store, data, [], options.concurrency ?? 4);
    } catch (err) {
      throw incomplete(err, `the run folder ${r.where(`${folder}/`)} is incomplete and has no index.json`);
    }
    // Every file is written: its size and digest are known.
    const written = bodies.map((b) => b.digest());
    const index = {
      apiVersion: run.apiVersion,
      kind: "AuditRunIndex",
      runId: run.runId,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      files: written.map((w, i) => ({ ...w, contentType: files[i]!.contentType })),
    };
    const latest: LatestPointer = {
      apiVersion: run.apiVersion,
      kind: "AuditLatest",
      runId: run.runId,
      path: `${folder}/`,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      summary: run.summary,
    };
    const indexWrite: BlobWrite = {
      key: `${r.prefix}${folder}/index.json`,
      body: `${JSON.stringify(index, null, 2)}\n`,
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
      await r.store.write(latestWrite.key, latestWrite.body, latestWrite.options);
    } catch (err) {
      throw incomplete(
        err,
        `the run folder ${r.where(`${folder}/`)} is complete (index.json written) but ${r.where("latest.json")} still points at the previous run`,
      );
    }
    return { folder: r.where(folder), files: written };
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
 * The latest complete run at the prefix (its report.json), for the comparison; undefined on a first run or when the
 * latest run has no report.json (written with `--format` excluding json).
 */
export async function readLatestReport(out: string, options: SinkOptions = {}): Promise<PreviousReport | undefined> {
  const r = await openReportStore(out, options);
  try {
    const latest = await readOptional(r, "latest.json");
    if (latest === undefined) return undefined;
    let pointer: unknown;
    try {
      pointer = JSON.parse(latest);
    } catch {
      return undefined;
    }
    const path = (pointer as { path?: unknown }).path;
    if (typeof path !== "string" || path.includes("..") || path.startsWith("/")) return undefined;
    const text = await readOptional(r, `${path}report.json`);
    return text === undefined ? undefined : parseReport(text, r.where(`${path}report.json`));
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
  let r: ReportStore;
  let key: string;
  if (isS3Url(path)) {
    const location = parseS3Url(path);
    r = {
      store: await createS3Store({ ...options.s3, bucket: location.bucket }),
      prefix: "",
      where: (k) => formatS3Url(location.bucket, k),
    };
    key = location.key;
  } else {
    key = basename(path);
    r = { store: createFsStore(dirname(path)), prefix: "", where: () => path };
  }
  try {
    const text = await readOptional(r, key);
    return text === undefined ? undefined : parseReport(text, path);
  } finally {
    r.store.close();
  }
}

function parseReport(text: string, where: string): PreviousReport {
  let parsed: unknown;
  try {
    // Our own report file, written by a previous run: not untrusted input from the audited objects.
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${where} is not a tollgate report (not JSON)`, { cause: err });
  }
  if (!isPreviousReport(parsed)) throw new ConfigError(`${where} is not a tollgate report`);
  return parsed;
}
