/**
 * A report file rendered on a thread of its own: on a large run, report.json (its own reading of both spools) is
 * rendered beside the shared pass of the other files (shared-pass.ts), each on a core. The thread streams the file's
 * bytes back as it renders them, a few chunks ahead of the writing at most.
 *
 * The thread's module is a bundle beside this one in the built CLI (infra/build.mjs), and the TypeScript source
 * run through tsx otherwise (audit/workers/entry.js). Where neither is (the Lambda bundles), or on one core, the
 * file is rendered on the calling thread.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { parentPort, Worker } from "node:worker_threads";
import { ByteChunker } from "./stream.js";

/** Defined (true) by infra/build.mjs in the built CLI; undeclared when the sources run through tsx. */
declare const __TOLLGATE_BUILD__: boolean | undefined;

/**
 * A thread sends its bytes in chunks of this size (or more), at most {@link CHUNKS_AHEAD} before it waits for the
 * writing to take one: each message costs both threads a few tens of microseconds, so few large chunks.
 */
const CHUNK_BYTES = 1024 * 1024;
const CHUNKS_AHEAD = 4;

/** A thread's entry, and the module it loads when the entry is the sources' (audit/workers/entry.js). */
export interface ThreadEntry {
  entry: URL;
  module?: string;
}

type FromThread = { type: "chunk"; bytes: Uint8Array } | { type: "done" } | { type: "error"; message: string };

/**
 * Where the thread `name` (`json-thread` for json-thread.ts) starts: its entry and the data that says which module
 * to load; undefined when there is none (or one core, where a thread would only compete with this one).
 */
export function threadEntry(name: string): ThreadEntry | undefined {
  if (availableParallelism() < 2) return undefined;
  let found: ThreadEntry;
  try {
    found =
      typeof __TOLLGATE_BUILD__ !== "undefined"
        ? { entry: new URL(`./${name}.mjs`, import.meta.url) }
        : {
            entry: new URL("../workers/entry.js", import.meta.url),
            module: new URL(`./${name}.ts`, import.meta.url).href,
          };
  } catch {
    return undefined;
  }
  return found.entry.protocol === "file:" && existsSync(fileURLToPath(found.entry)) ? found : undefined;
}

/**
 * The bytes a thread renders (started at `at` with `data`), as it sends them.
 *
 * @throws Error when the thread fails (its error's message) or ends before it is done
 */
export async function* fromThread(at: ThreadEntry, data: Record<string, unknown>): AsyncGenerator<Uint8Array> {
  const worker = new Worker(at.entry, {
    workerData: { ...data, ...(at.module !== undefined && { module: at.module }) },
  });
  const queue: Uint8Array[] = [];
  let done = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const woken = (): void => {
    wake?.();
    wake = undefined;
  };
  worker.on("message", (m: FromThread) => {
    if (m.type === "chunk") queue.push(m.bytes);
    else if (m.type === "done") done = true;
    else failure ??= new Error(m.message);
    woken();
  });
  worker.on("error", (err) => {
    failure ??= err;
    woken();
  });
  worker.on("exit", (code) => {
    if (!done) failure ??= new Error(`the report thread exited (code ${code}) before it was done`);
    woken();
  });
  try {
    for (;;) {
      const chunk = queue.shift();
      if (chunk !== undefined) {
        worker.postMessage("more");
        yield chunk;
        continue;
      }
      if (failure !== undefined) throw failure;
      if (done) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    await worker.terminate();
  }
}

/** On the thread: sends `chunks` to the thread that started it, at most {@link CHUNKS_AHEAD} ahead of its writing. */
export async function toParent(chunks: AsyncIterable<string | Uint8Array>): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error("toParent runs on a report thread only");
  let credits = CHUNKS_AHEAD;
  let wake: (() => void) | undefined;
  port.on("message", () => {
    credits++;
    wake?.();
    wake = undefined;
  });
  const send = async (bytes: Uint8Array): Promise<void> => {
    while (credits === 0) {
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    credits--;
    // A chunk that owns its memory moves to the other thread instead of being copied.
    const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    port.postMessage({ type: "chunk", bytes } satisfies FromThread, owned ? [bytes.buffer as ArrayBuffer] : []);
  };
  try {
    const out = new ByteChunker(CHUNK_BYTES);
    for await (const chunk of chunks) for (const bytes of out.push(chunk)) await send(bytes);
    const rest = out.take();
    if (rest.length > 0) await send(rest);
    port.postMessage({ type: "done" } satisfies FromThread);
  } catch (err) {
    port.postMessage({ type: "error", message: err instanceof Error ? err.message : String(err) } satisfies FromThread);
  } finally {
    port.unref();
  }
}
