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

/** Characters waiting for the reader before it is woken (it takes them all at once). */
const WAKE_CHARS = 256 * 1024;
/** Characters waiting for the reader beyond which the pass waits. */
export const LIVE_TEXT_BOUND = 4 * 1024 * 1024;

export class LiveText {
  private queue: string[] = [];
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
    this.queue.push(text);
    this.queued += text.length;
    if (this.queued >= WAKE_CHARS) this.woken();
  }

  /** Characters waiting for the reader (none before it comes, nor after it stops). */
  get backlog(): number {
    return this.reader === "reading" ? this.queued : 0;
  }

  /** Resolves once at most `bound` characters wait for the reader. */
  drained(bound = LIVE_TEXT_BOUND): Promise<void> {
    if (this.backlog <= bound) return Promise.resolve();
    return new Promise<void>((resolve) => this.drainWaiting.push(() => resolve())).then(() => this.drained(bound));
  }

  /** The text is complete. */
  close(): void {
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
        if (this.queued > 0) {
          const text = this.queue.length === 1 ? this.queue[0]! : this.queue.join("");
          this.queue = [];
          this.queued = 0;
          this.drainedNow();
          yield text;
          continue;
        }
        if (this.closed) return;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
      }
    } finally {
      this.reader = "gone";
      this.queue = [];
      this.queued = 0;
      this.drainedNow();
    }
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
