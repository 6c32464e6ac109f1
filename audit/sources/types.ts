/**
 * What every source gives the runner: units (a file, an archive member, an S3 object) that read into documents.
 * A unit is read when the runner gets to it (bounded by `--concurrency`), so a source never holds more than the
 * units in flight; each unit gives exactly one {@link SourceDoc} per document (one per `kind: List` item).
 */
import type { Location } from "../model.js";
import type { DecodeOptions } from "./decode.js";

/** A decoded object whose apiVersion and kind are non-empty strings. */
export type KubeObject = Record<string, unknown> & { apiVersion: string; kind: string };

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
   * `maxJsonParseBytes` is streamed only when it is a List (see `streamJsonList` in stream-json.ts for how its errors
   * differ from a whole parse).
   */
  stream?(): AsyncIterable<SourceDoc>;
  /**
   * The unit's text, undecoded, for decoding elsewhere (a worker thread): {@link decodeRawPart} (raw-part.ts) turns
   * the parts, in order, into the docs {@link stream} (or {@link read}) gives. A small file is one `text` part; a
   * streamed file is one part per YAML document or List item (memory holds the parts in flight, not the file).
   * Optional: a unit without it is read with `stream()` or `read()` on the main thread.
   */
  raw?(): AsyncIterable<RawPart>;
}

/** One undecoded piece of a unit; see {@link SourceUnit.raw}. Structured-cloneable (sent to worker threads). */
export type RawPart =
  /** A whole text, decoded with `decodeText`. */
  | { kind: "text"; text: string; base: Location; options: DecodeOptions }
  /** Docs decoded already (input errors of the unit, a YAML piece whose document count needs decoding). */
  | { kind: "docs"; docs: SourceDoc[] }
  /** One piece of a streamed YAML file, as stream-yaml.ts cuts it; its first document is document `index`. */
  | { kind: "yaml"; piece: RawYamlPiece; index: number; first: boolean; base: Location; options: DecodeOptions }
  /** One element of the `items` of a streamed JSON List: item `item` at `line`, `column` of the file. */
  | {
      kind: "json-item";
      raw: string | undefined;
      elementLine: number;
      column: number;
      item: number;
      list: RawJsonList;
    }
  /** The unit cannot be given in parts after all (see {@link RawJsonList.whole}): decode it with `read()`. */
  | { kind: "reparse" };

/** One piece of a YAML stream between markers, as lib's splitter (and stream-yaml.ts) cuts it. */
export interface RawYamlPiece {
  /** Undefined when the piece is over the bound (its text was dropped). */
  text: string | undefined;
  /** UTF-8 bytes, counted once the piece may be over the bound. */
  bytes: number;
  /** 1-based line of the piece's first character. */
  line: number;
  /** 0-based index of the piece's first line with content, or -1. */
  contentLine: number;
  last: boolean;
}

/** What the items of a streamed JSON List share: the List's place, kind and apiVersion, and the decode options. */
export interface RawJsonList {
  base: Location;
  /** 1-based line of the List's first character. */
  line: number;
  kind: string;
  apiVersion: unknown;
  options: DecodeOptions;
  /**
   * The file is one `read()` parses whole (not over `maxJsonParseBytes`), cut into items only to share the work:
   * where a whole parse would give something else (an item that does not decode alone, a nested List, a
   * malformed file), the part decodes as `reparse` and the unit is decoded with `read()` instead.
   */
  whole?: boolean;
}

export interface Source {
  /** As given on the command line. */
  spec: string;
  kind: "file" | "folder" | "archive" | "s3" | "stdin";
  units(): AsyncIterable<SourceUnit>;
  /** Releases what the source holds open (an S3 client's sockets); the source is not used afterwards. */
  close?(): Promise<void>;
}

/** Bounds and behaviour of the sources. */
export interface SourceOptions extends ReadMeter {
  /**
   * Largest text read whole, per input file: an archive member, an S3 object, a file read with `read()`. Streamed
   * files (`SourceUnit.stream`) are not bounded by it, only by the per-document limit. Default 512 MiB.
   */
  maxFileBytes: number;
  /**
   * Largest JSON file parsed whole when streamed (JSON.parse is the fastest parser); a larger one is streamed
   * item by item when it is a `kind: List`, and is an input error otherwise. Default 512 MiB.
   */
  maxJsonParseBytes: number;
  /**
   * The per-document limit: the largest YAML document, JSON text that is not a List, or List item, on every path
   * (decode.ts). Default lib's DEFAULT_MAX_DOCUMENT_BYTES (8 MiB).
   */
  maxDocumentBytes?: number;
  /** Largest archive file, and largest uncompressed tar stream. Default 1 GiB. */
  maxArchiveBytes: number;
  /** Most members in one archive. Default 1,000,000. */
  maxArchiveEntries: number;
  /**
   * What a document that is not a Kubernetes object (a mapping without apiVersion or kind) is in a folder tree, an
   * archive or under an S3 prefix: `skip` (the default, the auditor's: a Git checkout holds CI files and Helm
   * values) or `error` (`tollgate validate`, where every document given is meant to be an object). In a file named
   * on the command line it is always an error.
   */
  nonKubernetes?: "skip" | "error";
  /**
   * Folders a folder tree leaves out whatever they hold: the run's local `--out`, whose reports are tollgate's own.
   * (Report folders of other runs are recognised by their `latest.json` or `index.json`: report-folders.ts.)
   * Default: none.
   */
  excludeFolders?: readonly string[];
}

/** Progress: told the bytes of input read, each byte of a file, archive or S3 object once (the CLI's ETA). */
export interface ReadMeter {
  onRead?: (bytes: number) => void;
}

export const DEFAULT_SOURCE_OPTIONS: Readonly<SourceOptions> = Object.freeze({
  maxFileBytes: 512 * 1024 * 1024,
  maxJsonParseBytes: 512 * 1024 * 1024,
  maxArchiveBytes: 1024 * 1024 * 1024,
  maxArchiveEntries: 1_000_000,
});

/**
 * The text of an input file (a file, an S3 object, an archive member, standard input) over `maxFileBytes`: a limit
 * per input file, read whole, apart from the per-document limit of each document in it (decode.ts).
 */
export function fileTooLarge(what: string, size: number | undefined, maxFileBytes: number): string {
  const is = size === undefined ? "is" : `is ${size} bytes,`;
  return `${what} ${is} over the limit of ${maxFileBytes} bytes per input file`;
}

/** File names read from folder trees and archives. */
export const DOCUMENT_FILE = /\.(ya?ml|json)$/i;
