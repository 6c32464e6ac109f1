/**
 * Bundle folders are read by lib/storage's folder walk: a bundle mounted from a ConfigMap (each file a link through
 * `..data` to a hidden timestamped folder) loads exactly as the same files in a plain folder.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { readBundleFiles } from "../../../../lib/bundle/source.js";
import { loadBundle } from "../../../../lib/index.js";

const POLICIES = fileURLToPath(new URL("../../../../examples/policies", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "tollgate-bundle-mount-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The examples' policies laid out as the kubelet mounts a ConfigMap volume. */
function mountedCopy(): string {
  const mount = join(scratch, "mount");
  const data = join(mount, "..2026_11_22_02_15_00.000000001");
  mkdirSync(data, { recursive: true });
  symlinkSync("..2026_11_22_02_15_00.000000001", join(mount, "..data"));
  for (const name of readdirSync(POLICIES)) {
    copyFileSync(join(POLICIES, name), join(data, name));
    symlinkSync(join("..data", name), join(mount, name));
  }
  return mount;
}

describe("a bundle mounted from a ConfigMap", () => {
  it("has the files, digest and kinds of the same bundle in a plain folder", async () => {
    // Prepare
    const mount = mountedCopy();

    // Act
    const [plainFiles, mountedFiles] = await Promise.all([readBundleFiles(POLICIES), readBundleFiles(mount)]);
    const [plain, mounted] = await Promise.all([loadBundle(POLICIES), loadBundle(mount)]);

    // Assess
    expect(mountedFiles.map((f) => f.path)).toEqual(readdirSync(POLICIES).sort());
    expect(mountedFiles).toEqual(plainFiles);
    expect(mounted.kinds.length).toBeGreaterThan(0);
    expect(mounted.digest).toBe(plain.digest);
    expect(mounted.kinds).toEqual(plain.kinds);
    expect(mounted.failures).toEqual(plain.failures);
  });
});
