import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StorageError } from "../../../../lib/errors.js";
import { type BlobStore, createFsStore, folderPrefix, writeInOrder } from "../../../../lib/storage/index.js";

let root: string;
let store: BlobStore;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "tollgate-fs-store-"));
  store = createFsStore(root);
});
afterEach(async () => {
  store.close();
  await rm(root, { recursive: true, force: true });
});

async function keys(prefix?: string): Promise<string[]> {
  const out: string[] = [];
  for await (const b of store.list(prefix)) out.push(b.key);
  return out;
}

describe("createFsStore", () => {
  it("writes text, bytes and streams, creating folders, and reads them back", async () => {
    // Act
    await store.write("a/b/text.txt", "héllo");
    await store.write("a/bytes.bin", new Uint8Array([0, 1, 255]));
    await store.write("stream.txt", Readable.from(["one ", "two"]));

    // Assess
    expect(await store.readText("a/b/text.txt")).toBe("héllo");
    expect([...(await store.readBytes("a/bytes.bin"))]).toEqual([0, 1, 255]);
    expect(await store.readText("stream.txt")).toBe("one two");
    expect(await readFile(join(root, "a", "b", "text.txt"), "utf8")).toBe("héllo");
  });

  it("reads an object as a stream, and a missing one fails at the call as not-found", async () => {
    await store.write("s/big.txt", "x".repeat(200_000));
    const chunks: Buffer[] = [];
    for await (const c of await store.readStream("s/big.txt")) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString("utf8")).toBe("x".repeat(200_000));
    await expect(store.readStream("s/missing.txt")).rejects.toMatchObject({
      name: "StorageError",
      failure: "not-found",
    });
  });

  it("replaces an object whole and leaves no temporary file", async () => {
    await store.write("x.json", "first");
    await store.write("x.json", "second");
    expect(await store.readText("x.json")).toBe("second");
    expect(await readdir(root)).toEqual(["x.json"]);
  });

  it.each([
    { name: "everything", prefix: undefined, want: ["a/1.yaml", "a/b/2.yaml", "ab.yaml", "c/3.yaml"] },
    { name: "a folder", prefix: "a/", want: ["a/1.yaml", "a/b/2.yaml"] },
    { name: "a key prefix across names", prefix: "a", want: ["a/1.yaml", "a/b/2.yaml", "ab.yaml"] },
    { name: "a nested folder", prefix: "a/b/", want: ["a/b/2.yaml"] },
    { name: "a missing folder", prefix: "zzz/", want: [] },
  ])("lists $name in key order", async ({ prefix, want }) => {
    for (const k of ["c/3.yaml", "a/b/2.yaml", "ab.yaml", "a/1.yaml"]) await store.write(k, k);
    expect(await keys(prefix)).toEqual(want);
  });

  it("gives sizes in listings", async () => {
    await store.write("s.txt", "12345");
    const all = [];
    for await (const b of store.list()) all.push(b);
    expect(all).toMatchObject([{ key: "s.txt", size: 5 }]);
    expect(all[0]?.lastModified).toBeInstanceOf(Date);
  });

  it("reports a missing object as a not-found StorageError naming the path", async () => {
    const err = await store.readText("nope.yaml").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageError);
    expect(err).toMatchObject({ code: "STORAGE", failure: "not-found" });
    expect((err as Error).message).toBe(`cannot read ${join(root, "nope.yaml")}: ENOENT`);
  });

  it("refuses keys outside its root", async () => {
    const err = await store.write("../escape.txt", "x").catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "StorageError", failure: "invalid" });
    expect((err as Error).message).toContain('key "../escape.txt" is outside');
  });

  it("removes objects; a key that names nothing is not an error", async () => {
    for (const k of ["r/a.json", "r/b/c.json", "keep.json"]) await store.write(k, k);
    await store.remove(["r/a.json", "r/b/c.json", "r/missing.json"]);
    await store.remove(["r/a.json"]);
    expect(await keys()).toEqual(["keep.json"]);
    // The folders the removed files emptied go with them, as S3 has no folders; the root stays.
    expect(await readdir(root)).toEqual(["keep.json"]);
    await store.remove(["keep.json"]);
    expect(await readdir(root)).toEqual([]);
    await expect(store.remove(["../outside.json"])).rejects.toMatchObject({ name: "StorageError", failure: "invalid" });
  });

  it("reports a write over a folder as a StorageError", async () => {
    await store.write("dir/file.txt", "x");
    const err = await store.write("dir", "x").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageError);
    expect((err as Error).message).toMatch(/^cannot write .*dir: EISDIR$/);
  });
});

describe("writeInOrder", () => {
  it("writes data first, then the commit objects in order", async () => {
    const order: string[] = [];
    const spy: BlobStore = {
      ...store,
      write: async (key, body) => {
        order.push(key);
        await store.write(key, body);
      },
    };
    await writeInOrder(
      spy,
      [
        { key: "run/a.json", body: "a" },
        { key: "run/b.json", body: "b" },
      ],
      [
        { key: "run/index.json", body: "{}" },
        { key: "latest.json", body: "{}" },
      ],
    );
    expect(order.slice(2)).toEqual(["run/index.json", "latest.json"]);
    expect(new Set(order.slice(0, 2))).toEqual(new Set(["run/a.json", "run/b.json"]));
  });

  it("writes no commit object when a data write fails", async () => {
    await writeFile(join(root, "blocker"), "a file where a folder is needed");
    const err = await writeInOrder(
      store,
      [{ key: "blocker/a.json", body: "a" }],
      [{ key: "index.json", body: "{}" }],
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageError);
    expect(await keys()).toEqual(["blocker"]);
  });
});

describe("folderPrefix", () => {
  it.each([
    { prefix: "", want: "" },
    { prefix: "reports", want: "reports/" },
    { prefix: "reports/", want: "reports/" },
  ])("$prefix → $want", ({ prefix, want }) => expect(folderPrefix(prefix)).toBe(want));
});
