import { Buffer } from "node:buffer";

/**
 * The per-document limit: the largest document (one YAML document, one JSON value, one item of a `kind: List`), in
 * bytes of UTF-8 text, that every input path decodes. 8 MiB: kube-apiserver reads at most 3 MiB of one request body
 * and etcd stores at most 1.5 MiB of one object (its `--max-request-bytes`), so any object a cluster can hold or be
 * sent is well under it, also when an export writes it out as indented JSON or YAML (whose indentation grows with
 * the nesting); what is over it cannot be a real object, and the bound keeps one document's memory and time small.
 */
export const DEFAULT_MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;

/**
 * The one text of a document over the per-document limit, whichever path read it: it names the limit and, when the
 * caller gives one, the setting that raises it (`setting`: the CLI's `--max-document-bytes or
 * TOLLGATE_MAX_DOCUMENT_BYTES`). The caller puts which document before it (`document 3 (line 40): ...`).
 */
export function documentTooLarge(maxBytes: number, setting?: string): string {
  const raise = setting === undefined ? "" : ` (raise it with ${setting})`;
  return `over the limit of ${maxBytes} bytes per document${raise}`;
}

/**
 * Whether `text` is more than `maxBytes` bytes of UTF-8: the UTF-8 length is counted only when the text could be
 * over (a character is at most 3 bytes of UTF-8 per UTF-16 unit).
 */
export function isOverBytes(text: string, maxBytes: number): boolean {
  return text.length > maxBytes || (text.length * 3 > maxBytes && Buffer.byteLength(text, "utf8") > maxBytes);
}

/** Bounds for one decoded document. Every field is optional; the defaults suit Kubernetes objects. */
export interface ParseOptions {
  /**
   * Largest document, in bytes of UTF-8 text. Checked before the document is parsed. For JSON
   * each value is one document. Default {@link DEFAULT_MAX_DOCUMENT_BYTES} (8 MiB).
   */
  maxBytes?: number;
  /** How a user raises `maxBytes`, named in the error text of a document over it (see {@link documentTooLarge}). */
  maxBytesSetting?: string;
  /**
   * Deepest nesting of mappings and sequences (objects and arrays); the top-level object is at
   * depth 1. Keeps recursion in later stages (schema walk, CEL) bounded. Default 128.
   */
  maxDepth?: number;
  /**
   * Most values (mappings, sequences and scalars; keys are not counted) in one document, counted
   * after YAML aliases are expanded, so an alias bomb is stopped here. Default 2,000,000.
   */
  maxNodes?: number;
}

/** {@link ParseOptions} after defaults. */
export interface ResolvedParseOptions {
  readonly maxBytes: number;
  readonly maxBytesSetting?: string;
  readonly maxDepth: number;
  readonly maxNodes: number;
}

export const DEFAULT_PARSE_OPTIONS: ResolvedParseOptions = Object.freeze({
  maxBytes: DEFAULT_MAX_DOCUMENT_BYTES,
  maxDepth: 128,
  maxNodes: 2_000_000,
});

/** Applies the defaults; a missing, non-numeric or negative bound takes its default. */
export function resolveParseOptions(options: ParseOptions | undefined): ResolvedParseOptions {
  if (options === undefined) return DEFAULT_PARSE_OPTIONS;
  return {
    maxBytes: bound(options.maxBytes, DEFAULT_PARSE_OPTIONS.maxBytes),
    maxDepth: bound(options.maxDepth, DEFAULT_PARSE_OPTIONS.maxDepth),
    maxNodes: bound(options.maxNodes, DEFAULT_PARSE_OPTIONS.maxNodes),
    ...(options.maxBytesSetting !== undefined && { maxBytesSetting: options.maxBytesSetting }),
  };
}

function bound(value: number | undefined, fallback: number): number {
  return typeof value === "number" && value >= 0 ? value : fallback;
}
