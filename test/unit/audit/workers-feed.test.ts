/**
 * The feed's scheduling (audit/workers/feed.ts) with a stand-in pool: which thread audits a batch, and when the
 * answers come back, are drawn at random (seeded), and the documents must still reach the runner's hooks in input
 * order, each once; a worker's failure fails the run; a small input never waits for a worker that is not ready.
 */
import { describe, expect, it } from "vitest";
import type { AuditedDocument } from "../../../audit/audit-document.js";
import type { RawPart, Source, SourceDoc, SourceUnit } from "../../../audit/sources/types.js";
import { auditWithWorkers, type FeedHooks, type WorkerTuning } from "../../../audit/workers/feed.js";
import { type BatchPool, WorkerPoolError } from "../../../audit/workers/pool.js";
import type { PartResult, WorkerInit } from "../../../audit/workers/protocol.js";
import { seededRandom } from "../../helpers/random.js";

const INIT: WorkerInit = {
  policies: { bundle: "unused" },
  digest: "d",
  ownerLabels: [],
  startedAt: "t",
  waiversAt: "t",
};

/** A document standing for input number `n` (the stand-in audit keeps the number as the record). */
function doc(n: number): SourceDoc {
  return { n } as unknown as SourceDoc;
}

/** The documents' numbers, audited: one AuditedDocument per document, whose record is the number. */
function auditParts(parts: readonly RawPart[], by: string): PartResult[] {
  return parts.map((p) => {
    if (p.kind !== "docs") throw new Error(`unexpected part ${p.kind}`);
    return p.docs.map(
      (d) => ({ record: (d as unknown as { n: number }).n, findings: [by] }) as unknown as AuditedDocument,
    );
  });
}

/** `units` units of random sizes (0 to 9 parts of 1 to 3 documents), numbered in input order; their count. */
function sources(rand: () => number, units: number): { sources: Source[]; documents: number } {
  let n = 0;
  const list: SourceUnit[] = [];
  for (let u = 0; u < units; u++) {
    const parts: RawPart[] = [];
    for (let p = Math.floor(rand() * 10); p > 0; p--) {
      const docs = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => doc(n++));
      parts.push({ kind: "docs", docs });
    }
    list.push({
      name: `unit-${u}`,
      read: () => Promise.reject(new Error("read whole: not in these tests")),
      async *raw() {
        for (const p of parts) {
          if (rand() < 0.2) await new Promise((r) => setTimeout(r, 0));
          yield p;
        }
      },
    });
  }
  const source: Source = {
    spec: "stand-in",
    kind: "folder",
    async *units() {
      yield* list;
    },
  };
  return { sources: [source], documents: n };
}

interface StandIn extends BatchPool {
  submitted: number;
  closed: boolean;
}

/**
 * A pool of `size` stand-in workers: each becomes ready after `readyAfterMs` (never when undefined), answers its
 * batches after a random delay (so out of order), and fails at its `failAt`-th batch when given.
 */
function standInPool(
  size: number,
  rand: () => number,
  o: { readyAfterMs?: number; failAt?: number; failIdle?: boolean; batchOnly?: boolean; answerMs?: number },
): StandIn {
  const inFlight = Array.from({ length: size }, () => 0);
  let ready = false;
  let failure: WorkerPoolError | undefined;
  if (o.readyAfterMs !== undefined) setTimeout(() => (ready = true), o.readyAfterMs);
  if (o.failIdle === true) setTimeout(() => (failure = new WorkerPoolError("worker thread 0 exited")), 1);
  const pool: StandIn = {
    submitted: 0,
    closed: false,
    hasRoom: (perWorker) => failure === undefined && ready && inFlight.some((n) => n < perWorker),
    submit(parts) {
      if (failure !== undefined) return Promise.reject(failure);
      const seq = pool.submitted++;
      const w = inFlight.indexOf(Math.min(...inFlight));
      inFlight[w]!++;
      return new Promise<PartResult[]>((resolve, reject) => {
        const answer = (): void => {
          inFlight[w]!--;
          if (o.failAt === seq) {
            const error = new WorkerPoolError(`worker thread ${w} failed on a batch`);
            // batchOnly: the failure is known through the batch alone (the feed must not rely on throwIfFailed).
            if (o.batchOnly !== true) failure = error;
            reject(error);
          } else if (failure !== undefined) reject(failure);
          else resolve(auditParts(parts, "worker"));
        };
        // Out of order: some at once (next turn), others a few ms later; a ready worker is busy while it has some.
        setTimeout(answer, o.answerMs ?? (ready ? Math.floor(rand() * 4) : 5 + Math.floor(rand() * 4)));
      });
    },
    throwIfFailed() {
      if (failure !== undefined) throw failure;
    },
    close: async () => {
      pool.closed = true;
    },
  };
  return pool;
}

interface Run {
  taken: { n: number; by: string }[];
  units: number;
}

async function run(srcs: Source[], size: number, tuning: WorkerTuning, pool: StandIn, concurrency = 3): Promise<Run> {
  const out: Run = { taken: [], units: 0 };
  const hooks: FeedHooks = {
    take: (a) => out.taken.push({ n: a.record as unknown as number, by: a.findings[0] as unknown as string }),
    auditParts: (parts) => auditParts(parts, "main"),
    processDoc: () => {
      throw new Error("no document is read again in these tests");
    },
    unitDone: () => {
      out.units++;
    },
    progress: () => {},
  };
  await auditWithWorkers(srcs, concurrency, size, INIT, { ...tuning, pool: () => pool }, hooks);
  return out;
}

describe("auditWithWorkers scheduling (stand-in pool)", () => {
  it.each(Array.from({ length: 24 }, (_, i) => i))(
    "seed %i: every document reaches the hooks once, in input order, whichever thread audited it",
    async (seed) => {
      const rand = seededRandom(seed);
      const units = 20 + Math.floor(rand() * 40);
      const { sources: srcs, documents } = sources(rand, units);
      const size = 1 + Math.floor(rand() * 3);
      const tuning: WorkerTuning = {
        batchParts: 1 + Math.floor(rand() * 8),
        batchBytes: 1024 * (1 + Math.floor(rand() * 8)),
        inFlightPerWorker: 1 + Math.floor(rand() * 3),
        mainAudits: seed % 4 !== 3,
      };
      const pool = standInPool(size, rand, { readyAfterMs: Math.floor(rand() * 6) });
      const r = await run(srcs, size, tuning, pool, 1 + Math.floor(rand() * 4));
      expect(r.taken.map((t) => t.n)).toEqual(Array.from({ length: documents }, (_, i) => i));
      expect(r.units).toBe(units);
      expect(pool.closed).toBe(true);
      if (tuning.mainAudits === false) expect(r.taken.every((t) => t.by === "worker")).toBe(true);
    },
  );

  it("both the main thread and the workers audit a share of a large input, kept in order", async () => {
    const rand = seededRandom(99);
    const { sources: srcs, documents } = sources(rand, 400);
    // The worker takes 20 ms a batch: meanwhile the main thread cuts several batches, and audits those it has no room for.
    const pool = standInPool(1, rand, { readyAfterMs: 0, answerMs: 20 });
    const r = await run(srcs, 1, { batchParts: 16, inFlightPerWorker: 2 }, pool);
    expect(r.taken.map((t) => t.n)).toEqual(Array.from({ length: documents }, (_, i) => i));
    expect(r.units).toBe(400);
    const byWorker = r.taken.filter((t) => t.by === "worker").length;
    expect(byWorker).toBeGreaterThan(0);
    expect(byWorker).toBeLessThan(documents);
  });

  it("a small input never waits for a worker that is not ready: the main thread audits it all", async () => {
    const rand = seededRandom(7);
    const { sources: srcs, documents } = sources(rand, 30);
    const pool = standInPool(2, rand, {}); // never ready
    const r = await run(srcs, 2, {}, pool);
    expect(r.taken.map((t) => t.n)).toEqual(Array.from({ length: documents }, (_, i) => i));
    expect(r.taken.every((t) => t.by === "main")).toBe(true);
    expect(pool.submitted).toBe(0);
    expect(pool.closed).toBe(true);
  });

  it.each([
    { failAt: 0, batchOnly: false },
    { failAt: 1, batchOnly: false },
    { failAt: 5, batchOnly: false },
    { failAt: 3, batchOnly: true },
  ])(
    "a worker that fails at its batch $failAt (known by the batch only: $batchOnly) fails the run with a WorkerPoolError, after only documents in order",
    async ({ failAt, batchOnly }) => {
      const rand = seededRandom(1000 + failAt);
      const { sources: srcs, documents } = sources(rand, 200);
      const pool = standInPool(1, rand, { readyAfterMs: 0, failAt, batchOnly });
      const taken: number[] = [];
      const hooks: FeedHooks = {
        take: (a) => taken.push(a.record as unknown as number),
        auditParts: (parts) => auditParts(parts, "main"),
        processDoc: () => {},
        unitDone: () => {},
        progress: () => {},
      };
      await expect(
        auditWithWorkers(srcs, 2, 1, INIT, { batchParts: 4, inFlightPerWorker: 2, pool: () => pool }, hooks),
      ).rejects.toBeInstanceOf(WorkerPoolError);
      // What was kept is a prefix of the input: nothing after a lost batch was kept in its place.
      expect(taken).toEqual(Array.from({ length: taken.length }, (_, i) => i));
      expect(taken.length).toBeLessThan(documents);
      expect(pool.closed).toBe(true);
    },
  );

  it("a worker that fails while nothing is in flight (the main thread auditing alone) fails the run", async () => {
    const rand = seededRandom(5);
    const { sources: srcs } = sources(rand, 300);
    const pool = standInPool(1, rand, { failIdle: true }); // never ready, fails at once
    await expect(run(srcs, 1, { batchParts: 4 }, pool)).rejects.toThrow(/worker thread 0 exited/);
    expect(pool.submitted).toBe(0);
  });
});
