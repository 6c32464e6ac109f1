/**
 * The runner's worker path (audit/run.ts, `workers` > 1): units are read undecoded (`SourceUnit.raw`, up to
 * `concurrency` of them ahead, for I/O), their parts batched and sent to the pool, and the results taken back in the
 * batches' order, through a queue of at most `inFlightPerWorker` × workers batches (the reorder buffer). The records
 * and findings reach the runner's hooks in input order, exactly as on one thread.
 */

import pLimit from "p-limit";
import { appendAll } from "#lib/objects/append.js";
import type { AuditedDocument } from "../audit-document.js";
import type { Source, SourceDoc, SourceUnit } from "../sources/index.js";
import type { RawPart } from "../sources/types.js";
import { WorkerPool } from "./pool.js";
import type { PartResult, WorkerInit } from "./protocol.js";

export interface WorkerTuning {
  /** Most parts (files, YAML documents, List items) in one batch. Default 2000. */
  batchParts?: number;
  /** A batch is sent once its text reaches this many characters. Default 512 Ki. */
  batchBytes?: number;
  /** Batches in flight per worker. Default 3. */
  inFlightPerWorker?: number;
  /**
   * While no worker has built its policy set yet, batches are audited on the main thread (whose set is compiled
   * already), in batches of at most {@link LOCAL_BATCH_PARTS} parts so that the workers take over soon after they
   * are ready: a small input ends before they have started, and a large one does not wait for them. Default true.
   */
  localUntilReady?: boolean;
  /** Tests only: a worker fails at its `atBatch`-th batch. */
  fault?: WorkerInit["fault"];
}

/** How the feed hands results back to the runner. */
export interface FeedHooks {
  /** Keeps an audited document (in input order). */
  take(audited: AuditedDocument): void;
  /** Decodes and audits a batch on the main thread, as a worker would (auditRawParts). */
  auditParts(parts: readonly RawPart[]): PartResult[];
  /** Audits a document on the main thread (the rest of a unit read again, see `nested`). */
  processDoc(doc: SourceDoc): void;
  unitDone(): void;
  progress(): void;
}

interface UnitState {
  unit: SourceUnit;
  /** Documents of the unit taken so far. */
  taken: number;
  /** A List item was a List: the rest of the unit was read on the main thread; its parts still in flight are dropped. */
  derailed: boolean;
  /**
   * A JSON file read() parses whole, given item by item (RawJsonList.whole): its documents are held until its end,
   * since a `reparse` answer means the whole file is decoded with read() instead.
   */
  held: AuditedDocument[] | undefined;
}

/** A batch's entries: the index of a part in the batch's results, or -1 for "the unit ends here". */
interface Entry {
  unit: UnitState;
  part: number;
}

/** A unit whose first part is being read (at most `concurrency` units are read ahead). */
interface Started {
  state: UnitState;
  iterator: AsyncIterator<RawPart>;
  first: Promise<IteratorResult<RawPart>>;
}

/**
 * Audits every unit of the sources on a pool of `size` workers started with `init`.
 *
 * @throws WorkerPoolError (workers/pool.ts) when a worker fails: documents are never dropped
 */
export async function auditWithWorkers(
  sources: readonly Source[],
  concurrency: number,
  size: number,
  init: WorkerInit,
  tuning: WorkerTuning,
  hooks: FeedHooks,
): Promise<void> {
  const batchParts = Math.max(1, tuning.batchParts ?? 2000);
  const pool = new WorkerPool(size, init);
  try {
    const feed = new BatchFeed(pool, hooks, {
      batchParts,
      batchBytes: Math.max(1, tuning.batchBytes ?? 512 * 1024),
      maxInFlight: size * Math.max(1, tuning.inFlightPerWorker ?? 3),
      localUntilReady: tuning.localUntilReady ?? true,
    });
    const limit = pLimit(concurrency);
    const start = (unit: SourceUnit): Started => {
      const iterator = (unit.raw?.() ?? docParts(unit, batchParts))[Symbol.asyncIterator]();
      const first = limit(() => iterator.next());
      first.catch(() => {}); // awaited in order by feed.unit(); not an unhandled rejection meanwhile
      return { state: { unit, taken: 0, derailed: false, held: undefined }, iterator, first };
    };
    const ahead: Started[] = [];
    for (const source of sources) {
      for await (const unit of source.units()) {
        ahead.push(start(unit));
        if (ahead.length >= concurrency) await feed.unit(ahead.shift()!);
      }
    }
    while (ahead.length > 0) await feed.unit(ahead.shift()!);
    await feed.drain();
    pool.throwIfFailed();
  } finally {
    await pool.close();
  }
}

/** Most parts of a batch audited on the main thread while no worker is ready. */
const LOCAL_BATCH_PARTS = 64;
/** Most characters of text in such a batch. */
const LOCAL_BATCH_CHARS = 64 * 1024;

/** Batches the parts of units in order, sends them to the pool, and takes the results back in the same order. */
class BatchFeed {
  private readonly queue: { results: Promise<PartResult[]>; entries: Entry[] }[] = [];
  private parts: RawPart[] = [];
  private entries: Entry[] = [];
  private bytes = 0;

  constructor(
    private readonly pool: WorkerPool,
    private readonly hooks: FeedHooks,
    private readonly limits: { batchParts: number; batchBytes: number; maxInFlight: number; localUntilReady: boolean },
  ) {}

  /** Whether the next batch is audited here: no worker is ready yet. */
  private get local(): boolean {
    return this.limits.localUntilReady && !this.pool.anyReady;
  }

  /** Every part of a started unit, then its end. */
  async unit(s: Started): Promise<void> {
    for (let r = await s.first; r.done !== true; r = await s.iterator.next()) {
      await this.add(s.state, r.value);
      if (s.state.derailed) {
        await s.iterator.return?.();
        break;
      }
    }
    this.entries.push({ unit: s.state, part: -1 });
  }

  /** Sends what is batched and takes every result back. */
  async drain(): Promise<void> {
    await this.flush();
    while (this.queue.length > 0) await this.consumeOne();
  }

  private async add(u: UnitState, part: RawPart): Promise<void> {
    if (part.kind === "json-item" && part.list.whole === true) u.held ??= [];
    this.entries.push({ unit: u, part: this.parts.length });
    this.parts.push(part);
    this.bytes += partChars(part);
    const local = this.local;
    const maxParts = local ? Math.min(LOCAL_BATCH_PARTS, this.limits.batchParts) : this.limits.batchParts;
    const maxChars = local ? Math.min(LOCAL_BATCH_CHARS, this.limits.batchBytes) : this.limits.batchBytes;
    if (this.parts.length >= maxParts || this.bytes >= maxChars) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.entries.length === 0) return;
    while (this.queue.length >= this.limits.maxInFlight) await this.consumeOne();
    let results: Promise<PartResult[]>;
    if (this.parts.length === 0) results = Promise.resolve([]);
    else if (this.local) results = Promise.resolve(this.hooks.auditParts(this.parts));
    else results = this.pool.submit(this.parts);
    this.queue.push({ results, entries: this.entries });
    this.parts = [];
    this.entries = [];
    this.bytes = 0;
  }

  private async consumeOne(): Promise<void> {
    const head = this.queue.shift()!;
    const results = await head.results;
    for (const e of head.entries) await this.take(e, results);
    this.hooks.progress();
  }

  /** One entry of a batch whose results came back. */
  private async take(e: Entry, results: PartResult[]): Promise<void> {
    const { hooks } = this;
    const u = e.unit;
    if (e.part < 0) {
      if (u.held !== undefined) for (const a of u.held) hooks.take(a);
      u.held = undefined;
      hooks.unitDone();
      return;
    }
    if (u.derailed) return;
    const r = results[e.part];
    if (r === undefined) throw new Error("internal error: a worker answered a batch with fewer results than parts");
    if (r === "reparse") {
      // What a whole parse gives differs from the items decoded alone (a malformed file, a bad or nested item).
      if (u.taken > 0) throw new Error(`internal error: ${u.unit.name} cannot be decoded again`);
      u.derailed = true;
      u.held = undefined;
      for (const d of await u.unit.read()) hooks.processDoc(d);
      return;
    }
    if (r === "nested") {
      // Items of a nested List are numbered after the top-level ones: the unit's stream() holds them until the
      // end. Its documents taken so far are the stream's first ones; the rest are read and audited here.
      u.derailed = true;
      if (u.unit.stream === undefined) throw new Error(`internal error: ${u.unit.name} cannot be read again`);
      let seen = 0;
      for await (const d of u.unit.stream()) {
        if (seen++ >= u.taken) hooks.processDoc(d);
      }
      return;
    }
    if (u.held !== undefined) {
      appendAll(u.held, r);
      return;
    }
    for (const a of r) hooks.take(a);
    u.taken += r.length;
  }
}

/** The docs of a unit without `raw()`, read on the main thread, as `docs` parts of at most `size` docs. */
async function* docParts(unit: SourceUnit, size: number): AsyncGenerator<RawPart> {
  let docs: SourceDoc[] = [];
  for await (const d of unit.stream?.() ?? (await unit.read())) {
    docs.push(d);
    if (docs.length >= size) {
      yield { kind: "docs", docs };
      docs = [];
    }
  }
  if (docs.length > 0) yield { kind: "docs", docs };
}

/** About how much work a part is, in characters of text. */
function partChars(part: RawPart): number {
  switch (part.kind) {
    case "text":
      return part.text.length;
    case "yaml":
      return part.piece.text?.length ?? 0;
    case "json-item":
      return part.raw?.length ?? 0;
    case "docs":
      return 1024 * part.docs.length;
    case "reparse":
      return 0;
  }
}
