/** Files named on the command line, and the files of folder trees (a Git checkout). */
import type { Dirent } from "node:fs";
import { open, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { type DecodeOptions, decodeText, looksLikeJson } from "./decode.js";
import { streamJsonList, streamJsonListParts, streamYaml, streamYamlParts } from "./stream.js";
import {
  DOCUMENT_FILE,
  type RawPart,
  type Source,
  type SourceDoc,
  type SourceOptions,
  type SourceUnit,
} from "./types.js";

/** Folders never entered: version control metadata and dependencies. */
const SKIPPED_FOLDERS = new Set([".git", "node_modules"]);

/** One file: multi-document YAML, JSON, `kind: List` exports. */
export function fileSource(path: string, options: SourceOptions): Source {
  return {
    spec: path,
    kind: "file",
    async *units() {
      yield fileUnit(path, options, "error");
    },
  };
}

/** Every `*.yaml`, `*.yml` and `*.json` under a folder, in name order; `.git` and `node_modules` are left out. */
export function folderSource(root: string, options: SourceOptions): Source {
  return {
    spec: root,
    kind: "folder",
    async *units() {
      for await (const path of walk(root)) yield fileUnit(path, options, "skip");
    },
  };
}

async function* walk(dir: string): AsyncGenerator<string> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    // An unreadable folder below the root: reported as one unreadable "file" by the unit.
    yield dir;
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(e.name)) yield* walk(path);
    } else if (e.isFile() && DOCUMENT_FILE.test(e.name)) {
      yield path;
    }
  }
}

/**
 * Files up to this size are read whole by `stream()` too: one buffer of this size is no memory concern, and
 * skips the streaming machinery for the many small files of a Git checkout.
 */
export const STREAM_MIN_BYTES = 256 * 1024;

/** Bytes read to tell JSON from YAML: at least the 4096 characters `decodeText` looks at. */
const HEAD_BYTES = 16 * 1024;

function fileUnit(path: string, options: SourceOptions, nonKubernetes: "skip" | "error"): SourceUnit {
  const decodeOptions: DecodeOptions = { nonKubernetes, maxJsonBytes: options.maxFileBytes };
  /** The decode options of the streamed reads, which also count the bytes they read. */
  const meter = options.onRead === undefined ? decodeOptions : { ...decodeOptions, onRead: options.onRead };
  const base = { file: path };
  /** How stream() and raw() read the file: whole (as read() does), streamed as YAML or as a JSON List, or an error. */
  const plan = async (): Promise<
    | { mode: "whole" }
    | { mode: "yaml" }
    | { mode: "json"; size: number }
    | { mode: "json-whole"; size: number }
    | { mode: "error"; doc: SourceDoc }
  > => {
    let size: number;
    let head: string;
    try {
      const info = await stat(path);
      if (info.isDirectory() || info.size <= STREAM_MIN_BYTES) return { mode: "whole" };
      size = info.size;
      head = await readHead(path);
    } catch (err) {
      return { mode: "error", doc: { kind: "error", location: { file: path }, error: readErrorText(err) } };
    }
    const json = looksLikeJson(head);
    // lib's own test (decode.ts): the first character after a BOM and spaces, tabs and line breaks.
    const first = /^\uFEFF?[ \t\r\n]*([^ \t\r\n])/.exec(head)?.[1];
    // Odd whitespace before the text (a form feed, 16 KiB of blanks): read whole, as read() decides it.
    if (first === undefined || json !== (first === "{" || first === "[")) return { mode: "whole" };
    // Parsed whole by read(); raw() still gives its items one by one when it is a List (see RawJsonList.whole).
    if (json && size <= options.maxJsonParseBytes) return { mode: "json-whole", size };
    return json ? { mode: "json", size } : { mode: "yaml" };
  };
  /** The whole text, or the unit's one input error. */
  const readWhole = async (): Promise<{ text: string } | { docs: SourceDoc[] }> => {
    try {
      const info = await stat(path);
      if (info.isDirectory())
        return { docs: [{ kind: "error", location: { file: path }, error: "cannot read the folder" }] };
      if (info.size > options.maxFileBytes) {
        return {
          docs: [
            {
              kind: "error",
              location: { file: path },
              error: `file is ${info.size} bytes, over the limit of ${options.maxFileBytes}`,
            },
          ],
        };
      }
      const text = await readFile(path, "utf8");
      options.onRead?.(info.size);
      return { text };
    } catch (err) {
      return { docs: [{ kind: "error", location: { file: path }, error: readErrorText(err) }] };
    }
  };
  const unit: SourceUnit = {
    name: path,
    async *stream(): AsyncGenerator<SourceDoc> {
      const p = await plan();
      if (p.mode === "error") {
        yield p.doc;
        return;
      }
      if (p.mode === "whole" || p.mode === "json-whole") {
        yield* await unit.read();
        return;
      }
      const docs =
        p.mode === "json"
          ? streamJsonList(path, base, { ...meter, size: p.size, maxJsonParseBytes: options.maxJsonParseBytes })
          : streamYaml(path, base, meter);
      try {
        yield* docs;
      } catch (err) {
        yield { kind: "error", location: { file: path }, error: readErrorText(err) };
      }
    },
    async *raw(): AsyncGenerator<RawPart> {
      const p = await plan();
      if (p.mode === "error") {
        yield { kind: "docs", docs: [p.doc] };
        return;
      }
      if (p.mode === "whole") {
        const whole = await readWhole();
        if ("docs" in whole) yield { kind: "docs", docs: whole.docs };
        else yield { kind: "text", text: whole.text, base, options: decodeOptions };
        return;
      }
      const parts =
        p.mode === "yaml"
          ? streamYamlParts(path, base, meter)
          : streamJsonListParts(path, base, {
              ...meter,
              size: p.size,
              maxJsonParseBytes: options.maxJsonParseBytes,
              whole: p.mode === "json-whole",
            });
      try {
        yield* parts;
      } catch (err) {
        yield { kind: "docs", docs: [{ kind: "error", location: { file: path }, error: readErrorText(err) }] };
      }
    },
    async read(): Promise<SourceDoc[]> {
      const whole = await readWhole();
      return "docs" in whole ? whole.docs : decodeText(whole.text, base, decodeOptions);
    },
  };
  return unit;
}

async function readHead(path: string): Promise<string> {
  const file = await open(path, "r");
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await file.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await file.close();
  }
}

export function readErrorText(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "file does not exist";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return `cannot be read: ${err instanceof Error ? err.message : String(err)}`;
}
