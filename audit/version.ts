/**
 * tollgate's version, from package.json one folder above this file's: the repository when run from source. A
 * Lambda bundle is one file whose folder has no package.json beside it: the version is then 0.0.0.
 */
import { readFileSync } from "node:fs";

let version: string | undefined;

/** The `version` of package.json (our own file, read once), or 0.0.0 when there is none. */
export function toolVersion(): string {
  if (version !== undefined) return version;
  version = "0.0.0";
  try {
    const pkg: unknown = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    const v = (pkg as { version?: unknown }).version;
    if (typeof v === "string") version = v;
  } catch {
    // Not shipped in the Lambda package.
  }
  return version;
}
