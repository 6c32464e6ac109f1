/**
 * The decoder every edge uses for untrusted YAML and JSON: a stream of documents in, one
 * {@link DecodedDocument} per non-empty document out. It never throws because of the input:
 * syntax errors, documents over a bound, and documents that are not mappings come back as
 * `error` strings naming the document and line, and the other documents still decode.
 *
 * Values are what the API server would see after kubectl: YAML is resolved as sigs.k8s.io/yaml
 * (go-yaml v2) resolves it, and integers keep every digit (see integer.ts). `kind: List`
 * unwrapping is separate (list.ts).
 */
import { type DecodedDocument, failedDocument } from "./document.js";
import { decodeJsonOrYaml, isGoSpace } from "./json-stream.js";
import { type ParseOptions, resolveParseOptions } from "./limits.js";
import { decodeYamlStream } from "./yaml-decode.js";

export type { DecodedDocument } from "./document.js";
export type { ParseOptions, ResolvedParseOptions } from "./limits.js";

/** How far kubectl's decoder looks for the `{` that makes a stream JSON (the 4096-byte buffer kubectl gives it). */
const SNIFF_BYTES = 4096;

/**
 * Decodes a YAML stream (`---` separated documents) or a JSON text, as kubectl 1.36 reads a file
 * (apimachinery's YAMLOrJSONDecoder): a text whose first character after white space is `{` is
 * read as JSON values, switching to YAML after a syntax error while the stream is still ambiguous
 * (see json-stream.ts); anything else is YAML. A leading byte order mark is skipped first (kubectl
 * looks at it and reads such a text as YAML; the objects are the same unless it holds several
 * JSON values). Empty documents (only comments or whitespace, or `null`) are skipped, but still
 * counted in {@link DecodedDocument.document}.
 *
 * @param options bounds per document; see {@link ParseOptions} for the defaults.
 */
export function parseDocuments(text: string, options?: ParseOptions): DecodedDocument[] {
  const limits = resolveParseOptions(options);
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    const start = jsonStart(source);
    return start === undefined ? decodeYamlStream(source, limits) : decodeJsonOrYaml(source, start, limits);
  } catch (error) {
    // Not reached for bad input; a fault in the decoder still must not escape to the edges.
    const detail = error instanceof Error ? error.message : String(error);
    return [failedDocument(0, 1, `internal error while decoding: ${detail}`)];
  }
}

/**
 * The offset of the `{` that starts a JSON stream: the first character after white space (Go's
 * unicode.IsSpace) within the first 4096 bytes, as apimachinery's GuessJSONStream looks for it.
 */
function jsonStart(text: string): number | undefined {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b) return bytes < SNIFF_BYTES ? i : undefined;
    if (!isGoSpace(c)) return undefined;
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
    if (bytes >= SNIFF_BYTES) return undefined;
  }
  return undefined;
}
