/**
 * The filesystem BlobStore, and the file reads of the bundle loader. With the S3 store and the folder walk
 * (walk.ts), the only place in lib/ that touches I/O.
 */
import { randomBytes } from "node:crypto";
import { createWriteStream, type Dirent } from "node:fs";
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { StorageError, type StorageFailure } from "../errors.js";
import type { BlobBody, BlobInfo, BlobStore } from "./blob-store.js";

/** File names a policy bundle folder is made of. */
export const POLICY_FILE = /\.(ya?ml|json|go)$|^go\.mod$/i;

/** What an errno code says about a failure. */
function fsFailure(e: unknown): StorageFailure {
  switch ((e as NodeJS.ErrnoException).code) {
    case "ENOENT":
    case "ENOTDIR":
      return "not-found";
    case "EACCES":
    case "EPERM":
      return "access-denied";
    case "EISDIR":
    case "ENAMETOOLONG":
      return "invalid";
    case "EMFILE":
    case "ENFILE":
    case "EBUSY":
    case "EAGAIN":
      return "unavailable";
    default:
      return "other";
  }
}

/** A StorageError naming what failed on which path, classified by the errno code. */
export function fsError(what: string, path: string, e: unknown): StorageError {
  const code = (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
  return new StorageError(`cannot ${what} ${path}: ${code}`, { cause: e, failure: fsFailure(e) });
}

/** Whether a path is a directory (false for a file); throws StorageError when it does not exist. */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch (e) {
    throw fsError("read", path, e);
  }
}

/** Reads a UTF-8 text file. */
export async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    throw fsError("read", path, e);
  }
}

/** A path relative to a root, with forward slashes. */
function relativePath(root: string, path: string): string {
  const r = relative(root, path);
  return sep === "/" ? r : r.split(sep).join("/");
}

/**
 * A BlobStore over a folder: keys are paths relative to `root` with `/` separators. Keys that would leave the root
 * (`..`, absolute paths) are refused. Listing walks every file (hidden ones included), in key order.
 */
export function createFsStore(root: string): BlobStore {
  const base = resolve(root);
  function pathOf(key: string): string {
    const p = resolve(base, ...key.split("/"));
    if (p !== base && !p.startsWith(base + sep)) {
      throw new StorageError(`key ${JSON.stringify(key)} is outside ${base}`, { failure: "invalid" });
    }
    return p;
  }
  async function* walk(dir: string): AsyncGenerator<BlobInfo> {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if (fsFailure(e) === "not-found") return;
      throw fsError("list", dir, e);
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const ent of entries) {
      const p = join(dir, ent.name);
      if (ent.isDirectory()) {
        yield* walk(p);
      } else if (ent.isFile()) {
        let s: Awaited<ReturnType<typeof stat>>;
        try {
          s = await stat(p);
        } catch (e) {
          throw fsError("read", p, e);
        }
        yield { key: relativePath(base, p), size: s.size, lastModified: s.mtime };
      }
    }
  }
  return {
    location: base,
    async readText(key) {
      const p = pathOf(key);
      try {
        return await readFile(p, "utf8");
      } catch (e) {
        throw fsError("read", p, e);
      }
    },
    async readBytes(key) {
      const p = pathOf(key);
      try {
        return new Uint8Array(await readFile(p));
      } catch (e) {
        throw fsError("read", p, e);
      }
    },
    async readStream(key) {
      const p = pathOf(key);
      try {
        // Opened here, so that a missing file is a StorageError of this call, not of the stream.
        const handle = await open(p, "r");
        return handle.createReadStream();
      } catch (e) {
        throw fsError("read", p, e);
      }
    },
    async *list(prefix = "") {
      // Walk the deepest folder the prefix names, then keep the keys that start with the whole prefix, so that
      // `reports/2026` lists `reports/2026/...` and `reports/20261122.json` alike, as S3 does.
      const cut = prefix.lastIndexOf("/");
      const dir = cut === -1 ? base : pathOf(prefix.slice(0, cut));
      for await (const info of walk(dir)) if (info.key.startsWith(prefix)) yield info;
    },
    async write(key, body: BlobBody) {
      const p = pathOf(key);
      const tmp = `${p}.${randomBytes(6).toString("hex")}.tmp`;
      try {
        await mkdir(dirname(p), { recursive: true });
        if (body instanceof Readable) await pipeline(body, createWriteStream(tmp));
        else await writeFile(tmp, body);
        await rename(tmp, p);
      } catch (e) {
        await rm(tmp, { force: true }).catch(() => {});
        throw fsError("write", p, e);
      }
    },
    async remove(keys) {
      for (const key of keys) {
        const p = pathOf(key);
        try {
          await rm(p, { force: true });
        } catch (e) {
          throw fsError("delete", p, e);
        }
        // Folders are made by writes and unmade here, as S3 has none: an emptied folder goes, up to the root.
        for (let dir = dirname(p); dir !== base && dir.startsWith(base + sep); dir = dirname(dir)) {
          try {
            await rmdir(dir);
          } catch {
            break; // not empty (or gone already)
          }
        }
      }
    },
    close() {},
  };
}
