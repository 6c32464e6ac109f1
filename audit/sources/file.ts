/**
 * Files named on the command line, the files of folder trees (a Git checkout, a mounted ConfigMap), and standard
 * input. Folders are walked by lib/storage's one folder walk (`walkFolder`: links followed inside the folder,
 * `.git`, `node_modules` and hidden folders left out).
 */
import { open, readFile, stat } from "node:fs/promises";
import { sep } from "node:path";
import type { Readable } from "node:stream";
import { type WalkEntry, walkFolder } from "#lib/storage";
import { type DecodeOptions, decodeOptionsOf, decodeText, looksLikeJson } from "./decode.js";
import { reportFolderFilter } from "./report-folders.js";
import { streamJsonList, streamJsonListParts } from "./stream-json.js";
import { streamYaml, streamYamlParts } from "./stream-yaml.js";
import {
  DOCUMENT_FILE,
  fileTooLarge,
  type RawPart,
  type Source,
  type SourceDoc,
  type SourceOptions,
  type SourceUnit,
} from "./types.js";

/** One file: multi-document YAML, JSON, `kind: List` exports. */
export function fileSource(path: string, options: SourceOptions): Source {
  return {
    spec: path,
    kind: "file",
    async *units() {
      yield new FileUnit(path, options, "error");
    },
  };
}

/**
 * Every `*.yaml`, `*.yml` and `*.json` under a folder, in name order; tollgate's own report folders are left out
 * (report-folders.ts). A folder below it that cannot be listed is one input error.
 */
export function folderSource(root: string, options: SourceOptions): Source {
  return {
    spec: root,
    kind: "folder",
    async *units() {
      for await (const entry of documentFiles(root, options.excludeFolders)) yield folderEntryUnit(entry, options);
    },
  };
}

/** The unit of one entry of a folder walk: a document file, or the input error of a folder that cannot be read. */
export function folderEntryUnit(entry: Pick<WalkEntry, "kind" | "path">, options: SourceOptions): SourceUnit {
  return entry.kind === "file"
    ? new FileUnit(entry.path, options, options.nonKubernetes ?? "skip")
    : errorUnit(entry.path, "cannot read the folder");
}

/**
 * The document files under a folder as the auditor reads them (folder sources and the input's size alike): the one
 * folder walk, without tollgate's report folders and their loose markers.
 */
export async function* documentFiles(root: string, excludeFolders?: readonly string[]): AsyncGenerator<WalkEntry> {
  const reports = reportFolderFilter(excludeFolders);
  const accept = (name: string) => DOCUMENT_FILE.test(name);
  const enter = async (path: string) => !(await reports.skipsFolder(path));
  for await (const entry of walkFolder(root, { accept, enter, unreadable: "yield" })) {
    const name = entry.path.slice(entry.path.lastIndexOf(sep) + 1);
    if (entry.kind === "file" && (await reports.skipsFile(entry.path, name))) continue;
    yield entry;
  }
}

/** The name standard input is shown under. */
const STDIN_NAME = "<stdin>";

/** Standard input, read whole (up to `maxFileBytes`) and decoded like a file named on the command line. */
export function stdinSource(stdin: Readable, options: SourceOptions): Source {
  const base = { file: STDIN_NAME };
  return {
    spec: "-",
    kind: "stdin",
    async *units() {
      yield {
        name: STDIN_NAME,
        async read(): Promise<SourceDoc[]> {
          let text: string;
          try {
            text = await readBounded(stdin, options.maxFileBytes);
          } catch (err) {
            return [{ kind: "error", location: base, error: readErrorText(err) }];
          }
          return decodeText(text, base, decodeOptionsOf(options, "error"));
        },
      };
    },
  };
}

async function readBounded(stream: Readable, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > maxBytes) {
      stream.destroy();
      throw new Error(fileTooLarge("standard input", undefined, maxBytes));
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A unit that reads as one input error of `file`. */
function errorUnit(file: string, error: string): SourceUnit {
  return {
    name: file,
    async read() {
      return [{ kind: "error", location: { file }, error }];
    },
  };
}

/**
 * Files up to this size are read whole by `stream()` too: one buffer of this size is no memory concern, and
 * skips the streaming machinery for the many small files of a Git checkout.
 */
export const STREAM_MIN_BYTES = 256 * 1024;

/** Bytes read to tell JSON from YAML: at least the 4096 characters `decodeText` looks at. */
const HEAD_BYTES = 16 * 1024;

/** How `stream()` and `raw()` read a file: whole (as `read()` does), streamed as YAML or as a JSON List, or an error. */
type ReadPlan =
  | { mode: "whole" }
  | { mode: "yaml" }
  | { mode: "json"; size: number }
  | { mode: "json-whole"; size: number }
  | { mode: "error"; doc: SourceDoc };

/** A file of the local disk: read whole, streamed, or given undecoded in parts (see SourceUnit). */
class FileUnit implements SourceUnit {
  private readonly decodeOptions: DecodeOptions;
  /** The decode options of the streamed reads, which also count the bytes they read. */
  private readonly meter: DecodeOptions & { onRead?: (bytes: number) => void };
  private readonly base: { file: string };

  constructor(
    readonly name: string,
    private readonly options: SourceOptions,
    nonKubernetes: "skip" | "error",
  ) {
    this.decodeOptions = decodeOptionsOf(options, nonKubernetes);
    this.meter = options.onRead === undefined ? this.decodeOptions : { ...this.decodeOptions, onRead: options.onRead };
    this.base = { file: name };
  }

  async read(): Promise<SourceDoc[]> {
    const whole = await this.readWhole();
    return "docs" in whole ? whole.docs : decodeText(whole.text, this.base, this.decodeOptions);
  }

  async *stream(): AsyncGenerator<SourceDoc> {
    const p = await this.plan();
    if (p.mode === "error") {
      yield p.doc;
      return;
    }
    if (p.mode === "whole" || p.mode === "json-whole") {
      yield* await this.read();
      return;
    }
    const { name, base, meter, options } = this;
    const docs =
      p.mode === "json"
        ? streamJsonList(name, base, { ...meter, size: p.size, maxJsonParseBytes: options.maxJsonParseBytes })
        : streamYaml(name, base, meter);
    try {
      yield* docs;
    } catch (err) {
      yield this.error(readErrorText(err));
    }
  }

  async *raw(): AsyncGenerator<RawPart> {
    const p = await this.plan();
    if (p.mode === "error") {
      yield { kind: "docs", docs: [p.doc] };
      return;
    }
    if (p.mode === "whole") {
      const whole = await this.readWhole();
      if ("docs" in whole) yield { kind: "docs", docs: whole.docs };
      else yield { kind: "text", text: whole.text, base: this.base, options: this.decodeOptions };
      return;
    }
    const { name, base, meter, options } = this;
    const parts =
      p.mode === "yaml"
        ? streamYamlParts(name, base, meter)
        : streamJsonListParts(name, base, {
            ...meter,
            size: p.size,
            maxJsonParseBytes: options.maxJsonParseBytes,
            whole: p.mode === "json-whole",
          });
    try {
      yield* parts;
    } catch (err) {
      yield { kind: "docs", docs: [this.error(readErrorText(err))] };
    }
  }

  private async plan(): Promise<ReadPlan> {
    let size: number;
    let head: string;
    try {
      const info = await stat(this.name);
      if (info.isDirectory() || info.size <= STREAM_MIN_BYTES) return { mode: "whole" };
      size = info.size;
      head = await readHead(this.name);
    } catch (err) {
      return { mode: "error", doc: this.error(readErrorText(err)) };
    }
    const json = looksLikeJson(head);
    // lib's own test (decode.ts): the first character after a BOM and spaces, tabs and line breaks.
    const first = /^\uFEFF?[ \t\r\n]*([^ \t\r\n])/.exec(head)?.[1];
    // Odd whitespace before the text (a form feed, 16 KiB of blanks): read whole, as read() decides it.
    if (first === undefined || json !== (first === "{" || first === "[")) return { mode: "whole" };
    // Parsed whole by read(); raw() still gives its items one by one when it is a List (see RawJsonList.whole).
    if (json && size <= this.options.maxJsonParseBytes) return { mode: "json-whole", size };
    return json ? { mode: "json", size } : { mode: "yaml" };
  }

  /** The whole text, or the unit's one input error. */
  private async readWhole(): Promise<{ text: string } | { docs: SourceDoc[] }> {
    const { name, options } = this;
    try {
      const info = await stat(name);
      if (info.isDirectory()) return { docs: [this.error("cannot read the folder")] };
      if (info.size > options.maxFileBytes) {
        return { docs: [this.error(fileTooLarge("file", info.size, options.maxFileBytes))] };
      }
      const text = await readFile(name, "utf8");
      options.onRead?.(info.size);
      return { text };
    } catch (err) {
      return { docs: [this.error(readErrorText(err))] };
    }
  }

  private error(error: string): SourceDoc {
    return { kind: "error", location: { file: this.name }, error };
  }
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
