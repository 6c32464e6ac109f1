// Which entry `tollgate` runs (plain JS: bin.js loads it before tsx is registered).
import { readFileSync, statSync } from "node:fs";

/**
 * The built CLI under `root` (dist/cli/main.mjs, made by infra/build.mjs) when it is current: no source listed in
 * dist/cli/build.json is newer than it. Undefined when there is no build, a listed source is gone, or one changed.
 * @param {URL} root the repository root, ending in "/"
 * @returns {URL | undefined}
 */
export function builtEntry(root) {
  try {
    const entry = new URL("dist/cli/main.mjs", root);
    const builtAt = statSync(entry).mtimeMs;
    const { inputs } = JSON.parse(readFileSync(new URL("dist/cli/build.json", root), "utf8"));
    for (const input of inputs) if (statSync(new URL(input, root)).mtimeMs > builtAt) return undefined;
    return entry;
  } catch {
    return undefined;
  }
}
