/**
 * A fixed pool of worker threads (worker.ts) that decode and audit batches of raw parts. Each batch goes to the
 * ready worker (one that has built its policy set) with the fewest batches in flight, or, while none is ready, to
 * the worker with the fewest; `submit` answers with the batch's results, in any order (the feed reorders by its own
 * sequence). Any failure of a worker (an exception in a batch, a crash, a policy set that is not
 * the main thread's) fails every batch in flight and every later one with a {@link WorkerPoolError}: documents are
 * never dropped silently.
 */
import { Worker } from "node:worker_threads";
import type { RawPart } from "../sources/types.js";
import type { FromWorker, PartResult, ToWorker, WorkerInit } from "./protocol.js";

export class WorkerPoolError extends Error {
  override readonly name = "WorkerPoolError";
}

interface Slot {
  worker: Worker;
  inFlight: number;
  ready: boolean;
}

/** What the feed (feed.ts) needs of a pool: {@link WorkerPool}, or a stand-in in tests. */
export interface BatchPool {
  /** Whether a ready worker has fewer than `perWorker` batches in flight (a batch sent now starts soon). */
  hasRoom(perWorker: number): boolean;
  /** Decodes and audits `parts` on a worker: one result per part, in the parts' order. */
  submit(parts: RawPart[]): Promise<PartResult[]>;
  /** Throws the pool's failure, if a worker failed (also one that failed while no batch was waiting for it). */
  throwIfFailed(): void;
  /** Stops every worker. */
  close(): Promise<void>;
}

/** Defined (true) by infra/build.mjs in the built CLI; undeclared when the sources run through tsx. */
declare const __TOLLGATE_BUILD__: boolean | undefined;

export class WorkerPool implements BatchPool {
  private readonly slots: Slot[] = [];
  private readonly waiting = new Map<number, { resolve: (r: PartResult[]) => void; reject: (e: Error) => void }>();
  private failure: WorkerPoolError | undefined;
  private closed = false;
  private seq = 0;
  /** Per worker: how long it took to build its policy set (ms), once ready. */
  readonly loadMs: number[] = [];

  constructor(size: number, init: WorkerInit) {
    // The worker entry: in the built CLI (infra/build.mjs) the bundled worker beside this chunk; from the sources,
    // plain JS that registers tsx in the new thread, then loads worker.ts. Resolved here, not at module load: the
    // Lambda bundles (functions/, CommonJS) import the runner but never start workers.
    const built = typeof __TOLLGATE_BUILD__ !== "undefined";
    const entry = new URL(built ? "./worker.mjs" : "./entry.js", import.meta.url);
    for (let i = 0; i < size; i++) {
      const worker = new Worker(entry, { workerData: init });
      const slot: Slot = { worker, inFlight: 0, ready: false };
      worker.on("message", (m: FromWorker) => this.onMessage(slot, i, m));
      worker.on("error", (err) => this.fail(`worker thread ${i} failed: ${err.message}`));
      worker.on("exit", (code) => {
        if (!this.closed) this.fail(`worker thread ${i} exited (code ${code}) before the run ended`);
      });
      this.slots.push(slot);
    }
  }

  get size(): number {
    return this.slots.length;
  }

  hasRoom(perWorker: number): boolean {
    return this.failure === undefined && this.slots.some((s) => s.ready && s.inFlight < perWorker);
  }

  submit(parts: RawPart[]): Promise<PartResult[]> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const seq = this.seq++;
    let slot = this.slots[0]!;
    for (const s of this.slots) {
      if (s.ready !== slot.ready ? s.ready : s.inFlight < slot.inFlight) slot = s;
    }
    slot.inFlight++;
    const done = new Promise<PartResult[]>((resolve, reject) => this.waiting.set(seq, { resolve, reject }));
    // Handled here so that a failure while nobody awaits this batch yet is no unhandled rejection; the caller's
    // await still throws it.
    done.catch(() => {});
    const message: ToWorker = { type: "batch", seq, parts };
    slot.worker.postMessage(message);
    return done;
  }

  throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private onMessage(slot: Slot, index: number, m: FromWorker): void {
    switch (m.type) {
      case "ready":
        this.loadMs[index] = m.loadMs;
        slot.ready = true;
        return;
      case "init-error":
        this.fail(`worker thread ${index} could not start: ${m.message}`);
        return;
      case "batch-error":
        this.fail(`worker thread ${index} failed on a batch: ${m.message}`);
        return;
      case "result": {
        slot.inFlight--;
        const w = this.waiting.get(m.seq);
        this.waiting.delete(m.seq);
        w?.resolve(JSON.parse(m.results) as PartResult[]);
        return;
      }
    }
  }

  private fail(message: string): void {
    if (this.failure !== undefined) return;
    this.failure = new WorkerPoolError(`${message}; the audit stopped (documents sent to workers would be lost)`);
    for (const w of this.waiting.values()) w.reject(this.failure);
    this.waiting.clear();
  }
}
