/**
 * The S3 BlobStore against a real S3-compatible server (s3rver, started in this process on 127.0.0.1 with a free
 * port): reads, listing across pages, multipart uploads, streamed bodies, and the failure paths.
 */
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StorageError } from "../../lib/errors.js";
import { type BlobStore, createS3Store, openS3Location } from "../../lib/storage/index.js";
import { type S3TestServer, startS3Server } from "../helpers/s3-server.js";

let s3: S3TestServer;
let store: BlobStore;

beforeAll(async () => {
  s3 = await startS3Server({ buckets: ["tollgate-test"] });
  store = await createS3Store({ ...s3.options, bucket: "tollgate-test", pageSize: 7, maxAttempts: 2 });
});
afterAll(async () => {
  store?.close();
  await s3?.stop();
});

async function keys(prefix?: string, from: BlobStore = store): Promise<string[]> {
  const out: string[] = [];
  for await (const b of from.list(prefix)) out.push(b.key);
  return out;
}

describe("createS3Store", () => {
  it("writes and reads text and bytes", async () => {
    await store.write("rw/text.txt", "héllo wörld");
    await store.write("rw/bytes.bin", new Uint8Array([0, 1, 2, 255]));
    expect(await store.readText("rw/text.txt")).toBe("héllo wörld");
    expect([...(await store.readBytes("rw/bytes.bin"))]).toEqual([0, 1, 2, 255]);
  });

  it("reads an object as a stream, and a missing one fails at the call as not-found", async () => {
    await store.write("rw/streamed-read.txt", "héllo ".repeat(50_000));
    const chunks: Buffer[] = [];
    for await (const c of await store.readStream("rw/streamed-read.txt")) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString("utf8")).toBe("héllo ".repeat(50_000));
    await expect(store.readStream("rw/missing.txt")).rejects.toMatchObject({
      name: "StorageError",
      failure: "not-found",
    });
  });

  it("writes a streamed body of unknown length intact", async () => {
    await store.write("rw/stream.txt", Readable.from(["abc", "def", "ghi"]));
    expect(await store.readText("rw/stream.txt")).toBe("abcdefghi");
  });

  it("uploads a large body in parts and reads it back identical", async () => {
    const big = Buffer.alloc(12 * 1024 * 1024 + 5, "tollgate ");
    const small = await createS3Store({ ...s3.options, bucket: "tollgate-test", multipartThreshold: 6 * 1024 * 1024 });
    try {
      await small.write("big/report.json", big);
      const back = await small.readBytes("big/report.json");
      const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
      expect(back.byteLength).toBe(big.byteLength);
      expect(sha(back)).toBe(sha(big));
      expect(s3.requests.some((r) => r.method === "POST" && r.url.includes("big/report.json?uploads"))).toBe(true);
    } finally {
      small.close();
    }
  });

  it("lists every key under a prefix across pages, in key order", async () => {
    // Prepare: 25 keys with a page size of 7 → four ListObjectsV2 pages.
    const want = Array.from({ length: 25 }, (_, i) => `pages/obj-${String(i).padStart(2, "0")}.yaml`);
    await Promise.all([...want].reverse().map((k) => store.write(k, k)));
    await store.write("pages-other/x.yaml", "not under pages/");
    const before = s3.requests.length;

    // Act
    const got = await keys("pages/");

    // Assess
    expect(got).toEqual(want);
    const listCalls = s3.requests.slice(before).filter((r) => r.method === "GET" && r.url.includes("list-type=2"));
    expect(listCalls).toHaveLength(4);
  });

  it("lists nothing under a prefix with no objects", async () => {
    expect(await keys("nothing-here/")).toEqual([]);
  });

  it("gives sizes in listings", async () => {
    await store.write("sizes/five.txt", "12345");
    const all = [];
    for await (const b of store.list("sizes/")) all.push(b);
    expect(all).toMatchObject([{ key: "sizes/five.txt", size: 5 }]);
  });

  it("removes objects in DeleteObjects requests of at most 1,000 keys; missing keys are no error", async () => {
    // Prepare: 1,003 keys under one prefix (two DeleteObjects requests), and one that stays.
    const doomed = Array.from({ length: 1003 }, (_, i) => `remove/k-${String(i).padStart(4, "0")}.json`);
    const writer = await createS3Store({ ...s3.options, bucket: "tollgate-test" });
    try {
      for (let i = 0; i < doomed.length; i += 50)
        await Promise.all(doomed.slice(i, i + 50).map((k) => writer.write(k, k)));
    } finally {
      writer.close();
    }
    await store.write("remove-kept/stays.json", "{}");
    const before = s3.requests.length;

    // Act
    await store.remove([...doomed, "remove/never-written.json"]);
    await store.remove(doomed.slice(0, 3));

    // Assess
    expect(await keys("remove/")).toEqual([]);
    expect(await keys("remove-kept/")).toEqual(["remove-kept/stays.json"]);
    const deletes = s3.requests.slice(before).filter((r) => r.method === "POST" && r.url.includes("?delete"));
    expect(deletes).toHaveLength(3);
  });

  it("reports a refused delete with the key and the server's answer", async () => {
    const remove = s3.injectFault({
      method: "POST",
      path: /\?delete/,
      status: 403,
      code: "AccessDenied",
      message: "Access Denied",
    });
    try {
      const err = await store.remove(["reports/a.json"]).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: "StorageError", failure: "access-denied" });
      expect((err as Error).message).toBe(
        "cannot delete s3://tollgate-test/reports/a.json: AccessDenied (HTTP 403): Access Denied",
      );
    } finally {
      remove();
    }
  });

  it("reports a missing key as a not-found StorageError naming bucket and key", async () => {
    const err = await store.readText("missing/policy.yaml").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageError);
    expect(err).toMatchObject({ code: "STORAGE", failure: "not-found" });
    expect((err as Error).message).toBe(
      "cannot read s3://tollgate-test/missing/policy.yaml: NoSuchKey (HTTP 404): The specified key does not exist.",
    );
  });

  it("reports a missing bucket when listing", async () => {
    const other = await createS3Store({ ...s3.options, bucket: "no-such-bucket" });
    try {
      const err = await keys("x/", other).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: "StorageError", failure: "not-found" });
      expect((err as Error).message).toMatch(
        /^cannot list objects under s3:\/\/no-such-bucket\/x\/: NoSuchBucket \(HTTP 404\)/,
      );
    } finally {
      other.close();
    }
  });

  it("turns a server error into an unavailable StorageError after the SDK's retries", async () => {
    const remove = s3.injectFault({ method: "GET", path: /\/tollgate-test\/rw\/text\.txt/ });
    const before = s3.requests.length;
    try {
      const err = await store.readText("rw/text.txt").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StorageError);
      expect(err).toMatchObject({ failure: "unavailable" });
      expect((err as Error).message).toBe(
        "cannot read s3://tollgate-test/rw/text.txt: InternalError (HTTP 500): We encountered an internal error. Please try again.",
      );
      expect(s3.requests.length - before).toBe(2); // maxAttempts: 2
    } finally {
      remove();
    }
  });

  it("recovers from a transient server error through the SDK's retries", async () => {
    s3.injectFault({ method: "GET", path: /\/tollgate-test\/rw\/text\.txt/, status: 503, code: "SlowDown", times: 1 });
    expect(await store.readText("rw/text.txt")).toBe("héllo wörld");
  });

  it("reports a failing write with the key and the server's answer", async () => {
    const remove = s3.injectFault({
      method: "PUT",
      path: /denied\.json/,
      status: 403,
      code: "AccessDenied",
      message: "Access Denied",
    });
    try {
      const err = await store.write("reports/denied.json", "{}").catch((e: unknown) => e);
      expect(err).toMatchObject({ name: "StorageError", failure: "access-denied" });
      expect((err as Error).message).toBe(
        "cannot write s3://tollgate-test/reports/denied.json: AccessDenied (HTTP 403): Access Denied",
      );
    } finally {
      remove();
    }
  });

  it("reports an unreachable server as unavailable", async () => {
    const dead = await createS3Store({ ...s3.options, endpoint: "http://127.0.0.1:1", bucket: "b", maxAttempts: 1 });
    try {
      const err = await dead.readText("k").catch((e: unknown) => e);
      expect(err).toMatchObject({ name: "StorageError", failure: "unavailable" });
      expect((err as Error).message).toMatch(/^cannot read s3:\/\/b\/k: ECONNREFUSED/);
    } finally {
      dead.close();
    }
  });
});

describe("openS3Location", () => {
  it.each([
    { url: "s3://tollgate-test/bundles/", want: { bucket: "tollgate-test", key: "bundles/", isPrefix: true } },
    { url: "s3://tollgate-test", want: { bucket: "tollgate-test", key: "", isPrefix: true } },
    { url: "s3://tollgate-test/a/b.json", want: { bucket: "tollgate-test", key: "a/b.json", isPrefix: false } },
  ])("parses $url", async ({ url, want }) => {
    const { store: s, location } = await openS3Location(url, s3.options);
    s.close();
    expect(location).toEqual(want);
  });

  it.each([
    { url: "s3://", message: '"s3://": "" is not a bucket name' },
    { url: "s3://Bad_Bucket/x", message: '"s3://Bad_Bucket/x": "Bad_Bucket" is not a bucket name' },
    { url: "s3://bucket//x", message: 'the key must not start with "/"' },
  ])("refuses $url with a ConfigError", async ({ url, message }) => {
    const err = await openS3Location(url).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "ConfigError" });
    expect((err as Error).message).toContain(message);
  });
});
