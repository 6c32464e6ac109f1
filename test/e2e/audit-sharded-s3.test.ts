/**
 * The sharded mode of the scheduled auditor (functions/audit-shards.ts) with S3 everywhere: the sources are an
 * `s3://bucket/prefix` (one object per item of examples/export, a file that is no object, and a `.tar.gz` archive
 * object whose members are listed as units of their own), the partial runs and the reports go to `s3://` too, all on
 * a real S3-compatible server (s3rver, test/helpers/s3-server.ts) started by this file on 127.0.0.1.
 *
 * Two transports for the shard invocations: in-process (the handler called through a JSON round trip) and for real
 * through `serverless offline`'s Lambda endpoint (infra/dev.ts via test/helpers/offline.ts, with TOLLGATE_S3_ENDPOINT
 * pointing the functions at this file's s3rver). Either way the merged report must equal an unsharded run's.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { ShardInput, ShardInvoker } from "../../audit/shards.js";
import { type AuditLogger, type AuditSummary, createAuditHandler } from "../../functions/audit.js";
import { type BlobStore, createS3Store } from "../../lib/storage/index.js";
import { type Offline, startOffline } from "../helpers/offline.js";
import { type S3TestServer, startS3Server } from "../helpers/s3-server.js";
import { ROOT } from "../helpers/spawn.js";
import { buildTar } from "../helpers/tar.js";

const POLICIES = join(ROOT, "examples/policies");
const SOURCE = "s3://exports/cluster-a/";
const silent: AuditLogger = { info: () => {}, error: () => {}, addContext: () => {} };

let s3: S3TestServer;
let inputs: BlobStore;
let reports: BlobStore;
/** The unit names the prefix lists: 15 item objects, values.yaml, and the archive's two document members. */
let units: string[];
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  s3 = await startS3Server({ buckets: ["exports", "reports"] });
  inputs = await createS3Store({ ...s3.options, bucket: "exports" });
  reports = await createS3Store({ ...s3.options, bucket: "reports" });
  for (const name of readdirSync(POLICIES)) {
    await inputs.write(`policies/${name}`, readFileSync(join(POLICIES, name), "utf8"));
  }
  const list = parse(readFileSync(join(ROOT, "examples/export/cluster-export.yaml"), "utf8")) as { items: unknown[] };
  units = [];
  for (const [i, item] of list.items.entries()) {
    const key = `cluster-a/${String(i).padStart(2, "0")}.yaml`;
    await inputs.write(key, stringify(item));
    units.push(`s3://exports/${key}`);
  }
  await inputs.write("cluster-a/values.yaml", "replicas: 3\n");
  units.push("s3://exports/cluster-a/values.yaml");
  const example = (name: string) => readFileSync(join(ROOT, "examples/objects", name), "utf8");
  await inputs.write(
    "cluster-a/zz-snapshot.tar.gz",
    gzipSync(
      buildTar([
        { name: "snap/widget-valid.yaml", content: example("widget-valid.yaml") },
        { name: "snap/widget-too-many-replicas.yaml", content: example("widget-too-many-replicas.yaml") },
      ]),
    ),
  );
  units.push(
    "s3://exports/cluster-a/zz-snapshot.tar.gz!snap/widget-valid.yaml",
    "s3://exports/cluster-a/zz-snapshot.tar.gz!snap/widget-too-many-replicas.yaml",
  );
  // The SDK's default chains (credentials, region) read process.env, as in Lambda; the endpoint is TOLLGATE_*.
  const { TOLLGATE_S3_ENDPOINT: _endpoint, ...aws } = s3.env;
  for (const [k, v] of Object.entries(aws)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
});

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  inputs?.close();
  reports?.close();
  await s3?.stop();
});

interface Report {
  runId: string;
  startedAt: string;
  summary: Record<string, unknown>;
  findings: { id: string; severity: string; firstSeen: string; location: { file: string; entry?: string } }[];
  objects: { key: string; outcome: string; location: { file: string; entry?: string } }[];
}

/** report.json of a run folder `s3://reports/<prefix>/<run>/`. */
async function report(folder: string): Promise<Report> {
  const key = `${folder.replace(/^s3:\/\/reports\//, "")}report.json`;
  return JSON.parse(await reports.readText(key)) as Report;
}

async function keys(prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const b of reports.list(prefix)) out.push(b.key.slice(prefix.length));
  return out.sort();
}

const withoutTiming = (s: Record<string, unknown>) => ({ ...s, durationMs: 0, objectsPerSecond: 0 });

/** The merged run equals the unsharded one: objects, finding ids in order, summary; written as one run to S3. */
async function expectSameRun(sharded: AuditSummary, plain: AuditSummary, out: string, shards: number): Promise<void> {
  expect(sharded.shards).toBe(shards);
  expect(sharded.folder).toBe(`${out}/${sharded.runId}/`);
  expect(withoutTiming(sharded.totals as unknown as Record<string, unknown>)).toEqual(
    withoutTiming(plain.totals as unknown as Record<string, unknown>),
  );
  // The export's 15 objects, the archive's 2 Widgets (1 invalid), and values.yaml (not an object).
  expect(sharded.totals).toMatchObject({
    documents: 18,
    objects: 17,
    valid: 6,
    invalid: 4,
    skippedUncovered: 7,
    skippedNotKubernetes: 1,
    inputErrors: 0,
    findings: { violation: 9, warning: 2, "input-error": 0 },
  });
  const merged = await report(sharded.folder);
  const single = await report(plain.folder);
  expect(merged.findings.map((f) => f.id)).toEqual(single.findings.map((f) => f.id));
  expect(merged.findings.map((f) => f.location)).toEqual(single.findings.map((f) => f.location));
  expect(merged.objects).toEqual(single.objects);
  expect(withoutTiming(merged.summary)).toEqual(withoutTiming(single.summary));
  for (const f of merged.findings) expect(f.firstSeen).toBe(merged.startedAt);
  expect(merged.findings.some((f) => f.location.file === "s3://exports/cluster-a/zz-snapshot.tar.gz")).toBe(true);

  // Reports through the sink on S3 (index.json, then latest.json), the partial runs under shards/<runId>/.
  const prefix = out.replace(/^s3:\/\/reports\//, "");
  expect(await keys(`${prefix}/${sharded.runId}/`)).toEqual(
    expect.arrayContaining(["index.json", "report.json", "report.html", "report.sarif"]),
  );
  const latest = JSON.parse(await reports.readText(`${prefix}/latest.json`)) as { runId: string };
  expect(latest.runId).toBe(sharded.runId);
  expect(await keys(`${prefix}/shards/${sharded.runId}/`)).toEqual(
    Array.from({ length: shards }, (_, i) => `${String(i).padStart(5, "0")}.json`),
  );
}

describe("sharded audit of an s3:// prefix, shards invoked in-process", () => {
  it("merges the shards into the report an unsharded run of the same prefix gives, all on S3", async () => {
    // Prepare
    const env = { TOLLGATE_S3_ENDPOINT: s3.endpoint };
    const calls: ShardInput[] = [];
    const shardHandler = createAuditHandler({ env, logger: silent });
    const invoke: ShardInvoker = async (input) => {
      calls.push(input);
      // What the Lambda API carries: JSON in, JSON out.
      return JSON.parse(JSON.stringify(await shardHandler(JSON.parse(JSON.stringify(input)) as ShardInput)));
    };
    const plain = (await createAuditHandler({ env, logger: silent })({
      sources: [SOURCE],
      bundle: "s3://exports/policies/",
      out: "s3://reports/plain",
    })) as AuditSummary;
    // Act
    const sharded = (await createAuditHandler({ env, logger: silent, invoke })({
      sources: [SOURCE],
      bundle: "s3://exports/policies/",
      out: "s3://reports/sharded",
      shard: { size: 4, concurrency: 2 },
    })) as AuditSummary;
    // Assess: 18 units in shards of at most 4 (the archive's members are units like the objects).
    expect(sharded).toMatchObject({
      status: "violations",
      exitCode: 1,
      sources: [SOURCE],
      out: "s3://reports/sharded",
    });
    expect(calls).toHaveLength(5);
    expect(calls.map((c) => c.shardOf.index).sort()).toEqual([0, 1, 2, 3, 4]);
    for (const c of calls) {
      expect(c.parts.every((p) => p.source === SOURCE)).toBe(true);
      expect(c.parts.flatMap((p) => p.units ?? []).length).toBeLessThanOrEqual(4);
    }
    expect(
      calls.sort((a, b) => a.shardOf.index - b.shardOf.index).flatMap((c) => c.parts.flatMap((p) => p.units ?? [])),
    ).toEqual(units);
    await expectSameRun(sharded, plain, "s3://reports/sharded", 5);
  });
});

describe("sharded audit of an s3:// prefix through serverless offline's Lambda endpoint", () => {
  let offline: Offline;
  let lambda: LambdaClient;

  beforeAll(async () => {
    // The functions reach this file's s3rver (infra/dev.ts keeps a TOLLGATE_S3_ENDPOINT it is given).
    offline = await startOffline({ label: "e2e-sharded-s3", lambda: true, env: { TOLLGATE_S3_ENDPOINT: s3.endpoint } });
    lambda = new LambdaClient({
      endpoint: offline.lambdaEndpoint,
      region: "eu-west-1",
      credentials: { accessKeyId: "offline", secretAccessKey: "offline" },
    });
  }, 90_000);

  afterAll(async () => {
    lambda?.destroy();
    await offline?.stop();
  }, 20_000);

  async function invokeAudit(input: Record<string, unknown>): Promise<AuditSummary> {
    const response = await lambda.send(
      new InvokeCommand({
        FunctionName: "tollgate-local-audit",
        Payload: new TextEncoder().encode(JSON.stringify(input)),
      }),
    );
    const text = new TextDecoder().decode(response.Payload);
    expect(response.FunctionError, `${text}\n${offline.output()}`).toBeUndefined();
    return JSON.parse(text) as AuditSummary;
  }

  it("the coordinator invokes the function once per shard; the merged report equals an unsharded run", async () => {
    // Prepare
    const requestsBefore = s3.requests.length;
    const plain = await invokeAudit({
      sources: [SOURCE],
      bundle: "s3://exports/policies/",
      out: "s3://reports/offline-plain",
    });
    // Act
    const sharded = await invokeAudit({
      sources: [SOURCE],
      bundle: "s3://exports/policies/",
      out: "s3://reports/offline-sharded",
      shard: { size: 5, concurrency: 2 },
    });
    // Assess: 18 units in shards of at most 5.
    await expectSameRun(sharded, plain, "s3://reports/offline-sharded", 4);
    // The shards, run by the offline Lambda, read their objects and wrote their partial runs through this s3rver.
    const seen = s3.requests.slice(requestsBefore);
    // Each run reads every object twice: the examples bundle enables Pod Security, whose Namespaces come from a
    // pre-pass over the input (audit/cluster-state.ts), the plain run's and the coordinator's, then the audit itself.
    expect(seen.filter((q) => q.method === "GET" && q.url.startsWith("/exports/cluster-a/00.yaml")).length).toBe(4);
    expect(
      seen.filter((q) => q.method === "PUT" && q.url.startsWith(`/reports/offline-sharded/shards/${sharded.runId}/`)),
    ).toHaveLength(4);
  }, 120_000);
});
