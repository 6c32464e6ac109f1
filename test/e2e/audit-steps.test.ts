/**
 * The sharded audit's steps (functions/audit-steps.ts) in process, run by the state machine's own definition
 * (infra/audit-state-machine.yml, as osls resolves it) through the test's interpreter (test/helpers/state-machine.ts)
 * over a real S3-compatible server (s3rver): plan → the Distributed Map's batches → one shard step per batch → merge.
 * Only the Lambda transport is in process (each step called with its payload through a JSON round trip, as the
 * Lambda API carries it); listing, the manifest, the partial runs, the merge, the reports and the clean-up are real.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuditLogger, type AuditSummary, createAuditHandler } from "../../functions/audit.js";
import { createAuditSteps, type PlanState } from "../../functions/audit-steps.js";
import { type BlobStore, createS3Store } from "../../lib/storage/index.js";
import { type S3TestServer, startS3Server } from "../helpers/s3-server.js";
import {
  BUNDLE,
  expectSameReport,
  keysUnder,
  readReport,
  SEEDED_TOTALS,
  SOURCE,
  seedExports,
} from "../helpers/sharded-audit.js";
import {
  functionKey,
  type InterpreterOptions,
  printedDefinition,
  runExecution,
  StatesError,
} from "../helpers/state-machine.js";

const silent: AuditLogger = { info: () => {}, error: () => {}, addContext: () => {} };

let s3: S3TestServer;
let inputs: BlobStore;
let reports: BlobStore;
let units: string[];
let definition: unknown;
let plain: AuditSummary;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  s3 = await startS3Server({ buckets: ["exports", "reports"] });
  inputs = await createS3Store({ ...s3.options, bucket: "exports" });
  reports = await createS3Store({ ...s3.options, bucket: "reports" });
  units = await seedExports(inputs);
  // The SDK's default chains (credentials, region) read process.env, as in Lambda; the endpoint is TOLLGATE_*.
  const { TOLLGATE_S3_ENDPOINT: _endpoint, ...aws } = s3.env;
  for (const [k, v] of Object.entries(aws)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  definition = await printedDefinition();
  plain = await createAuditHandler({ env, logger: silent })({
    sources: [SOURCE],
    bundle: BUNDLE,
    out: "s3://reports/plain",
  });
}, 60_000);

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  inputs?.close();
  reports?.close();
  await s3?.stop();
});

const env = {
  get TOLLGATE_S3_ENDPOINT() {
    return s3.endpoint;
  },
};
const STEP_OF = { auditPlan: "plan", auditShard: "shard", auditMerge: "merge" } as const;

/**
 * The interpreter's options: the steps in process (JSON in, JSON out, a thrown error's name as the error);
 * `beforeStep` runs before each step (a test arms its S3 fault once the plan, which reads the whole input for its
 * Namespaces, is done).
 */
function inProcess(
  calls: { step: string; payload: unknown }[] = [],
  beforeStep: (step: string) => void = () => {},
): InterpreterOptions {
  const steps = createAuditSteps({ env, logger: silent });
  return {
    async invoke(ref, payload) {
      const key = functionKey(ref) as keyof typeof STEP_OF;
      const step = STEP_OF[key];
      calls.push({ step, payload });
      beforeStep(step);
      try {
        return { payload: JSON.parse(JSON.stringify(await steps[step](JSON.parse(JSON.stringify(payload))))) };
      } catch (err) {
        const e = err as Error;
        return { error: e.name, cause: JSON.stringify({ errorType: e.name, errorMessage: e.message }) };
      }
    },
    s3: {
      read: async (bucket, key) => {
        const store = await createS3Store({ ...s3.options, bucket });
        try {
          return await store.readText(key);
        } finally {
          store.close();
        }
      },
      write: async (bucket, key, body) => {
        const store = await createS3Store({ ...s3.options, bucket });
        try {
          await store.write(key, body);
        } finally {
          store.close();
        }
      },
    },
  };
}

/** An S3 fault armed when the first shard step starts; `clear` removes it (armed or not). */
function faultOnShards(fault: Parameters<S3TestServer["injectFault"]>[0]): {
  beforeStep: (step: string) => void;
  clear: () => void;
} {
  let clear: (() => void) | undefined;
  return {
    beforeStep: (step) => {
      if (step === "shard" && clear === undefined) clear = s3.injectFault(fault);
    },
    clear: () => clear?.(),
  };
}

const putsOf = (from: number, path: string) =>
  s3.requests.slice(from).filter((r) => r.method === "PUT" && r.url.startsWith(path)).length;

describe("the sharded audit's steps run by its state machine definition", () => {
  it("plans, audits the shards and merges into the report an unsharded run gives; the work folder goes", async () => {
    // Prepare
    const calls: { step: string; payload: unknown }[] = [];
    const before = s3.requests.length;
    // Act
    const { output, trace } = await runExecution(
      definition,
      { sources: [SOURCE], bundle: BUNDLE, out: "s3://reports/sharded", shard: { size: 4 } },
      { ...inProcess(calls), startTime: "2026-11-22T02:00:00.000Z" },
    );
    // Assess: 28 units (the archive whole) in batches of at most 4, consecutive, in listing order.
    const summary = output as AuditSummary;
    expect(summary).toMatchObject({
      runId: "20261122T020000Z",
      folder: "s3://reports/sharded/20261122T020000Z/",
      status: "violations",
      exitCode: 1,
      shards: 7,
      totals: SEEDED_TOTALS,
    });
    expect(trace.batches.map((b) => b.length)).toEqual([4, 4, 4, 4, 4, 4, 4]);
    const items = trace.batches.flat() as { index: number; name: string }[];
    expect(items.map((i) => i.index)).toEqual(Array.from({ length: 28 }, (_, i) => i));
    expect(items.map((i) => i.name)).toEqual(units);
    expect(calls.map((c) => c.step)).toEqual(["plan", ...Array.from({ length: 7 }, () => "shard"), "merge"]);
    // The examples enable Pod Security: the plan wrote the input's Namespaces for the shards.
    const shardPayload = calls[1]?.payload as { BatchInput?: { run?: { namespaces?: boolean } } } | undefined;
    const shardRun = shardPayload?.BatchInput?.run;
    expect(shardRun?.namespaces).toBe(true);
    expect(putsOf(before, "/reports/sharded/shards/20261122T020000Z/namespaces.json")).toBe(1);
    expect(trace.retries).toEqual([]);
    await expectSameReport(reports, summary.folder, plain.folder);
    // Published as one run: the reports, index.json, latest.json once; the manifest, the partial runs and the
    // result writer's files existed and are gone.
    expect(await keysUnder(reports, "sharded/20261122T020000Z/")).toEqual(
      expect.arrayContaining(["index.json", "report.json", "report.html", "report.sarif"]),
    );
    const latest = JSON.parse(await reports.readText("sharded/latest.json")) as { runId: string };
    expect(latest.runId).toBe("20261122T020000Z");
    expect(putsOf(before, "/reports/sharded/latest.json")).toBe(1);
    expect(putsOf(before, "/reports/sharded/shards/20261122T020000Z/manifest.json")).toBe(1);
    expect(putsOf(before, "/reports/sharded/shards/20261122T020000Z/parts/")).toBe(7);
    expect(putsOf(before, "/reports/sharded/shards/20261122T020000Z/results/")).toBe(2);
    expect(await keysUnder(reports, "sharded/shards/")).toEqual([]);

    // A merge retried after it published (its answer lost) publishes nothing again and answers the same run.
    const merge = calls[calls.length - 1] as { payload: PlanState };
    const again = await createAuditSteps({ env, logger: silent }).merge(merge.payload);
    expect(again).toMatchObject({ runId: summary.runId, folder: summary.folder, totals: summary.totals });
    expect(putsOf(before, "/reports/sharded/latest.json")).toBe(1);

    // The next run compares with it, as `tollgate audit` does.
    const next = await runExecution(
      definition,
      { sources: [SOURCE], bundle: BUNDLE, out: "s3://reports/sharded", shard: { size: 7 } },
      { ...inProcess(), startTime: "2026-11-23T02:00:00.000Z" },
    );
    const second = await readReport(reports, (next.output as AuditSummary).folder);
    expect(next.trace.batches.map((b) => b.length)).toEqual([7, 7, 7, 7]);
    expect(second.comparison).toMatchObject({ newFindings: 0, persistingFindings: 40, resolvedFindings: 0 });
    for (const f of second.findings) expect(f.firstSeen).toBe("2026-11-22T02:00:00.000Z");
  });

  it("a shard whose S3 reads fail (throttled) is retried by the state machine and succeeds", async () => {
    // Prepare: the object's GETs are throttled through the SDK's 3 attempts once, so the step fails once.
    const { beforeStep, clear } = faultOnShards({
      method: "GET",
      path: /^\/exports\/cluster-a\/05\.yaml/,
      status: 503,
      code: "SlowDown",
      message: "Please reduce your request rate.",
      times: 3,
    });
    try {
      // Act
      const { output, trace } = await runExecution(
        definition,
        { sources: [SOURCE], bundle: BUNDLE, out: "s3://reports/retried", shard: { size: 4 } },
        { ...inProcess([], beforeStep), startTime: "2026-11-22T03:00:00.000Z" },
      );
      // Assess
      expect(trace.retries).toEqual([
        { state: "AuditShard", error: "StorageUnavailable", delaySeconds: expect.any(Number) },
      ]);
      expect(trace.attempts.filter((a) => a.state === "AuditShard")).toHaveLength(8);
      expect(trace.retries[0]?.delaySeconds).toBeLessThanOrEqual(2);
      await expectSameReport(reports, (output as AuditSummary).folder, plain.folder);
    } finally {
      clear();
    }
  });

  it("a shard that keeps failing fails the run with nothing published; redriven, the run completes", async () => {
    // Prepare: one object cannot be read (access denied: not retried).
    const { beforeStep, clear } = faultOnShards({
      method: "GET",
      path: /^\/exports\/cluster-a\/09\.yaml/,
      status: 403,
      code: "AccessDenied",
      message: "Access Denied",
    });
    const input = { sources: [SOURCE], bundle: BUNDLE, out: "s3://reports/failing", shard: { size: 4 } };
    const startTime = "2026-11-22T04:00:00.000Z";
    let failure: unknown;
    try {
      failure = await runExecution(definition, input, { ...inProcess([], beforeStep), startTime }).catch(
        (e: unknown) => e,
      );
    } finally {
      clear();
    }
    // Assess: the Map failed on the shard (ToleratedFailurePercentage 0); no report, no latest.json; the other
    // shards' partial runs stay for a redrive.
    expect(failure).toBeInstanceOf(StatesError);
    expect(failure).toMatchObject({ error: "States.ExceedToleratedFailureThreshold" });
    expect((failure as Error).message).toMatch(/1 of 7 child executions failed .*StorageError: .*AccessDenied/);
    expect(await keysUnder(reports, "failing/")).not.toContain("latest.json");
    const parts = await keysUnder(reports, "failing/shards/20261122T040000Z/parts/");
    expect(parts).not.toContain("0000000008-0000000011.json");
    // A redrive: the same plan (same start time: the same run and manifest), the failed shard again, then the merge.
    const steps = createAuditSteps({ env, logger: silent });
    const state = await steps.plan({ input, startedAt: startTime });
    await steps.shard({ BatchInput: { run: state.run }, Items: await manifestItems(state, 8, 12) });
    const summary = await steps.merge(state);
    expect(summary).toMatchObject({ runId: "20261122T040000Z", shards: 7 });
    await expectSameReport(reports, summary.folder, plain.folder);
    expect(await keysUnder(reports, "failing/shards/")).toEqual([]);
  });

  it("with failed shards tolerated, their units are reported as not audited", async () => {
    const { beforeStep, clear } = faultOnShards({
      method: "GET",
      path: /^\/exports\/cluster-a\/09\.yaml/,
      status: 403,
      code: "AccessDenied",
    });
    let output: unknown;
    try {
      ({ output } = await runExecution(
        definition,
        {
          sources: [SOURCE],
          bundle: BUNDLE,
          out: "s3://reports/tolerant",
          shard: { size: 4, toleratedFailurePercentage: 20 },
        },
        { ...inProcess([], beforeStep), startTime: "2026-11-22T05:00:00.000Z" },
      ));
    } finally {
      clear();
    }
    const summary = output as AuditSummary;
    expect(summary).toMatchObject({ shards: 6, totals: { inputErrors: 4 } });
    const report = await readReport(reports, summary.folder);
    const notAudited = report.findings.filter((f) => f.severity === "input-error");
    expect(notAudited.map((f) => f.location.file)).toEqual(units.slice(8, 12));
    for (const f of notAudited) expect(f.message).toMatch(/^not audited: the shard that held it failed/);
    // In place: the units before and after keep their order.
    expect(report.objects.map((o) => o.location.file).filter((f, i, all) => all.indexOf(f) === i)).toEqual(units);
  });

  it("the plan refuses a local report folder: the state machine reads the manifest from S3", async () => {
    const steps = createAuditSteps({ env, logger: silent });
    await expect(
      steps.plan({ input: { sources: [SOURCE], bundle: BUNDLE, out: "reports" }, startedAt: "2026-11-22T06:00:00Z" }),
    ).rejects.toMatchObject({ name: "ConfigError", message: expect.stringMatching(/out must be an s3:\/\/ location/) });
    await expect(steps.plan({ input: { sources: [SOURCE] } })).rejects.toThrow(/plan input: startedAt must be/);
  });
});

/** Items first..last-1 of the plan's manifest, as the Map would batch them. */
async function manifestItems(state: PlanState, first: number, end: number): Promise<unknown[]> {
  const store = await createS3Store({ ...s3.options, bucket: state.manifest.bucket });
  try {
    return (JSON.parse(await store.readText(state.manifest.key)) as unknown[]).slice(first, end);
  } finally {
    store.close();
  }
}
