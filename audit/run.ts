/**
 * runAudit(config, policySet): every document of every source, validated once, with bounded concurrency for reading
 * (p-limit) and results kept in input order; exactly one {@link ObjectRecord} per document (one per `kind: List`
 * item), findings built by findings.ts and recorded by recorder.ts (ids, first-seen times, the summary).
 *
 * With `previous` (`--previous <source>`), each object is paired with its previous version (by `metadata.uid`, else
 * by apiVersion/kind/namespace/name) and validated as an UPDATE: transition rules (`oldSelf`) and ratcheting apply,
 * so violations on values the change kept are `grandfathered` (an unchanged update would be admitted) and the others
 * `blocking`. Objects without a previous version are validated as a CREATE.
 *
 * With `workers` > 1, that many threads decode and validate (audit/workers/feed.ts): the main thread and
 * `workers` - 1 worker threads. The main thread reads the units undecoded (`SourceUnit.raw`: whole small files, and
 * one part per YAML document or List item of a streamed file) and cuts their parts into batches; each batch goes to
 * a worker that has room for it (at most `inFlightPerWorker` batches each, so memory stays flat) or is audited on
 * the main thread itself, and the records and findings are taken back in input order: ids, firstSeen, the
 * comparison and the summary are made here, exactly as in a run on one thread, so the reports are identical.
 * Each worker compiles the same policy set (`policySource`; its digest is checked). Not with `previous`: the runner
 * then stays on one thread (each worker would have to index the whole previous snapshot). A worker that fails
 * (an exception, a crash, another policy set) fails the run with a WorkerPoolError (exit 3): documents are
 * never dropped.
 */
import pLimit from "p-limit";
import { compileWaivers, type PolicySet, type UserInfo } from "#lib";
import {
  type AuditDocumentContext,
  type AuditedDocument,
  auditDocument,
  auditRawParts,
  type PreviousIndex,
} from "./audit-document.js";
import type { PreviousReport } from "./compare.js";
import { DEFAULT_WARN_EXPIRY_DAYS } from "./config.js";
import { objectRefOf, policyFailureFinding } from "./findings.js";
import { type AuditResult, type FailOn, identityKey, MAX_RUN_NOTES } from "./model.js";
import { artifactSource, type PolicySource } from "./policies.js";
import { RunRecorder } from "./recorder.js";
import type { KubeObject, Source, SourceDoc } from "./sources/types.js";
import type { SpoolOptions } from "./spool.js";
import { auditWithWorkers, type FeedHooks, type WorkerTuning } from "./workers/feed.js";
import type { WorkerInit } from "./workers/protocol.js";

export interface AuditProgress {
  documents: number;
  units: number;
  elapsedMs: number;
}

/** What one run reads and how: built from the resolved configuration by audit/execute.ts and audit/shards.ts. */
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
  /** The user each object's admission request is made as; default: none (an empty user). */
  user?: UserInfo;
  /** Policy documents the bundle took from the input (`--policies-from-input`), for the report. */
  policiesFromInput?: number;
  /** The previous report (`latest.json` at the output prefix, or `--compare-with`): firstSeen and new/resolved. */
  compareWith?: PreviousReport;
  toolVersion: string;
  /** The clock (tests pass a fixed one). */
  now?: () => Date;
  /**
   * When the waivers' expiry is judged: default the run's start (a shard is given its coordinator's start, so every
   * shard judges alike).
   */
  waiversAt?: Date;
  /** Waivers expiring within this many days are listed as expiring. Default 14. */
  warnExpiryDays?: number;
  /** Where the run's objects and findings are kept (memory while small, then a temporary file). */
  spool?: SpoolOptions;
  /** Called after each unit (file, archive member) is processed; the CLI draws a progress line from it. */
  onProgress?: (progress: AuditProgress) => void;
  /**
   * Threads that decode and validate, the main thread included (so `workers` - 1 worker threads); 0 or 1 (the
   * default): everything on the main thread. Ignored with `previous`.
   */
  workers?: number;
  /** How the workers build the policy set (the CLI passes `LoadedPolicies.source`); default `{ bundle }`. */
  policySource?: PolicySource;
  /** Tests and benchmarks: batch size and in-flight bound of the worker path, and injected worker faults. */
  workerTuning?: WorkerTuning;
}

export async function runAudit(config: AuditConfig, policySet: PolicySet): Promise<AuditResult> {
  const now = config.now ?? (() => new Date());
  const start = now();
  const clockStart = performance.now();
  const waiversAt = config.waiversAt ?? start;
  const recorder = new RunRecorder(start, {
    ...(config.compareWith !== undefined && { compareWith: config.compareWith }),
    ...(config.spool !== undefined && { spool: config.spool }),
    ...(policySet.waivers.length > 0 && {
      waivers: { list: policySet.waivers, at: waiversAt, warnDays: config.warnExpiryDays ?? DEFAULT_WARN_EXPIRY_DAYS },
    }),
  });
  const { startedAt } = recorder;
  try {
    for (const p of policySet.failures) recorder.finding(policyFailureFinding(p, startedAt));
    const ctx: AuditDocumentContext = { policySet, owner: { labels: config.ownerLabels }, startedAt };
    if (config.user !== undefined) ctx.user = config.user;
    if (policySet.waivers.length > 0) ctx.waivers = compileWaivers(policySet.waivers, waiversAt);
    if (config.previous !== undefined) ctx.previous = await indexPrevious(config.previous);
    let units = 0;
    const hooks: FeedHooks = {
      take(audited: AuditedDocument) {
        recorder.object(audited.record);
        for (const f of audited.findings) recorder.finding(f);
      },
      processDoc: (doc) => hooks.take(auditDocument(doc, ctx)),
      auditParts: (parts) => auditRawParts(parts, ctx),
      unitDone: () => {
        units++;
      },
      progress: () =>
        config.onProgress?.({ documents: recorder.documents, units, elapsedMs: performance.now() - clockStart }),
    };
    const workers = config.previous === undefined ? Math.floor(config.workers ?? 0) : 0;
    const concurrency = Math.max(1, config.concurrency);
    if (workers > 1) {
      const init: WorkerInit = {
        policies: await artifactSource(config.policySource ?? { bundle: config.bundle }, policySet),
        digest: policySet.digest,
        ownerLabels: [...config.ownerLabels],
        startedAt,
        waiversAt: waiversAt.toISOString(),
      };
      if (config.user !== undefined) init.user = config.user;
      if (config.workerTuning?.fault !== undefined) init.fault = config.workerTuning.fault;
      await auditWithWorkers(config.sources, concurrency, workers - 1, init, config.workerTuning ?? {}, hooks);
    } else {
      await auditOnOneThread(config.sources, concurrency, hooks);
    }
    const durationMs = performance.now() - clockStart;
    const facts = {
      finishedAt: now().toISOString(),
      tool: { name: "tollgate" as const, version: config.toolVersion },
      bundle: {
        source: config.bundle,
        digest: policySet.digest,
        kinds: policySet.kinds.length,
        policiesFromInput: config.policiesFromInput ?? 0,
      },
      sources: config.sources.map((s) => s.spec),
      failOn: config.failOn,
      ...(config.previous !== undefined && { previous: config.previous.spec }),
      notes: policySet.notes.slice(0, MAX_RUN_NOTES).map((n) => ({ ...n })),
    };
    return await recorder.finish(facts, durationMs);
  } catch (err) {
    recorder.dispose();
    throw err;
  }
}

/**
 * Reads the units in order, `concurrency` of them at once (each read whole), and audits their documents in input
 * order; a streamed unit (a large file) is read one document at a time, after the units read before it.
 */
async function auditOnOneThread(sources: readonly Source[], concurrency: number, hooks: FeedHooks): Promise<void> {
  const limit = pLimit(concurrency);
  const pending: Promise<SourceDoc[]>[] = [];
  const drain = async (): Promise<void> => {
    const docs = await pending.shift()!;
    for (const d of docs) hooks.processDoc(d);
    hooks.unitDone();
    hooks.progress();
  };
  for (const source of sources) {
    for await (const unit of source.units()) {
      if (unit.stream !== undefined) {
        while (pending.length > 0) await drain();
        let n = 0;
        for await (const d of unit.stream()) {
          hooks.processDoc(d);
          if (++n % STREAM_PROGRESS_EVERY === 0) hooks.progress();
        }
        hooks.unitDone();
        hooks.progress();
        continue;
      }
      const read = limit(() => unit.read());
      // Awaited in order by drain(); when an earlier read fails the run ends there, and the reads already started
      // must not fail again as unhandled rejections (which end a Lambda's process).
      read.catch(() => {});
      pending.push(read);
      if (pending.length >= concurrency) await drain();
    }
  }
  while (pending.length > 0) await drain();
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
