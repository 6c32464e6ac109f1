/**
 * runAudit(config, policySet): every document of every source, validated once, with bounded concurrency for reading
 * (p-limit) and results kept in input order; exactly one {@link ObjectRecord} per document (one per `kind: List`
 * item), findings built by model.ts, a summary at the end.
 *
 * With `previous` (`--previous <source>`), each object is paired with its previous version (by `metadata.uid`, else
 * by apiVersion/kind/namespace/name) and validated as an UPDATE: transition rules (`oldSelf`) and ratcheting apply,
 * so violations on values the change kept are `grandfathered` (an unchanged update would be admitted) and the others
 * `blocking`. Objects without a previous version are validated as a CREATE.
 */
import pLimit from "p-limit";
import type { PolicySet, ValidateRequest, Verdict } from "#lib";
import { Comparer, type PreviousReport } from "./compare.js";
import {
  type AuditResult,
  type FailOn,
  type Finding,
  findingsFromVerdict,
  IdAssigner,
  identityKey,
  inputErrorFinding,
  type KubeObject,
  locationText,
  type ObjectRecord,
  objectRefOf,
  ownerOf,
  policyFailureFinding,
  REPORT_API_VERSION,
  REPORT_KIND,
  REPORT_VERSION,
  runIdOf,
  SummaryCounter,
} from "./model.js";
import type { Source, SourceDoc } from "./sources/index.js";
import { Spool, type SpoolOptions } from "./spool.js";

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
}

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

    const processDoc = (doc: SourceDoc): void => {
      if (doc.kind === "error") {
        keep({ key: locationText(doc.location), location: doc.location, outcome: "error", findings: 1 });
        emit(inputErrorFinding(doc.location, doc.error, startedAt));
        return;
      }
      if (doc.kind === "not-kubernetes") {
        keep({ key: locationText(doc.location), location: doc.location, outcome: "not-kubernetes", findings: 0 });
        return;
      }
      const { object, location } = doc;
      const ref = objectRefOf(object);
      const record: ObjectRecord = { key: identityKey(ref), object: ref, location, outcome: "skipped", findings: 0 };
      const owner = ownerOf(object, ownerOptions);
      if (owner !== undefined) record.owner = owner;
      if (!policySet.covers(object.apiVersion, object.kind)) {
        keep(record);
        return;
      }

      const old = previous?.find(object, ref);
      const request: ValidateRequest = { operation: old === undefined ? "CREATE" : "UPDATE", object };
      if (old !== undefined) {
        request.oldObject = old;
        record.paired = true;
      }
      let verdict: Verdict;
      try {
        verdict = policySet.validate(request);
      } catch (err) {
        // validate() never throws for a bad object; a fault inside it still gives this document its one result.
        record.outcome = "error";
        record.findings = 1;
        keep(record);
        const message = `internal error while validating: ${err instanceof Error ? err.message : String(err)}`;
        emit(inputErrorFinding(location, message, startedAt, ref));
        return;
      }
      if (!verdict.covered && verdict.allowed) {
        keep(record);
        return;
      }
      const ctx = { object, ref, location, isUpdate: old !== undefined, startedAt, ...(owner && { owner }) };
      const found = findingsFromVerdict(verdict, ctx);
      record.findings = found.length;
      record.outcome = found.some((f) => f.severity === "violation" || f.severity === "template-annotation-failure")
        ? "invalid"
        : "valid";
      const status = object.status;
      if (typeof status === "object" && status !== null) {
        record.hasStatus = true;
        if (Array.isArray((status as Record<string, unknown>).fieldErrors)) record.hasFieldErrors = true;
      }
      keep(record);
      for (const f of found) emit(f);
    };

    const limit = pLimit(Math.max(1, config.concurrency));
    const pending: Promise<SourceDoc[]>[] = [];
    let units = 0;
    const progress = (): void =>
      config.onProgress?.({ documents: objects.size, units, elapsedMs: performance.now() - clockStart });
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
    if (comparer !== undefined) run.comparison = comparer.result();
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
async function indexPrevious(
  source: Source,
): Promise<{ find(object: KubeObject, ref: ReturnType<typeof objectRefOf>): KubeObject | undefined }> {
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
