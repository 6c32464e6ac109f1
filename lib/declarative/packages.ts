/**
 * The Go packages of a bundle, from its parsed `*.go` files and its `go.mod` files: a package is a folder, named by
 * the package clause most of its files share; its import path is the module path of the nearest `go.mod` above it
 * plus the folder below that (none without a go.mod: imports then resolve by folder suffix, go-types.ts). A package
 * with syntax errors, a file without a package clause, or a type declared twice cannot be trusted: it is listed in
 * `failed`, and its types fail where they are used.
 */
import { appendAll } from "../objects/append.js";
import { type BundleFile, EVERY_KIND, type PolicyFailure } from "../policy/types.js";
import type { GoFile } from "./go-source.js";
import type { GoPackage, SourceRef } from "./go-types.js";

/** Records a problem of the bundle (the family fills in `family`). */
export type Fail = (f: Omit<PolicyFailure, "family">) => void;

export interface BundlePackages {
  packages: GoPackage[];
  /** Packages that cannot be trusted, with the first place that says why. */
  failed: Map<GoPackage, SourceRef>;
}

export function baseName(path: string): string {
  const i = path.lastIndexOf("/");
  return i === -1 ? path : path.slice(i + 1);
}

function dirName(path: string): string {
  const i = path.lastIndexOf("/");
  return i === -1 ? "" : path.slice(0, i);
}

/** The module path of a go.mod file (its `module` directive). */
export function goModulePath(content: string): string | undefined {
  for (const raw of content.split("\n")) {
    const line = raw.replace(/\/\/.*$/, "").trim();
    if (!line.startsWith("module")) continue;
    const rest = line.slice("module".length).trim();
    if (rest === "" || rest === "(") continue;
    return rest.replace(/^"(.*)"$/, "$1").replace(/^`(.*)`$/, "$1");
  }
  return undefined;
}

/** The import path of a folder, from the module paths of the bundle's go.mod files (by folder). */
function importPaths(files: readonly BundleFile[], fail: Fail): (dir: string) => string | undefined {
  const modules = new Map<string, string>();
  for (const f of files) {
    if (baseName(f.path) !== "go.mod") continue;
    const mod = goModulePath(f.content);
    if (mod === undefined)
      fail({ severity: "warning", file: f.path, message: "go.mod has no module directive: ignored" });
    else modules.set(dirName(f.path), mod);
  }
  return (dir) => {
    let best: string | undefined;
    for (const modDir of modules.keys()) {
      if (modDir !== "" && dir !== modDir && !dir.startsWith(`${modDir}/`)) continue;
      if (best === undefined || modDir.length > best.length) best = modDir;
    }
    if (best === undefined) return undefined;
    const rel = best === "" ? dir : dir.slice(best.length + 1);
    return rel === "" ? modules.get(best) : `${modules.get(best)}/${rel}`;
  };
}

/** The package clause most of a folder's files share. */
function majorityName(dirFiles: readonly GoFile[]): string | undefined {
  const counts = new Map<string, number>();
  for (const f of dirFiles)
    if (f.packageName !== undefined) counts.set(f.packageName, (counts.get(f.packageName) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** The files of a folder that belong to package `name`, and the first sign that the package is broken. */
function packageFiles(
  dirFiles: readonly GoFile[],
  name: string | undefined,
  fail: Fail,
): { files: GoFile[]; broken: SourceRef | undefined } {
  const files: GoFile[] = [];
  let broken: SourceRef | undefined;
  for (const f of dirFiles) {
    // A file that does not parse may declare any type, so the kinds it breaks cannot be known: every kind.
    for (const s of f.syntaxErrors) {
      broken ??= { file: f.path, line: s.line };
      fail({ severity: "error", file: f.path, path: `line ${s.line}`, kinds: [EVERY_KIND], message: s.message });
    }
    if (f.packageName === undefined) {
      if (f.syntaxErrors.length === 0)
        fail({ severity: "error", file: f.path, kinds: [EVERY_KIND], message: "no package clause" });
      broken ??= { file: f.path, line: 1 };
      continue;
    }
    if (f.packageName !== name) {
      fail({
        severity: "warning",
        file: f.path,
        message: `declares package ${f.packageName}, but the folder's package is ${name}: ignored`,
      });
      continue;
    }
    files.push(f);
  }
  return { files, broken };
}

/** Adds the type and constant declarations of the package's files; the first duplicate type breaks it. */
function declare(pkg: GoPackage, fail: Fail): SourceRef | undefined {
  let broken: SourceRef | undefined;
  for (const f of pkg.files) {
    for (const t of f.types) {
      const prev = pkg.types.get(t.name);
      if (prev !== undefined) {
        fail({
          severity: "error",
          file: t.file,
          path: `line ${t.line}`,
          message: `type ${t.name} is declared twice (also at ${prev.file} line ${prev.line})`,
        });
        broken ??= { file: t.file, line: t.line };
        continue;
      }
      pkg.types.set(t.name, t);
    }
    appendAll(pkg.consts, f.consts);
  }
  return broken;
}

/** The packages of the parsed files, one per folder, in folder order. */
export function bundlePackages(files: readonly BundleFile[], parsed: readonly GoFile[], fail: Fail): BundlePackages {
  const importPathOf = importPaths(files, fail);
  const byDir = new Map<string, GoFile[]>();
  for (const f of parsed) {
    const d = dirName(f.path);
    const list = byDir.get(d) ?? [];
    list.push(f);
    byDir.set(d, list);
  }
  const packages: GoPackage[] = [];
  const failed = new Map<GoPackage, SourceRef>();
  for (const [dir, dirFiles] of [...byDir].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const name = majorityName(dirFiles);
    const { files: pkgFiles, broken } = packageFiles(dirFiles, name, fail);
    if (name === undefined) continue;
    const pkg: GoPackage = {
      dir,
      importPath: importPathOf(dir),
      name,
      files: pkgFiles,
      packageTags: pkgFiles.flatMap((f) => f.packageTags.map((t) => ({ ...t, file: f.path }))),
      types: new Map(),
      consts: [],
    };
    const duplicate = declare(pkg, fail);
    const reason = broken ?? duplicate;
    if (reason !== undefined) failed.set(pkg, reason);
    packages.push(pkg);
  }
  return { packages, failed };
}
