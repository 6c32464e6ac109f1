/**
 * `tollgate audit`'s progress bar on a terminal (never in CI logs: the CLI draws it only when standard error is a
 * TTY), drawn by cli-progress: the share of the input read (bytes of the local sources, counted by the sources'
 * read meter), documents audited, documents per second and the ETA. With an `s3://` source the input's size is not
 * known up front: the line shows documents and documents per second only.
 */
import type { ProgressReporter } from "../execute.js";

/** What the bar writes to: a terminal's write function and width. */
export interface ProgressTerminal {
  write(text: string): void;
  columns: number;
}

/** @param totalBytes the input's size, or undefined when unknown (an `s3://` source) */
export async function startProgressBar(
  terminal: ProgressTerminal,
  totalBytes: number | undefined,
): Promise<ProgressReporter> {
  const { default: cliProgress } = await import("cli-progress");
  // cli-progress draws through readline's cursor functions on a stream: this one writes to the terminal given.
  const stream = {
    isTTY: true,
    columns: terminal.columns,
    write(text: string, callback?: () => void): boolean {
      terminal.write(text);
      callback?.();
      return true;
    },
    on() {
      return stream;
    },
    removeListener() {
      return stream;
    },
  };
  const known = totalBytes !== undefined && totalBytes > 0;
  const bar = new cliProgress.SingleBar({
    stream: stream as unknown as NodeJS.WritableStream,
    format: known
      ? "auditing {bar} {percentage}% | {documents} documents | {rate} documents/s | ETA {eta_formatted}"
      : "auditing | {documents} documents | {rate} documents/s",
    barsize: 24,
    hideCursor: false,
    clearOnComplete: true,
    linewrap: false,
    fps: 10,
    etaBuffer: 40,
    etaAsynchronousUpdate: true,
  });
  let read = 0;
  const payload = { documents: 0, rate: 0 };
  bar.start(known ? totalBytes : 1, 0, payload);
  return {
    onRead(bytes) {
      read += bytes;
      if (known) bar.update(Math.min(read, totalBytes), payload);
    },
    update(p) {
      payload.documents = p.documents;
      payload.rate = p.elapsedMs > 0 ? Math.round((p.documents * 1000) / p.elapsedMs) : 0;
      bar.update(known ? Math.min(read, totalBytes) : 0, payload);
    },
    stop() {
      bar.stop();
    },
  };
}
