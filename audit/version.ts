/**
 * tollgate's version, read from package.json. The caller says where package.json is relative to its own module
 * (`new URL("../../package.json", import.meta.url)`), since that differs between the sources, the built CLI
 * (dist/cli) and a Lambda bundle; a bundle that ships no package.json gives 0.0.0.
 */
import { readFileSync } from "node:fs";

const versions = new Map<string, string>();

/** The `version` of the package.json at `packageJson` (our own file, read once), or 0.0.0 when there is none. */
export function toolVersion(packageJson: URL): string {
  const known = versions.get(packageJson.href);
  if (known !== undefined) return known;
  let version = "0.0.0";
  try {
    const pkg: unknown = JSON.parse(readFileSync(packageJson, "utf8"));
    const v = (pkg as { version?: unknown }).version;
    if (typeof v === "string") version = v;
  } catch {
    // Not shipped in the Lambda package.
  }
  versions.set(packageJson.href, version);
  return version;
}
