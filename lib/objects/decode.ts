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
import { Buffer } from "node:buffer";
import { type DecodedDocument, DecodeFailure, failedDocument, notAnObject } from "./document.js";
import { decodeJsonValue } from "./json-decode.js";
import { type ParseOptions, type ResolvedParseOptions, resolveParseOptions } from "./limits.js";
import { isMapping } from "./mapping.js";
import { decodeYamlStream } from "./yaml-decode.js";

export type { DecodedDocument } from "./document.js";
export type { ParseOptions, ResolvedParseOptions } from "./limits.js";

/**
 * Decodes a YAML stream (`---` separated documents) or a JSON text. A text whose first
 * non-whitespace character is `{` or `[` is one JSON document (as kubectl's YAML-or-JSON
 * decoder sniffs it); anything else is YAML. Empty documents (only comments or whitespace, or
 * `null`) are skipped, but still counted in {@link DecodedDocument.document}.
 *
 * @param options bounds per document; see {@link ParseOptions} for the defaults.
 */
export function parseDocuments(text: string, options?: ParseOptions): DecodedDocument[] {
  const limits = resolveParseOptions(options);
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let start = 0;
  let c = source.charCodeAt(0);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = source.charCodeAt(++start);
  try {
    if (c === 0x7b || c === 0x5b) return [decodeJson(source, start, limits)];
    return decodeYamlStream(source, limits);
  } catch (error) {
    // Not reached for bad input; a fault in the decoder still must not escape to the edges.
    const detail = error instanceof Error ? error.message : String(error);
    return [failedDocument(0, 1, `internal error while decoding: ${detail}`)];
  }
}

function decodeJson(text: string, start: number, limits: ResolvedParseOptions): DecodedDocument {
  const line = start === 0 ? 1 : lineAt(text, start);
  if (text.length * 3 > limits.maxBytes) {
    const bytes = Buffer.byteLength(text, "utf8");
    if (bytes > limits.maxBytes) {
      return failedDocument(0, line, `document is ${bytes} bytes, over the limit of ${limits.maxBytes}`);
    }
  }
  let object: unknown;
  try {
    object = decodeJsonValue(text, start, limits);
  } catch (error) {
    if (!(error instanceof DecodeFailure)) throw error;
    const at = error.offset === undefined ? "" : `${position(text, error.offset)}: `;
    return failedDocument(0, line, `${at}${error.message}`);
  }
  if (!isMapping(object)) return failedDocument(0, line, notAnObject(object));
  return { object, document: 0, line };
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

function position(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return `line ${lineAt(text, offset)}, column ${offset - lineStart + 1}`;
}
