/** What a command gets from the process and what it hands back to `main.ts`, which maps it to an exit code. */
import type { Readable } from "node:stream";

/**
 * - `ok`: everything valid (or skipped), or a lint without errors, or a --demo run that completed;
 * - `violations`: an object is invalid, a document could not be decoded or read, or lint found an error.
 *
 * Usage/config errors and internal errors are exceptions, not outcomes (main.ts maps them to exit codes 2 and 3).
 */
export type CommandOutcome = "ok" | "violations";

export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  stdin: Readable;
}
