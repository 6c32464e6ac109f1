/**
 * tollgate's own report folders, which a folder tree never reads: `tollgate audit --out ci-reports .` must not audit
 * the reports of its earlier runs (each run would read more documents than the last: report.json, the policy
 * reports, index.json...). A folder is one when it is the run's `--out` folder, or when it holds a report prefix's
 * `latest.json` (kind AuditLatest) or a run folder's `index.json` (kind AuditRunIndex), both `tollgate.dev/*`, as
 * audit/sink.ts writes them; those two files are also left out where they lie loose (`--out` being the audited
 * folder itself). The folder named on the command line is always read.
 */
import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";

/** The files that mark a report folder, and the kind each has (audit/sink.ts). */
const MARKERS: ReadonlyMap<string, string> = new Map([
  ["latest.json", "AuditLatest"],
  ["index.json", "AuditRunIndex"],
]);

/** A marker is small (a run's summary or file list); anything larger is not one. */
const MARKER_MAX_BYTES = 1024 * 1024;

export interface ReportFolderFilter {
  /** Whether a folder below the named one is a report folder, left out with everything under it. */
  skipsFolder(path: string): Promise<boolean>;
  /** Whether a file is a report folder's marker (`latest.json`, `index.json` of tollgate's). */
  skipsFile(path: string, name: string): Promise<boolean>;
}

/** @param excluded folders to leave out whatever they hold (the run's local `--out`) */
export function reportFolderFilter(excluded: readonly string[] = []): ReportFolderFilter {
  const out = new Set(excluded.map((p) => resolve(p)));
  return {
    async skipsFolder(path) {
      if (out.has(resolve(path))) return true;
      for (const [name, kind] of MARKERS) if (await isMarker(join(path, name), kind)) return true;
      return false;
    },
    async skipsFile(path, name) {
      const kind = MARKERS.get(name);
      return kind !== undefined && (await isMarker(path, kind));
    },
  };
}

async function isMarker(path: string, kind: string): Promise<boolean> {
  try {
    const info = await stat(path);
    if (!info.isFile() || info.size > MARKER_MAX_BYTES) return false;
    const value: unknown = JSON.parse(await readFile(path, "utf8"));
    if (typeof value !== "object" || value === null) return false;
    const { apiVersion, kind: found } = value as Record<string, unknown>;
    return typeof apiVersion === "string" && apiVersion.startsWith("tollgate.dev/") && found === kind;
  } catch {
    return false;
  }
}
