/**
 * runAudit(config, policySet): every document of every source, validated once, with bounded concurrency for reading
 * (p-limit) and results kept in input order; exactly one {@link ObjectRecord} per document (one per `kind: List`
 * item), findings built by model.ts, a summary at the end.
 *
 * With `previous` (`--previous <source>`), each object is paired with its previous version (by `metadata.uid`, else
 * by apiVersion/kind/namespace/name) and validated as an UPDATE: transition rules (`oldSelf`) and ratcheting apply,
 * so violations on values the change kept are `grandfathered` (an unchanged update would be admitted) and the others
 * `blocking`. Objects without a previous version are validated as a CREATE.
 *
 * With `workers` > 1 (issue 7, "Runner"), decoding and validation run on worker threads (audit/workers/): the main
 * thread reads the units undecoded (`SourceUnit.raw`: whole small files, and one part per YAML document or List item
 * of a streamed file), sends them in batches (about `batchBytes` of text each, at most `inFlightPerWorker` batches
 * per worker in flight, so memory stays flat), and takes the records and findings back in input order: ids, firstSeen,
 * the comparison and the summary are made here, exactly as in a run on one thread, so the reports are identical.
 * Each worker compiles the same policy set (`policySource`; its digest is checked). Not with `previous`: the runner
 * then stays on one thread (each worker would have to index the whole previous snapshot). A worker that fails
 * (an exception, a crash, another policy set) fails the run with a {@link WorkerPoolError} (exit 3): documents are
 * never dropped.
 */
import pLimit from "p-limit";
import type { PolicySet } from "#lib";
import {
  type AuditDocumentContext,
  type AuditedDocument,
  auditDocument,
  type PreviousIndex,
} from "./audit-document.js";
import { Comparer, type PreviousReport } from "./compare.js";
import {
  type AuditResult,
  type FailOn,
  type Finding,
  IdAssigner,
  identityKey,
  type KubeObject,
  type ObjectRecord,
  objectRefOf,
  policyFailureFinding,
  REPORT_API_VERSION,
  REPORT_KIND,
  REPORT_VERSION,
  runIdOf,
  SummaryCounter,
} from "./model.js";
import type { PolicySource } from "./policies.js";
import type { Source, SourceDoc, SourceUnit } from "./sources/index.js";
import type { RawPart } from "./sources/types.js";
import { Spool, type SpoolOptions } from "./spool.js";
import { WorkerPool } from "./workers/pool.js";
import type { PartResult, WorkerInit } from "./workers/protocol.js";

export interface AuditProgress {
  documents: number;
  units: number;
  elapsedMs: number;
}

/** The run's process configuration, resolved at the edge (audit/cli/args.ts or functions/audit.ts). */
export interface AuditConfig {
  /** The opened sources, in command-line order. */
  sources: readonly Source[];
  /** The bundle as given (for the report). */
  bundle: string;
  /** `--previous`: the earlier snapshot whose objects the current ones update. */
  previous?: Source;
  /** Reads in flight at once. Default 8. */
  concurrency: number;
  failOn: FailOn;
  /** Owner label keys, in order of preference. */
  ownerLabels: readonly string[];
  /** Policy documents the bundle took from the input (`--policies-from-input`), for the report. */
  policiesFromInput?: number;
  /** The previous report (`latest.json` at the output prefix, or `--compare-with`): firstSeen and new/resolved. */
  compareWith?: PreviousReport;
  toolVersion: string;
  /** The clock (tests pass a fixed one). */
  now?: () => Date;
  /** Where the run's objects and findings are kept (memory while small, then a temporary file). */
  spool?: SpoolOptions;
  /** Called after each unit (file, archive member) is processed; the CLI draws a progress line from it. */
  onProgress?: (progress: AuditProgress) => void;
  /** Worker threads that decode and validate; 0 or 1 (the default): everything on the main thread. Ignored with `previous`. */
  workers?: number;
  /** How the workers build the policy set (the CLI passes `LoadedPolicies.source`); default `{ bundle }`. */
  policySource?: PolicySource;
  /** Tests and benchmarks: batch size and in-flight bound of the worker path, and injected worker faults. */
  workerTuning?: WorkerTuning;
}

export interface WorkerTuning {
  /** Most parts (files, YAML documents, List items) in one batch. Default 2000. */
  batchParts?: number;
  /** A batch is sent once its text reaches this many characters. Default 512 Ki. */
  batchBytes?: number;
  /** Batches in flight per worker. Default 3. */
  inFlightPerWorker?: number;
  /** Tests only: a worker fails at its `atBatch`-th batch. */
  fault?: WorkerInit["fault"];
}

export { WorkerPoolError } from "./workers/pool.js";

export async function runAudit(config: AuditConfig, policySet: PolicySet): Promise<AuditResult> {
  const now = config.now ?? (() => new Date());
  const start = now();
  const startedAt = start.toISOString();
  const clockStart = performance.now();
  const spoolOptions = config.spool ?? {};
  const objects = new Spool<ObjectRecord>(spoolOptions);
  const findings = new Spool<Finding>(spoolOptions);
  try {
    const counter = new SummaryCounter();
    const ids = new IdAssigner();
    const comparer = config.compareWith === undefined ? undefined : new Comparer(config.compareWith);
    /** Every finding goes out through here, in order: a unique id, firstSeen from the previous run, counted. */
    const emit = (f: Finding): void => {
      ids.assign(f);
      comparer?.observe(f);
      counter.addFinding(f);
      findings.append(f);
    };
    const keep = (record: ObjectRecord): void => {
      counter.addObject(record);
      objects.append(record);
    };
    for (const p of policySet.failures) emit(policyFailureFinding(p, startedAt));
    const previous = config.previous === undefined ? undefined : await indexPrevious(config.previous);
    const ownerOptions = { labels: config.ownerLabels };

    const ctx: AuditDocumentContext = { policySet, owner: ownerOptions, startedAt };
    if (previous !== undefined) ctx.previous = previous;
    const take = (audited: AuditedDocument): void => {
      keep(audited.record);
      for (const f of audited.findings) emit(f);
    };
    const processDoc = (doc: SourceDoc): void => take(auditDocument(doc, ctx));

    let units = 0;
    const progress = (): void =>
      config.onProgress?.({ documents: objects.size, units, elapsedMs: performance.now() - clockStart });
    const workers = config.previous === undefined ? Math.floor(config.workers ?? 0) : 0;
    if (workers > 1) {
      const init: WorkerInit = {
        policies: config.policySource ?? { bundle: config.bundle },
        digest: policySet.digest,
        ownerLabels: [...config.ownerLabels],
        startedAt,
      };
      if (config.workerTuning?.fault !== undefined) init.fault = config.workerTuning.fault;
      await auditWithWorkers(config, workers, init, {
        take,
        processDoc,
        unitDone: () => units++,
        progress,
      });
    } else {
      const limit = pLimit(Math.max(1, config.concurrency));
      const pending: Promise<SourceDoc[]>[] = [];
      const drain = async (): Promise<void> => {
        const docs = await pending.shift()!;
        for (const d of docs) processDoc(d);
        units++;
        progress();
      };
      for (const source of config.sources) {
        for await (const unit of source.units()) {
          if (unit.stream !== undefined) {
            // A streamed unit (a large file) is read one document at a time, after the units read before it.
            while (pending.length > 0) await drain();
            let n = 0;
            for await (const d of unit.stream()) {
              processDoc(d);
              if (++n % STREAM_PROGRESS_EVERY === 0) progress();
            }
            units++;
            progress();
            continue;
          }
          pending.push(limit(() => unit.read()));
          if (pending.length >= Math.max(1, config.concurrency)) await drain();
        }
      }
      while (pending.length > 0) await drain();
    }

    const durationMs = performance.now() - clockStart;
    const run: AuditResult = {
      apiVersion: REPORT_API_VERSION,
      kind: REPORT_KIND,
      reportVersion: REPORT_VERSION,
      runId: runIdOf(start),
      startedAt,
      finishedAt: now().toISOString(),
      tool: { name: "tollgate", version: config.toolVersion },
      bundle: {
        source: config.bundle,
        digest: policySet.digest,
        kinds: policySet.kinds.length,
        policiesFromInput: config.policiesFromInput ?? 0,
      },
      sources: config.sources.map((s) => s.spec),
      failOn: config.failOn,
      summary: counter.result(durationMs),
      objects,
      findings,
    };
    if (config.previous !== undefined) run.previous = config.previous.spec;
    if (comparer !== undefined) run.comparison = await comparer.result();
    return run;
  } catch (err) {
    objects.dispose();
    findings.dispose();
    throw err;
  }
}

/** Progress is reported every this many documents of a streamed unit. */
const STREAM_PROGRESS_EVERY = 1000;

/** The previous snapshot's objects by uid and by identity. Its unusable documents are not this run's findings. */
async function indexPrevious(source: Source): Promise<PreviousIndex> {
  const byUid = new Map<string, KubeObject>();
  const byKey = new Map<string, KubeObject>();
  for await (const unit of source.units()) {
    for await (const doc of unit.stream?.() ?? (await unit.read())) {
      if (doc.kind !== "object") continue;
      const ref = objectRefOf(doc.object);
      if (ref.uid !== undefined) byUid.set(ref.uid, doc.object);
      byKey.set(identityKey(ref), doc.object);
    }
  }
  return {
    find(_object, ref) {
      if (ref.uid !== undefined) {
        const o = byUid.get(ref.uid);
        if (o !== undefined) return o;
      }
      return byKey.get(identityKey(ref));
    },
  };
}

interface WorkerHooks {
  /** Keeps an audited document (in input order). */
  take(audited: AuditedDocument): void;
  /** Audits a document on the main thread (the rest of a unit read again, see `nested`). */
  processDoc(doc: SourceDoc): void;
  unitDone(): void;
  progress(): void;
}

/**
 * The worker path of {@link runAudit}: units are read undecoded (up to `concurrency` of them ahead, for I/O), their
 * parts batched and sent to the pool, and the results taken back in the batches' order (a queue of at most
 * `inFlightPerWorker` × workers batches: the reorder buffer).
 */
async function auditWithWorkers(
  config: AuditConfig,
  size: number,
  init: WorkerInit,
  hooks: WorkerHooks,
): Promise<void> {
  const tuning = config.workerTuning ?? {};
  const batchParts = Math.max(1, tuning.batchParts ?? 2000);
  const batchBytes = Math.max(1, tuning.batchBytes ?? 512 * 1024);
  const maxInFlight = size * Math.max(1, tuning.inFlightPerWorker ?? 3);
  const concurrency = Math.max(1, config.concurrency);

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
  const queue: { results: Promise<PartResult[]>; entries: Entry[] }[] = [];
  let parts: RawPart[] = [];
  let entries: Entry[] = [];
  let bytes = 0;

  const pool = new WorkerPool(size, init);
  try {
    const consumeOne = async (): Promise<void> => {
      const head = queue.shift()!;
      const results = await head.results;
      for (const e of head.entries) {
        const u = e.unit;
        if (e.part < 0) {
          if (u.held !== undefined) for (const a of u.held) hooks.take(a);
          u.held = undefined;
          hooks.unitDone();
          continue;
        }
        if (u.derailed) continue;
        const r = results[e.part];
        if (r === undefined) throw new Error("internal error: a worker answered a batch with fewer results than parts");
        if (r === "reparse") {
          // What a whole parse gives differs from the items decoded alone (a malformed file, a bad or nested item).
          if (u.taken > 0) throw new Error(`internal error: ${u.unit.name} cannot be decoded again`);
          u.derailed = true;
          u.held = undefined;
          for (const d of await u.unit.read()) hooks.processDoc(d);
          continue;
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
          continue;
        }
        if (u.held !== undefined) {
          u.held.push(...r);
          continue;
        }
        for (const a of r) hooks.take(a);
        u.taken += r.length;
      }
      hooks.progress();
    };
    const flush = async (): Promise<void> => {
      if (entries.length === 0) return;
      while (queue.length >= maxInFlight) await consumeOne();
      queue.push({ results: parts.length === 0 ? Promise.resolve([]) : pool.submit(parts), entries });
      parts = [];
      entries = [];
      bytes = 0;
    };
    const add = async (u: UnitState, part: RawPart): Promise<void> => {
      if (part.kind === "json-item" && part.list.whole === true) u.held ??= [];
      entries.push({ unit: u, part: parts.length });
      parts.push(part);
      bytes += partChars(part);
      if (parts.length >= batchParts || bytes >= batchBytes) await flush();
    };

    interface Started {
      state: UnitState;
      iterator: AsyncIterator<RawPart>;
      first: Promise<IteratorResult<RawPart>>;
    }
    const limit = pLimit(concurrency);
    const start = (unit: SourceUnit): Started => {
      const iterator = (unit.raw?.() ?? docParts(unit, batchParts))[Symbol.asyncIterator]();
      const first = limit(() => iterator.next());
      first.catch(() => {}); // awaited in order by finish(); not an unhandled rejection meanwhile
      return { state: { unit, taken: 0, derailed: false, held: undefined }, iterator, first };
    };
    const finish = async (s: Started): Promise<void> => {
      for (let r = await s.first; r.done !== true; r = await s.iterator.next()) {
        await add(s.state, r.value);
        if (s.state.derailed) {
          await s.iterator.return?.();
          break;
        }
      }
      entries.push({ unit: s.state, part: -1 });
    };
    const ahead: Started[] = [];
    for (const source of config.sources) {
      for await (const unit of source.units()) {
        ahead.push(start(unit));
        if (ahead.length >= concurrency) await finish(ahead.shift()!);
      }
    }
    while (ahead.length > 0) await finish(ahead.shift()!);
    await flush();
    while (queue.length > 0) await consumeOne();
  } finally {
    await pool.close();
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
