/**
 * Command-line inputs → one entry per object or per document that could not be used: files (multi-document YAML,
 * JSON, `kind: List` items each as an object), folder trees, and standard input. Every document gives exactly one
 * entry (or one per List item) and a bad document never stops the run (kubeconform). Empty documents (a trailing
 * `---`, a comment-only document) are skipped, as kubectl skips them.
 *
 * When the auditor's `audit/sources/` lands, this module is its file/folder source for the CLI.
 */
import type { Dirent, Stats } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { ConfigError, parseDocuments, unwrapList } from "#lib";

/**
 * Where an entry comes from. Documents are numbered from 0 as the library numbers them (`parseDocuments`,
 * `PolicyFailure.document`), so that the CLI's own messages and the decoder's agree; lines from 1.
 */
export interface InputLocation {
  /** The file as named on the command line (or found under a named folder); "<stdin>" for "-". */
  file: string;
  /** 0-based index of the document in the file, empty documents included; absent for a file-level error. */
  document?: number;
  /** 1-based line where the document's content starts. */
  line?: number;
  /** 0-based index of the object within a `kind: List` document. */
  item?: number;
}

/** A decoded object whose apiVersion and kind are strings. */
export type KubeObject = Record<string, unknown> & { apiVersion: string; kind: string };

/**
 * An object to validate, or a document (or file) that cannot be used. An error's `error` is the text after
 * `<file>: `; for a document it starts with `document <n> (line <l>): `, the decoder's own prefix.
 */
export type InputEntry =
  | { kind: "object"; location: InputLocation; object: KubeObject }
  | { kind: "error"; location: InputLocation; error: string };

export const STDIN = "-";
const STDIN_NAME = "<stdin>";
const EXTENSIONS = [".yaml", ".yml", ".json"];

/**
 * Expands the command-line inputs into the list of files to read, in order: a folder becomes its `*.yaml`,
 * `*.yml` and `*.json` files, searched recursively in name order (hidden entries and `node_modules` left out).
 *
 * @throws ConfigError when a named path does not exist (exit 2: nothing was validated).
 */
export async function expandInputs(inputs: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const input of inputs) {
    if (input === STDIN) {
      files.push(STDIN);
      continue;
    }
    const info = await statOrThrow(input, "input");
    if (info.isDirectory()) files.push(...(await listFolder(input)));
    else files.push(input);
  }
  return files;
}

/** @throws ConfigError naming the path when it cannot be seen. */
export async function statOrThrow(path: string, what: string): Promise<Stats> {
  try {
    return await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" || code === "ENOTDIR" ? "does not exist" : `cannot be read (${code ?? "error"})`;
    throw new ConfigError(`${what} path ${JSON.stringify(path)} ${reason}`, { cause: err });
  }
}

async function listFolder(folder: string): Promise<string[]> {
  const out: string[] = [];
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (err) {
    throw new ConfigError(`input folder ${JSON.stringify(folder)} cannot be read`, { cause: err });
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.name.startsWith(".") || e.name === "node_modules") continue;
    const path = join(folder, e.name);
    if (e.isDirectory()) out.push(...(await listFolder(path)));
    else if ((e.isFile() || e.isSymbolicLink()) && EXTENSIONS.some((x) => e.name.toLowerCase().endsWith(x))) {
      out.push(path);
    }
  }
  return out;
}

export interface ReadOptions {
  /** Largest file read; a larger one gives one error entry. */
  maxInputBytes: number;
  stdin: Readable;
}

/** Reads and decodes one input file (or standard input) into entries. */
export async function readEntries(file: string, options: ReadOptions): Promise<InputEntry[]> {
  const name = file === STDIN ? STDIN_NAME : file;
  let text: string;
  try {
    text = file === STDIN ? await readStream(options.stdin, options.maxInputBytes) : await readBounded(file, options);
  } catch (err) {
    return [{ kind: "error", location: { file: name }, error: readErrorText(err) }];
  }
  return decodeEntries(name, text);
}

/** Splits a file's text into documents and documents into objects. */
export function decodeEntries(file: string, text: string): InputEntry[] {
  const out: InputEntry[] = [];
  for (const doc of parseDocuments(text)) {
    const location: InputLocation = { file, document: doc.document, line: doc.line };
    if (doc.error !== undefined) {
      // Already "document <n> (line <l>): <detail>".
      out.push({ kind: "error", location, error: doc.error });
      continue;
    }
    const obj = doc.object;
    if (obj === undefined || obj === null) continue;
    const items = unwrapList(obj);
    if (items === undefined) out.push(toEntry(obj, location));
    else for (const [i, item] of items.entries()) out.push(toEntry(item, { ...location, item: i }));
  }
  return out;
}

function toEntry(obj: unknown, location: InputLocation): InputEntry {
  const error = (detail: string): InputEntry => ({ kind: "error", location, error: documentText(location) + detail });
  if (!isMapping(obj)) return error(`expected a Kubernetes object (a mapping), got ${typeName(obj)}`);
  // apimachinery's wording for an object without type information (runtime.NewMissingKindErr and friends).
  if (typeof obj.kind !== "string" || obj.kind === "") return error("Object 'Kind' is missing");
  if (typeof obj.apiVersion !== "string" || obj.apiVersion === "") return error("Object 'apiVersion' is missing");
  return { kind: "object", location, object: obj as KubeObject };
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function typeName(v: unknown): string {
  if (Array.isArray(v)) return "a sequence";
  if (typeof v === "string") return "a string";
  if (typeof v === "number" || typeof v === "bigint") return "a number";
  if (typeof v === "boolean") return "a boolean";
  return typeof v;
}

async function readBounded(file: string, options: ReadOptions): Promise<string> {
  const info = await stat(file);
  if (info.size > options.maxInputBytes) throw new TooLarge(options.maxInputBytes);
  return readFile(file, "utf8");
}

async function readStream(stream: Readable, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > maxBytes) {
      stream.destroy();
      throw new TooLarge(maxBytes);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString("utf8");
}

class TooLarge extends Error {
  override readonly name = "TooLarge";
  constructor(readonly limit: number) {
    super(`file is larger than ${limit} bytes (TOLLGATE_MAX_INPUT_BYTES)`);
  }
}

function readErrorText(err: unknown): string {
  if (err instanceof TooLarge) return err.message;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "file does not exist";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "is a folder";
  return `cannot be read: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * `document <n> (line <l>): ` (plus `item <i>: ` inside a List) in the decoder's format, or "" for an entry not
 * tied to a document.
 */
export function documentText(location: InputLocation): string {
  if (location.document === undefined) return "";
  const line = location.line === undefined ? "" : ` (line ${location.line})`;
  const item = location.item === undefined ? "" : `item ${location.item}: `;
  return `document ${location.document}${line}: ${item}`;
}
