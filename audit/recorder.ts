/**
 * The record of one run as it is made. Every object record and finding goes in through a {@link RunRecorder}, in
 * input order: it gives each finding a unique id and its first-seen time from the previous report (the comparison),
 * counts the summary and the groups (groups.ts), and keeps records and findings in spools; `finish` makes the
 * {@link AuditResult} with its header, each controller resolved to the top of its chain in the input. A plain run (run.ts) and a merge of shard runs (shards.ts) record the same way.
 */
import { parseRfc3339 } from "#lib";
import { Comparer, type PreviousReport } from "./compare.js";
import { ControllerChain } from "./controllers.js";
import { GroupTally } from "./groups.js";
import {
  type AuditResult,
  type AuditRunHeader,
  FINDING_SEVERITIES,
  type Finding,
  type FindingSeverity,
  type ObjectRecord,
  REPORT_API_VERSION,
  REPORT_KIND,
  REPORT_VERSION,
  type RunRule,
  ruleId,
  type Summary,
  type WaiverRecord,
} from "./model.js";
import { Spool, type SpoolOptions } from "./spool.js";

/** What a run's header holds besides what the recorder knows (its start, summary and comparison). */
export interface RunFacts {
  finishedAt: string;
  tool: AuditRunHeader["tool"];
  bundle: AuditRunHeader["bundle"];
  sources: string[];
  previous?: string;
  failOn: AuditRunHeader["failOn"];
  notes?: AuditRunHeader["notes"];
}

export interface RecorderOptions {
  /** The previous report (`latest.json` at the output prefix, or `--compare-with`): firstSeen and new/resolved. */
  compareWith?: PreviousReport;
  /** Where the run's objects and findings are kept (memory while small, then a temporary file). */
  spool?: SpoolOptions;
  /** The waivers in force, judged at `at`; `warnDays`: those expiring within it are listed as expiring. */
  waivers?: { list: readonly WaiverInfo[]; at: Date; warnDays: number };
}

/** What the run's waiver list says of each waiver (a lib Waiver, or a shard's WaiverRecord). */
export type WaiverInfo = Pick<
  WaiverRecord,
  "name" | "policy" | "rule" | "owner" | "reason" | "expires" | "ticket" | "file" | "document"
>;

export class RunRecorder {
  /** The UTC start time, `20261122T021500Z`: the run folder's name. */
  readonly runId: string;
  /** The run's start, ISO 8601: the first-seen time of new findings. */
  readonly startedAt: string;
  private readonly objects: Spool<ObjectRecord>;
  private readonly findings: Spool<Finding>;
  private readonly counter = new SummaryCounter();
  private readonly ids = new IdAssigner();
  private readonly comparer: Comparer | undefined;
  private readonly waivers: Map<string, WaiverRecord> | undefined;
  private readonly groups = new GroupTally();
  private readonly chain = new ControllerChain();
  private readonly rules = new Map<string, RunRule>();

  constructor(start: Date, options: RecorderOptions = {}) {
    this.runId = runIdOf(start);
    this.startedAt = start.toISOString();
    this.objects = new Spool<ObjectRecord>(options.spool ?? {});
    this.findings = new Spool<Finding>(options.spool ?? {});
    this.comparer = options.compareWith === undefined ? undefined : new Comparer(options.compareWith);
    if (options.waivers !== undefined) {
      const { list, at, warnDays } = options.waivers;
      this.waivers = new Map(list.map((w) => [w.name, waiverRecord(w, at.getTime(), warnDays)]));
    }
  }

  /** Documents recorded so far (one record each). */
  get documents(): number {
    return this.objects.size;
  }

  /** Keeps a document's record. */
  object(record: ObjectRecord): void {
    this.counter.addObject(record);
    this.groups.object(record);
    this.chain.learn(record);
    this.objects.append(record);
  }

  /** Keeps a finding: a unique id within the run, firstSeen from the previous run, counted. */
  finding(f: Finding): void {
    this.ids.assign(f);
    this.comparer?.observe(f);
    this.counter.addFinding(f);
    if (f.waiver !== undefined) {
      const w = this.waivers?.get(f.waiver.name);
      if (w !== undefined) {
        if (f.waiver.expired === true) w.lapsed++;
        else w.waived++;
      }
    }
    this.groups.finding(f);
    const id = ruleId(f);
    if (!this.rules.has(id)) {
      const { family, policy, rule } = f.rule;
      this.rules.set(id, { id, severity: f.severity, rule: { family, policy, rule } });
    }
    this.findings.append(f);
  }

  /** The finished run; it owns the spools from now on (dispose of it with {@link disposeResult}). */
  async finish(facts: RunFacts, durationMs: number): Promise<AuditResult> {
    const run: AuditResult = {
      apiVersion: REPORT_API_VERSION,
      kind: REPORT_KIND,
      reportVersion: REPORT_VERSION,
      runId: this.runId,
      startedAt: this.startedAt,
      finishedAt: facts.finishedAt,
      tool: facts.tool,
      bundle: facts.bundle,
      sources: facts.sources,
      failOn: facts.failOn,
      summary: this.counter.result(durationMs),
      objects: this.objects,
      findings: this.findings,
      groups: this.groups.result((group) => this.chain.topOfGroup(group)),
      rules: [...this.rules.values()],
    };
    const chain = this.chain;
    this.objects.mapOnRead((r) => chain.resolved(r));
    this.findings.mapOnRead((f) => chain.resolved(f));
    const links = chain.links();
    if (links.length > 0) run.controllerLinks = links;
    if (facts.previous !== undefined) run.previous = facts.previous;
    if (facts.notes !== undefined && facts.notes.length > 0) run.notes = facts.notes;
    if (this.comparer !== undefined) run.comparison = await this.comparer.result();
    if (this.waivers !== undefined) {
      const list = [...this.waivers.values()];
      run.waivers = list;
      run.summary.waivers = {
        total: list.length,
        active: list.filter((w) => w.standing === "active").length,
        expiring: list.filter((w) => w.standing === "expiring").length,
        expired: list.filter((w) => w.standing === "expired").length,
        unused: list.filter((w) => w.waived + w.lapsed === 0).length,
      };
    }
    return run;
  }

  /** Removes the spools' temporary files: for a run that failed before {@link finish}. */
  dispose(): void {
    this.objects.dispose();
    this.findings.dispose();
  }
}

/** Removes a finished run's temporary files. */
export function disposeResult(result: AuditResult): void {
  result.objects.dispose();
  result.findings.dispose();
}

/** A waiver's entry in the run's list, its standing judged at `at` (ms); its counts start at 0. */
function waiverRecord(w: WaiverInfo, at: number, warnDays: number): WaiverRecord {
  const expiresAt = parseRfc3339(w.expires) ?? 0;
  const standing = expiresAt <= at ? "expired" : expiresAt - at <= warnDays * 86_400_000 ? "expiring" : "active";
  const r: WaiverRecord = {
    name: w.name,
    policy: w.policy,
    owner: w.owner,
    reason: w.reason,
    expires: w.expires,
    standing,
    waived: 0,
    lapsed: 0,
  };
  if (w.rule !== undefined) r.rule = w.rule;
  if (w.ticket !== undefined) r.ticket = w.ticket;
  if (w.file !== undefined) r.file = w.file;
  if (w.document !== undefined) r.document = w.document;
  return r;
}

/** Gives equal ids within a run a suffix (`<id>-2`, `<id>-3`, in the order seen), so every id is unique. */
class IdAssigner {
  private readonly seen = new Map<string, number>();

  assign(f: Finding): void {
    const n = (this.seen.get(f.id) ?? 0) + 1;
    this.seen.set(f.id, n);
    if (n > 1) f.id = `${f.id}-${n}`;
  }
}

/** Counts a run's objects and findings as they come; {@link SummaryCounter.result} gives the {@link Summary}. */
class SummaryCounter {
  private readonly s: Summary = {
    documents: 0,
    objects: 0,
    valid: 0,
    invalid: 0,
    skippedUncovered: 0,
    skippedByKind: {},
    skippedNotKubernetes: 0,
    inputErrors: 0,
    findings: Object.fromEntries(FINDING_SEVERITIES.map((k) => [k, 0])) as Record<FindingSeverity, number>,
    grandfathered: 0,
    blocking: 0,
    policyFailures: { error: 0, warning: 0 },
    durationMs: 0,
    objectsPerSecond: 0,
  };

  addObject(o: ObjectRecord): void {
    const s = this.s;
    s.documents++;
    switch (o.outcome) {
      case "valid":
        s.valid++;
        s.objects++;
        break;
      case "invalid":
        s.invalid++;
        s.objects++;
        break;
      case "skipped": {
        s.skippedUncovered++;
        s.objects++;
        const k = o.object === undefined ? "?" : `${o.object.apiVersion}/${o.object.kind}`;
        s.skippedByKind[k] = (s.skippedByKind[k] ?? 0) + 1;
        break;
      }
      case "not-kubernetes":
        s.skippedNotKubernetes++;
        break;
      case "error":
        s.inputErrors++;
        break;
    }
    if (o.note !== undefined && o.object?.kind === "Waiver") s.waiversInInput = (s.waiversInInput ?? 0) + 1;
    if (o.podSecurity !== undefined) {
      const what = o.object?.kind === "Pod" ? "pods" : "workloads";
      s.podSecurity ??= {};
      for (const lv of o.podSecurity) {
        const counts = s.podSecurity[lv] ?? { pods: 0, workloads: 0 };
        counts[what]++;
        s.podSecurity[lv] = counts;
      }
    }
  }

  addFinding(f: Finding): void {
    const s = this.s;
    s.findings[f.severity]++;
    if (f.ratchet === "grandfathered") s.grandfathered++;
    if (f.ratchet === "blocking") s.blocking++;
    if (f.severity === "policy-failure") s.policyFailures[f.type === "warning" ? "warning" : "error"]++;
  }

  result(durationMs: number): Summary {
    const s = structuredClone(this.s);
    s.durationMs = durationMs;
    s.objectsPerSecond = durationMs > 0 ? Math.round((s.documents * 1000) / durationMs) : 0;
    return s;
  }
}

/** `20261122T021500Z` for a start time. */
export function runIdOf(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replace(/[-:]/g, "");
}
