/**
 * Streamed decoding of a JSON file too large to parse whole (over `maxJsonParseBytes`): streamed only when it is a
 * List. A first pass checks the structure and reads the top-level keys (so `kind` may come after `items`, as
 * `kubectl get -o json` writes it), a second pass cuts the elements of `items` and decodes each one alone. See
 * {@link streamJsonList} for how it differs from a whole parse.
 */
import { type ParseOptions, parseDocuments } from "#lib";
import type { Location } from "../model.js";
import {
  type DecodeOptions,
  decodeOptionsOnly,
  docPrefix,
  documentLimit,
  documentTooLargeText,
  jsonParseOptions,
  objectDoc,
} from "./decode.js";
import { ListScanner, MoreThanAList, NotAList, ScanError, scan } from "./json-scanner.js";
import { readError, readText, type StreamTuning } from "./stream-text.js";
import type { RawJsonList, RawPart, SourceDoc } from "./types.js";

/** lib's default nesting bound; a List item sits at depth 3 of its List. */
const MAX_DEPTH = 128;

interface ListObject extends Record<string, unknown> {
  kind: string;
  items: unknown[];
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isList(value: unknown): value is ListObject {
  return (
    isMapping(value) && typeof value.kind === "string" && value.kind.endsWith("List") && Array.isArray(value.items)
  );
}

/** lib's list.ts: an item without kind and apiVersion takes them from a typed list. */
function withListKind(item: unknown, kind: string, apiVersion: unknown): unknown {
  if (!isMapping(item) || item.kind !== undefined || item.apiVersion !== undefined) return item;
  const itemKind = kind.slice(0, -"List".length);
  if (itemKind === "" || typeof apiVersion !== "string") return item;
  return { apiVersion, kind: itemKind, ...item };
}

/** Decodes one cut value with lib's decoder (integers keep every digit); `depth` is where it sits. */
function decodeValue(
  raw: string,
  depth: number,
  parse: ParseOptions,
  line: number,
  column: number,
): { value: unknown } | { error: string } {
  const object = raw.charCodeAt(0) === 0x7b;
  const text = object ? raw : `{"v":${raw}}`;
  const maxDepth = MAX_DEPTH - depth + (object ? 1 : 2);
  const [doc] = parseDocuments(text, { ...parse, maxBytes: Number.MAX_SAFE_INTEGER, maxDepth });
  if (doc === undefined) return { error: "internal error: nothing decoded" };
  if (doc.error === undefined) return { value: object ? doc.object : (doc.object as { v: unknown }).v };
  let detail = doc.error.replace(/^document 0 \(line 1\): /, "");
  const at = /^line (\d+), column (\d+): /.exec(detail);
  if (at !== null) {
    const l = Number(at[1]);
    const col = l === 1 ? Number(at[2]) - (object ? 0 : 5) + column - 1 : Number(at[2]);
    detail = `line ${l + line - 1}, column ${col}: ${detail.slice(at[0].length)}`;
  }
  return { error: detail };
}

/**
 * A JSON file too large to parse whole, streamed when it is a List (an object whose `kind` ends in "List" and
 * whose `items` is an array): one doc per item, at `{file, document: 0, line: <the List's line>, item: i}` as
 * `read()` gives them, with typed lists' kinds given to their items and nested Lists flattened in kubectl's
 * breadth-first order (nested Lists are held until the top-level items are done).
 *
 * Two passes over the file: the first checks the structure (strings, nesting, commas and colons), decodes the
 * top-level values other than `items` and reads `kind` and `apiVersion` wherever they are in the object; a text
 * that is not a List, or is malformed there, is one input error and nothing else. The second pass decodes each
 * item alone, with the per-document limit (decode.ts) on its text and lib's depth bound counted from the List. Unlike
 * a whole parse, a bad item (a syntax error inside it, too deep, too large) is an input error of that item and the
 * other items are still read.
 */
export async function* streamJsonList(
  path: string,
  base: Location,
  options: DecodeOptions & StreamTuning & { size: number; maxJsonParseBytes: number },
): AsyncGenerator<SourceDoc> {
  const head = await jsonListHead(path, base, options);
  if ("error" in head) {
    yield head.error;
    return;
  }
  const { list, lastItems } = head;
  let item = 0;
  const nested: unknown[] = [];
  try {
    yield* itemsPass(
      path,
      options,
      documentLimit(options),
      lastItems,
      (raw, elementLine, column, push: (d: SourceDoc) => void) => {
        const r = decodeJsonItem(raw, elementLine, column, list, item);
        if ("nested" in r) {
          nested.push(r.nested);
          return;
        }
        item++;
        push("bad" in r ? r.bad : r);
      },
    );
  } catch (error) {
    // The file changed between the passes.
    yield secondPassError(error, list);
    return;
  }
  // Nested Lists after the top-level items, breadth first, as lib's unwrapList orders them.
  const location = (): Location => ({ ...base, document: 0, line: list.line, item: item++ });
  for (let i = 0; i < nested.length; i++) {
    const current = nested[i];
    if (!isList(current)) {
      yield objectDoc(current, location(), list.options);
      continue;
    }
    for (const it of current.items) nested.push(withListKind(it, current.kind, current.apiVersion));
    nested[i] = undefined;
  }
}

/**
 * The same file as {@link streamJsonList}, undecoded: the first pass runs here, then one `json-item` part per
 * element of `items` (numbered in order: an element that is itself a List makes {@link decodeRawPart} answer
 * `nested`, and the caller then reads the unit again with `stream()`). With `whole` (a file `read()` parses whole),
 * anything a whole parse would give otherwise (a malformed file, an item that does not decode alone, a nested
 * List) decodes as `reparse` instead: the caller then decodes the unit with `read()`.
 */
export async function* streamJsonListParts(
  path: string,
  base: Location,
  options: DecodeOptions & StreamTuning & { size: number; maxJsonParseBytes: number; whole?: boolean },
): AsyncGenerator<RawPart> {
  const head = await jsonListHead(path, base, options);
  if ("error" in head) {
    yield options.whole === true ? { kind: "reparse" } : { kind: "docs", docs: [head.error] };
    return;
  }
  const { lastItems } = head;
  const list: RawJsonList = options.whole === true ? { ...head.list, whole: true } : head.list;
  let item = 0;
  try {
    yield* itemsPass(
      path,
      options,
      documentLimit(options),
      lastItems,
      (raw, elementLine, column, push: (p: RawPart) => void) =>
        push({ kind: "json-item", raw, elementLine, column, item: item++, list }),
    );
  } catch (error) {
    yield options.whole === true ? { kind: "reparse" } : { kind: "docs", docs: [secondPassError(error, list)] };
  }
}

/**
 * The second pass over a JSON List: the elements of its `lastItems`-th `items` member, each handed to `element`,
 * which pushes what it makes of it; those are yielded after each chunk read. Throws what reading or scanning throws
 * (the file changed between the passes).
 */
async function* itemsPass<T>(
  path: string,
  tuning: StreamTuning,
  maxBytes: number,
  lastItems: number,
  element: (raw: string | undefined, elementLine: number, column: number, push: (value: T) => void) => void,
): AsyncGenerator<T> {
  const out: T[] = [];
  const push = (value: T): void => {
    out.push(value);
  };
  const scanner = new ListScanner(
    {
      value() {},
      items: (occurrence) => occurrence === lastItems,
      element: (raw, elementLine, column) => element(raw, elementLine, column, push),
    },
    maxBytes,
  );
  for await (const chunk of readText(path, tuning)) {
    scanner.push(chunk);
    yield* out;
    out.length = 0;
  }
  scanner.end();
  yield* out;
}

function secondPassError(error: unknown, list: RawJsonList): SourceDoc {
  return {
    kind: "error",
    location: { ...list.base, document: 0, line: list.line },
    error: `document 0 (line ${list.line}): ${error instanceof ScanError ? error.message : readError(error)}`,
  };
}

/** The first pass of a streamed List: the List's kind, apiVersion and place, or the one input error of the file. */
async function jsonListHead(
  path: string,
  base: Location,
  options: DecodeOptions & StreamTuning & { size: number; maxJsonParseBytes: number },
): Promise<{ error: SourceDoc } | { list: RawJsonList; lastItems: number }> {
  const parse = jsonParseOptions(options.maxJsonBytes);
  const top: Record<string, unknown> = {};
  let lastItems = -1;
  let problem: string | undefined;
  let line = 1;
  // A text that is not a List is one document: over the per-document limit, it is that error, as when read whole.
  const notList =
    options.size > documentLimit(options)
      ? documentTooLargeText(options)
      : `document is ${options.size} bytes, over the limit of ${options.maxJsonParseBytes} for JSON parsed whole, and is not a List whose items can be streamed`;
  try {
    const first = await scan(
      path,
      {
        value(key, raw) {
          if (problem !== undefined) return;
          if (raw === undefined) {
            problem = `the value of ${JSON.stringify(key)} is ${documentTooLargeText(options)}`;
            return;
          }
          const decoded = decodeValue(raw, 2, parse, 1, 1);
          if ("error" in decoded) problem = `the value of ${JSON.stringify(key)}: ${decoded.error}`;
          else if (key === "kind" || key === "apiVersion" || key === "items") top[key] = decoded.value;
        },
        items(occurrence) {
          lastItems = occurrence;
          top.items = [];
          return false;
        },
        element() {},
      },
      options,
      documentLimit(options),
    );
    line = first.startLine;
  } catch (error) {
    if (error instanceof MoreThanAList) problem = `${notList}: more follows the List`;
    else if (error instanceof NotAList) problem = notList;
    else if (error instanceof ScanError) problem = error.message;
    else return { error: { kind: "error", location: { ...base }, error: readError(error) } };
  }
  if (problem === undefined && !isList(top)) problem = notList;
  if (problem !== undefined) {
    return {
      error: {
        kind: "error",
        location: { ...base, document: 0, line },
        error: `document 0 (line ${line}): ${problem}`,
      },
    };
  }
  const list = top as ListObject;
  const decodeOptions = decodeOptionsOnly(options);
  return { list: { base, line, kind: list.kind, apiVersion: list.apiVersion, options: decodeOptions }, lastItems };
}

/**
 * One element of a List's `items`, decoded as item `item`; a List (nested) is given back whole, and an element that
 * does not decode alone (`bad`) as its input error.
 */
export function decodeJsonItem(
  raw: string | undefined,
  elementLine: number,
  column: number,
  list: RawJsonList,
  item: number,
): SourceDoc | { nested: unknown } | { bad: SourceDoc } {
  const location: Location = { ...list.base, document: 0, line: list.line, item };
  if (raw === undefined) {
    return {
      bad: {
        kind: "error",
        location,
        error: `${docPrefix(location, list.line)}${documentTooLargeText(list.options)}`,
      },
    };
  }
  const decoded = decodeValue(raw, 3, jsonParseOptions(list.options.maxJsonBytes), elementLine, column);
  if ("error" in decoded) {
    return {
      bad: { kind: "error", location, error: `document 0 (line ${list.line}): item ${item}: ${decoded.error}` },
    };
  }
  const value = withListKind(decoded.value, list.kind, list.apiVersion);
  if (isList(value)) return { nested: value };
  // The item's own line (as decode.ts finds it when the List is parsed whole); error texts keep the List's.
  return objectDoc(value, { ...location, line: elementLine }, list.options, list.line);
}
