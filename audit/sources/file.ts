/** Files named on the command line, and the files of folder trees (a Git checkout). */
import type { Dirent } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { decodeText } from "./decode.js";
import { DOCUMENT_FILE, type Source, type SourceDoc, type SourceOptions, type SourceUnit } from "./types.js";

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

function fileUnit(path: string, options: SourceOptions, nonKubernetes: "skip" | "error"): SourceUnit {
  return {
    name: path,
    async read(): Promise<SourceDoc[]> {
      let text: string;
      try {
        const info = await stat(path);
        if (info.isDirectory()) return [{ kind: "error", location: { file: path }, error: "cannot read the folder" }];
        if (info.size > options.maxFileBytes) {
          return [
            {
              kind: "error",
              location: { file: path },
              error: `file is ${info.size} bytes, over the limit of ${options.maxFileBytes}`,
            },
          ];
        }
        text = await readFile(path, "utf8");
      } catch (err) {
        return [{ kind: "error", location: { file: path }, error: readErrorText(err) }];
      }
      return decodeText(text, { file: path }, { nonKubernetes, maxJsonBytes: options.maxFileBytes });
    },
  };
}

export function readErrorText(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "file does not exist";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return `cannot be read: ${err instanceof Error ? err.message : String(err)}`;
}
