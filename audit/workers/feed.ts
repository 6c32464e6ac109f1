/**
 * The runner's path on several auditing threads (audit/run.ts, `workers` > 1): the main thread and `workers` - 1
 * worker threads (pool.ts). Units are read undecoded (`SourceUnit.raw`, up to `concurrency` of them ahead, for I/O)
 * and their parts cut into batches, in input order; each batch is either sent to a worker or decoded and audited on
 * the main thread itself, and the results are taken back in the batches' order (a reorder queue of bounded size),
 * so the records and findings reach the runner's hooks in input order, exactly as on one thread.
 *
 * Which thread audits a batch is decided as it is cut, by how busy the workers are: a batch goes to a worker when a
 * ready worker (one that has built its policy set) has fewer than `inFlightPerWorker` batches in flight, so that
 * each worker always has its next batch waiting; otherwise the main thread audits a small batch itself (at most
 * {@link LOCAL_BATCH_PARTS} parts, so that it comes back to feed the workers soon) and then lets the workers'
 * answers in. The main thread's share thus adapts to what else it does (reading the input, keeping the results):
 * while no worker is ready it audits everything, so a small input ends before the workers have started and never
 * waits for them; on a machine with many cores it mostly feeds the workers. Results of the main thread's batches
 * are kept as they are (no round trip through JSON).
 */

import pLimit from "p-limit";
import { appendAll } from "#lib/objects/append.js";
import type { AuditedDocument } from "../audit-document.js";
import type { Source, SourceDoc, SourceUnit } from "../sources/index.js";
import type { RawPart } from "../sources/types.js";
import { type BatchPool, WorkerPool } from "./pool.js";
import type { PartResult, WorkerInit } from "./protocol.js";

export interface WorkerTuning {
  /** Most parts (files, YAML documents, List items) in a batch sent to a worker. Default 2000. */
  batchParts?: number;
  /** A batch for a worker is sent once its text reaches this many characters. Default 512 Ki. */
  batchBytes?: number;
  /** Batches in flight per worker: one being audited, the others waiting on it. Default 2. */
  inFlightPerWorker?: number;
  /**
   * Whether the main thread audits batches itself (see the top of this file). Default true; false: every batch
   * goes to a worker, waiting for one to be ready (tests: every batch crosses the threads).
   */
  mainAudits?: boolean;
  /** Tests only: a worker fails at its `atBatch`-th batch. */
  fault?: WorkerInit["fault"];
  /** Tests only: the pool of `size` workers the batches are sent to (default: worker threads, pool.ts). */
  pool?: (size: number, init: WorkerInit) => BatchPool;
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
 * Audits every unit of the sources on the main thread and a pool of `size` workers started with `init`.
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
  const pool = tuning.pool?.(size, init) ?? new WorkerPool(size, init);
  try {
    const feed = new BatchFeed(pool, hooks, {
      batchParts,
      batchBytes: Math.max(1, tuning.batchBytes ?? 512 * 1024),
      inFlightPerWorker: Math.max(1, tuning.inFlightPerWorker ?? 2),
      workers: size,
      mainAudits: tuning.mainAudits ?? true,
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

/** Most parts of a batch the main thread audits itself. */
const LOCAL_BATCH_PARTS = 64;
/** Most characters of text in such a batch. */
const LOCAL_BATCH_CHARS = 64 * 1024;
/**
 * A worker's first batches are this many times smaller than the main thread's, then twice as large as the one
 * before, up to `batchParts` and `batchBytes`: a worker that has just started audits slowly (its JIT is cold and it
 * compiles each kind's rules as it first meets them), and the main thread's batches done meanwhile wait behind
 * the worker's oldest one.
 */
const FIRST_WORKER_BATCH = 4;
/**
 * The reorder queue holds at most this many times the parts (and characters) of the batches the workers may have in
 * flight: the main thread's batches done meanwhile wait behind the oldest batch of a worker.
 */
const QUEUE_FACTOR = 2;

/** A batch cut: its entries, and its results once they are back. */
interface Batch {
  entries: Entry[];
  parts: number;
  chars: number;
  /** The results, once back. */
  results: PartResult[] | undefined;
  /** The worker's failure, if it failed. */
  error: unknown;
  /** Settles when the results are back (or the worker failed). */
  settled: Promise<void>;
  /** Audited by a worker. */
  remote: boolean;
}

interface FeedLimits {
  batchParts: number;
  batchBytes: number;
  inFlightPerWorker: number;
  workers: number;
  mainAudits: boolean;
}

/** Cuts the parts of units into batches in order, has each audited here or on a worker, and takes the results back in order. */
class BatchFeed {
  private readonly queue: Batch[] = [];
  private queuedParts = 0;
  private queuedChars = 0;
  private parts: RawPart[] = [];
  private entries: Entry[] = [];
  private chars = 0;
  private readonly maxQueuedParts: number;
  private readonly maxQueuedChars: number;
  /** The size of the next batch for a worker (see {@link FIRST_WORKER_BATCH}). */
  private workerParts: number;
  private workerChars: number;

  constructor(
    private readonly pool: BatchPool,
    private readonly hooks: FeedHooks,
    private readonly limits: FeedLimits,
  ) {
    const inFlight = limits.workers * limits.inFlightPerWorker;
    this.maxQueuedParts = QUEUE_FACTOR * inFlight * limits.batchParts;
    this.maxQueuedChars = QUEUE_FACTOR * inFlight * limits.batchBytes;
    this.workerParts = Math.min(limits.batchParts, FIRST_WORKER_BATCH * LOCAL_BATCH_PARTS);
    this.workerChars = Math.min(limits.batchBytes, FIRST_WORKER_BATCH * LOCAL_BATCH_CHARS);
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

  /** Audits what is batched and takes every result back. */
  async drain(): Promise<void> {
    await this.flush();
    while (this.queue.length > 0) await this.consumeOne();
  }

  private async add(u: UnitState, part: RawPart): Promise<void> {
    if (part.kind === "json-item" && part.list.whole === true) u.held ??= [];
    this.entries.push({ unit: u, part: this.parts.length });
    this.parts.push(part);
    this.chars += partChars(part);
    const { limits } = this;
    if (this.parts.length >= this.workerParts || this.chars >= this.workerChars) {
      await this.flush();
    } else if (
      limits.mainAudits &&
      (this.parts.length >= LOCAL_BATCH_PARTS || this.chars >= LOCAL_BATCH_CHARS) &&
      !this.pool.hasRoom(limits.inFlightPerWorker)
    ) {
      await this.flush();
    }
  }

  /** Has the batch cut so far audited: on a worker if one has room for it (or the main thread does not audit), else here. */
  private async flush(): Promise<void> {
    if (this.entries.length === 0) return;
    this.pool.throwIfFailed();
    const { parts, entries, chars } = this;
    this.parts = [];
    this.entries = [];
    this.chars = 0;
    const { mainAudits, inFlightPerWorker } = this.limits;
    const toWorker = parts.length > 0 && (!mainAudits || this.pool.hasRoom(inFlightPerWorker));
    // The main thread's batch is audited after the batches ahead that are back were taken (which frees their memory).
    if (!toWorker) await this.consumeSettled();
    while (this.queuedParts >= this.maxQueuedParts || this.queuedChars >= this.maxQueuedChars) {
      await this.consumeOne();
    }
    const batch: Batch = {
      entries,
      parts: parts.length,
      chars,
      results: undefined,
      error: undefined,
      settled: Promise.resolve(),
      remote: toWorker,
    };
    if (parts.length === 0) {
      batch.results = [];
    } else if (toWorker) {
      batch.settled = this.pool.submit(parts).then(
        (r) => {
          batch.results = r;
        },
        (err: unknown) => {
          batch.error = err;
        },
      );
    } else {
      batch.results = this.hooks.auditParts(parts);
    }
    this.queue.push(batch);
    this.queuedParts += batch.parts;
    this.queuedChars += batch.chars;
    if (!toWorker && mainAudits) {
      // Lets the workers' answers in (message events wait for the event loop), so that the next batch finds them.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await this.consumeSettled();
    }
  }

  /** Takes the batches at the head of the queue whose results are back, without waiting. */
  private async consumeSettled(): Promise<void> {
    while (this.queue.length > 0 && (this.queue[0]!.results !== undefined || this.queue[0]!.error !== undefined)) {
      await this.consumeOne();
    }
  }

  /** Takes the oldest batch, waiting for its results. */
  private async consumeOne(): Promise<void> {
    const head = this.queue.shift()!;
    this.queuedParts -= head.parts;
    this.queuedChars -= head.chars;
    await head.settled;
    if (head.error !== undefined) throw head.error;
    if (head.remote) {
      this.workerParts = Math.min(this.limits.batchParts, this.workerParts * 2);
      this.workerChars = Math.min(this.limits.batchBytes, this.workerChars * 2);
    }
    const results = head.results!;
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
