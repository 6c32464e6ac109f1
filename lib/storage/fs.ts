/**
 * The filesystem BlobStore: the only place in lib/ (with the S3 store, later) that touches I/O.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { StorageError } from "../errors.js";

/** File names a policy bundle or an input folder is made of. */
export const POLICY_FILE = /\.(ya?ml|json|go)$|^go\.mod$/i;

const SKIPPED_DIRS = new Set([".git", "node_modules"]);

/** Whether a path is a directory (false for a file); throws StorageError when it does not exist. */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch (e) {
    throw new StorageError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { cause: e });
  }
}

/** Every file under `dir` whose name matches `pattern`, sorted, skipping .git, node_modules and hidden folders. */
export async function listFiles(dir: string, pattern: RegExp): Promise<string[]> {
  const out: string[] = [];
  async function walk(d: string): Promise<void> {
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch (e) {
      throw new StorageError(`cannot list ${d}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { cause: e });
    }
    for (const ent of entries) {
      const p = join(d, ent.name);
      if (ent.isDirectory()) {
        if (SKIPPED_DIRS.has(ent.name) || ent.name.startsWith(".")) continue;
        await walk(p);
      } else if (ent.isFile() && pattern.test(ent.name)) {
        out.push(p);
      }
    }
  }
  await walk(dir);
  return out.sort();
}

/** Reads a UTF-8 text file. */
export async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    throw new StorageError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { cause: e });
  }
}

/** A path relative to a root, with forward slashes. */
export function relativePath(root: string, path: string): string {
  const r = relative(root, path);
  return sep === "/" ? r : r.split(sep).join("/");
}
