/**
 * The last step of a sharded run: merge the shards' partial runs (shard.ts) into the run one unsharded audit of the
 * same sources would have produced, compare it with `latest.json` as `tollgate audit` does, write the reports through
 * the same sink (index.json, then latest.json), then delete the run's work folder (layout.ts).
 *
 * The partial runs are found by listing `parts/`: their names give the item ranges, which must cover the manifest's
 * items exactly once. A range no partial run covers (its shard failed, and the orchestrator was told to tolerate
 * failed shards) is not silently dropped: with `tolerateMissing` each of its units becomes an input error ("not
 * audited") in the report; without it the merge fails and writes nothing.
 *
 * Retries never publish a run twice: when `latest.json` already points at this run, the merge only finishes the
 * clean-up and returns what was published; otherwise it writes the reports into the run's own folder (replacing what
 * an earlier attempt left, SinkOptions.sameFolder) and then `latest.json`, once. A run older than the one `latest.json`
 * points at is refused: it would replace a newer run.
 */
import { ConfigError } from "#lib";
import { type BlobStore, openLocation } from "#lib/storage";
import type { PreviousReport } from "../compare.js";
import type { ResolvedAuditConfig } from "../config.js";
import { publishRun } from "../execute.js";
import { inputErrorFinding } from "../findings.js";
import { type AuditResult, type AuditRun, type Finding, locationText, type Summary } from "../model.js";
import { RunRecorder } from "../recorder.js";
import { readLatestPointer, readLatestReport } from "../sink.js";
import { MANIFEST, PARTS, parsePartName, type ShardedRun, type ShardItem, shardsKey } from "./layout.js";

export interface MergeOptions {
  /** Items of the manifest (the plan's count). */
  items: number;
  /** Report units of missing shards as input errors instead of failing. Default false. */
  tolerateMissing?: boolean;
  /** The clock (tests pass a fixed one). */
  now?: () => Date;
}

/** What the merge published (or had published before, when retried). */
export interface MergedRun {
  runId: string;
  /** The run folder: a path or an `s3://` URL, ending in `/`. */
  folder: string;
  summary: Summary;
  /** Partial runs merged. */
  shards: number;
  /** Units no shard audited (reported as input errors). */
  missing: number;
  /** Published by an earlier attempt of this merge: nothing was written now. */
  publishedBefore: boolean;
}

/**
 * Merges, publishes and cleans up.
 *
 * @throws Error when partial runs are missing (and not tolerated) or overlap, or the shards audited against different
 * bundles; ConfigError when a newer run has been published at `out` since; StorageError when reading or writing fails
 */
export async function mergeShards(
  run: ShardedRun,
  config: Readonly<ResolvedAuditConfig>,
  options: MergeOptions,
): Promise<MergedRun> {
  const latest = await readLatestPointer(run.out, { s3: config.s3 });
  // Opened at the report prefix, so that removing the work folder leaves no empty local folder behind.
  const opened = await openLocation(run.out, "folder", config.s3);
  const work = { ...opened, key: opened.key + shardsKey(run.runId) };
  try {
    if (latest !== undefined && latest.runId >= run.runId) {
      if (latest.runId !== run.runId) {
        throw new ConfigError(
          `sharded audit: run ${latest.runId} was published at ${run.out} after this run (${run.runId}) started; this run is not published over it`,
        );
      }
      const folder = `${run.out.replace(/\/+$/, "")}/${latest.path}`;
      const shards = (await partsOf(work.store, work.key)).length;
      await removeAll(work.store, work.key);
      return { runId: run.runId, folder, summary: latest.summary, shards, missing: 0, publishedBefore: true };
    }
    const pieces = await piecesOf(work, options);
    const now = options.now ?? (() => new Date());
    const compareWith = await readLatestReport(run.out, { s3: config.s3 });
    const finished = now();
    const result = await mergeRuns(
      pieces,
      run,
      finished,
      compareWith,
      async (name) => JSON.parse(await work.store.readText(work.key + PARTS + name)),
      config.warnExpiryDays,
    );
    const { written } = await publishRun(result, config, { sameFolder: true });
    await removeAll(work.store, work.key);
    const missing = pieces.reduce((n, p) => n + (p.kind === "missing" ? p.items.length : 0), 0);
    return {
      runId: run.runId,
      folder: written.folder.endsWith("/") ? written.folder : `${written.folder}/`,
      summary: result.summary,
      shards: pieces.filter((p) => p.kind === "part").length,
      missing,
      publishedBefore: false,
    };
  } finally {
    work.store.close();
  }
}

/** A partial run, or items no partial run covers; in run order. */
type Piece = { kind: "part"; name: string } | { kind: "missing"; items: ShardItem[] };

/** The partial runs' names and item ranges, in name (run) order. */
async function partsOf(store: BlobStore, key: string): Promise<{ name: string; first: number; last: number }[]> {
  const parts: { name: string; first: number; last: number }[] = [];
  for await (const blob of store.list(key + PARTS)) {
    const name = blob.key.slice(key.length + PARTS.length);
    const range = parsePartName(name);
    if (range !== undefined) parts.push({ name, ...range });
  }
  return parts;
}

/**
 * The run in pieces: the partial runs, and the manifest's items between them that none covers.
 *
 * @throws Error when partial runs overlap, or items are missing and not tolerated
 */
async function piecesOf(
  work: { store: BlobStore; key: string; where(key: string): string },
  options: MergeOptions,
): Promise<Piece[]> {
  const parts = await partsOf(work.store, work.key);
  const pieces: Piece[] = [];
  const gaps: { first: number; last: number }[] = [];
  let next = 0;
  for (const p of parts) {
    if (p.first < next || p.last >= options.items) {
      throw new Error(
        `sharded audit: partial run ${p.name} overlaps another or lies beyond the manifest's ${options.items} items`,
      );
    }
    if (p.first > next) gaps.push({ first: next, last: p.first - 1 });
    pieces.push({ kind: "part", name: p.name });
    next = p.last + 1;
  }
  if (next < options.items) gaps.push({ first: next, last: options.items - 1 });
  if (gaps.length === 0) return pieces;
  const count = gaps.reduce((n, g) => n + g.last - g.first + 1, 0);
  if (options.tolerateMissing !== true) {
    const g = gaps[0] as { first: number; last: number };
    throw new Error(
      `sharded audit: ${count} of ${options.items} items have no partial run (the first: items ${g.first} to ${g.last}, ${work.where(work.key + PARTS)}); no report written`,
    );
  }
  const manifest = JSON.parse(await work.store.readText(work.key + MANIFEST)) as ShardItem[];
  // Gaps in place, before the partial run that follows each.
  const placed: Piece[] = [];
  let g = 0;
  for (const piece of pieces) {
    const first = piece.kind === "part" ? (parsePartName(piece.name)?.first ?? 0) : 0;
    while (g < gaps.length && (gaps[g] as { first: number }).first < first) {
      const gap = gaps[g++] as { first: number; last: number };
      placed.push({ kind: "missing", items: manifest.slice(gap.first, gap.last + 1) });
    }
    placed.push(piece);
  }
  for (; g < gaps.length; g++) {
    const gap = gaps[g] as { first: number; last: number };
    placed.push({ kind: "missing", items: manifest.slice(gap.first, gap.last + 1) });
  }
  return placed;
}

/** Deletes everything under the run's work folder. */
async function removeAll(store: BlobStore, key: string): Promise<void> {
  const keys: string[] = [];
  for await (const blob of store.list(key)) keys.push(blob.key);
  await store.remove(keys);
}

/** The part of the unique-id suffix runAudit adds (`<16 hex>-<n>`), removed before ids are made unique again. */
const ID_SUFFIX = /^([0-9a-f]{16})-\d+$/;

/** The input error of a unit no shard audited. */
const NOT_AUDITED = "not audited: the shard that held it failed (the run tolerated failed shards)";

/**
 * Merges the pieces (partial runs read one at a time, in run order) into the run one unsharded audit would have
 * produced, compared with `compareWith` when given. Memory holds one partial run at a time; the merged objects and
 * findings go to the recorder's spools.
 *
 * @throws Error when no partial run is left, or the shards audited against different bundles
 */
async function mergeRuns(
  pieces: readonly Piece[],
  run: ShardedRun,
  finished: Date,
  compareWith: PreviousReport | undefined,
  readPart: (name: string) => Promise<AuditRun>,
  warnDays: number,
): Promise<AuditResult> {
  const start = new Date(run.startedAt);
  const firstPart = pieces.find((p) => p.kind === "part");
  if (firstPart === undefined) throw new Error("sharded audit: no shard finished; no report written");
  const first = await readPart(firstPart.name);
  // Every shard loads the same waivers: the first one's list, counted again over the merged findings.
  const waivers = first.waivers === undefined ? undefined : { list: first.waivers, at: start, warnDays };
  const recorder = new RunRecorder(start, {
    ...(compareWith !== undefined && { compareWith }),
    ...(waivers !== undefined && { waivers }),
  });
  try {
    // Each shard made its ids unique within its part: the suffix goes, and the recorder makes them unique again.
    const record = (f: Finding): void => {
      const m = ID_SUFFIX.exec(f.id);
      recorder.finding({ ...f, id: m === null ? f.id : (m[1] as string), firstSeen: recorder.startedAt });
    };
    // Every shard loads the same bundle and reports its policy failures: they are the run's, once, first.
    for (const f of first.findings) if (f.severity === "policy-failure") record(f);
    for (const piece of pieces) {
      if (piece.kind === "missing") {
        for (const item of piece.items) {
          const location = { file: item.name ?? (run.sources[item.source] as string) };
          recorder.object({ key: locationText(location), location, outcome: "error", findings: 1 });
          record(inputErrorFinding(location, NOT_AUDITED, recorder.startedAt));
        }
        continue;
      }
      const part = piece === firstPart ? first : await readPart(piece.name);
      if (part.bundle.digest !== first.bundle.digest) {
        throw new Error("sharded audit: shards audited against different bundles (the bundle changed during the run)");
      }
      for (const o of part.objects) recorder.object(o);
      for (const f of part.findings) if (f.severity !== "policy-failure") record(f);
    }
    return await recorder.finish(
      {
        finishedAt: finished.toISOString(),
        tool: first.tool,
        bundle: first.bundle,
        sources: [...run.sources],
        failOn: run.failOn,
        ...(run.previous !== undefined && { previous: run.previous }),
        ...(first.notes !== undefined && { notes: first.notes }),
      },
      Math.max(0, finished.getTime() - start.getTime()),
    );
  } catch (err) {
    recorder.dispose();
    throw err;
  }
}
