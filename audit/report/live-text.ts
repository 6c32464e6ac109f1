/**
 * A file's text handed to its writing while the shared pass (shared-pass.ts) renders it: for a file that needs
 * nothing the pass learns before its body (findings.csv, fielderrors.ndjson, report.sarif from the run's rule list),
 * so it is written straight to its destination, without going through a temporary text spool and back.
 *
 * Text appended before the file's writing starts reading (the sink writes a few files at a time) goes to a text
 * spool (on disk on a large run), which the reader reads first; from then on the text waits in memory for the
 * reader, and the pass waits ({@link LiveText.drained}) while more than a bound waits. A reader that stops (its
 * write failed) drops the rest: the pass never waits for a file nobody writes.
 */
import type { TextSpool } from "../text-spool.js";
import { WRITE_CHUNK_BYTES } from "./stream.js";

/**
 * Appended text is encoded every this many characters into the chunk being filled ({@link WRITE_CHUNK_BYTES}): the
 * text does not wait as strings (which would outlive the young generation's collections and be copied by each),
 * and the reader gets whole chunks, written as they are.
 */
const ENCODE_CHARS = 32 * 1024;
/** Bytes waiting for the reader beyond which the pass waits. */
export const LIVE_TEXT_BOUND = 4 * WRITE_CHUNK_BYTES;
const encoder = new TextEncoder();

export class LiveText {
  /** Text appended and not yet encoded. */
  private pending: string[] = [];
  private pendingChars = 0;
  /** The chunk being filled, and its bytes so far. */
  private filling: Buffer | undefined;
  private filled = 0;
  /** Full chunks waiting for the reader, and their bytes. */
  private queue: Uint8Array[] = [];
  private queued = 0;
  private spilled: TextSpool | undefined;
  private reader: "none" | "reading" | "gone" = "none";
  private closed = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private drainWaiting: (() => void)[] = [];

  /** `spill`: a new text spool for the text appended before the reader comes. */
  constructor(private readonly spill: () => TextSpool) {}

  append(text: string): void {
    if (text.length === 0 || this.reader === "gone" || this.closed) return;
    if (this.reader === "none") {
      this.spilled ??= this.spill();
      this.spilled.append(text);
      return;
    }
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= ENCODE_CHARS) this.encode();
  }

  /** Bytes waiting for the reader (none before it comes, nor after it stops). */
  get backlog(): number {
    return this.reader === "reading" ? this.queued : 0;
  }

  /** Resolves once at most `bound` bytes wait for the reader. */
  drained(bound = LIVE_TEXT_BOUND): Promise<void> {
    if (this.backlog <= bound) return Promise.resolve();
    return new Promise<void>((resolve) => this.drainWaiting.push(() => resolve())).then(() => this.drained(bound));
  }

  /** The text is complete. */
  close(): void {
    if (this.reader === "reading") {
      this.encode();
      this.queueFilled();
    }
    this.closed = true;
    this.woken();
  }

  /** The pass failed: the reader throws `err`. */
  fail(err: Error): void {
    this.failure ??= err;
    this.close();
  }

  /**
   * The text, as it comes (once: a file is written once); ends when the pass closes it.
   *
   * @throws the pass's error when it failed
   */
  async *chunks(): AsyncGenerator<string | Uint8Array> {
    if (this.reader !== "none") throw new Error("live text read twice");
    this.reader = "reading";
    // From now on appends wait in memory: what was spilled is all the spool will hold.
    const spilled = this.spilled;
    this.spilled = undefined;
    try {
      if (spilled !== undefined) yield* spilled.chunks();
      for (;;) {
        if (this.failure !== undefined) throw this.failure;
        const chunk = this.queue.shift();
        if (chunk !== undefined) {
          this.queued -= chunk.length;
          this.drainedNow();
          yield chunk;
          continue;
        }
        if (this.closed) return;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
      }
    } finally {
      this.reader = "gone";
      this.pending = [];
      this.pendingChars = 0;
      this.filling = undefined;
      this.queue = [];
      this.queued = 0;
      this.drainedNow();
    }
  }

  /** Encodes the pending text into chunks; each full chunk goes to the reader. */
  private encode(): void {
    if (this.pending.length === 0) return;
    let text = this.pending.length === 1 ? this.pending[0]! : this.pending.join("");
    this.pending = [];
    this.pendingChars = 0;
    while (text.length > 0) {
      this.filling ??= Buffer.allocUnsafeSlow(WRITE_CHUNK_BYTES);
      const { read, written } = encoder.encodeInto(text, this.filling.subarray(this.filled));
      this.filled += written;
      text = read === text.length ? "" : text.slice(read);
      // What is left does not fit (not even its next character): the chunk goes to the reader.
      if (text.length > 0) this.queueFilled();
    }
  }

  private queueFilled(): void {
    if (this.filling === undefined || this.filled === 0) return;
    this.queue.push(this.filling.subarray(0, this.filled));
    this.queued += this.filled;
    this.filling = undefined;
    this.filled = 0;
    this.woken();
  }

  private woken(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private drainedNow(): void {
    for (const resolve of this.drainWaiting.splice(0)) resolve();
  }
}
