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

/** One report object of the file (the same in both flavours) and where its results' text is in the shared body. */
interface ReportPart {
  ns: string;
  /** 1 for `tollgate-audit-<ns>`, then 2, 3... for `-2`, `-3`... */
  part: number;
  summary: Summary;
  results: number;
  start: number;
  end: number;
}

/** What both flavours write: their report objects, and the results' text they share. */
interface PolicyBody {
  parts: ReportPart[];
  text: TextSpool;
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
    this.entries[2 * this.count] = Buffer.byteLength(entry, "utf8");
    this.entries[2 * this.count + 1] = 4 * n + KINDS.indexOf(kind);
    this.count++;
    this.text.append(entry);
  }
}

/**
 * The reports' body, made in the shared pass: each finding's result rendered and dealt to the text of its batch (on
 * disk when the run is), each namespace's summary counted; then, batch by batch, the namespaces in order and each
 * one's results copied to one text both flavours copy. A batch whose results are of one namespace (the cluster
 * report of a large export) is copied as it is read; the results of a batch of several namespaces are read into
 * memory (about `batchResults` at most). A namespace's results are cut into reports of at most `limits.results`
 * results and `limits.bytes` bytes of results text (the API server stores objects up to about 1.5 MiB), named
 * `tollgate-audit-<ns>`, then `-2`, `-3`...; each summary counts its own results, and the first also the
 * namespace's passing objects.
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
  const write = async (): Promise<PolicyBody> => {
    const text = pass.textSpool();
    const parts: ReportPart[] = [];
    let at = 0;
    /** Cuts a namespace's results (kind index and size each) into reports; their text is appended by the caller. */
    const cut = (ns: string, entries: Iterable<[kind: number, size: number]>): void => {
      let part = 1;
      let results = 0;
      let bytes = 0;
      let start = at;
      let summary: Summary = { pass: summaries.get(ns)!.pass, fail: 0, warn: 0, error: 0, skip: 0 };
      const close = (): void => {
        parts.push({ ns, part, summary, results, start, end: at });
        part++;
        results = 0;
        bytes = 0;
        start = at;
        summary = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
      };
      for (const [kind, size] of entries) {
        if (results > 0 && (results >= limits.results || bytes + size > limits.bytes)) close();
        at += size;
        results++;
        bytes += size;
        summary[KINDS[kind]!]++;
      }
      close();
    };
    const names = [...summaries.keys()].sort();
    for (let i = 0; i < names.length; ) {
      const b = batchOf(starts, names[i]!);
      let j = i;
      while (j < names.length && batchOf(starts, names[j]!) === b) j++;
      const group = names.slice(i, j);
      i = j;
      const batch = batches[b];
      if (batch === undefined || batch.names.length <= 1) {
        // At most one namespace has results here: they are its results in order, copied as they are read.
        for (const ns of group) {
          if (batch === undefined || ns !== batch.names[0]) cut(ns, []);
          else {
            cut(ns, entriesOf(batch, 0, batch.count));
            for await (const piece of batch.text.chunks()) text.appendBytes(piece);
          }
        }
        continue;
      }
      const read: Buffer[] = [];
      for await (const piece of batch.text.chunks()) read.push(piece);
      const all = Buffer.concat(read);
      const byName = new Map<string, number[]>(batch.names.map((ns) => [ns, []]));
      for (let e = 0; e < batch.count; e++) byName.get(batch.names[batch.entries[2 * e + 1]! >>> 2]!)!.push(e);
      const offsets = new Float64Array(batch.count + 1);
      for (let e = 0; e < batch.count; e++) offsets[e + 1] = offsets[e]! + batch.entries[2 * e]!;
      for (const ns of group) {
        const mine = byName.get(ns) ?? [];
        cut(
          ns,
          mine.map((e) => [batch.entries[2 * e + 1]! & 3, batch.entries[2 * e]!]),
        );
        for (const e of mine) text.appendBytes(all.subarray(offsets[e]!, offsets[e + 1]!));
      }
    }
    return { parts, text };
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
    async result() {
      try {
        return await write();
      } finally {
        for (const batch of batches) batch.text.dispose();
      }
    },
  };
}

/** The kind index and size of a batch's results `from` to `to`. */
function* entriesOf(batch: DealtBatch, from: number, to: number): Generator<[kind: number, size: number]> {
  for (let e = from; e < to; e++) yield [batch.entries[2 * e + 1]! & 3, batch.entries[2 * e]!];
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
 * copy the same results text (the shared pass renders it once); only their headers differ.
 */
export async function* renderPolicyReports(
  run: AuditResult,
  format: "policyreport" | "openreports",
  batchResults = BATCH_RESULTS,
  limits: Readonly<ReportLimits> = REPORT_LIMITS,
): AsyncGenerator<Uint8Array> {
  const flavour = format === "policyreport" ? WG_POLICY : OPEN_REPORTS;
  const { parts, text } = await bodyOf(batchResults, limits)(run);
  const out = new ByteChunker();
  let first = true;
  for (const p of parts) {
    yield* out.push(header(run, flavour, p, first));
    first = false;
    for await (const piece of text.chunks(p.start, p.end)) yield* out.push(piece);
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
