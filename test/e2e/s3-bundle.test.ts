/**
 * loadBundle from `s3://` sources against a real S3-compatible server (s3rver in this process): a prefix is the
 * folder it mirrors (same digest, kinds, failures), one key is one file or an artifact, and storage failures are
 * StorageErrors that name the location.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBundleArtifact, loadBundle, StorageError } from "../../lib/index.js";
import { type BlobStore, createS3Store } from "../../lib/storage/index.js";
import { type S3TestServer, startS3Server } from "../helpers/s3-server.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const GADGETS = join(ROOT, "test/fixtures/bundles/gadgets");
const BUCKET = "policies";

let s3: S3TestServer;
let store: BlobStore;

beforeAll(async () => {
  s3 = await startS3Server({ buckets: [BUCKET] });
  store = await createS3Store({ ...s3.options, bucket: BUCKET });
  for (const name of readdirSync(GADGETS)) {
    await store.write(`bundles/gadgets/${name}`, readFileSync(join(GADGETS, name), "utf8"));
  }
  await store.write("bundles/gadgets/.git/config", "not: policy");
  await store.write("bundles/gadgets/README.md", "# ignored: not a policy file name");
  const built = await buildBundleArtifact(GADGETS);
  await store.write("artifacts/gadgets.json", built.text);
  await store.write("empty/readme.txt", "no policy files here");
});
afterAll(async () => {
  store?.close();
  await s3?.stop();
});

describe("loadBundle from S3", () => {
  it.each([
    { name: "a prefix", url: `s3://${BUCKET}/bundles/gadgets/` },
    { name: "a prefix without its trailing slash", url: `s3://${BUCKET}/bundles/gadgets` },
    { name: "an artifact", url: `s3://${BUCKET}/artifacts/gadgets.json` },
  ])("$name loads as the local folder does", async ({ url }) => {
    const local = await loadBundle(GADGETS);
    const remote = await loadBundle(url, { s3: s3.options });
    expect(remote.digest).toBe(local.digest);
    expect(remote.kinds).toEqual(local.kinds);
    expect(remote.failures).toEqual(local.failures);
  });

  it("loads one file", async () => {
    const set = await loadBundle(`s3://${BUCKET}/bundles/gadgets/gadget-crd.yaml`, { s3: s3.options });
    expect(set.kinds.filter((k) => k.family === "crd").map((k) => k.kind)).toEqual(["Gadget"]);
  });

  it("pages through a large prefix", async () => {
    const small = await createS3Store({ ...s3.options, bucket: BUCKET });
    try {
      for (let i = 0; i < 12; i++) {
        const name = `cm-${String(i).padStart(2, "0")}`;
        await small.write(`many/${name}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`);
      }
    } finally {
      small.close();
    }
    const set = await loadBundle(`s3://${BUCKET}/many/`, { s3: s3.options });
    expect(set.notes.filter((n) => n.message.startsWith("not a policy document")).map((n) => n.file)).toHaveLength(12);
  });

  it.each([
    {
      name: "a missing key",
      url: `s3://${BUCKET}/bundles/nope.yaml`,
      failure: "not-found",
      message: `cannot read s3://${BUCKET}/bundles/nope.yaml: NoSuchKey (HTTP 404): The specified key does not exist.`,
    },
    {
      name: "a prefix with no policy file",
      url: `s3://${BUCKET}/empty/`,
      failure: "not-found",
      message: `no policy files (*.yaml, *.yml, *.json, *.go, go.mod) under s3://${BUCKET}/empty/`,
    },
    {
      name: "a missing bucket",
      url: "s3://no-such-bucket/bundles/",
      failure: "not-found",
      message:
        "cannot list objects under s3://no-such-bucket/bundles/: NoSuchBucket (HTTP 404): The specified bucket does not exist",
    },
  ])("$name is a StorageError naming it", async ({ url, failure, message }) => {
    const err = await loadBundle(url, { s3: s3.options }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageError);
    expect(err).toMatchObject({ failure, message });
  });

  it("a server failing mid-load is a StorageError, and the next load succeeds", async () => {
    const remove = s3.injectFault({ method: "GET", path: /\/bundles\/gadgets\/gadget-crd\.yaml/ });
    try {
      const err = await loadBundle(`s3://${BUCKET}/bundles/gadgets/`, { s3: { ...s3.options } }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StorageError);
      expect(err).toMatchObject({
        failure: "unavailable",
        message: `cannot read s3://${BUCKET}/bundles/gadgets/gadget-crd.yaml: InternalError (HTTP 500): We encountered an internal error. Please try again.`,
      });
    } finally {
      remove();
    }
    const set = await loadBundle(`s3://${BUCKET}/bundles/gadgets/`, { s3: s3.options });
    expect(set.kinds.length).toBeGreaterThan(0);
  });

  it("a malformed location is a ConfigError", async () => {
    const err = await loadBundle("s3://UPPER/x.yaml").catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "ConfigError" });
  });
});
