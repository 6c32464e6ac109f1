/**
 * Helpers for writers that stream: a run's objects and findings are read from its spools (audit/spool.ts) as the
 * file is written, so no writer holds a whole report in memory, and no report is limited by the largest string.
 */
import type { AuditResult, Finding, ObjectRecord } from "../model.js";

/** Chunks of about this many characters are handed to the sink. */
const CHUNK_CHARS = 64 * 1024;
/**
 * Byte chunks of at least this size are written: each write is a call to the file system (on the thread pool, whose
 * thread must wake up for it) or a part of an upload, so a large run's gigabyte goes in few of them.
 */
export const WRITE_CHUNK_BYTES = 1024 * 1024;

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

/**
 * Gathers the pieces of a file made of many small texts and byte ranges (rendered earlier) into chunks of about
 * {@link WRITE_CHUNK_BYTES} bytes, so that a file of many small parts is not written a piece at a time.
 */
export class ByteChunker {
  private parts: Buffer[] = [];
  private bytes = 0;

  /** `chunkBytes`: the size of the chunks handed on (at least; a larger piece goes on whole). */
  constructor(private readonly chunkBytes = WRITE_CHUNK_BYTES) {}

  /** Adds a piece; returns the chunks to hand on (none until enough has gathered). */
  push(piece: string | Uint8Array): Uint8Array[] {
    if (piece.length === 0) return [];
    const b =
      typeof piece === "string"
        ? Buffer.from(piece, "utf8")
        : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    // A piece of half a chunk or more goes on as it is (a chunk filled up to its last whole character, say).
    if (b.length >= this.chunkBytes / 2) {
      const out = this.bytes > 0 ? [this.take()] : [];
      out.push(b);
      return out;
    }
    this.parts.push(b);
    this.bytes += b.length;
    return this.bytes >= this.chunkBytes ? [this.take()] : [];
  }

  /** What is left (empty when nothing is). */
  take(): Uint8Array {
    const out = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.bytes);
    this.parts = [];
    this.bytes = 0;
    return out;
  }
}

/**
 * The text `JSON.stringify` writes around a value nested `depth` arrays deep (two spaces of indent): before it
 * `[\n  [\n    ` and after it `\n  ]\n]` for depth 2. Inside, the value's lines carry its depth's indentation, as
 * in a pretty-printed document, without a pass over the text to indent it.
 */
function wrapper(depth: number): { before: string; after: string } {
  let before = "";
  let after = "";
  for (let d = 0; d < depth; d++) {
    before += `${"  ".repeat(d)}[\n`;
    after = `\n${"  ".repeat(d)}]${after}`;
  }
  return { before: before + "  ".repeat(depth), after };
}

const wrappers: { before: string; after: string }[] = [];

function wrapperOf(depth: number): { before: string; after: string } {
  wrappers[depth] ??= wrapper(depth);
  return wrappers[depth]!;
}

function nestIn(value: unknown, depth: number): unknown {
  let v = value;
  for (let d = 0; d < depth; d++) v = [v];
  return v;
}

/** `JSON.stringify(value, null, 2)` as it appears nested `depth` levels deep in a pretty-printed document. */
export function nestedJson(value: unknown, depth: number): string {
  if (depth === 0) return JSON.stringify(value, null, 2);
  const { before, after } = wrapperOf(depth);
  const text = JSON.stringify(nestIn(value, depth), null, 2);
  return text.slice(before.length, text.length - after.length);
}

/** Items laid out in one `JSON.stringify` call: about this many at a time. */
const ITEMS_PER_CALL = 256;

/**
 * Writes a pretty-printed JSON array whose opening bracket sits `depth` levels deep, exactly as
 * `JSON.stringify(..., null, 2)` would, from items given one at a time. Items are laid out in groups by one call
 * each (the group as an array nested as deep as this one), and the group's text between its brackets is taken as
 * is: `push` gives the text of each group once it is full, `end` the rest and the closing bracket.
 */
export class JsonArrayWriter {
  private group: unknown[] = [];
  private first = true;
  private readonly before: number;
  private readonly after: number;

  constructor(private readonly depth: number) {
    const w = wrapperOf(depth + 1);
    this.before = w.before.length - 2 * (depth + 1);
    this.after = w.after.length;
  }

  push(item: unknown): string | undefined {
    this.group.push(item);
    return this.group.length === ITEMS_PER_CALL ? this.text() : undefined;
  }

  end(): string {
    const rest = this.group.length > 0 ? this.text() : "";
    return `${rest}${this.first ? "[]" : `\n${"  ".repeat(this.depth)}]`}`;
  }

  private text(): string {
    const s = JSON.stringify(nestIn(this.group, this.depth), null, 2);
    const out = `${this.first ? "[\n" : ",\n"}${s.slice(this.before, s.length - this.after)}`;
    this.first = false;
    this.group = [];
    return out;
  }
}

/** The text of {@link JsonArrayWriter}'s array of `items`, in pieces. */
export function* jsonArray(items: Iterable<unknown>, depth: number): Generator<string> {
  const writer = new JsonArrayWriter(depth);
  for (const item of items) {
    const text = writer.push(item);
    if (text !== undefined) yield text;
  }
  yield writer.end();
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
 * Each document's record with its findings, in input order: the findings spool holds the policy failures (given to
 * `onPolicyFailure` as they are read), then each document's `record.findings` findings one after the other, in the
 * order of the records.
 */
export function* objectsWithFindings(
  run: AuditResult,
  onPolicyFailure?: (f: Finding) => void,
): Generator<ObjectFindings> {
  const findings = run.findings[Symbol.iterator]();
  const next = (): Finding => {
    const r = findings.next();
    if (r.done === true) throw new Error("the run's findings end before its records do");
    return r.value;
  };
  try {
    for (let n = run.summary.policyFailures.error + run.summary.policyFailures.warning; n > 0; n--) {
      const f = next();
      onPolicyFailure?.(f);
    }
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
export async function textOf(chunks: AsyncIterable<string | Uint8Array>): Promise<string> {
  const parts: string[] = [];
  // Byte chunks may end inside a character: the decoder completes it with the next one.
  const decoder = new TextDecoder();
  for await (const c of chunks) parts.push(typeof c === "string" ? c : decoder.decode(c, { stream: true }));
  parts.push(decoder.decode());
  return parts.join("");
}

/** Content made in one piece (small files: summaries, and files whose size is bounded by other means). */
export function single(render: () => string): () => AsyncIterable<string> {
  return async function* () {
    yield render();
  };
}
