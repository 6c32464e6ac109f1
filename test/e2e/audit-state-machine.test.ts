/**
 * The sharded audit's state machine without AWS:
 *
 * - its definition, as osls resolves it from serverless.yml and infra/audit-state-machine.yml, is valid Amazon States
 *   Language (asl-validator, the validator serverless-step-functions also runs at package time) and has the shape the
 *   design needs (a Distributed Map over the plan's manifest, an item batcher, a result writer, retries with backoff);
 * - an execution walked by the test's interpreter (test/helpers/state-machine.ts) with every step a real invocation
 *   of serverless offline's Lambda endpoint (infra/dev.ts via test/helpers/offline.ts), the functions reading and
 *   writing this file's S3-compatible server (s3rver): plan → batches → one shard invocation per batch → merge, a
 *   throttled shard retried, and the merged report equal to the plain auditor's report of the same export.
 */
import { createRequire } from "node:module";
import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditSummary } from "../../functions/audit.js";
import { type BlobStore, createS3Store } from "../../lib/storage/index.js";
import { type Offline, startOffline } from "../helpers/offline.js";
import { type S3TestServer, startS3Server } from "../helpers/s3-server.js";
import { BUNDLE, expectSameReport, keysUnder, SEEDED_TOTALS, SOURCE, seedExports } from "../helpers/sharded-audit.js";
import { functionKey, type InvokeResult, printedDefinition, runExecution } from "../helpers/state-machine.js";

type Json = Record<string, unknown>;
type AslValidator = (
  definition: unknown,
  options?: { checkPaths?: boolean; checkArn?: boolean },
) => { isValid: boolean; errorsText(separator?: string): string };
const validateAsl = createRequire(import.meta.url)("asl-validator") as AslValidator;

/** The definition with each `Fn::GetAtt` of a step function replaced by the ARN CloudFormation would give it. */
function withArns(definition: unknown): unknown {
  return JSON.parse(JSON.stringify(definition), (_key, value: unknown) => {
    const att = (value as { "Fn::GetAtt"?: [string, string] } | null)?.["Fn::GetAtt"];
    return att === undefined ? value : `arn:aws:lambda:eu-west-1:123456789012:function:tollgate-ci-${att[0]}`;
  });
}

let definition: Json;

beforeAll(async () => {
  definition = (await printedDefinition("ci")) as Json;
}, 60_000);

describe("the sharded audit's state machine definition", () => {
  it("is valid Amazon States Language", () => {
    const result = validateAsl(withArns(definition), { checkPaths: true, checkArn: true });
    expect(result.errorsText(), result.errorsText()).toBe("");
    expect(result.isValid).toBe(true);
  });

  it("the validator rejects what Step Functions would (the check can fail)", () => {
    const broken = structuredClone(withArns(definition)) as { States: Record<string, Json> };
    delete broken.States.Shards?.ItemProcessor;
    expect(validateAsl(broken).isValid).toBe(false);
    const dangling = structuredClone(withArns(definition)) as { States: Record<string, Json> };
    (dangling.States.Shards as Json).Next = "Publish";
    expect(validateAsl(dangling).errorsText()).toMatch(/Publish/);
  });

  it("plans, maps the shards in Distributed mode over the manifest in S3, then merges", () => {
    const states = definition.States as Record<string, Json>;
    expect(definition.StartAt).toBe("Plan");
    expect(Object.keys(states)).toEqual(["Plan", "Shards", "Merge"]);
    expect(states.Plan).toMatchObject({
      Next: "Shards",
      Parameters: { FunctionName: { "Fn::GetAtt": ["auditPlan", "Arn"] } },
    });
    expect(states.Shards).toMatchObject({
      Type: "Map",
      Next: "Merge",
      ItemReader: {
        Resource: "arn:aws:states:::s3:getObject",
        ReaderConfig: { InputType: "JSON" },
        Parameters: { "Bucket.$": "$.manifest.bucket", "Key.$": "$.manifest.key" },
      },
      ItemBatcher: {
        MaxItemsPerBatchPath: "$.batch.maxItems",
        MaxInputBytesPerBatchPath: "$.batch.maxInputBytes",
        BatchInput: { "run.$": "$.run" },
      },
      MaxConcurrencyPath: "$.map.maxConcurrency",
      ToleratedFailurePercentagePath: "$.map.toleratedFailurePercentage",
      ItemProcessor: { ProcessorConfig: { Mode: "DISTRIBUTED", ExecutionType: "STANDARD" } },
      ResultWriter: {
        Resource: "arn:aws:states:::s3:putObject",
        Parameters: { "Bucket.$": "$.results.bucket", "Prefix.$": "$.results.prefix" },
      },
    });
    expect(states.Merge).toMatchObject({
      End: true,
      Parameters: { FunctionName: { "Fn::GetAtt": ["auditMerge", "Arn"] } },
    });
  });

  it("retries Lambda throttling and service errors and transient S3 failures with backoff, nothing else", () => {
    const states = definition.States as Record<string, Json>;
    const processor = states.Shards?.ItemProcessor as { States: Record<string, Json> };
    const shard = processor.States;
    const tasks = [states.Plan, shard.AuditShard, states.Merge];
    for (const task of tasks) {
      expect(task?.Retry).toEqual([
        {
          ErrorEquals: [
            "Lambda.TooManyRequestsException",
            "Lambda.ServiceException",
            "Lambda.AWSLambdaException",
            "Lambda.SdkClientException",
            "StorageUnavailable",
          ],
          IntervalSeconds: 2,
          MaxAttempts: 6,
          BackoffRate: 2,
          MaxDelaySeconds: 60,
          JitterStrategy: "FULL",
        },
      ]);
    }
  });
});

describe("the sharded audit's state machine through serverless offline's Lambda endpoint", () => {
  let s3: S3TestServer;
  let inputs: BlobStore;
  let reports: BlobStore;
  let offline: Offline;
  let lambda: LambdaClient;

  beforeAll(async () => {
    s3 = await startS3Server({ buckets: ["exports", "reports"] });
    inputs = await createS3Store({ ...s3.options, bucket: "exports" });
    reports = await createS3Store({ ...s3.options, bucket: "reports" });
    await seedExports(inputs);
    // The functions reach this file's s3rver (infra/dev.ts keeps a TOLLGATE_S3_ENDPOINT it is given).
    offline = await startOffline({
      label: "e2e-state-machine",
      lambda: true,
      env: { TOLLGATE_S3_ENDPOINT: s3.endpoint },
    });
    lambda = new LambdaClient({
      endpoint: offline.lambdaEndpoint,
      region: "eu-west-1",
      credentials: { accessKeyId: "offline", secretAccessKey: "offline" },
    });
  }, 120_000);

  afterAll(async () => {
    lambda?.destroy();
    await offline?.stop();
    inputs?.close();
    reports?.close();
    await s3?.stop();
  }, 30_000);

  /**
   * A Lambda invocation through offline. A function error's type is its error's name, as Lambda reports it; offline
   * reports every one as `Error`, so the name is taken where the error's stack trace starts (`<name>: <message>`).
   */
  async function invoke(functionName: string, payload: unknown): Promise<InvokeResult> {
    const response = await lambda.send(
      new InvokeCommand({ FunctionName: functionName, Payload: new TextEncoder().encode(JSON.stringify(payload)) }),
    );
    const text = new TextDecoder().decode(response.Payload);
    if (response.FunctionError === undefined) return { payload: JSON.parse(text) };
    const error = JSON.parse(text) as { errorType?: string; errorMessage?: string; trace?: string[] };
    const named = /^([A-Za-z_][\w.]*): /.exec(error.trace?.[0] ?? "")?.[1];
    return { error: (error.errorType === "Error" ? named : error.errorType) ?? "Error", cause: text };
  }

  const store = async <T>(bucket: string, f: (s: BlobStore) => Promise<T>): Promise<T> => {
    const s = await createS3Store({ ...s3.options, bucket });
    try {
      return await f(s);
    } finally {
      s.close();
    }
  };

  it("an execution: plan, the shards (one retried after throttling), merge; the report is the unsharded run's", async () => {
    // Prepare: the plain auditor's run of the same export, through offline too.
    const plain = await invoke("tollgate-local-audit", {
      sources: [SOURCE],
      bundle: BUNDLE,
      out: "s3://reports/plain",
    });
    if ("error" in plain) throw new Error(`${plain.cause}\n${offline.output()}`);
    // The fault is armed when the first shard starts: the plan reads the whole input too (for its Namespaces).
    let clear: (() => void) | undefined;
    const armFault = () => {
      clear ??= s3.injectFault({
        method: "GET",
        path: /^\/exports\/cluster-a\/13\.yaml/,
        status: 503,
        code: "SlowDown",
        times: 3,
      });
    };
    const invoked: string[] = [];
    const before = s3.requests.length;
    // Act
    let result: Awaited<ReturnType<typeof runExecution>>;
    try {
      result = await runExecution(
        definition,
        { sources: [SOURCE], bundle: BUNDLE, out: "s3://reports/sharded", shard: { size: 5 } },
        {
          invoke: (ref, payload) => {
            const name = `tollgate-local-${functionKey(ref)}`;
            invoked.push(name);
            if (name === "tollgate-local-auditShard") armFault();
            return invoke(name, payload);
          },
          s3: {
            read: (bucket, key) => store(bucket, (s) => s.readText(key)),
            write: (bucket, key, body) => store(bucket, (s) => s.write(key, body)),
          },
          timeScale: 0.001,
          startTime: "2026-11-22T02:00:00.000Z",
        },
      );
    } finally {
      clear?.();
    }
    // Assess: 28 units in batches of at most 5; the batch holding 13.yaml failed once (StorageUnavailable) and
    // succeeded when retried.
    const { output, trace } = result;
    const summary = output as AuditSummary;
    expect(summary).toMatchObject({ runId: "20261122T020000Z", shards: 6, totals: SEEDED_TOTALS });
    expect(trace.batches.map((b) => b.length)).toEqual([5, 5, 5, 5, 5, 3]);
    expect(trace.retries).toEqual([
      { state: "AuditShard", error: "StorageUnavailable", delaySeconds: expect.any(Number) },
    ]);
    expect(invoked).toEqual([
      "tollgate-local-auditPlan",
      ...Array(7).fill("tollgate-local-auditShard"),
      "tollgate-local-auditMerge",
    ]);
    await expectSameReport(reports, summary.folder, (plain.payload as AuditSummary).folder);
    // The steps, run by offline's Lambdas, read the objects and wrote the manifest, partial runs and reports there.
    const seen = s3.requests.slice(before);
    const puts = (prefix: string) => seen.filter((q) => q.method === "PUT" && q.url.startsWith(prefix)).length;
    expect(puts("/reports/sharded/shards/20261122T020000Z/manifest.json")).toBe(1);
    expect(puts("/reports/sharded/shards/20261122T020000Z/namespaces.json")).toBe(1);
    expect(puts("/reports/sharded/shards/20261122T020000Z/parts/")).toBe(6);
    expect(puts("/reports/sharded/latest.json")).toBe(1);
    expect(await keysUnder(reports, "sharded/shards/")).toEqual([]);
  }, 180_000);
});
