/** lib/storage/walk.ts: the one folder walk (bundles, audited folders, validate's folders), on real files and links. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StorageError } from "../../../../lib/errors.js";
import { type WalkEntry, walkFolder } from "../../../../lib/storage/walk.js";

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "tollgate-walk-"));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function write(rel: string, content = "a: 1\n"): void {
  const path = join(base, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

function link(rel: string, target: string): void {
  const path = join(base, rel);
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(target, path);
}

const yaml = (name: string) => /\.ya?ml$/.test(name);

async function walk(rel: string, accept = yaml): Promise<WalkEntry[]> {
  const out: WalkEntry[] = [];
  for await (const e of walkFolder(join(base, rel), { accept, unreadable: "yield" })) out.push(e);
  return out;
}

async function relatives(rel: string, accept = yaml): Promise<string[]> {
  return (await walk(rel, accept)).map((e) => (e.kind === "file" ? e.relative : `unreadable:${e.relative}`));
}

describe("walkFolder", () => {
  it("gives accepted files in name order, depth first; leaves out .git, node_modules and hidden folders", async () => {
    // Prepare
    write("repo/b/deploy.yaml");
    write("repo/a.yaml");
    write("repo/a-b.yaml");
    write("repo/.hidden.yaml");
    write("repo/README.md");
    write("repo/.git/config.yaml");
    write("repo/node_modules/x/y.yaml");
    write("repo/.github/workflows/ci.yaml");

    // Act
    const entries = await walk("repo");

    // Assess
    expect(entries.map((e) => e.relative)).toEqual([".hidden.yaml", "a-b.yaml", "a.yaml", "b/deploy.yaml"]);
    expect(entries[3]).toEqual({
      kind: "file",
      path: join(base, "repo", "b", "deploy.yaml"),
      relative: "b/deploy.yaml",
    });
  });

  it("reads a ConfigMap or Secret volume: files are links through ..data to a hidden timestamped folder", async () => {
    // Prepare: the layout the kubelet's atomic writer makes.
    write("mount/..2026_11_22_02_15_00.123456789/policy.yaml");
    write("mount/..2026_11_22_02_15_00.123456789/tollgate.yaml");
    link("mount/..data", "..2026_11_22_02_15_00.123456789");
    link("mount/policy.yaml", "..data/policy.yaml");
    link("mount/tollgate.yaml", "..data/tollgate.yaml");

    // Act
    const entries = await walk("mount");

    // Assess: each file once, under its visible name.
    expect(entries).toEqual([
      { kind: "file", path: join(base, "mount", "policy.yaml"), relative: "policy.yaml" },
      { kind: "file", path: join(base, "mount", "tollgate.yaml"), relative: "tollgate.yaml" },
    ]);
  });

  it("follows links to folders inside the root, entering each folder once: a link cycle ends", async () => {
    // Prepare
    write("root/real/a.yaml");
    link("root/real/up", "..");
    link("root/real/self", ".");
    link("root/alias", "real");
    link("root/zz-alias", "real");

    // Act
    const found = await relatives("root");

    // Assess: `alias` comes first in name order and takes the folder; `real` and `zz-alias` lead to it again.
    expect(found).toEqual(["alias/a.yaml"]);
  });

  it("does not leave the root through a link, to a folder or to a file", async () => {
    // Prepare
    write("outside/secret.yaml");
    write("root/in.yaml");
    link("root/out-folder", "../outside");
    link("root/out-file.yaml", "../outside/secret.yaml");
    link("root/in-link.yaml", "in.yaml");

    // Act
    const found = await relatives("root");

    // Assess
    expect(found).toEqual(["in-link.yaml", "in.yaml"]);
  });

  it("gives a dangling link with an accepted name as a file (reading it fails visibly), and skips other names", async () => {
    // Prepare
    link("root/gone.yaml", "nowhere.yaml");
    link("root/gone-folder", "nowhere");

    // Act
    const found = await relatives("root");

    // Assess
    expect(found).toEqual(["gone.yaml"]);
  });

  it("the root may itself be a link; names stay under the root as given", async () => {
    // Prepare
    write("target/a.yaml");
    link("root", "target");

    // Act
    const entries = await walk("root");

    // Assess
    expect(entries).toEqual([{ kind: "file", path: join(base, "root", "a.yaml"), relative: "a.yaml" }]);
  });

  it("a folder that cannot be listed is an entry, or a StorageError by default", async () => {
    // Act
    const yielded = await relatives("missing");
    const thrown = (async () => {
      for await (const _ of walkFolder(join(base, "missing"), { accept: yaml })) {
        // nothing to read
      }
    })();

    // Assess
    expect(yielded).toEqual(["unreadable:"]);
    await expect(thrown).rejects.toBeInstanceOf(StorageError);
    await expect(thrown).rejects.toMatchObject({ failure: "not-found" });
  });
});
