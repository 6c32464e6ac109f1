/** Bounds for one decoded document. Every field is optional; the defaults suit Kubernetes objects. */
export interface ParseOptions {
  /**
   * Largest document, in bytes of UTF-8 text. Checked before the document is parsed. For JSON the
   * whole text is one document. Default 8 MiB (8,388,608), above the API server's 3 MiB request
   * limit so that anything the server could accept decodes.
   */
  maxBytes?: number;
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
  readonly maxDepth: number;
  readonly maxNodes: number;
}

export const DEFAULT_PARSE_OPTIONS: ResolvedParseOptions = Object.freeze({
  maxBytes: 8 * 1024 * 1024,
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
  };
}

function bound(value: number | undefined, fallback: number): number {
  return typeof value === "number" && value >= 0 ? value : fallback;
}
