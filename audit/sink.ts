/**
 * Writes a run's rendered files to `--out`: a folder per run named by its UTC start time (`20261122T021500Z`), the
 * run's `index.json` (files, sizes and sha256 digests) written last, then `latest.json` at the prefix, so a reader
 * that follows `latest.json` or finds an `index.json` never sees a partial run. Every file is written to a
 * temporary name and renamed.
 *
 * Today the prefix is a local folder. `s3://bucket/prefix` goes through lib/storage's BlobStore once it has landed
 * (the `ReportStore` below is the seam).
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError, StorageError } from "#lib";
import { isPreviousReport, type PreviousReport } from "./compare.js";
import type { AuditRun } from "./model.js";
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
  /** The run folder (a path under `--out`). */
  folder: string;
  files: Array<{ name: string; bytes: number; sha256: string }>;
}

/** The storage a run is written to; keys are `/`-separated under the prefix. */
interface ReportStore {
  readonly location: string;
  exists(key: string): Promise<boolean>;
  read(key: string): Promise<string | undefined>;
  write(key: string, content: string): Promise<void>;
  path(key: string): string;
}

function localStore(root: string): ReportStore {
  return {
    location: root,
    async exists(key) {
      try {
        await stat(join(root, key));
        return true;
      } catch {
        return false;
      }
    },
    async read(key) {
      try {
        return await readFile(join(root, key), "utf8");
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw new StorageError(`cannot read ${join(root, key)}: ${(err as Error).message}`, { cause: err });
      }
    },
    async write(key, content) {
      const path = join(root, key);
      const tmp = `${path}.tmp-${process.pid}`;
      try {
        await mkdir(join(path, ".."), { recursive: true });
        await writeFile(tmp, content);
        await rename(tmp, path);
      } catch (err) {
        throw new StorageError(`cannot write ${path}: ${(err as Error).message}`, { cause: err });
      }
    },
    path: (key) => join(root, key),
  };
}

function openStore(out: string): ReportStore {
  if (/^s3:\/\//i.test(out)) throw new ConfigError(`S3 report locations are not supported yet: ${out}`);
  return localStore(out);
}

/** Writes the files, then index.json, then latest.json. A run folder that exists already gets a `-2`... suffix. */
export async function writeRun(out: string, run: AuditRun, files: readonly ReportFile[]): Promise<WrittenRun> {
  const store = openStore(out);
  let folder = run.runId;
  for (let n = 2; await store.exists(folder); n++) folder = `${run.runId}-${n}`;
  const written: WrittenRun["files"] = [];
  for (const f of files) {
    await store.write(`${folder}/${f.name}`, f.content);
    written.push({
      name: f.name,
      bytes: Buffer.byteLength(f.content),
      sha256: createHash("sha256").update(f.content).digest("hex"),
    });
  }
  const index = {
    apiVersion: run.apiVersion,
    kind: "AuditRunIndex",
    runId: run.runId,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    files: written.map((w) => ({ ...w, contentType: files.find((f) => f.name === w.name)?.contentType })),
  };
  await store.write(`${folder}/index.json`, `${JSON.stringify(index, null, 2)}\n`);
  const latest: LatestPointer = {
    apiVersion: run.apiVersion,
    kind: "AuditLatest",
    runId: run.runId,
    path: `${folder}/`,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    summary: run.summary,
  };
  await store.write("latest.json", `${JSON.stringify(latest, null, 2)}\n`);
  return { folder: store.path(folder), files: written };
}

/**
 * The latest complete run at the prefix (its report.json), for the comparison; undefined on a first run or when the
 * latest run has no report.json (written with `--format` excluding json).
 */
export async function readLatestReport(out: string): Promise<PreviousReport | undefined> {
  const store = openStore(out);
  const latest = await store.read("latest.json");
  if (latest === undefined) return undefined;
  let pointer: unknown;
  try {
    pointer = JSON.parse(latest);
  } catch {
    return undefined;
  }
  const path = (pointer as { path?: unknown }).path;
  if (typeof path !== "string" || path.includes("..")) return undefined;
  return readReportFile(store.path(`${path}report.json`));
}

/** A report.json given with `--compare-with`. @throws ConfigError when it is missing or not a report */
export async function readReportFile(path: string): Promise<PreviousReport | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StorageError(`cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
  let parsed: unknown;
  try {
    // Our own report file, written by a previous run: not untrusted input from the audited objects.
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${path} is not a tollgate report (not JSON)`, { cause: err });
  }
  if (!isPreviousReport(parsed)) throw new ConfigError(`${path} is not a tollgate report`);
  return parsed;
}
