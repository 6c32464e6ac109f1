/**
 * A file's text → documents, with lib's bounded decoder (`parseDocuments`) and kubectl's `kind: List` unwrapping
 * (`unwrapList`): the only way the auditor turns input text into objects (never a plain JSON.parse).
 *
 * The per-document limit (`maxDocumentBytes`, lib's DEFAULT_MAX_DOCUMENT_BYTES unless raised) is the same on every
 * path: a YAML document, a JSON text that is not a List, and each item of a JSON `kind: List` is a document over it
 * or not, whether the file is read whole, streamed, from an archive or from S3, and the text of one over it is
 * lib's `documentTooLarge` naming the setting that raises it. A JSON List as a whole is bounded by the file's limit
 * only (`maxJsonBytes`): a `kubectl get -A -o json` export is one List of many objects.
 */
import {
  DEFAULT_MAX_DOCUMENT_BYTES,
  type DecodedDocument,
  documentTooLarge,
  isOverBytes,
  notAnObject,
  type ParseOptions,
  parseDocuments,
  unwrapList,
} from "#lib";
import type { Location } from "../model.js";
import { jsonItemSpans, listItemLines } from "./list-lines.js";
import type { KubeObject, SourceDoc } from "./types.js";

/** How a user raises the per-document limit: the CLI's flag and the variable the CLI and the Lambda audit read. */
export const DOCUMENT_LIMIT_SETTING = "--max-document-bytes or TOLLGATE_MAX_DOCUMENT_BYTES";

export interface DecodeOptions {
  /**
   * What a mapping without apiVersion or kind is: `skip` in folder trees and archives (a Git checkout holds CI
   * files and Helm values), `error` for a file named on the command line.
   */
  nonKubernetes: "skip" | "error";
  /** The largest JSON text: a `kubectl get -A -o json` List is one text (the file's limit). */
  maxJsonBytes: number;
  /** The per-document limit (see the file comment). Default lib's DEFAULT_MAX_DOCUMENT_BYTES (8 MiB). */
  maxDocumentBytes?: number;
}

/** The decode options of a source's units: its per-file and per-document limits. */
export function decodeOptionsOf(
  options: { maxFileBytes: number; maxDocumentBytes?: number },
  nonKubernetes: "skip" | "error",
): DecodeOptions {
  const out: DecodeOptions = { nonKubernetes, maxJsonBytes: options.maxFileBytes };
  if (options.maxDocumentBytes !== undefined) out.maxDocumentBytes = options.maxDocumentBytes;
  return out;
}

/** The decode options alone, without the fields of a stream's tuning (a part's options go to worker threads). */
export function decodeOptionsOnly(options: DecodeOptions): DecodeOptions {
  const out: DecodeOptions = { nonKubernetes: options.nonKubernetes, maxJsonBytes: options.maxJsonBytes };
  if (options.maxDocumentBytes !== undefined) out.maxDocumentBytes = options.maxDocumentBytes;
  return out;
}

/** The per-document limit of `options`. */
export function documentLimit(options: DecodeOptions): number {
  return options.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES;
}

/** The text of a document over the per-document limit of `options`. */
export function documentTooLargeText(options: DecodeOptions): string {
  return documentTooLarge(documentLimit(options), DOCUMENT_LIMIT_SETTING);
}

/** lib's bounds of a YAML document: the per-document limit, named with its setting. */
export function yamlParseOptions(options: DecodeOptions): ParseOptions {
  return { maxBytes: documentLimit(options), maxBytesSetting: DOCUMENT_LIMIT_SETTING };
}

/** The docs of a text: its YAML documents, or its JSON values, a List's items each checked against the limit. */
export function decodeText(text: string, base: Location, options: DecodeOptions): SourceDoc[] {
  const json = looksLikeJson(text);
  let docs = parseDocuments(text, json ? jsonParseOptions(options.maxJsonBytes) : yamlParseOptions(options));
  // A stream of several JSON values (`cat a.json b.json`): each value is one document, a List among them too,
  // measured by lib on its own text.
  const several = json && docs.length > 1 && isOverBytes(text, documentLimit(options));
  if (several) docs = parseDocuments(text, { ...jsonParseOptions(options.maxJsonBytes), ...yamlParseOptions(options) });
  const out: SourceDoc[] = [];
  for (const doc of docs) {
    const location: Location = { ...base, document: doc.document, line: doc.line };
    if (doc.error !== undefined) {
      out.push({ kind: "error", location, error: doc.error });
      continue;
    }
    if (!json || several) {
      for (const d of objectDocs(doc.object, location, options, () => topLevelItemLines(text, doc.line, doc.object))) {
        out.push(d);
      }
      continue;
    }
    for (const d of jsonDocs(text, doc, location, options)) out.push(d);
  }
  return out;
}

/**
 * The docs of the one JSON value of a text: a value that is not a List is one document, the text's size; a List's
 * items are each a document, the size of the item's own text.
 */
function jsonDocs(text: string, doc: DecodedDocument, location: Location, options: DecodeOptions): SourceDoc[] {
  const max = documentLimit(options);
  if (unwrapList(doc.object) === undefined) {
    if (isOverBytes(text, max)) return [overLimitDoc(location, options)];
    return objectDocs(doc.object, location, options);
  }
  const list = doc.object as { items: unknown[] };
  let checked = list;
  const large = isOverBytes(text, max);
  const spans = large ? jsonItemSpans(text, doc.line) : undefined;
  if (spans !== undefined && spans.length === list.items.length) {
    let items: unknown[] | undefined;
    for (let k = 0; k < spans.length; k++) {
      const { start, end } = spans[k]!;
      if (end - start <= max / 3 || !isOverBytes(text.slice(start, end), max)) continue;
      items ??= [...list.items];
      items[k] = TOO_LARGE;
    }
    if (items !== undefined) checked = { ...list, items };
  }
  // The spans already give each item's line (the walk topLevelItemLines would make again).
  return objectDocs(checked, location, options, () =>
    !large
      ? topLevelItemLines(text, doc.line, checked)
      : notNestedLines(spans?.length === checked.items.length ? spans.map((s) => s.line) : undefined, checked.items),
  );
}

/** Stands for a List item over the per-document limit: not a mapping, so unwrapList keeps it in its place. */
const TOO_LARGE: readonly unknown[] = Object.freeze([]);

function overLimitDoc(location: Location, options: DecodeOptions, docLine = location.line): SourceDoc {
  return { kind: "error", location, error: `${docPrefix(location, docLine)}${documentTooLargeText(options)}` };
}

/**
 * A decoded document's docs: the object, or each item of a `kind: List` (lib's unwrapList), at the line `itemLines`
 * gives it when known, else at the List's (toDoc's error texts keep the List's line).
 */
export function objectDocs(
  obj: unknown,
  location: Location,
  options: DecodeOptions,
  itemLines: () => readonly number[] = () => [],
): SourceDoc[] {
  const items = unwrapList(obj);
  if (items === undefined) return [toDoc(obj, location, options)];
  const lines = itemLines();
  return items.map((item, i) => {
    const line = lines[i];
    const at: Location = { ...location, item: i };
    if (line !== undefined) at.line = line;
    return item === TOO_LARGE ? overLimitDoc(at, options, location.line) : toDoc(item, at, options, location.line);
  });
}

/**
 * The lines of the items unwrapList gives first: the List's own entries that are not Lists, in order (the items of
 * nested Lists follow them and keep the List's line, as the streamed reader gives them). `line` is the List's line in
 * the file, and `firstLine` the file's line of the text's first line (a piece of a streamed file).
 */
export function topLevelItemLines(text: string, line: number, list: unknown, firstLine = 1): number[] {
  const entries = (list as { items: unknown[] }).items;
  return notNestedLines(listItemLines(text, line - firstLine + 1, entries.length), entries, firstLine);
}

/** The lines of the entries that are not Lists (file lines: `firstLine` is the text's first), [] when not known. */
function notNestedLines(lines: readonly number[] | undefined, entries: readonly unknown[], firstLine = 1): number[] {
  if (lines === undefined) return [];
  return lines.filter((_, k) => !isNestedList(entries[k])).map((l) => l + firstLine - 1);
}

function isNestedList(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return typeof o.kind === "string" && o.kind.endsWith("List") && Array.isArray(o.items);
}

/** Whether `decodeText` decodes a text starting with `head` (its first 4096 characters suffice) as JSON. */
export function looksLikeJson(head: string): boolean {
  return /^\s*[{[]/.test(head.slice(0, 4096).replace(/^\uFEFF/, ""));
}

/** The bounds of a JSON document of at most `maxJsonBytes`. */
export function jsonParseOptions(maxJsonBytes: number): { maxBytes: number; maxNodes: number } {
  // About one value per 8 bytes at most: a bound on nodes that grows with the allowed size.
  return { maxBytes: maxJsonBytes, maxNodes: Math.max(2_000_000, Math.ceil(maxJsonBytes / 4)) };
}

/** `document 3 (line 40): ` and `item 2: ` of a List's item: which document an input error is about. */
export function docPrefix(location: Pick<Location, "document" | "line" | "item">, docLine = location.line): string {
  return `document ${location.document ?? 0} (line ${docLine ?? 1}): ${
    location.item === undefined ? "" : `item ${location.item}: `
  }`;
}

/** One decoded value at `location`: an object, a skipped non-Kubernetes mapping, or an input error. */
export const objectDoc = toDoc;

/**
 * `docLine` is the document's line for error texts (`document 3 (line 40): item 2: ...`, as the List's line even
 * when the location points at the item's own line).
 */
function toDoc(obj: unknown, location: Location, options: DecodeOptions, docLine = location.line): SourceDoc {
  if (typeof obj !== "object" || obj === null || Array.isArray(obj)) {
    // lib's wording for a document that is not a mapping (parseDocuments), here for a List item.
    return { kind: "error", location, error: `${docPrefix(location, docLine)}${notAnObject(obj)}` };
  }
  const o = obj as Record<string, unknown>;
  const hasKind = typeof o.kind === "string" && o.kind !== "";
  const hasApiVersion = typeof o.apiVersion === "string" && o.apiVersion !== "";
  if (hasKind && hasApiVersion) return { kind: "object", location, object: o as KubeObject };
  if (options.nonKubernetes === "skip") return { kind: "not-kubernetes", location };
  // apimachinery's wording for an object without type information.
  return {
    kind: "error",
    location,
    error: `${docPrefix(location, docLine)}${hasKind ? "Object 'apiVersion' is missing" : "Object 'Kind' is missing"}`,
  };
}
