/**
 * A TextSpool: rendered text appended in pieces and read back as UTF-8 bytes, any number of times, whole or by byte
 * range. The report writers render a large run's files in one pass over its spools (audit/report/shared-pass.ts)
 * into text spools, then write each file from its spool without rendering it again. The text stays in memory up to
 * `memoryBytes`, then moves to a temporary file (audit/spool.ts's folders, removed at exit).
 *
 * The file is written and read on libuv's thread pool, not on the thread that renders: appending never waits for
 * the disk, so the writing pass must let the writes finish now and then ({@link textSpoolWrites}), which bounds the
 * bytes waiting to be written. Reading waits for the spool's writes first.
 */
import { read, write } from "node:fs";
import { tmpdir } from "node:os";
import { openTempFile, removeTempFile } from "./spool.js";

export interface TextSpoolOptions {
  /** Bytes kept in memory before the text moves to a file. Default: all of it. */
  memoryBytes?: number;
  /** Where the temporary folder is made. Default the OS temporary folder. */
  directory?: string;
}

/**
 * Appended text is encoded in pieces of about this many characters, and written to the file in pieces of about
 * this many bytes: not too large, as a run's reports have several text spools filling at once (the policy reports
 * one per batch of namespaces), nor small, as each write wakes a thread of the pool.
 */
const ENCODE_CHARS = 32 * 1024;
const WRITE_BYTES = 512 * 1024;
/** The file is read back in pieces of this size. */
const READ_BYTES = 1024 * 1024;

/** Bytes of every text spool being written, and who waits for them to go down. */
let writingBytes = 0;
let writesWaiting: { below: number; resolve: () => void }[] = [];

function wrote(bytes: number): void {
  writingBytes -= bytes;
  const ready = writesWaiting.filter((w) => writingBytes <= w.below);
  if (ready.length === 0) return;
  writesWaiting = writesWaiting.filter((w) => writingBytes > w.below);
  for (const w of ready) w.resolve();
}

/**
 * Resolves once the bytes of all text spools being written are at most `below`: a pass that fills text spools
 * awaits it now and then, so that memory holds a bounded amount of text on its way to disk.
 */
export function textSpoolWrites(below: number): Promise<void> {
  if (writingBytes <= below) return Promise.resolve();
  return new Promise((resolve) => writesWaiting.push({ below, resolve }));
}

/**
 * Write buffers: a text spool on disk encodes its text into one of these and writes it when full, then the buffer
 * comes back here. Allocating a new buffer for every piece instead made hundreds of megabytes of short-lived
 * external memory on a large run, and V8 starts a full garbage collection for about every 64 MiB of it.
 */
const freeBuffers: Buffer[] = [];
/** Write buffers kept for reuse at most. */
const FREE_BUFFERS = 32;
const encoder = new TextEncoder();

function writeBuffer(): Buffer {
  return freeBuffers.pop() ?? Buffer.allocUnsafeSlow(WRITE_BYTES);
}

function freeBuffer(b: Buffer): void {
  if (freeBuffers.length < FREE_BUFFERS) freeBuffers.push(b);
}

function writeAll(fd: number, bytes: Buffer, position: number, done: (err: Error | null) => void): void {
  write(fd, bytes, 0, bytes.length, position, (err, n) => {
    if (err !== null) done(err);
    else if (n < bytes.length) writeAll(fd, bytes.subarray(n), position + n, done);
    else done(null);
  });
}

function readAt(fd: number, into: Buffer, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, into, 0, into.length, position, (err, n) => (err !== null ? reject(err) : resolve(n)));
  });
}

export class TextSpool {
  private pending: string[] = [];
  private pendingChars = 0;
  /** Encoded pieces, while the text is in memory. */
  private encoded: Buffer[] = [];
  private encodedBytes = 0;
  /** On disk: the write buffer being filled, and its bytes so far. */
  private filling: Buffer | undefined;
  private filled = 0;
  /** Bytes given to the file (written, or being written). */
  private fileBytes = 0;
  private readonly memoryBytes: number;
  private readonly directory: string;
  private folder: string | undefined;
  private fd: number | undefined;
  private disposed = false;
  /** Writes in flight, the first write error, and who waits for the writes to end. */
  private writes = 0;
  private writeError: Error | undefined;
  private settledWaiting: (() => void)[] = [];

  constructor(options: TextSpoolOptions = {}) {
    this.memoryBytes = options.memoryBytes ?? Number.POSITIVE_INFINITY;
    this.directory = options.directory ?? tmpdir();
  }

  append(text: string): void {
    this.usable();
    if (text.length === 0) return;
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= ENCODE_CHARS) this.encode();
  }

  /** Appends bytes (UTF-8 text, such as another text spool's): kept as given in memory, copied to the file. */
  appendBytes(bytes: Uint8Array): void {
    this.usable();
    if (bytes.length === 0) return;
    this.encode();
    if (this.fd === undefined) {
      this.add(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return;
    }
    for (let at = 0; at < bytes.length; ) {
      this.filling ??= writeBuffer();
      const n = Math.min(bytes.length - at, this.filling.length - this.filled);
      this.filling.set(bytes.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled === this.filling.length) this.writeFilled();
    }
  }

  /** UTF-8 bytes appended so far: the offset the next text starts at. */
  get bytes(): number {
    this.encode();
    return this.fileBytes + this.encodedBytes + this.filled;
  }

  /** Whether the text is in a file. */
  get onDisk(): boolean {
    return this.folder !== undefined;
  }

  /**
   * The bytes from `start` to `end` (default: all), in pieces, once every write has ended; appending while reading
   * is not supported.
   *
   * @throws the write's error when writing the file failed
   */
  async *chunks(start = 0, end = this.bytes): AsyncGenerator<Buffer> {
    this.encode();
    if (this.fd === undefined) {
      yield* this.memoryChunks(start, end);
      return;
    }
    this.writeFilled();
    await this.settled();
    for (let at = start; at < end; ) {
      this.usable();
      const piece = Buffer.allocUnsafe(Math.min(READ_BYTES, end - at));
      const n = await readAt(this.fd, piece, at);
      if (n === 0) throw new Error("text spool file ended early");
      at += n;
      yield n === piece.length ? piece : piece.subarray(0, n);
    }
  }

  /** Removes the temporary file (if any: at once, or when its writes in flight end); the spool is not used afterwards. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.pending = [];
    this.encoded = [];
    if (this.filling !== undefined) freeBuffer(this.filling);
    this.filling = undefined;
    this.filled = 0;
    if (this.writes === 0) this.remove();
  }

  private *memoryChunks(start: number, end: number): Generator<Buffer> {
    let offset = 0;
    for (const piece of this.encoded) {
      const pieceEnd = offset + piece.length;
      if (pieceEnd > start && offset < end) {
        yield piece.subarray(Math.max(0, start - offset), Math.min(piece.length, end - offset));
      }
      if (pieceEnd >= end) return;
      offset = pieceEnd;
    }
  }

  private usable(): void {
    if (this.disposed) throw new Error("text spool used after dispose()");
    if (this.writeError !== undefined) throw this.writeError;
  }

  private remove(): void {
    removeTempFile(this.folder, this.fd);
    this.fd = undefined;
  }

  /** Resolves once no write is in flight; rejects with the first write error. */
  private settled(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.writes === 0) resolve();
      else this.settledWaiting.push(resolve);
    }).then(() => this.usable());
  }

  private encode(): void {
    if (this.pending.length === 0) return;
    let text = this.pending.length === 1 ? this.pending[0]! : this.pending.join("");
    this.pending = [];
    this.pendingChars = 0;
    if (this.fd === undefined) {
      this.add(Buffer.from(text, "utf8"));
      return;
    }
    while (text.length > 0) {
      this.filling ??= writeBuffer();
      const { read, written } = encoder.encodeInto(text, this.filling.subarray(this.filled));
      this.filled += written;
      text = read === text.length ? "" : text.slice(read);
      // What is left does not fit (not even its next character): the buffer goes to the file.
      if (text.length > 0) this.writeFilled();
    }
  }

  /** Keeps an encoded piece in memory; past `memoryBytes`, the text moves to its file. */
  private add(piece: Buffer): void {
    this.encoded.push(piece);
    this.encodedBytes += piece.length;
    if (this.encodedBytes <= this.memoryBytes) return;
    ({ folder: this.folder, fd: this.fd } = openTempFile(this.directory, "text"));
    const all = this.encoded.length === 1 ? this.encoded[0]! : Buffer.concat(this.encoded, this.encodedBytes);
    this.encoded = [];
    this.encodedBytes = 0;
    this.write(all);
  }

  /** Writes the write buffer's bytes (it is reused once written). */
  private writeFilled(): void {
    const filling = this.filling;
    if (filling === undefined || this.filled === 0) return;
    const bytes = filling.subarray(0, this.filled);
    this.filling = undefined;
    this.filled = 0;
    this.write(bytes, filling);
  }

  /** Starts writing `bytes` at the end of the file; `buffer` (holding them) is reused once they are written. */
  private write(bytes: Buffer, buffer?: Buffer): void {
    const position = this.fileBytes;
    this.fileBytes += bytes.length;
    this.writes++;
    writingBytes += bytes.length;
    writeAll(this.fd!, bytes, position, (err) => {
      wrote(bytes.length);
      if (buffer !== undefined) freeBuffer(buffer);
      if (err !== null) this.writeError ??= err;
      if (--this.writes > 0) return;
      if (this.disposed) this.remove();
      for (const resolve of this.settledWaiting.splice(0)) resolve();
    });
  }
}
