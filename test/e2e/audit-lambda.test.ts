/**
 * The scheduled auditor Lambda (functions/audit.ts) driven in-process: a run over local folders, a run with sources,
 * bundle and out on a real S3-compatible server (s3rver, test/helpers/s3-server.ts), the EventBridge event shapes,
 * failOn outcomes (not Lambda errors), storage errors (Lambda errors), and strict input validation.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuditLogger, createAuditHandler } from "../../functions/audit.js";
import { parseAuditInput } from "../../functions/audit-input.js";
import { type BlobStore, createS3Store } from "../../lib/storage/index.js";
import { fakeContext } from "../helpers/events.js";
import { type S3TestServer, startS3Server } from "../helpers/s3-server.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const POLICIES = join(ROOT, "examples/policies");
const EXPORT = join(ROOT, "examples/export");
const RUN_ID = /^\d{8}T\d{6}Z(-\d+)?$/;
const REPORT_FILES = [
  "fielderrors.ndjson",
  "findings.csv",
  "index.json",
  "junit.xml",
  "openreports.yaml",
  "policyreport.yaml",
  "report.html",
  "report.json",
  "report.sarif",
  "summary.json",
];

interface LogLine {
  level: "info" | "error";
  message: string;
  attributes: Record<string, unknown>;
}

function recorder(): AuditLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    info: (message, attributes = {}) => lines.push({ level: "info", message, attributes }),
    error: (message, attributes = {}) => lines.push({ level: "error", message, attributes }),
    addContext: () => {},
  };
}

const work = mkdtempSync(join(tmpdir(), "tollgate-audit-lambda-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("audit handler, local folders", () => {
  it("audits examples/export against examples/policies, writes the run folder and returns the totals", async () => {
    const out = join(work, "local");
    const logger = recorder();
    const handler = createAuditHandler({ env: {}, logger });
    const summary = await handler({ sources: [EXPORT], bundle: POLICIES, out }, fakeContext("tollgate-test-audit"));

    expect(summary.runId).toMatch(RUN_ID);
    expect(summary.folder).toBe(`${join(out, summary.runId)}/`);
    expect(readdirSync(summary.folder).sort()).toEqual(REPORT_FILES);
    const index = JSON.parse(readFileSync(join(summary.folder, "index.json"), "utf8")) as {
      kind: string;
      runId: string;
      files: { name: string }[];
    };
    expect(index.kind).toBe("AuditRunIndex");
    expect(index.runId).toBe(summary.runId);
    expect(index.files.map((f) => f.name).sort()).toEqual(REPORT_FILES.filter((f) => f !== "index.json"));
    const latest = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as { runId: string; path: string };
    expect(latest).toMatchObject({ runId: summary.runId, path: `${summary.runId}/` });

    // The example export: 31 objects, 16 valid, 7 invalid, 8 of kinds no policy covers. No policiesFromInput: the
    // param shop/replica-limits of the input is not consulted, so only scale-rights denies a Deployment (npm start: 2).
    expect(summary).toMatchObject({
      status: "violations",
      exitCode: 1,
      failOn: "violation",
      sources: [EXPORT],
      bundle: POLICIES,
      out,
    });
    expect(summary.totals).toMatchObject({
      documents: 31,
      objects: 31,
      valid: 16,
      invalid: 7,
      skippedUncovered: 8,
      skippedNotKubernetes: 0,
      inputErrors: 0,
      // examples/policies/waivers.yaml waives the checkout Widget's replicas (a violation without the waiver).
      findings: { violation: 14, warning: 8, audit: 19, "policy-failure": 0, "input-error": 0, waived: 1 },
    });
    const report = JSON.parse(readFileSync(join(summary.folder, "report.json"), "utf8")) as { summary: unknown };
    expect(report.summary).toEqual(summary.totals);

    // One structured line, no object content.
    expect(logger.lines).toHaveLength(1);
    const line = logger.lines[0]!;
    expect(line).toMatchObject({
      level: "info",
      message: "audit finished",
      attributes: {
        runId: summary.runId,
        folder: summary.folder,
        status: "violations",
        exitCode: 1,
        sources: 1,
        documents: 31,
        valid: 16,
        invalid: 7,
      },
    });
    expect(JSON.stringify(line)).not.toContain("too-many-replicas");
  });

  it("findings below failOn: status ok; the event may come as EventBridge's detail; a second run compares", async () => {
    const out = join(work, "detail");
    const handler = createAuditHandler({ env: {}, logger: recorder() });
    const first = await handler({ sources: [EXPORT], bundle: POLICIES, out, failOn: "never" });
    expect(first).toMatchObject({ status: "ok", exitCode: 0, failOn: "never" });
    const second = await handler({
      version: "0",
      id: "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa",
      "detail-type": "Scheduled Event",
      source: "aws.events",
      time: "2026-11-24T02:00:00Z",
      detail: { sources: [EXPORT], bundle: POLICIES, out, failOn: "never" },
    });
    expect(second.status).toBe("ok");
    expect(second.folder).not.toBe(first.folder);
    const report = JSON.parse(readFileSync(join(second.folder, "report.json"), "utf8")) as {
      comparison: { previousRunId: string; newFindings: number; persistingFindings: number };
    };
    expect(report.comparison).toMatchObject({ previousRunId: first.runId, newFindings: 0, persistingFindings: 42 });
  });

  it("podSecurity: every Pod and workload as if its namespace enforced that level", async () => {
    const handler = createAuditHandler({ env: {}, logger: recorder() });
    const summary = await handler({
      sources: [EXPORT],
      bundle: POLICIES,
      out: join(work, "what-if"),
      podSecurity: "restricted",
    });
    // The Deployments of platform-export.yaml meet restricted, so their namespaces' warn levels are evaluated too.
    expect(summary.totals.podSecurity).toEqual({
      "baseline:latest": { pods: 0, workloads: 1 },
      "restricted:latest": { pods: 3, workloads: 5 },
      "restricted:v1.30": { pods: 0, workloads: 1 },
    });
    const report = JSON.parse(readFileSync(join(summary.folder, "report.json"), "utf8")) as {
      findings: { severity: string; object?: { name: string }; rule: { policy?: string } }[];
    };
    const breaking = report.findings
      .filter((f) => f.severity === "violation" && f.rule.policy === "restricted:latest")
      .map((f) => f.object?.name);
    expect([...new Set(breaking)].sort()).toEqual(["debug-shell", "nightly-sync", "notebook", "storefront"]);
  });

  it("a bundle that does not exist is a Lambda error, logged with the reason", async () => {
    const logger = recorder();
    const handler = createAuditHandler({ env: {}, logger });
    const missing = join(work, "no-such-bundle");
    await expect(handler({ sources: [EXPORT], bundle: missing, out: join(work, "err") })).rejects.toThrow(missing);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatchObject({ level: "error", message: "audit failed" });
  });
});

describe("audit handler, S3 (s3rver)", () => {
  let s3: S3TestServer;
  let inputs: BlobStore;
  let reports: BlobStore;
  let env: Record<string, string>;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    s3 = await startS3Server({ buckets: ["exports", "reports"] });
    inputs = await createS3Store({ ...s3.options, bucket: "exports" });
    reports = await createS3Store({ ...s3.options, bucket: "reports" });
    for (const name of readdirSync(POLICIES)) {
      await inputs.write(`policies/${name}`, readFileSync(join(POLICIES, name), "utf8"));
    }
    await inputs.write("cluster-a/cluster-export.yaml", readFileSync(join(EXPORT, "cluster-export.yaml"), "utf8"));
    // The SDK's default chains (credentials, region) read process.env, as in Lambda; the endpoint is TOLLGATE_*.
    const { TOLLGATE_S3_ENDPOINT, ...aws } = s3.env;
    for (const [k, v] of Object.entries(aws)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    env = { TOLLGATE_S3_ENDPOINT: TOLLGATE_S3_ENDPOINT! };
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

  async function keys(store: BlobStore, prefix: string): Promise<string[]> {
    const out: string[] = [];
    for await (const b of store.list(prefix)) out.push(b.key.slice(prefix.length));
    return out.sort();
  }

  it("reads sources and bundle from s3:// and writes the run folder, index.json and latest.json to s3://", async () => {
    const logger = recorder();
    const handler = createAuditHandler({ env, logger });
    const summary = await handler({
      sources: ["s3://exports/cluster-a/"],
      bundle: "s3://exports/policies/",
      out: "s3://reports/nightly/",
    });
    expect(summary.runId).toMatch(RUN_ID);
    expect(summary.folder).toBe(`s3://reports/nightly/${summary.runId}/`);
    expect(summary).toMatchObject({ status: "violations", exitCode: 1 });
    expect(summary.totals).toMatchObject({ documents: 15, valid: 5, invalid: 3, skippedUncovered: 7 });
    expect(await keys(reports, `nightly/${summary.runId}/`)).toEqual(REPORT_FILES);
    const index = JSON.parse(await reports.readText(`nightly/${summary.runId}/index.json`)) as { runId: string };
    expect(index.runId).toBe(summary.runId);
    const latest = JSON.parse(await reports.readText("nightly/latest.json")) as { runId: string; summary: unknown };
    expect(latest.runId).toBe(summary.runId);
    expect(latest.summary).toEqual(summary.totals);
    expect(logger.lines.map((l) => l.message)).toEqual(["audit finished"]);
    expect(JSON.stringify(logger.lines)).not.toContain("S3RVER");
  });

  it("a report bucket that fails mid-run is a Lambda error (StorageError), and no index.json is written", async () => {
    const logger = recorder();
    const handler = createAuditHandler({ env, logger });
    const remove = s3.injectFault({ method: "PUT", path: /^\/reports\/failing\/.*report\.json/ });
    try {
      const run = handler({
        sources: ["s3://exports/cluster-a/"],
        bundle: "s3://exports/policies/",
        out: "s3://reports/failing/",
      });
      await expect(run).rejects.toMatchObject({ name: "StorageError" });
    } finally {
      remove();
    }
    const written = await keys(reports, "failing/");
    expect(written.filter((k) => k.endsWith("index.json") || k === "latest.json")).toEqual([]);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatchObject({
      level: "error",
      message: "audit failed",
      attributes: { error: "StorageError" },
    });
  });
});

describe("audit input validation", () => {
  const valid = { sources: ["s3://exports/a/"], bundle: "s3://exports/policies/", out: "s3://reports/nightly/" };

  it("accepts the input itself or EventBridge's detail", () => {
    expect(parseAuditInput({ ...valid, failOn: "warning", previous: "old.yaml" })).toEqual({
      ...valid,
      failOn: "warning",
      previous: "old.yaml",
    });
    expect(parseAuditInput({ "detail-type": "Scheduled Event", source: "aws.events", detail: valid })).toEqual(valid);
  });

  it.each([
    [{ bundle: "b", out: "o" }, "audit input: sources is required (a non-empty array of locations)"],
    [{ ...valid, sources: [] }, "audit input: sources must be a non-empty array of locations"],
    [{ ...valid, sources: "s3://exports/a/" }, "audit input: sources must be a non-empty array of locations"],
    [{ ...valid, sources: ["a", 3] }, "audit input: sources[1] must be a non-empty string (a local path or s3:// URL)"],
    [
      { ...valid, failOn: "sometimes" },
      'audit input: failOn must be one of violation, warning, audit, never, not "sometimes"',
    ],
    [{ sources: ["a"], out: "o" }, "audit input: bundle is required (a local path or s3:// URL)"],
    [{ ...valid, out: "" }, "audit input: out must be a non-empty string (a local path or s3:// URL)"],
    [{ ...valid, previous: 7 }, "audit input: previous must be a non-empty string (a local path or s3:// URL)"],
    [{ ...valid, bundle: "--help" }, 'audit input: bundle must not start with "-": "--help"'],
    [
      { ...valid, failon: "never" },
      'audit input: unknown field "failon" (allowed: sources, bundle, out, previous, failOn, podSecurity, waivers, warnExpiry, shard)',
    ],
    [
      { "detail-type": "Scheduled Event", detail: {} },
      "audit input: sources is required (a non-empty array of locations)",
    ],
    [null, "audit input: the event must be a JSON object"],
  ])("rejects %j", (event, message) => {
    expect(() => parseAuditInput(event)).toThrow(new Error(message));
  });

  it("validates the shard settings (the state machine's)", () => {
    const shard = { size: 10, bytes: 1048576, concurrency: 3, toleratedFailurePercentage: 5 };
    expect(parseAuditInput({ ...valid, shard }).shard).toEqual(shard);
    expect(() => parseAuditInput({ ...valid, shard: 4 })).toThrow(
      new Error("audit input: shard must be an object: { size?, bytes?, concurrency?, toleratedFailurePercentage? }"),
    );
    expect(() => parseAuditInput({ ...valid, shard: { size: 0 } })).toThrow(
      new Error("audit input: shard.size must be an integer from 1 to 10000, not 0"),
    );
    expect(() => parseAuditInput({ ...valid, shard: { toleratedFailurePercentage: 101 } })).toThrow(
      /shard\.toleratedFailurePercentage must be an integer from 0 to 100/,
    );
    expect(() => parseAuditInput({ ...valid, shard: { sise: 3 } })).toThrow(
      new Error(
        "audit input: unknown field shard.sise (allowed: size, bytes, concurrency, toleratedFailurePercentage)",
      ),
    );
  });

  it("the plain auditor refuses a sharded input: the state machine runs those", async () => {
    const logger = recorder();
    const out = join(work, "never-sharded");
    await expect(
      createAuditHandler({ env: {}, logger })({ sources: [EXPORT], bundle: POLICIES, out, shard: { size: 4 } }),
    ).rejects.toMatchObject({
      name: "ConfigError",
      message: expect.stringMatching(/^audit input: shard: a sharded audit runs on the state machine/),
    });
    expect(() => readdirSync(out)).toThrow();
  });

  it("the handler throws (a failed invocation) and logs the reason, without running anything", async () => {
    const logger = recorder();
    const handler = createAuditHandler({ env: {}, logger });
    const out = join(work, "never-written");
    await expect(handler({ bundle: POLICIES, out })).rejects.toThrow(
      new Error("audit input: sources is required (a non-empty array of locations)"),
    );
    await expect(handler({ sources: [EXPORT], bundle: POLICIES, out, failOn: "sometimes" })).rejects.toThrow(
      new Error('audit input: failOn must be one of violation, warning, audit, never, not "sometimes"'),
    );
    expect(logger.lines.map((l) => [l.level, l.message, l.attributes.error])).toEqual([
      ["error", "audit failed", "Error"],
      ["error", "audit failed", "Error"],
    ]);
    expect(() => readdirSync(out)).toThrow();
  });
});
