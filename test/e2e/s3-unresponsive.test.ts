/**
 * Storage that stops answering: a TCP server that accepts connections and never replies stands in for an S3 server
 * paused mid-request. Every S3 operation ends in bounded time with an `unavailable` StorageError (the HTTP
 * handler's request timeout, then the SDK's retries with backoff), and `tollgate audit` writing its reports there
 * exits 3 with a clear message instead of hanging.
 */
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createS3Store } from "../../lib/storage/index.js";
import { runCommand } from "../helpers/spawn.js";

let server: Server;
let endpoint: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  server = createServer((socket) => {
    // Accept, read everything, answer nothing.
    sockets.push(socket);
    socket.on("data", () => {});
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  endpoint = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

describe("an S3 server that accepts and never answers", () => {
  it.each(["read", "write", "list"] as const)("a %s fails as unavailable within the timeouts", async (what) => {
    const store = await createS3Store({
      endpoint,
      credentials,
      bucket: "silent",
      requestTimeoutMs: 300,
      connectionTimeoutMs: 300,
      maxAttempts: 2,
    });
    const t0 = performance.now();
    const op =
      what === "read"
        ? store.readText("a.txt")
        : what === "write"
          ? store.write("a.txt", "x")
          : (async () => {
              for await (const _ of store.list("")) break;
            })();
    await expect(op).rejects.toMatchObject({ name: "StorageError", failure: "unavailable" });
    expect(performance.now() - t0).toBeLessThan(5_000);
    store.close();
  });

  it("tollgate audit writing there exits 3 with a clear message in bounded time", async () => {
    const t0 = performance.now();
    const r = await runCommand(
      process.execPath,
      ["audit/cli/bin.js", "audit", "--bundle", "examples/policies", "--out", "s3://reports/x", "examples/export"],
      {
        env: {
          ...process.env,
          NO_COLOR: "1",
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
          AWS_ACCESS_KEY_ID: "S3RVER",
          AWS_SECRET_ACCESS_KEY: "S3RVER",
          TOLLGATE_S3_ENDPOINT: endpoint,
          TOLLGATE_S3_TIMEOUT: "1s",
        },
      },
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^storage error: cannot (read|write) s3:\/\/reports\/x\/.*TimeoutError: .*timed out/);
    expect(performance.now() - t0).toBeLessThan(30_000);
  }, 60_000);
});
