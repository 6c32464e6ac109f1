/**
 * The sharded audit for real through the Lambda API: infra/dev.ts starts `serverless offline` (as `npm run dev`
 * does) with TOLLGATE_LAMBDA_ENDPOINT pointing at its own Lambda port; the test invokes the audit function there
 * with `shard`, and the coordinator invokes the same function once per shard through `@aws-sdk/client-lambda`.
 * Local folders for sources and reports; dummy credentials; nothing is downloaded.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { type Offline, startOffline } from "../helpers/offline.js";
import { ROOT } from "../helpers/spawn.js";

const POLICIES = join(ROOT, "examples/policies");

describe("sharded audit through serverless offline's Lambda endpoint", () => {
  const work = mkdtempSync(join(tmpdir(), "tollgate-sharded-offline-"));
  let offline: Offline;
  let lambda: LambdaClient;

  beforeAll(async () => {
    offline = await startOffline({ label: "e2e-sharded", lambda: true, env: { TOLLGATE_TOKEN: "e2e-sharded-token" } });
    lambda = new LambdaClient({
      endpoint: offline.lambdaEndpoint,
      region: "eu-west-1",
      credentials: { accessKeyId: "offline", secretAccessKey: "offline" },
    });
  }, 90_000);

  afterAll(async () => {
    lambda?.destroy();
    rmSync(work, { recursive: true, force: true });
    await offline?.stop();
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
    expect(response.FunctionError, `${text}\n${offline.output()}`).toBeUndefined();
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
