/**
 * policyreport.yaml (wg-policy `PolicyReport`/`ClusterPolicyReport`, wgpolicyk8s.io/v1alpha2) and openreports.yaml
 * (`Report`/`ClusterReport`, openreports.io/v1alpha1, the wg-policy API's successor with the same result shape):
 * one namespaced report per namespace with findings, one cluster report for cluster-scoped objects and for policy
 * failures and input errors (which belong to no object). `summary` counts results, plus the valid covered objects as
 * `pass` (they get no result entry, so the reports stay small). A namespace with more results than one object can
 * hold in a cluster (1,000 results or 1 MiB of them) gets several reports: `tollgate-audit-<ns>`, `-2`, `-3`...
 */
import type { AuditResult, Finding, ObjectRecord } from "../model.js";
import type { TextSpool } from "../text-spool.js";
import { type Result, resultEntry, resultKind } from "./policy-result.js";
import { type FactCollector, type PassContext, type SharedFact, sharedProduct } from "./shared-pass.js";
import { ByteChunker } from "./stream.js";
import type { ReportWriter } from "./types.js";
import { yamlDocument } from "./yaml-emit.js";

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

/** Results held at once: namespaces are gathered in batches of about this many results. */
const BATCH_RESULTS = 10_000;
/** The most results, and bytes of results text, in one report object (etcd keeps objects up to about 1.5 MiB). */
const REPORT_LIMITS: Readonly<ReportLimits> = Object.freeze({ results: 1000, bytes: 1024 * 1024 });

export interface ReportLimits {
  results: number;
  bytes: number;
}

type Summary = Record<Result, number>;

/** One report object of the file (the same in both flavours) and where its results' text is in its batch's text. */
interface ReportPart {
  ns: string;
  /** 1 for `tollgate-audit-<ns>`, then 2, 3... for `-2`, `-3`... */
  part: number;
  summary: Summary;
  results: number;
  /** The batch (none for a namespace without results) and the byte ranges of its text, start and end, in order. */
  batch: number;
  ranges: number[];
}

/** What both flavours write: their report objects, and the dealt results' text they copy. */
interface PolicyBody {
  parts: ReportPart[];
  batches: DealtBatch[];
}

function summaryOf(summaries: Map<string, Summary>, ns: string): Summary {
  let s = summaries.get(ns);
  if (s === undefined) {
    s = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
    summaries.set(ns, s);
  }
  return s;
}

/**
 * The batches the results are dealt to, as the first namespace of each: the namespaces in order, cut into batches
 * of about `batchResults` results (a namespace is never split), from the run's findings per namespace (its groups;
 * the rest are cluster-scoped, namespace ""). The batches only bound what is held at once: the reports are the same
 * whichever they are.
 */
function batchStarts(run: AuditResult, batchResults: number): string[] {
  const counts = new Map<string, number>();
  let namespaced = 0;
  for (const [ns, c] of Object.entries(run.groups.namespace)) {
    let n = 0;
    for (const v of Object.values(c.findings)) n += v;
    if (n > 0) counts.set(ns, n);
    namespaced += n;
  }
  if (run.findings.size > namespaced) counts.set("", run.findings.size - namespaced);
  const starts: string[] = [];
  let size = 0;
  for (const ns of [...counts.keys()].sort()) {
    const n = counts.get(ns)!;
    if (starts.length === 0 || (size + n > batchResults && size > 0)) {
      starts.push(ns);
      size = 0;
    }
    size += n;
  }
  return starts;
}

/** The batch of a namespace: the last whose first namespace is at or before it (the first for any before). */
function batchOf(starts: readonly string[], ns: string): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= ns) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const KINDS: readonly Exclude<Result, "pass">[] = ["fail", "warn", "error", "skip"];

/**
 * A batch's dealt results: their text one after the other (in finding order), and for each its size in bytes and
 * its namespace and kind, two numbers (`size`, `namespace index × 4 + kind index`) in a growing array.
 */
class DealtBatch {
  names: string[] = [];
  private readonly index = new Map<string, number>();
  entries = new Uint32Array(1024);
  count = 0;
  /** Where each result's text starts in the batch's text, and the text's bytes. */
  offsets: number[] = [];
  private bytes = 0;

  constructor(readonly text: TextSpool) {}

  add(ns: string, kind: Exclude<Result, "pass">, entry: string): void {
    let n = this.index.get(ns);
    if (n === undefined) {
      n = this.names.length;
      this.names.push(ns);
      this.index.set(ns, n);
    }
    if (2 * this.count + 2 > this.entries.length) {
      const larger = new Uint32Array(this.entries.length * 2);
      larger.set(this.entries);
      this.entries = larger;
    }
    const size = Buffer.byteLength(entry, "utf8");
    this.offsets.push(this.bytes);
    this.bytes += size;
    this.entries[2 * this.count] = size;
    this.entries[2 * this.count + 1] = 4 * n + KINDS.indexOf(kind);
    this.count++;
    this.text.append(entry);
  }
}

/**
 * The reports' body, made in the shared pass: each finding's result rendered and dealt to the text of its batch (on
 * disk when the run is), each namespace's summary counted; then the namespaces in order, each one's results (where
 * they are in its batch's text) cut into reports of at most `limits.results` results and `limits.bytes` bytes of
 * results text (the API server stores objects up to about 1.5 MiB), named `tollgate-audit-<ns>`, then `-2`, `-3`...;
 * each summary counts its own results, and the first also the namespace's passing objects. Each flavour copies the
 * results from the batches' texts.
 */
function collectBody(
  pass: PassContext,
  batchResults: number,
  limits: Readonly<ReportLimits>,
): FactCollector<PolicyBody> {
  const { run } = pass;
  const seconds = Math.floor(Date.parse(run.startedAt) / 1000);
  const summaries = new Map<string, Summary>();
  const starts = batchStarts(run, batchResults);
  const batches = starts.map(() => new DealtBatch(pass.textSpool()));
  const cutAll = (): ReportPart[] => {
    const parts: ReportPart[] = [];
    /** Cuts a namespace's results (the batch's entries `mine`, in order) into reports. */
    const cut = (ns: string, b: number, mine: Iterable<number>): void => {
      const batch = batches[b];
      let part = 1;
      let results = 0;
      let bytes = 0;
      let ranges: number[] = [];
      let summary: Summary = { pass: summaries.get(ns)!.pass, fail: 0, warn: 0, error: 0, skip: 0 };
      const close = (): void => {
        parts.push({ ns, part, summary, results, batch: b, ranges });
        part++;
        results = 0;
        bytes = 0;
        ranges = [];
        summary = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
      };
      for (const e of mine) {
        const size = batch!.entries[2 * e]!;
        if (results > 0 && (results >= limits.results || bytes + size > limits.bytes)) close();
        const start = batch!.offsets[e]!;
        // A result right after the last one extends its range.
        if (ranges.length > 0 && ranges[ranges.length - 1] === start) ranges[ranges.length - 1] = start + size;
        else ranges.push(start, start + size);
        results++;
        bytes += size;
        summary[KINDS[batch!.entries[2 * e + 1]! & 3]!]++;
      }
      close();
    };
    const names = [...summaries.keys()].sort();
    const byBatch = new Map<number, Map<string, number[]>>();
    for (const ns of names) {
      const b = batchOf(starts, ns);
      const batch = batches[b];
      let byName = byBatch.get(b);
      if (byName === undefined && batch !== undefined) {
        byName = new Map(batch.names.map((n) => [n, []]));
        for (let e = 0; e < batch.count; e++) byName.get(batch.names[batch.entries[2 * e + 1]! >>> 2]!)!.push(e);
        byBatch.set(b, byName);
      }
      cut(ns, b, byName?.get(ns) ?? []);
      byName?.delete(ns);
    }
    return parts;
  };
  return {
    finding(f: Finding) {
      const ns = f.object?.namespace ?? "";
      const kind = resultKind(f);
      summaryOf(summaries, ns)[kind]++;
      batches[batchOf(starts, ns)]!.add(ns, kind, resultEntry(f, seconds));
    },
    object(o: ObjectRecord) {
      if (o.outcome !== "valid" || o.findings > 0) return;
      summaryOf(summaries, o.object?.namespace ?? "").pass++;
    },
    result: () => ({ parts: cutAll(), batches }),
  };
}

/** The body for each batch size and limits asked for (the writers use the defaults; tests others). */
const bodies = new Map<string, SharedFact<PolicyBody>>();

function bodyOf(batchResults: number, limits: Readonly<ReportLimits>): SharedFact<PolicyBody> {
  const key = `${batchResults}/${limits.results}/${limits.bytes}`;
  let body = bodies.get(key);
  if (body === undefined) {
    body = sharedProduct((pass) => collectBody(pass, batchResults, limits));
    bodies.set(key, body);
  }
  return body;
}

/**
 * One flavour's file: one report per namespace (or several, cut by `limits`), in namespace order. Both flavours
 * copy the same results text (the shared pass renders it once); only their headers differ. A batch of one
 * namespace's results is copied as it is read; a batch of several namespaces' results is read into memory (about
 * `batchResults` results) and its results copied from there.
 */
export async function* renderPolicyReports(
  run: AuditResult,
  format: "policyreport" | "openreports",
  batchResults = BATCH_RESULTS,
  limits: Readonly<ReportLimits> = REPORT_LIMITS,
): AsyncGenerator<Uint8Array> {
  const flavour = format === "policyreport" ? WG_POLICY : OPEN_REPORTS;
  const { parts, batches } = await bodyOf(batchResults, limits)(run);
  const out = new ByteChunker();
  let held: { batch: number; bytes: Buffer } | undefined;
  let first = true;
  for (const p of parts) {
    yield* out.push(header(run, flavour, p, first));
    first = false;
    if (p.ranges.length === 0) continue;
    const batch = batches[p.batch]!;
    if (batch.names.length === 1) {
      for (let r = 0; r < p.ranges.length; r += 2) {
        for await (const piece of batch.text.chunks(p.ranges[r], p.ranges[r + 1])) yield* out.push(piece);
      }
      continue;
    }
    if (held?.batch !== p.batch) {
      held = undefined;
      const read: Buffer[] = [];
      for await (const piece of batch.text.chunks()) read.push(piece);
      held = { batch: p.batch, bytes: Buffer.concat(read) };
    }
    // The part's results gathered in one piece (a report holds a megabyte of them at most).
    let size = 0;
    for (let r = 0; r < p.ranges.length; r += 2) size += p.ranges[r + 1]! - p.ranges[r]!;
    const piece = Buffer.allocUnsafe(size);
    for (let r = 0, at = 0; r < p.ranges.length; r += 2) at += held.bytes.copy(piece, at, p.ranges[r], p.ranges[r + 1]);
    yield* out.push(piece);
  }
  yield out.take();
}

/** A report object's head, up to `results:` (with `---` before every report but the first). */
function header(run: AuditResult, flavour: Flavour, p: ReportPart, first: boolean): string {
  const base = `tollgate-audit${p.ns === "" ? "" : `-${p.ns}`}`;
  const suffix = p.part === 1 ? "" : `-${p.part}`;
  const metadata: Record<string, unknown> = {
    name: base.slice(0, 253 - suffix.length) + suffix,
    labels: { "app.kubernetes.io/managed-by": "tollgate" },
    annotations: { "tollgate.dev/run-id": run.runId, "tollgate.dev/bundle-digest": run.bundle.digest },
  };
  if (p.ns !== "") metadata.namespace = p.ns;
  const text = yamlDocument({
    apiVersion: flavour.apiVersion,
    kind: p.ns === "" ? flavour.cluster : flavour.namespaced,
    metadata,
    summary: p.summary,
  });
  return `${first ? "" : "---\n"}${text}${p.results === 0 ? "results: []\n" : "results:\n"}`;
}

function writerOf(flavour: Flavour, format: "policyreport" | "openreports"): ReportWriter {
  return {
    name: flavour.name,
    render(run) {
      bodyOf(BATCH_RESULTS, REPORT_LIMITS).want(run);
      return [{ name: flavour.file, chunks: () => renderPolicyReports(run, format), contentType: "application/yaml" }];
    },
  };
}

export const policyReportWriter: ReportWriter = writerOf(WG_POLICY, "policyreport");

export const openReportsWriter: ReportWriter = writerOf(OPEN_REPORTS, "openreports");
