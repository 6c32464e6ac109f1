/**
 * policyreport.yaml (wg-policy `PolicyReport`/`ClusterPolicyReport`, wgpolicyk8s.io/v1alpha2) and openreports.yaml
 * (`Report`/`ClusterReport`, openreports.io/v1alpha1, the wg-policy API's successor with the same result shape):
 * one namespaced report per namespace with findings, one cluster report for cluster-scoped objects and for policy
 * failures and input errors (which belong to no object). `summary` counts results, plus the valid covered objects as
 * `pass` (they get no result entry, so the reports stay small). A namespace with more results than one object can
 * hold in a cluster (1,000 results or 1 MiB of them) gets several reports: `tollgate-audit-<ns>`, `-2`, `-3`...
 */
import type { AuditResult, Finding, FindingSeverity, ObjectRecord } from "../model.js";
import { Spool } from "../spool.js";
import { sharedFact } from "./shared-pass.js";
import type { ReportWriter } from "./types.js";
import { yamlDocument, yamlSequenceItems } from "./yaml-emit.js";

type Result = "pass" | "fail" | "warn" | "error" | "skip";

const RESULT: Record<FindingSeverity, Result> = {
  violation: "fail",
  "template-annotation-failure": "fail",
  warning: "warn",
  // Recorded by the API server, not returned to the client: still a result that says the rule is not met.
  audit: "warn",
  shadow: "skip",
  "policy-failure": "error",
  "input-error": "error",
  // Waived by a governed waiver: the rule is not met, and deliberately not enforced until the waiver expires.
  waived: "skip",
};

const SEVERITY: Record<FindingSeverity, string> = {
  violation: "high",
  "template-annotation-failure": "high",
  "policy-failure": "high",
  "input-error": "medium",
  warning: "medium",
  audit: "low",
  shadow: "info",
  // Replaced by the severity of what the finding is without its waiver (resultOf).
  waived: "info",
};

interface Flavour {
  apiVersion: string;
  namespaced: string;
  cluster: string;
  file: string;
  name: string;
}

const WG_POLICY: Flavour = {
  apiVersion: "wgpolicyk8s.io/v1alpha2",
  namespaced: "PolicyReport",
  cluster: "ClusterPolicyReport",
  file: "policyreport.yaml",
  name: "policyreport",
};

const OPEN_REPORTS: Flavour = {
  apiVersion: "openreports.io/v1alpha1",
  namespaced: "Report",
  cluster: "ClusterReport",
  file: "openreports.yaml",
  name: "openreports",
};

function resultOf(f: Finding, seconds: number): Record<string, unknown> {
  const r: Record<string, unknown> = {
    source: "tollgate",
    policy: f.severity === "input-error" ? "input" : `${f.rule.family}/${f.rule.policy ?? "bundle"}`,
    result: f.severity === "policy-failure" && f.type === "warning" ? "warn" : RESULT[f.severity],
    severity: SEVERITY[f.severity === "waived" ? (f.waiver?.severity ?? "waived") : f.severity],
    category: f.severity,
    scored: f.severity !== "shadow" && f.severity !== "waived",
    message: f.field === undefined ? f.message : `${f.field}: ${f.message}`,
    timestamp: { seconds, nanos: 0 },
  };
  if (f.rule.rule !== undefined) r.rule = f.rule.rule;
  if (f.object !== undefined) {
    const o = f.object;
    const ref: Record<string, string> = { apiVersion: o.apiVersion, kind: o.kind, name: o.name };
    if (o.namespace !== undefined) ref.namespace = o.namespace;
    if (o.uid !== undefined) ref.uid = o.uid;
    r.resources = [ref];
  }
  const props: Record<string, string> = { findingId: f.id, firstSeen: f.firstSeen };
  if (f.field !== undefined) props.field = f.field;
  if (f.ratchet !== undefined) props.ratchet = f.ratchet;
  if (f.team !== undefined) props.team = f.team;
  if (f.controller !== undefined) props.controller = f.controller;
  if (f.rule.binding !== undefined) props.binding = f.rule.binding;
  if (f.rule.param !== undefined) props.param = f.rule.param;
  if (f.rule.index !== undefined) props.index = String(f.rule.index);
  if (f.location !== undefined) props.location = locationOf(f);
  if (f.waiver !== undefined) {
    props.waiver = f.waiver.name;
    props.waiverOwner = f.waiver.owner;
    props.waiverExpires = f.waiver.expires;
    props.waiverReason = f.waiver.reason;
    if (f.waiver.ticket !== undefined) props.waiverTicket = f.waiver.ticket;
    if (f.waiver.expired === true) props.waiverExpired = "true";
  }
  r.properties = props;
  return r;
}

function locationOf(f: Finding): string {
  const l = f.location!;
  const file = l.entry === undefined ? l.file : `${l.file}!${l.entry}`;
  return l.line === undefined ? file : `${file}:${l.line}`;
}

/** Results held at once: namespaces are gathered in batches of about this many results. */
const BATCH_RESULTS = 10_000;
/** The most results, and bytes of results text, in one report object (etcd keeps objects up to about 1.5 MiB). */
const REPORT_LIMITS: Readonly<ReportLimits> = Object.freeze({ results: 1000, bytes: 1024 * 1024 });

export interface ReportLimits {
  results: number;
  bytes: number;
}

/** The result a finding becomes (what resultOf gives it), for counting before the results are written. */
function resultKind(f: Finding): Exclude<Result, "pass"> {
  return f.severity === "policy-failure" && f.type === "warning"
    ? "warn"
    : (RESULT[f.severity] as Exclude<Result, "pass">);
}

/**
 * One report per namespace, in namespace order, each written as a stream. A first pass counts each namespace's
 * results by kind (the summary comes before the results). When the results are more than one batch, a second pass
 * deals them, rendered, to one spool per batch of namespaces (on disk): a batch of small namespaces is gathered in
 * memory (at most about `batchResults` results), and a namespace larger than a batch (the cluster report of a large
 * export) is its batch alone and is written from its spool as it is read. Memory never holds more than a batch of
 * results. The two flavours share the counts and the dealt results when they are written at the same time.
 */
export function renderPolicyReports(
  run: AuditResult,
  format: "policyreport" | "openreports",
  batchResults = BATCH_RESULTS,
  limits: Readonly<ReportLimits> = REPORT_LIMITS,
): AsyncGenerator<string> {
  return render(run, format === "policyreport" ? WG_POLICY : OPEN_REPORTS, batchResults, limits);
}

/** A result ready to write: its kind (for the summaries) and its text as an entry of `results`. */
type Entry = [kind: Exclude<Result, "pass">, text: string];

/** What both flavours read: the namespaces' summaries, their batches, and (beyond one batch) the dealt results. */
interface Dealt {
  summaries: Map<string, Record<Result, number>>;
  batches: string[][];
  /** One spool per batch, of `[namespace, kind, text]`; empty when the results are one batch. */
  spools: Spool<[string, ...Entry]>[];
  users: number;
}

/** The two flavours hold the same results: they are counted and dealt once per run, while either is being written. */
const dealtByRun = new WeakMap<AuditResult, Map<number, Promise<Dealt>>>();

function entryOf(f: Finding, seconds: number): Entry {
  return [resultKind(f), yamlSequenceItems([resultOf(f, seconds)], 2)];
}

function acquireDealt(run: AuditResult, batchResults: number): Promise<Dealt> {
  let byBatch = dealtByRun.get(run);
  if (byBatch === undefined) {
    byBatch = new Map();
    dealtByRun.set(run, byBatch);
  }
  let dealt = byBatch.get(batchResults);
  if (dealt === undefined) {
    dealt = Promise.resolve().then(() => deal(run, batchResults));
    byBatch.set(batchResults, dealt);
  }
  return dealt.then((d) => {
    d.users++;
    return d;
  });
}

function releaseDealt(run: AuditResult, batchResults: number, d: Dealt): void {
  if (--d.users > 0) return;
  for (const spool of d.spools) spool.dispose();
  dealtByRun.get(run)?.delete(batchResults);
}

/** Each namespace's result counts ("" = cluster): passing objects and each finding's result (the shared pass). */
const summariesOf = sharedFact((_run) => {
  const summaries = new Map<string, Record<Result, number>>();
  const summaryOf = (ns: string): Record<Result, number> => {
    let s = summaries.get(ns);
    if (s === undefined) {
      s = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
      summaries.set(ns, s);
    }
    return s;
  };
  return {
    finding(f: Finding) {
      summaryOf(f.object?.namespace ?? "")[resultKind(f)]++;
    },
    object(o: ObjectRecord) {
      if (o.outcome !== "valid" || o.findings > 0) return;
      summaryOf(o.object?.namespace ?? "").pass++;
    },
    result: () => summaries,
  };
});

function deal(run: AuditResult, batchResults: number): Dealt {
  const seconds = Math.floor(Date.parse(run.startedAt) / 1000);
  const summaries = summariesOf(run);
  // Namespaces in order, cut into batches of about batchResults results (a namespace is never split).
  const batches: string[][] = [];
  let size = 0;
  for (const ns of [...summaries.keys()].sort()) {
    const s = summaries.get(ns)!;
    const n = s.fail + s.warn + s.error + s.skip;
    if (batches.length === 0 || (size + n > batchResults && size > 0)) {
      batches.push([]);
      size = 0;
    }
    batches[batches.length - 1]!.push(ns);
    size += n;
  }
  const spools: Spool<[string, ...Entry]>[] = [];
  if (batches.length > 1) {
    const batchOf = new Map<string, number>();
    batches.forEach((b, i) => {
      for (const ns of b) batchOf.set(ns, i);
      spools.push(new Spool({ memoryItems: 0 }));
    });
    try {
      for (const f of run.findings) {
        const ns = f.object?.namespace ?? "";
        spools[batchOf.get(ns)!]!.append([ns, ...entryOf(f, seconds)]);
      }
    } catch (err) {
      for (const spool of spools) spool.dispose();
      throw err;
    }
  }
  return { summaries, batches, spools, users: 0 };
}

async function* render(
  run: AuditResult,
  flavour: Flavour,
  batchResults: number,
  limits: Readonly<ReportLimits>,
): AsyncGenerator<string> {
  const seconds = Math.floor(Date.parse(run.startedAt) / 1000);
  const dealt = await acquireDealt(run, batchResults);
  const { summaries, batches, spools } = dealt;
  let first = true;
  const header = (ns: string, part: number, summary: Record<Result, number>, results: number): string => {
    const base = `tollgate-audit${ns === "" ? "" : `-${ns}`}`;
    const suffix = part === 1 ? "" : `-${part}`;
    const metadata: Record<string, unknown> = {
      name: base.slice(0, 253 - suffix.length) + suffix,
      labels: { "app.kubernetes.io/managed-by": "tollgate" },
      annotations: { "tollgate.dev/run-id": run.runId, "tollgate.dev/bundle-digest": run.bundle.digest },
    };
    if (ns !== "") metadata.namespace = ns;
    const text = yamlDocument({
      apiVersion: flavour.apiVersion,
      kind: ns === "" ? flavour.cluster : flavour.namespaced,
      metadata,
      summary,
    });
    const out = `${first ? "" : "---\n"}${text}${results === 0 ? "results: []\n" : "results:\n"}`;
    first = false;
    return out;
  };
  /**
   * A namespace's reports: its results cut into reports of at most `limits.results` results and `limits.bytes` bytes
   * of results text (the API server stores objects up to about 1.5 MiB), named `tollgate-audit-<ns>`, then `-2`,
   * `-3`...; each summary counts its own results, and the first also the namespace's passing objects.
   */
  const report = function* (ns: string, entries: Iterable<Entry>): Generator<string> {
    let part = 1;
    let items: string[] = [];
    let bytes = 0;
    let summary: Record<Result, number> = { pass: summaries.get(ns)!.pass, fail: 0, warn: 0, error: 0, skip: 0 };
    const flush = (): string => {
      const text = header(ns, part, summary, items.length) + items.join("");
      part++;
      items = [];
      bytes = 0;
      summary = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
      return text;
    };
    for (const [kind, text] of entries) {
      const size = Buffer.byteLength(text, "utf8");
      if (items.length > 0 && (items.length >= limits.results || bytes + size > limits.bytes)) yield flush();
      items.push(text);
      bytes += size;
      summary[kind]++;
    }
    yield flush();
  };
  try {
    for (let i = 0; i < batches.length; i++) {
      const names = batches[i]!;
      if (names.length === 1 && spools.length > 0) {
        // One namespace: written as its spool is read.
        yield* report(
          names[0]!,
          (function* (): Generator<Entry> {
            for (const [, kind, text] of spools[i]!) yield [kind, text];
          })(),
        );
        continue;
      }
      const batch = new Map<string, Entry[]>(names.map((ns) => [ns, []]));
      if (spools.length > 0) {
        for (const [ns, kind, text] of spools[i]!) batch.get(ns)!.push([kind, text]);
      } else {
        for (const f of run.findings) batch.get(f.object?.namespace ?? "")?.push(entryOf(f, seconds));
      }
      for (const [ns, entries] of batch) yield* report(ns, entries);
    }
  } finally {
    releaseDealt(run, batchResults, dealt);
  }
}

export const policyReportWriter: ReportWriter = {
  name: WG_POLICY.name,
  render(run) {
    return [
      {
        name: WG_POLICY.file,
        chunks: () => render(run, WG_POLICY, BATCH_RESULTS, REPORT_LIMITS),
        contentType: "application/yaml",
      },
    ];
  },
};

export const openReportsWriter: ReportWriter = {
  name: OPEN_REPORTS.name,
  render(run) {
    return [
      {
        name: OPEN_REPORTS.file,
        chunks: () => render(run, OPEN_REPORTS, BATCH_RESULTS, REPORT_LIMITS),
        contentType: "application/yaml",
      },
    ];
  },
};
