/**
 * The one folder walk of tollgate: the files of a policy bundle folder (lib/bundle), of an audited folder tree and
 * of `tollgate validate`'s folders (audit/sources) are found by {@link walkFolder}, with one rule:
 *
 * - folders named `.git` or `node_modules`, and hidden folders (a name starting with `.`), are not entered; files are
 *   kept by the caller's `accept(name)`, hidden ones included;
 * - symbolic links are followed, to files and to folders, as long as their target lies inside the root given (its
 *   real path): a ConfigMap or Secret volume mounts each file as a link `<name> -> ..data/<name>`, where `..data` is
 *   itself a link to a hidden timestamped folder, so a mounted bundle is read through its visible names;
 * - a folder is entered once, under the first name the walk reaches it by, however many links lead to it: a link
 *   cycle ends there;
 * - a link whose target does not exist, or cannot be resolved, is given as a file when its name is accepted (reading
 *   it then fails, visibly), and left out otherwise;
 * - entries come in name order within each folder, depth first.
 */
import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { join, sep } from "node:path";
import type { StorageError } from "../errors.js";
import { fsError } from "./fs.js";

/** Folders never entered, besides hidden ones: version control metadata and dependencies. */
const SKIPPED_FOLDERS = new Set([".git", "node_modules"]);

export type WalkEntry =
  /** A file (or a link to one): its path under the root as given, and that path relative to the root with `/`. */
  | { kind: "file"; path: string; relative: string }
  /** A folder (the root included) that cannot be listed. */
  | { kind: "unreadable"; path: string; relative: string; error: StorageError };

export interface WalkOptions {
  /** Which file names are given. */
  accept(name: string): boolean;
  /** What a folder that cannot be listed is: thrown (the default), or given as an `unreadable` entry. */
  unreadable?: "throw" | "yield";
  /**
   * Whether to enter a folder below the root that the rule allows (its path under the root as given): the caller's
   * own exclusions, such as the auditor's report folders. Default: every one.
   */
  enter?(path: string): Promise<boolean>;
}

/**
 * The files under `root` (see the rule at the top of this file).
 *
 * @throws StorageError when a folder cannot be listed and `unreadable` is `throw`
 */
export async function* walkFolder(root: string, options: WalkOptions): AsyncGenerator<WalkEntry> {
  let rootReal: string;
  try {
    rootReal = await realpath(root);
  } catch (e) {
    yield* unreadable(root, "", e, options);
    return;
  }
  const walk = new Walk(rootReal, options);
  yield* walk.folder(root, "", rootReal);
}

class Walk {
  /** Real paths of the folders entered. */
  private readonly entered = new Set<string>();

  constructor(
    private readonly rootReal: string,
    private readonly options: WalkOptions,
  ) {}

  async *folder(path: string, relative: string, real: string): AsyncGenerator<WalkEntry> {
    this.entered.add(real);
    let entries: Dirent[];
    try {
      entries = await readdir(path, { withFileTypes: true });
    } catch (e) {
      yield* unreadable(path, relative, e, this.options);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const childPath = join(path, entry.name);
      const childRelative = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!isSkippedFolder(entry.name)) yield* this.enter(childPath, childRelative);
      } else if (entry.isFile()) {
        if (this.options.accept(entry.name)) yield { kind: "file", path: childPath, relative: childRelative };
      } else if (entry.isSymbolicLink()) {
        yield* this.link(entry.name, childPath, childRelative);
      }
    }
  }

  /** A folder below the root, unless it was entered already (through a link). */
  private async *enter(path: string, relative: string): AsyncGenerator<WalkEntry> {
    let real: string;
    try {
      real = await realpath(path);
    } catch (e) {
      yield* unreadable(path, relative, e, this.options);
      return;
    }
    if (!this.entered.has(real) && (await this.allows(path))) yield* this.folder(path, relative, real);
  }

  private async allows(path: string): Promise<boolean> {
    return this.options.enter === undefined || (await this.options.enter(path));
  }

  /** A link: followed to a file or a folder inside the root. */
  private async *link(name: string, path: string, relative: string): AsyncGenerator<WalkEntry> {
    let real: string;
    let isFolder: boolean;
    try {
      real = await realpath(path);
      isFolder = (await stat(real)).isDirectory();
    } catch {
      // Dangling, or a loop of links: reading it says so, when it is a file the caller wants.
      if (this.options.accept(name)) yield { kind: "file", path, relative };
      return;
    }
    if (real !== this.rootReal && !real.startsWith(this.rootReal + sep)) return;
    if (isFolder) {
      if (!isSkippedFolder(name) && !this.entered.has(real) && (await this.allows(path))) {
        yield* this.folder(path, relative, real);
      }
    } else if (this.options.accept(name)) {
      yield { kind: "file", path, relative };
    }
  }
}

/**
 * Whether a folder of this name is left out: `.git`, `node_modules` and hidden folders. Listings of an `s3://`
 * prefix apply the same rule to the folders of a key.
 */
export function isSkippedFolder(name: string): boolean {
  return SKIPPED_FOLDERS.has(name) || name.startsWith(".");
}

function* unreadable(path: string, relative: string, e: unknown, options: WalkOptions): Generator<WalkEntry> {
  const error = fsError("list", path, e);
  if (options.unreadable !== "yield") throw error;
  yield { kind: "unreadable", path, relative, error };
}
