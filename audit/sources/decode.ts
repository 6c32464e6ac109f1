/**
 * A file's text → documents, with lib's bounded decoder (`parseDocuments`) and kubectl's `kind: List` unwrapping
 * (`unwrapList`): the only way the auditor turns input text into objects (never a plain JSON.parse).
 */
import { notAnObject, parseDocuments, unwrapList } from "#lib";
import type { Location } from "../model.js";
import { listItemLines } from "./list-lines.js";
import type { KubeObject, SourceDoc } from "./types.js";

export interface DecodeOptions {
  /**
   * What a mapping without apiVersion or kind is: `skip` in folder trees and archives (a Git checkout holds CI
   * files and Helm values), `error` for a file named on the command line.
   */
  nonKubernetes: "skip" | "error";
  /** The largest JSON document: a `kubectl get -A -o json` List is one document. */
  maxJsonBytes: number;
}

/** YAML documents keep lib's per-document bound (8 MiB); a JSON List export is one document and may be large. */
export function decodeText(text: string, base: Location, options: DecodeOptions): SourceDoc[] {
  const parseOptions = looksLikeJson(text) ? jsonParseOptions(options.maxJsonBytes) : undefined;
  const out: SourceDoc[] = [];
  for (const doc of parseDocuments(text, parseOptions)) {
    const location: Location = { ...base, document: doc.document, line: doc.line };
    if (doc.error !== undefined) {
      out.push({ kind: "error", location, error: doc.error });
      continue;
    }
    for (const d of objectDocs(doc.object, location, options, () => topLevelItemLines(text, doc.line, doc.object))) {
      out.push(d);
    }
  }
  return out;
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
    return toDoc(item, { ...location, item: i, ...(line !== undefined && { line }) }, options, location.line);
  });
}

/**
 * The lines of the items unwrapList gives first: the List's own entries that are not Lists, in order (the items of
 * nested Lists follow them and keep the List's line, as the streamed reader gives them). `line` is the List's line in
 * the file, and `firstLine` the file's line of the text's first line (a piece of a streamed file).
 */
export function topLevelItemLines(text: string, line: number, list: unknown, firstLine = 1): number[] {
  const entries = (list as { items: unknown[] }).items;
  const lines = listItemLines(text, line - firstLine + 1, entries.length);
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

/** One decoded value at `location`: an object, a skipped non-Kubernetes mapping, or an input error. */
export const objectDoc = toDoc;

/**
 * `docLine` is the document's line for error texts (`document 3 (line 40): item 2: ...`, as the List's line even
 * when the location points at the item's own line).
 */
function toDoc(obj: unknown, location: Location, options: DecodeOptions, docLine = location.line): SourceDoc {
  const prefix = `document ${location.document ?? 0} (line ${docLine ?? 1}): ${
    location.item === undefined ? "" : `item ${location.item}: `
  }`;
  if (typeof obj !== "object" || obj === null || Array.isArray(obj)) {
    // lib's wording for a document that is not a mapping (parseDocuments), here for a List item.
    return { kind: "error", location, error: `${prefix}${notAnObject(obj)}` };
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
    error: `${prefix}${hasKind ? "Object 'apiVersion' is missing" : "Object 'Kind' is missing"}`,
  };
}
