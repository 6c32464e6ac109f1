import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { builtEntry } from "../../../../audit/cli/built-entry.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A checkout with one source and a build made at `builtAt` (seconds since the epoch). */
function checkout(sourceAt: number, builtAt: number, inputs = ["lib/a.ts"]): URL {
  const root = mkdtempSync(join(tmpdir(), "tollgate-built-"));
  dirs.push(root);
  mkdirSync(join(root, "lib"));
  mkdirSync(join(root, "dist/cli"), { recursive: true });
  writeFileSync(join(root, "lib/a.ts"), "export {};\n");
  utimesSync(join(root, "lib/a.ts"), sourceAt, sourceAt);
  writeFileSync(join(root, "dist/cli/build.json"), JSON.stringify({ inputs }));
  writeFileSync(join(root, "dist/cli/main.mjs"), "\n");
  utimesSync(join(root, "dist/cli/main.mjs"), builtAt, builtAt);
  return pathToFileURL(`${root}/`);
}

describe("builtEntry", () => {
  it("runs the build when no source is newer than it", () => {
    const root = checkout(1000, 2000);
    expect(builtEntry(root)?.href).toBe(new URL("dist/cli/main.mjs", root).href);
  });

  it("runs the sources when one changed after the build", () => {
    expect(builtEntry(checkout(3000, 2000))).toBeUndefined();
  });

  it("runs the sources when a source the build read is gone, or there is no build", () => {
    expect(builtEntry(checkout(1000, 2000, ["lib/a.ts", "lib/gone.ts"]))).toBeUndefined();
    const root = checkout(1000, 2000);
    rmSync(new URL("dist/cli/main.mjs", root));
    expect(builtEntry(root)).toBeUndefined();
  });
});
