/**
 * `tollgate verify <prefix|run>`: re-hashes what the sink wrote (sink.ts) and says which file or link no longer
 * matches.
 *
 * - A run folder (it holds `index.json`): every file index.json lists is read again and its size and sha256
 *   compared; a listed file that is gone, or a file in the folder index.json does not list, is a problem too.
 * - A prefix (it holds `latest.json`): the chain from the run latest.json points at back to the first run: each run
 *   is verified as above, and each index.json's `previous.sha256` is compared with the sha256 of the previous run's
 *   index.json as it is now (a run edited and its index.json rewritten to match breaks the link from the run after
 *   it). latest.json's own digest of the newest index.json, history.json's digest of each run's index.json, and run
 *   folders the chain does not reach (`shards/` excepted) are checked as well.
 *
 * The newest index.json is linked from nothing: keep its digest (printed on success) elsewhere, or keep the bucket
 * under S3 Object Lock (README, "Evidence"), so it cannot be rewritten either.
 */
import { createHash } from "node:crypto";
import { ConfigError } from "#lib";
import { type BlobStore, openLocation, type S3Options } from "#lib/storage";
import { HISTORY_FILE, parseHistory } from "./history.js";
import { type LatestPointer, type RunIndex, unlessMissing } from "./sink.js";

export interface VerifiedEvidence {
  /** Runs whose files were re-hashed, newest first (their folders relative to the location). */
  runs: string[];
  /** Files re-hashed. */
  files: number;
  /** One line per broken file or link; empty when everything matches. */
  problems: string[];
  /** sha256 of the newest index.json verified. */
  head?: string;
}

interface Opened {
  store: BlobStore;
  prefix: string;
  where(key: string): string;
}

function readOptionalBytes(o: Opened, key: string): Promise<Uint8Array | undefined> {
  return unlessMissing(o.store.readBytes(o.prefix + key));
}

function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The sha256 and size of an object, read as a stream. */
async function hashObject(o: Opened, key: string): Promise<{ sha256: string; bytes: number } | undefined> {
  const stream = await unlessMissing(o.store.readStream(o.prefix + key));
  if (stream === undefined) return undefined;
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of stream) {
    const b = chunk as Buffer;
    hash.update(b);
    bytes += b.length;
  }
  return { sha256: hash.digest("hex"), bytes };
}

function parseIndex(bytes: Uint8Array, where: string, problems: string[]): RunIndex | undefined {
  try {
    const v = JSON.parse(Buffer.from(bytes).toString("utf8")) as Partial<RunIndex>;
    if (v.kind === "AuditRunIndex" && Array.isArray(v.files)) return v as RunIndex;
  } catch {
    // reported below
  }
  problems.push(`${where}: not an index.json tollgate wrote (it does not parse as an AuditRunIndex)`);
  return undefined;
}

/** Re-hashes one run folder (`folder` ends in `/`, relative to the opened prefix); returns its index when readable. */
async function verifyRun(
  o: Opened,
  folder: string,
  result: VerifiedEvidence,
): Promise<{ index: RunIndex; digest: string } | undefined> {
  const indexKey = `${folder}index.json`;
  const bytes = await readOptionalBytes(o, indexKey);
  if (bytes === undefined) {
    result.problems.push(`${o.where(indexKey)}: missing (the run folder has no index.json)`);
    return undefined;
  }
  const index = parseIndex(bytes, o.where(indexKey), result.problems);
  if (index === undefined) return undefined;
  result.runs.push(folder);
  const listed = new Set<string>();
  for (const f of index.files) {
    listed.add(f.name);
    const key = `${folder}${f.name}`;
    const actual = await hashObject(o, key);
    result.files++;
    if (actual === undefined) {
      result.problems.push(`${o.where(key)}: missing (index.json lists it)`);
    } else if (actual.sha256 !== f.sha256 || actual.bytes !== f.bytes) {
      result.problems.push(
        `${o.where(key)}: changed (index.json records ${f.bytes} bytes, sha256 ${f.sha256}; it now has ${actual.bytes} bytes, sha256 ${actual.sha256})`,
      );
    }
  }
  for await (const info of o.store.list(o.prefix + folder)) {
    const name = info.key.slice(o.prefix.length + folder.length);
    if (name !== "index.json" && !listed.has(name)) {
      result.problems.push(`${o.where(info.key.slice(o.prefix.length))}: not listed in index.json (added afterwards)`);
    }
  }
  return { index, digest: sha256(bytes) };
}

/**
 * Verifies a run folder or a whole prefix (see the module comment).
 *
 * @throws ConfigError when the location holds neither an index.json nor a latest.json
 */
export async function verifyEvidence(location: string, s3: Readonly<S3Options> = {}): Promise<VerifiedEvidence> {
  const { store, key, where } = await openLocation(location, "folder", s3);
  const o: Opened = { store, prefix: key, where: (k) => where(key + k) };
  try {
    const result: VerifiedEvidence = { runs: [], files: 0, problems: [] };
    if ((await readOptionalBytes(o, "index.json")) !== undefined) {
      const run = await verifyRun(o, "", result);
      if (run !== undefined) result.head = run.digest;
      return result;
    }
    const latestBytes = await readOptionalBytes(o, "latest.json");
    if (latestBytes === undefined) {
      throw new ConfigError(
        `${location} holds neither an index.json (a run folder) nor a latest.json (a report prefix)`,
      );
    }
    await verifyChain(o, latestBytes, result);
    return result;
  } finally {
    store.close();
  }
}

async function verifyChain(o: Opened, latestBytes: Uint8Array, result: VerifiedEvidence): Promise<void> {
  let latest: Partial<LatestPointer>;
  try {
    latest = JSON.parse(Buffer.from(latestBytes).toString("utf8")) as Partial<LatestPointer>;
  } catch {
    result.problems.push(`${o.where("latest.json")}: does not parse`);
    return;
  }
  let folder = typeof latest.path === "string" && !latest.path.includes("..") ? latest.path : undefined;
  if (folder === undefined) {
    result.problems.push(`${o.where("latest.json")}: names no run folder`);
    return;
  }
  const digests = new Map<string, string>();
  const seen = new Set<string>();
  let expected = latest.index;
  let linkFrom = o.where("latest.json");
  while (folder !== undefined && !seen.has(folder)) {
    seen.add(folder);
    const run = await verifyRun(o, folder, result);
    if (run === undefined) break;
    if (result.head === undefined) result.head = run.digest;
    digests.set(folder, run.digest);
    if (expected !== undefined && expected !== run.digest) {
      result.problems.push(
        `link broken: ${linkFrom} records sha256 ${expected} for ${o.where(`${folder}index.json`)}, which now hashes to ${run.digest}`,
      );
    }
    const previous = run.index.previous;
    if (previous === undefined) break;
    linkFrom = o.where(`${folder}index.json`);
    if (previous.sha256 === undefined) {
      result.problems.push(
        `link broken: ${linkFrom} records no digest of ${o.where(`${previous.path}index.json`)} (it was missing when the run was written)`,
      );
    }
    expected = previous.sha256;
    folder = previous.path.includes("..") ? undefined : previous.path;
  }
  await checkHistory(o, digests, result);
  await checkUnchained(o, seen, result);
}

/** history.json's digest of each run's index.json, for the runs of the chain. */
async function checkHistory(o: Opened, digests: ReadonlyMap<string, string>, result: VerifiedEvidence): Promise<void> {
  const bytes = await readOptionalBytes(o, HISTORY_FILE);
  if (bytes === undefined) return;
  for (const e of parseHistory(Buffer.from(bytes).toString("utf8"))) {
    const actual = digests.get(e.path);
    if (actual !== undefined && e.index !== actual) {
      result.problems.push(
        `${o.where(HISTORY_FILE)}: its line for ${e.path} records sha256 ${e.index} for index.json, which hashes to ${actual}`,
      );
    }
  }
}

/** Run folders with an index.json that the chain from latest.json does not reach (inserted, or cut off). */
async function checkUnchained(o: Opened, chained: ReadonlySet<string>, result: VerifiedEvidence): Promise<void> {
  for await (const info of o.store.list(o.prefix)) {
    const rel = info.key.slice(o.prefix.length);
    const parts = rel.split("/");
    if (parts.length !== 2 || parts[1] !== "index.json" || parts[0] === "shards") continue;
    if (!chained.has(`${parts[0]}/`)) {
      result.problems.push(`${o.where(rel)}: a run the chain from latest.json does not reach`);
    }
  }
}
