/**
 * The messages between the runner (main thread) and its worker threads (audit/workers/worker.ts). Everything here
 * is structured-cloneable: raw text goes out, records and findings come back (as JSON text).
 */
import type { UserInfo } from "#lib";
import type { AuditedDocument } from "../audit-document.js";
import type { PolicySource } from "../policies.js";
import type { RawPart } from "../sources/types.js";

/** What every worker is started with. */
export interface WorkerInit {
  /** How to build the policy set (each worker compiles its own). */
  policies: PolicySource;
  /** The main thread's policy set digest: a worker whose set differs refuses to start. */
  digest: string;
  ownerLabels: readonly string[];
  startedAt: string;
  /** The time (ISO) the waivers' expiry is judged at: the run's (the main thread's) start. */
  waiversAt: string;
  /** The user of each object's admission request. */
  user?: UserInfo;
  /** Tests only: make the worker fail at its `atBatch`-th batch (0-based), by throwing or by exiting. */
  fault?: { kind: "throw" | "exit"; atBatch: number };
}

export type ToWorker = { type: "batch"; seq: number; parts: RawPart[] };

/** One part's result: its audited documents, or `nested` / `reparse` (see decodeRawPart in sources/raw-part.ts). */
export type PartResult = AuditedDocument[] | "nested" | "reparse";

export type FromWorker =
  | { type: "ready"; digest: string; loadMs: number }
  | { type: "init-error"; message: string }
  /**
   * The batch's results as one JSON text: the main thread parses it several times faster than it takes the same
   * results structured-cloned (the records and findings are plain JSON data, which the spools keep as JSON).
   */
  | { type: "result"; seq: number; results: string }
  | { type: "batch-error"; seq: number; message: string };
