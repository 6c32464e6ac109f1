/**
 * What the streamed reads of a file share (stream-yaml.ts, stream-json.ts): the read buffer, and reading a file as text chunks that the read meter counts. Memory holds one document (one YAML
 * document, one `kind: List` item) and a read buffer, not the file.
 */
import { Buffer } from "node:buffer";
import { createReadStream } from "node:fs";
import type { ReadMeter } from "./types.js";

/**
 * Read chunks small enough to be young objects: a 1 MB string goes to V8's large-object space, which only a full
 * collection frees, so with a fast decoder the dead chunks piled up (a 60 MB file streamed at a heap of 80–128 MB,
 * not 50 MB; test/unit/audit/sources/stream.test.ts).
 */
const READ_BUFFER = 64 * 1024;

/** Tests set a small read buffer so that markers, strings and values fall across chunk boundaries. */
export interface StreamTuning extends ReadMeter {
  readBuffer?: number;
}

/** The file as UTF-8 text chunks of about `readBuffer` bytes, each counted by the read meter. */
export function readText(path: string, tuning: StreamTuning | undefined): AsyncIterable<string> {
  const stream = createReadStream(path, { encoding: "utf8", highWaterMark: tuning?.readBuffer ?? READ_BUFFER });
  const onRead = tuning?.onRead;
  if (onRead === undefined) return stream;
  return (async function* () {
    for await (const chunk of stream as AsyncIterable<string>) {
      onRead(Buffer.byteLength(chunk, "utf8"));
      yield chunk;
    }
  })();
}

/** The input error of a read that failed midway. */
export function readError(error: unknown): string {
  return `cannot be read: ${error instanceof Error ? error.message : String(error)}`;
}
