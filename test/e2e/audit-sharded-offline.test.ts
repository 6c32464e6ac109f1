/**
 * The sharded audit for real through the Lambda API: infra/dev.ts starts `serverless offline` (as `npm run dev`
 * does) with TOLLGATE_LAMBDA_ENDPOINT pointing at its own Lambda port; the test invokes the audit function there
 * with `shard`, and the coordinator invokes the same function once per shard through `@aws-sdk/client-lambda`.
 * Local folders for sources and reports; dummy credentials; nothing is downloaded.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ESBUILD_DIR = `.esbuild-e2e-sharded-${process.pid}`;
const POLICIES = join(ROOT, "examples/policies");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

describe("sharded audit through serverless offline's Lambda endpoint", () => {
  const work = mkdtempSync(join(tmpdir(), "tollgate-sharded-offline-"));
  let child: ChildProcess;
  let lambda: LambdaClient;
  let log = "";

  beforeAll(async () => {
    const httpPort = await freePort();
    const lambdaPort = await freePort();
    const endpoint = `http://127.0.0.1:${lambdaPort}`;
    child = spawn(process.execPath, ["--openssl-legacy-provider", "--import", "tsx", "infra/dev.ts"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TOLLGATE_DEV_HTTP_PORT: String(httpPort),
        TOLLGATE_DEV_LAMBDA_PORT: String(lambdaPort),
        TOLLGATE_DEV_S3_PORT: "0",
        TOLLGATE_ESBUILD_DIR: ESBUILD_DIR,
        TOLLGATE_TOKEN: "e2e-sharded-token",
        TOLLGATE_LAMBDA_ENDPOINT: endpoint,
        POWERTOOLS_LOG_LEVEL: "WARN",
      },
    });
    child.stdout?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    child.stderr?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    const t0 = Date.now();
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm run dev exited ${child.exitCode}:\n${log}`);
      try {
        if ((await fetch(`http://127.0.0.1:${httpPort}/healthz`)).status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() - t0 > 60_000) throw new Error(`serverless offline not ready after 60 s:\n${log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    lambda = new LambdaClient({
      endpoint,
      region: "eu-west-1",
      credentials: { accessKeyId: "offline", secretAccessKey: "offline" },
    });
  }, 90_000);

  afterAll(async () => {
    lambda?.destroy();
    rmSync(work, { recursive: true, force: true });
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGINT");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    rmSync(join(ROOT, ESBUILD_DIR), { recursive: true, force: true });
  }, 20_000);

  it("the coordinator invokes the function once per shard and writes one merged report", async () => {
    const source = join(work, "export");
    mkdirSync(source);
    const list = parse(readFileSync(join(ROOT, "examples/export/cluster-export.yaml"), "utf8")) as { items: unknown[] };
    list.items.forEach((item, i) => {
      writeFileSync(join(source, `${String(i).padStart(2, "0")}.yaml`), stringify(item));
    });
    const out = join(work, "reports");
    const response = await lambda.send(
      new InvokeCommand({
        FunctionName: "tollgate-local-audit",
        Payload: new TextEncoder().encode(
          JSON.stringify({ sources: [source], bundle: POLICIES, out, shard: { size: 4, concurrency: 2 } }),
        ),
      }),
    );
    const text = new TextDecoder().decode(response.Payload);
    expect(response.FunctionError, `${text}\n${log}`).toBeUndefined();
    const summary = JSON.parse(text) as {
      runId: string;
      folder: string;
      shards: number;
      totals: Record<string, unknown>;
    };
    expect(summary.shards).toBe(4);
    expect(summary.totals).toMatchObject({
      documents: 15,
      valid: 5,
      invalid: 3,
      skippedUncovered: 7,
      findings: { violation: 8, warning: 2 },
    });
    expect(readdirSync(summary.folder)).toEqual(expect.arrayContaining(["index.json", "report.json"]));
    expect(readdirSync(join(out, "shards", summary.runId))).toHaveLength(4);
  }, 120_000);
});
