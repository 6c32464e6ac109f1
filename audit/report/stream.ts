/**
 * Helpers for writers that stream: a run's objects and findings are read from its spools (audit/spool.ts) as the
 * file is written, so no writer holds a whole report in memory, and no report is limited by the largest string.
 */
import type { AuditResult, Finding, ObjectRecord } from "../model.js";

/** Chunks of about this many characters are handed to the sink. */
const CHUNK_CHARS = 64 * 1024;

/** Collects small strings and gives them out in chunks. */
export class Chunker {
  private parts: string[] = [];
  private chars = 0;

  /** Adds text; returns a chunk to yield once enough has gathered. */
  push(text: string): string | undefined {
    this.parts.push(text);
    this.chars += text.length;
    return this.chars >= CHUNK_CHARS ? this.take() : undefined;
  }

  /** What is left (empty when nothing is). */
  take(): string {
    const out = this.parts.join("");
    this.parts = [];
    this.chars = 0;
    return out;
  }
}

/** `JSON.stringify(value, null, 2)` as it appears nested `depth` levels deep in a pretty-printed document. */
export function nestedJson(value: unknown, depth: number): string {
  const text = JSON.stringify(value, null, 2);
  // Strings never hold a raw line feed in JSON text, so every line feed is a line break of the layout.
  return depth === 0 ? text : text.replace(/\n/g, `\n${"  ".repeat(depth)}`);
}

/**
 * The text of a pretty-printed JSON array of `items` whose opening bracket sits `depth` levels deep, exactly as
 * `JSON.stringify(..., null, 2)` would write it.
 */
export function* jsonArray(items: Iterable<unknown>, depth: number): Generator<string> {
  const indent = "  ".repeat(depth + 1);
  const chunker = new Chunker();
  let first = true;
  for (const item of items) {
    const chunk = chunker.push(`${first ? "[\n" : ",\n"}${indent}${nestedJson(item, depth + 1)}`);
    first = false;
    if (chunk !== undefined) yield chunk;
  }
  yield `${chunker.take()}${first ? "[]" : `\n${"  ".repeat(depth)}]`}`;
}

/** One document's record with its findings. */
export interface ObjectFindings {
  record: ObjectRecord;
  findings: Finding[];
}

/** The run's policy failures (they come first among the findings and belong to no document). */
export function policyFailures(run: AuditResult): Finding[] {
  const n = run.summary.policyFailures.error + run.summary.policyFailures.warning;
  const out: Finding[] = [];
  if (n === 0) return out;
  for (const f of run.findings) {
    out.push(f);
    if (out.length === n) break;
  }
  return out;
}

/**
 * Each document's record with its findings, in input order: the findings spool holds the policy failures, then
 * each document's `record.findings` findings one after the other, in the order of the records.
 */
export function* objectsWithFindings(run: AuditResult): Generator<ObjectFindings> {
  const findings = run.findings[Symbol.iterator]();
  const next = (): Finding => {
    const r = findings.next();
    if (r.done === true) throw new Error("the run's findings end before its records do");
    return r.value;
  };
  try {
    for (let n = run.summary.policyFailures.error + run.summary.policyFailures.warning; n > 0; n--) next();
    for (const record of run.objects) {
      const found: Finding[] = [];
      for (let i = 0; i < record.findings; i++) found.push(next());
      yield { record, findings: found };
    }
  } finally {
    findings.return?.();
  }
}

/** The text of an async chunk source (tests, and files small enough to hold). */
export async function textOf(chunks: AsyncIterable<string>): Promise<string> {
  const parts: string[] = [];
  for await (const c of chunks) parts.push(c);
  return parts.join("");
}

/** Content made in one piece (small files: summaries, and files whose size is bounded by other means). */
export function single(render: () => string): () => AsyncIterable<string> {
  return async function* () {
    yield render();
  };
}
