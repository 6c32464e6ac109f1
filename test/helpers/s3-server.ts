/**
 * A real S3-compatible server (s3rver) for tests, started in the test process on 127.0.0.1 with a free port, with
 * its data in a fresh temporary folder. Not a mock: requests go through the AWS SDK, HTTP and s3rver's S3 API.
 *
 * s3rver builds listing continuation tokens with a legacy OpenSSL cipher, so the process must run with
 * `--openssl-legacy-provider` (`npm test` sets NODE_OPTIONS); {@link startS3Server} fails early, with a message
 * saying so, when it does not.
 *
 * Deletes run one at a time: s3rver's filesystem store removes a folder left empty by a delete, and two deletes in the
 * same folder at once (a DeleteObjects request deletes its keys in parallel) race on that folder (ENOENT, HTTP 500).
 *
 * Faults: {@link S3TestServer.injectFault} makes matching requests fail with an S3 error body before they reach
 * s3rver (a server that fails mid-run, throttling...).
 *
 * ```ts
 * const s3 = await startS3Server({ buckets: ["bundles"] });
 * afterAll(() => s3.stop());
 * const store = await createS3Store({ ...s3.options, bucket: "bundles" });
 * ```
 */
import { createCipheriv, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import type { S3Options } from "../../lib/storage/index.js";

export interface S3Fault {
  /** HTTP method to fail (`GET`, `PUT`...); any when absent. */
  method?: string;
  /** Matched against the request path (`/bucket/key`) and query; any when absent. */
  path?: RegExp;
  /** HTTP status. Default 500. */
  status?: number;
  /** S3 error code in the XML body. Default `InternalError`. */
  code?: string;
  /** Message in the XML body. Default "We encountered an internal error. Please try again." */
  message?: string;
  /** How many matching requests fail before the fault goes away. Default: all of them. */
  times?: number;
}

export interface S3TestServer {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** Options for lib/storage (endpoint, path style, static test credentials, WHEN_REQUIRED checksums). */
  options: S3Options;
  /** Environment variables that make a spawned tollgate (or the SDK's default chain) use this server. */
  env: Record<string, string>;
  /** Requests the server has seen (method and path), in order. */
  requests: { method: string; url: string }[];
  /** Makes matching requests fail; returns a function that removes the fault. */
  injectFault(fault: S3Fault): () => void;
  clearFaults(): void;
  stop(): Promise<void>;
}

export interface S3ServerOptions {
  /** Buckets created at start. */
  buckets?: readonly string[];
}

/** Whether this process can run s3rver's listing pagination (DES-based continuation tokens). */
export function hasLegacyOpenSsl(): boolean {
  try {
    createCipheriv("des", randomBytes(8), randomBytes(8)).final();
    return true;
  } catch {
    return false;
  }
}

/** Makes s3rver's store delete one object at a time (see the file comment). */
function serializeDeletes(s3rver: S3rver): void {
  const store = (s3rver as unknown as { store: { deleteObject(bucket: string, key: string): Promise<void> } }).store;
  const deleteObject = store.deleteObject.bind(store);
  let queue: Promise<unknown> = Promise.resolve();
  store.deleteObject = (bucket, key) => {
    const next = queue.then(() => deleteObject(bucket, key));
    queue = next.catch(() => {});
    return next;
  };
}

export async function startS3Server(opts: S3ServerOptions = {}): Promise<S3TestServer> {
  if (!hasLegacyOpenSsl()) {
    throw new Error(
      "s3rver needs the legacy OpenSSL provider for listing pagination: run with NODE_OPTIONS=--openssl-legacy-provider (npm test does)",
    );
  }
  const directory = await mkdtemp(join(tmpdir(), "tollgate-s3-"));
  const s3rver = new S3rver({
    directory,
    silent: true,
    configureBuckets: (opts.buckets ?? []).map((name) => ({ name, configs: [] })),
  });
  await s3rver.configureBuckets();
  serializeDeletes(s3rver);
  const handle = s3rver.callback();
  const faults: (S3Fault & { left: number })[] = [];
  const requests: { method: string; url: string }[] = [];

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? "GET";
    const url = req.url ?? "/";
    requests.push({ method, url });
    const fault = faults.find((f) => f.left > 0 && (f.method ?? method) === method && (f.path?.test(url) ?? true));
    if (fault === undefined) {
      handle(req, res);
      return;
    }
    fault.left--;
    req.resume();
    const code = fault.code ?? "InternalError";
    const message = fault.message ?? "We encountered an internal error. Please try again.";
    res.writeHead(fault.status ?? 500, { "content-type": "application/xml" });
    res.end(
      `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message>` +
        `<RequestId>tollgate-test</RequestId></Error>`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

  return {
    endpoint,
    options: { endpoint, pathStyle: true, region: "us-east-1", credentials, checksums: "WHEN_REQUIRED" },
    env: {
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_REGION: "us-east-1",
      TOLLGATE_S3_ENDPOINT: endpoint,
    },
    requests,
    injectFault(fault) {
      const entry = { ...fault, left: fault.times ?? Number.POSITIVE_INFINITY };
      faults.push(entry);
      return () => {
        const i = faults.indexOf(entry);
        if (i !== -1) faults.splice(i, 1);
      };
    },
    clearFaults() {
      faults.length = 0;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(directory, { recursive: true, force: true });
    },
  };
}
