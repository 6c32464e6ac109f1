/**
 * A Spool: an append-only list of JSON values that stays in memory while small and moves to a temporary NDJSON file
 * once it holds more than `memoryItems` values, so that a run's objects and findings cost disk, not memory, on large
 * inputs (findings are written out as they come). It can be read any number of times, in append order;
 * reading from disk goes through a bounded read buffer.
 *
 * Values go to disk as JSON text and come back parsed; they must be plain data (the run's records and findings are).
 * A value appended while in memory is kept as is: callers do not mutate a value after appending it.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SpoolOptions {
  /** Values kept in memory before the spool moves to disk. Default 10,000. */
  memoryItems?: number;
  /** Where the temporary folder is made. Default the OS temporary folder (`/tmp` on Lambda). */
  directory?: string;
}

const WRITE_CHUNK = 1024 * 1024;
const READ_CHUNK = 1024 * 1024;
const LINE_FEED = 0x0a;
const SPOOL_FILE = "values.ndjson";

/** Temporary folders of live spools, removed at exit if a spool was not disposed of (a crash, an early exit). */
const liveFolders = new Set<string>();
let exitHookInstalled = false;

function removeLiveFolders(): void {
  for (const f of liveFolders) rmSync(f, { recursive: true, force: true });
  liveFolders.clear();
}

function removeAtExit(folder: string): void {
  liveFolders.add(folder);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", removeLiveFolders);
  // Ctrl-C on a long audit, or the end of a Lambda environment: the folders go, then the signal does what it would
  // have done (the handler is gone once it ran, so raising the signal again ends the process as before).
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      removeLiveFolders();
      process.kill(process.pid, signal);
    });
  }
}

/**
 * A new temporary file `name`, open for reading and writing, in a folder of its own under `directory` (removed at
 * exit if {@link removeTempFile} was not called).
 */
export function openTempFile(directory: string, name: string): { folder: string; fd: number } {
  const folder = mkdtempSync(join(directory, "tollgate-spool-"));
  removeAtExit(folder);
  return { folder, fd: openSync(join(folder, name), "w+") };
}

/** Closes a temporary file and removes its folder (nothing when there is none). */
export function removeTempFile(folder: string | undefined, fd: number | undefined): void {
  if (fd !== undefined) closeSync(fd);
  if (folder === undefined) return;
  rmSync(folder, { recursive: true, force: true });
  liveFolders.delete(folder);
}

export class Spool<T> implements Iterable<T>, AsyncIterable<T> {
  private memory: T[] | undefined = [];
  private readonly memoryItems: number;
  private readonly directory: string;
  private folder: string | undefined;
  private fd: number | undefined;
  private pending: string[] = [];
  private pendingChars = 0;
  private count = 0;
  private disposed = false;
  private readMap: ((value: T) => T) | undefined;

  constructor(options: SpoolOptions = {}) {
    this.memoryItems = Math.max(0, options.memoryItems ?? 10_000);
    this.directory = options.directory ?? tmpdir();
  }

  /** Values appended so far. */
  get size(): number {
    return this.count;
  }

  /** Whether the values are on disk. */
  get onDisk(): boolean {
    return this.memory === undefined;
  }

  append(value: T): void {
    if (this.disposed) throw new Error("spool used after dispose()");
    this.count++;
    if (this.memory !== undefined) {
      this.memory.push(value);
      if (this.memory.length > this.memoryItems) this.moveToDisk();
      return;
    }
    this.writeLine(JSON.stringify(value));
  }

  /**
   * Makes every read give `map(value)` instead of the value as appended (the recorder's last touch on a finished
   * run: controllers resolved to the top of their chain). `map` must not change its argument.
   */
  mapOnRead(map: (value: T) => T): void {
    this.readMap = map;
  }

  /**
   * The values in append order, read synchronously (the file in 1 MiB reads): a loop over a large spool costs no
   * promise per value. Appending while iterating is not supported.
   */
  *[Symbol.iterator](): Iterator<T> {
    const map = this.readMap;
    if (this.memory !== undefined) {
      if (map === undefined) yield* this.memory;
      else for (const v of this.memory) yield map(v);
      return;
    }
    for (const line of this.lines()) yield map === undefined ? (JSON.parse(line) as T) : map(JSON.parse(line) as T);
  }

  /**
   * The spool's file, with every value appended so far, when the spool is on disk: another thread reads it with
   * {@link readSpoolFile} (as long as the spool is not disposed of).
   */
  get file(): string | undefined {
    if (this.folder === undefined) return undefined;
    this.flush();
    return join(this.folder, SPOOL_FILE);
  }

  /** The same values, for `for await` and async APIs. */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (const v of this) yield v;
  }

  /** All values in an array (for tests and small runs). */
  async toArray(): Promise<T[]> {
    return [...this];
  }

  /** Removes the temporary file; the spool is not used afterwards. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.memory = [];
    removeTempFile(this.folder, this.fd);
    this.fd = undefined;
  }

  private moveToDisk(): void {
    const values = this.memory ?? [];
    this.memory = undefined;
    ({ folder: this.folder, fd: this.fd } = openTempFile(this.directory, SPOOL_FILE));
    for (const v of values) this.writeLine(JSON.stringify(v));
  }

  private writeLine(line: string): void {
    this.pending.push(line);
    this.pendingChars += line.length + 1;
    if (this.pendingChars >= WRITE_CHUNK) this.flush();
  }

  private flush(): void {
    if (this.pending.length === 0 || this.fd === undefined) return;
    const text = `${this.pending.join("\n")}\n`;
    this.pending = [];
    this.pendingChars = 0;
    writeSync(this.fd, text);
  }

  /** The JSON lines from the start of the file. */
  private *lines(): Generator<string> {
    this.flush();
    if (this.fd !== undefined) yield* fileLines(this.fd);
  }
}

/**
 * The JSON lines of a spool file from its start, read with positioned reads (so several readers can interleave).
 * Each read is cut after its last line feed and decoded up to there in one piece (a line feed never falls inside a
 * multi-byte character); the bytes after it move to the front of the buffer, which doubles when one line is longer.
 */
function* fileLines(fd: number): Generator<string> {
  let buf = Buffer.allocUnsafe(READ_CHUNK);
  let kept = 0;
  let position = 0;
  for (;;) {
    if (kept === buf.length) {
      const larger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(larger, 0, 0, kept);
      buf = larger;
    }
    const n = readSync(fd, buf, kept, buf.length - kept, position);
    if (n === 0) break;
    position += n;
    const end = kept + n;
    const last = buf.lastIndexOf(LINE_FEED, end - 1);
    if (last < kept) {
      kept = end;
      continue;
    }
    const text = buf.toString("utf8", 0, last);
    buf.copy(buf, 0, last + 1, end);
    kept = end - last - 1;
    yield* text.split("\n");
  }
  if (kept > 0) yield buf.toString("utf8", 0, kept);
}

/**
 * The values of a spool's file ({@link Spool.file}), read on any thread, each through `map` when given (what the
 * spool's reads apply: see {@link Spool.mapOnRead}).
 */
export function* readSpoolFile<T>(path: string, map?: (value: T) => T): Generator<T> {
  const fd = openSync(path, "r");
  try {
    for (const line of fileLines(fd)) yield map === undefined ? (JSON.parse(line) as T) : map(JSON.parse(line) as T);
  } finally {
    closeSync(fd);
  }
}
