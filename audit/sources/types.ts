/**
 * What every source gives the runner: units (a file, an archive member, an S3 object) that read into documents.
 * A unit is read when the runner gets to it (bounded by `--concurrency`), so a source never holds more than the
 * units in flight; each unit gives exactly one {@link SourceDoc} per document (one per `kind: List` item).
 */
import type { KubeObject, Location } from "../model.js";

export type SourceDoc =
  | { kind: "object"; location: Location; object: KubeObject }
  /** A mapping without apiVersion or kind in a folder tree or an archive (a CI file, Helm values): skipped. */
  | { kind: "not-kubernetes"; location: Location }
  /** A document, file or archive member that cannot be used: its text says what is wrong. */
  | { kind: "error"; location: Location; error: string };

export interface SourceUnit {
  /** The file (or `archive!member`, or the S3 key) for messages. */
  name: string;
  /** Every document of the unit at once; memory holds the whole text (bounded by `maxFileBytes`). */
  read(): Promise<SourceDoc[]>;
  /**
   * The same docs as {@link read}, in the same order, with the same locations and error texts, one at a time:
   * memory holds one document (a YAML document, a `kind: List` item) and a bounded read buffer, so a file of any
   * size can be audited. Optional: a unit without it is read whole. File units have it; a JSON text over
   * `maxJsonParseBytes` is streamed only when it is a List (see `streamJsonList` in stream.ts for how its errors
   * differ from a whole parse).
   */
  stream?(): AsyncIterable<SourceDoc>;
}

export interface Source {
  /** As given on the command line. */
  spec: string;
  kind: "file" | "folder" | "archive" | "s3";
  units(): AsyncIterable<SourceUnit>;
  /** Releases what the source holds open (an S3 client's sockets); the source is not used afterwards. */
  close?(): Promise<void>;
}

/** Bounds and behaviour of the sources. */
export interface SourceOptions {
  /**
   * Largest text read whole: an archive member, an S3 object, a file read with `read()`. Streamed files
   * (`SourceUnit.stream`) are not bounded by it, only by the bound on each document (8 MiB). Default 512 MiB.
   */
  maxFileBytes: number;
  /**
   * Largest JSON file parsed whole when streamed (JSON.parse is the fastest parser); a larger one is streamed
   * item by item when it is a `kind: List`, and is an input error otherwise. Default 512 MiB.
   */
  maxJsonParseBytes: number;
  /** Largest archive file, and largest uncompressed tar stream. Default 1 GiB. */
  maxArchiveBytes: number;
  /** Most members in one archive. Default 1,000,000. */
  maxArchiveEntries: number;
}

export const DEFAULT_SOURCE_OPTIONS: Readonly<SourceOptions> = Object.freeze({
  maxFileBytes: 512 * 1024 * 1024,
  maxJsonParseBytes: 512 * 1024 * 1024,
  maxArchiveBytes: 1024 * 1024 * 1024,
  maxArchiveEntries: 1_000_000,
});

/** File names read from folder trees and archives. */
export const DOCUMENT_FILE = /\.(ya?ml|json)$/i;
