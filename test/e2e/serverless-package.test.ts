/**
 * `osls package` offline with dummy credentials: the CloudFormation template has the validate function on
 * nodejs22.x with its REST (v1) and HTTP API (v2) routes and least-privilege IAM, and the zip it writes runs: its
 * handler, loaded with require() as the Lambda runtime loads a .cjs handler, answers from the bundle it ships. The
 * scheduled audit function has its nightly schedule (disabled by default), its own role scoped to the sources and
 * reports buckets, and its zip's handler runs an audit. The sharded audit's state machine (serverless-step-functions):
 * its definition valid Amazon States Language once CloudFormation's substitutions are made, its step functions, its
 * least-privilege roles, and a nightly schedule (disabled by default) that starts it instead of the plain auditor.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admissionReview, fakeContext, v2Event } from "../helpers/events.js";
import { extractZip } from "../helpers/zip.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const OSLS = join(ROOT, "node_modules", "osls", "bin", "serverless.js");
const DECLARATIVE_BUNDLE = join(ROOT, "test", "fixtures", "declarative", "bundle");

type Json = Record<string, unknown>;
type AslValidator = (definition: unknown) => { isValid: boolean; errorsText(separator?: string): string };
const validateAsl = createRequire(import.meta.url)("asl-validator") as AslValidator;

describe("osls package (offline, dummy credentials)", () => {
  const work = mkdtempSync(join(tmpdir(), "tollgate-package-"));
  const out = join(work, "package");
  let template: { Resources: Record<string, { Type: string; Properties: Json }> };
  let files: string[];
  let auditFiles: string[];

  beforeAll(() => {
    const run = spawnSync(process.execPath, [OSLS, "package", "--stage", "ci", "--package", out], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 90_000,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SLS_TELEMETRY_DISABLED: "1",
        SLS_NOTIFICATIONS_MODE: "off",
        AWS_ACCESS_KEY_ID: "AKIADUMMYDUMMYDUMMY0",
        AWS_SECRET_ACCESS_KEY: "dummy-secret",
        AWS_REGION: "eu-west-1",
        // Not the default .esbuild, so that `npm run dev`, the offline test or another test run is not disturbed.
        TOLLGATE_ESBUILD_DIR: `.esbuild-e2e-package-${process.pid}`,
      },
    });
    if (run.status !== 0) throw new Error(`osls package exited ${run.status}:\n${run.stdout}\n${run.stderr}`);
    template = JSON.parse(readFileSync(join(out, "cloudformation-template-update-stack.json"), "utf8"));
    files = extractZip(join(out, "validate.zip"), join(work, "unzipped"));
    auditFiles = extractZip(join(out, "audit.zip"), join(work, "unzipped-audit"));
  }, 120_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const ofType = (type: string) => Object.values(template.Resources).filter((r) => r.Type === type);
  type Statement = { Effect: string; Action: string[]; Resource: unknown[] };
  const statementsOf = (role: string): Statement[] =>
    (template.Resources[role]!.Properties.Policies as { PolicyDocument: { Statement: Statement[] } }[]).flatMap(
      (p) => p.PolicyDocument.Statement,
    );
  /** `<action> <resource>` for each S3 action of the statements, sorted. */
  const s3Grants = (statements: Statement[]): string[] =>
    statements
      .flatMap((s) => s.Action.filter((a) => a.startsWith("s3:")).flatMap((a) => s.Resource.map((r) => `${a} ${r}`)))
      .sort();

  it("declares the validate function on nodejs22.x with the TOLLGATE_* environment", () => {
    const functions = ofType("AWS::Lambda::Function");
    expect(functions.map((f) => f.Properties.Handler).sort()).toEqual([
      "functions/audit-steps.merge",
      "functions/audit-steps.plan",
      "functions/audit-steps.shard",
      "functions/audit.handler",
      "functions/validate.handler",
    ]);
    const fn = functions.find((f) => f.Properties.Handler === "functions/validate.handler")!;
    expect(fn.Properties).toMatchObject({ Runtime: "nodejs22.x", Handler: "functions/validate.handler" });
    const env = (fn.Properties.Environment as { Variables: Record<string, string> }).Variables;
    expect(env.TOLLGATE_BUNDLE).toBe("examples/policies");
    expect(Object.keys(env)).toEqual(
      expect.arrayContaining(["TOLLGATE_TOKEN", "TOLLGATE_FAILURE_POLICY", "TOLLGATE_MAX_BODY_BYTES"]),
    );
  });

  it("routes POST /validate and GET /healthz on the REST API and the HTTP API", () => {
    const rest = ofType("AWS::ApiGateway::Method").map((m) => m.Properties.HttpMethod);
    expect(rest.sort()).toEqual(["GET", "POST"]);
    const resources = ofType("AWS::ApiGateway::Resource").map((r) => r.Properties.PathPart);
    expect(resources.sort()).toEqual(["healthz", "validate"]);
    const routes = ofType("AWS::ApiGatewayV2::Route").map((r) => r.Properties.RouteKey);
    expect(routes.sort()).toEqual(["GET /healthz", "POST /validate"]);
  });

  it("grants the webhook no wildcard action and S3 reads only", () => {
    const role = template.Resources.IamRoleLambdaExecution!;
    expect(role.Type).toBe("AWS::IAM::Role");
    const statements = (role.Properties.Policies as { PolicyDocument: { Statement: { Action: string[] }[] } }[])
      .flatMap((p) => p.PolicyDocument.Statement)
      .flatMap((s) => s.Action);
    for (const action of statements) expect(action).not.toMatch(/\*/);
    expect(statements.filter((a) => a.startsWith("s3:")).sort()).toEqual(["s3:GetObject", "s3:ListBucket"]);
  });

  it("declares the audit function (900 s) on its own role, with a nightly schedule disabled by default", () => {
    const fn = template.Resources.AuditLambdaFunction!;
    expect(fn.Properties).toMatchObject({
      Runtime: "nodejs22.x",
      Handler: "functions/audit.handler",
      Timeout: 900,
      MemorySize: 3008,
      Role: { "Fn::GetAtt": ["AuditRole", "Arn"] },
    });
    const rule = template.Resources.AuditEventsRuleSchedule1!.Properties as {
      ScheduleExpression: string;
      State: string;
      Targets: { Arn: unknown; Input: string }[];
    };
    expect(rule.ScheduleExpression).toBe("cron(0 2 * * ? *)");
    expect(rule.State).toBe("DISABLED");
    expect(rule.Targets[0]!.Arn).toEqual({ "Fn::GetAtt": ["AuditLambdaFunction", "Arn"] });
    expect(JSON.parse(rule.Targets[0]!.Input)).toEqual({
      sources: ["s3://tollgate-exports-ci/exports/"],
      bundle: "s3://tollgate-exports-ci/policies/",
      out: "s3://tollgate-reports-ci/nightly/",
      failOn: "violation",
    });
  });

  it("scopes the audit role to reading the sources bucket and reading/writing the reports bucket", () => {
    const statements = statementsOf("AuditRole");
    expect(s3Grants(statements)).toEqual([
      "s3:GetObject arn:aws:s3:::tollgate-exports-ci/*",
      "s3:GetObject arn:aws:s3:::tollgate-reports-ci/*",
      "s3:ListBucket arn:aws:s3:::tollgate-exports-ci",
      "s3:ListBucket arn:aws:s3:::tollgate-reports-ci",
      "s3:PutObject arn:aws:s3:::tollgate-reports-ci/*",
    ]);
    // No sharded mode here any more: the state machine runs the shards, the function invokes nothing.
    expect(statements.flatMap((s) => s.Action).filter((a) => !a.startsWith("s3:") && !a.startsWith("logs:"))).toEqual(
      [],
    );
    for (const action of statements.flatMap((s) => s.Action)) expect(action).not.toMatch(/\*/);
  });

  it("declares the sharded audit's state machine with a valid definition calling its three step functions", () => {
    const machines = ofType("AWS::StepFunctions::StateMachine");
    expect(machines).toHaveLength(1);
    const machine = machines[0]!.Properties as {
      StateMachineName: string;
      RoleArn: unknown;
      DefinitionString: { "Fn::Sub": [string, Record<string, { "Fn::GetAtt": [string, string] }>] };
    };
    expect(machine.StateMachineName).toBe("tollgate-ci-audit-sharded");
    expect(machine.RoleArn).toEqual({ "Fn::GetAtt": ["AuditStateMachineRole", "Arn"] });
    // What CloudFormation's Fn::Sub makes of it: each placeholder is a step function's ARN.
    const [text, vars] = machine.DefinitionString["Fn::Sub"];
    const called: string[] = [];
    const definition = JSON.parse(
      text.replace(/\$\{([0-9a-f]{32})\}/g, (_m, name: string) => {
        const logicalId = vars[name]!["Fn::GetAtt"][0];
        called.push(logicalId);
        return `arn:aws:lambda:eu-west-1:123456789012:function:${logicalId}`;
      }),
    ) as Json;
    expect(called.sort()).toEqual(["AuditMergeLambdaFunction", "AuditPlanLambdaFunction", "AuditShardLambdaFunction"]);
    const result = validateAsl(definition);
    expect(result.errorsText()).toBe("");
    expect(result.isValid).toBe(true);
    expect((definition.States as Record<string, Json>).Shards).toMatchObject({
      Type: "Map",
      ItemProcessor: { ProcessorConfig: { Mode: "DISTRIBUTED" } },
    });
    expect(template.Resources.AuditMergeLambdaFunction!.Properties.EphemeralStorage).toEqual({ Size: 10240 });
    for (const [key, handler, memory] of [
      ["AuditPlanLambdaFunction", "functions/audit-steps.plan", 1024],
      ["AuditShardLambdaFunction", "functions/audit-steps.shard", 3008],
      ["AuditMergeLambdaFunction", "functions/audit-steps.merge", 3008],
    ] as const) {
      expect(template.Resources[key]!.Properties).toMatchObject({
        Handler: handler,
        Runtime: "nodejs22.x",
        Timeout: 900,
        MemorySize: memory,
        Role: { "Fn::GetAtt": [`${key.replace("LambdaFunction", "")}Role`, "Arn"] },
      });
    }
  });

  it("gives the state machine and each step only what it does", () => {
    const arn = (kind: string, name: string) => ({
      "Fn::Sub": `arn:\${AWS::Partition}:${kind}:\${AWS::Region}:\${AWS::AccountId}:${name}`,
    });
    const machine = statementsOf("AuditStateMachineRole");
    expect(machine.map((s) => [s.Action, s.Resource])).toEqual([
      [
        ["lambda:InvokeFunction"],
        ["auditPlan", "auditShard", "auditMerge"].map((f) => arn("lambda", `function:tollgate-ci-${f}`)),
      ],
      [["states:StartExecution"], [arn("states", "stateMachine:tollgate-ci-audit-sharded")]],
      [
        ["states:DescribeExecution", "states:StopExecution", "states:RedriveExecution"],
        [arn("states", "execution:tollgate-ci-audit-sharded/*")],
      ],
      [
        ["s3:GetObject", "s3:PutObject", "s3:ListMultipartUploadParts", "s3:AbortMultipartUpload"],
        ["arn:aws:s3:::tollgate-reports-ci/*shards/*"],
      ],
    ]);
    expect(template.Resources.AuditStateMachineRole!.Properties.AssumeRolePolicyDocument).toMatchObject({
      Statement: [{ Principal: { Service: ["states.amazonaws.com"] }, Action: ["sts:AssumeRole"] }],
    });
    expect(s3Grants(statementsOf("AuditPlanRole"))).toEqual([
      "s3:AbortMultipartUpload arn:aws:s3:::tollgate-reports-ci/*shards/*",
      "s3:ListBucket arn:aws:s3:::tollgate-exports-ci",
      "s3:PutObject arn:aws:s3:::tollgate-reports-ci/*shards/*",
    ]);
    expect(s3Grants(statementsOf("AuditShardRole"))).toEqual([
      "s3:AbortMultipartUpload arn:aws:s3:::tollgate-reports-ci/*shards/*",
      "s3:GetObject arn:aws:s3:::tollgate-exports-ci/*",
      "s3:ListBucket arn:aws:s3:::tollgate-exports-ci",
      "s3:PutObject arn:aws:s3:::tollgate-reports-ci/*shards/*",
    ]);
    expect(s3Grants(statementsOf("AuditMergeRole"))).toEqual([
      "s3:AbortMultipartUpload arn:aws:s3:::tollgate-reports-ci/*",
      "s3:DeleteObject arn:aws:s3:::tollgate-reports-ci/*shards/*",
      "s3:GetObject arn:aws:s3:::tollgate-reports-ci/*",
      "s3:ListBucket arn:aws:s3:::tollgate-reports-ci",
      "s3:PutObject arn:aws:s3:::tollgate-reports-ci/*",
    ]);
    for (const role of ["AuditPlanRole", "AuditShardRole", "AuditMergeRole"]) {
      const statements = statementsOf(role);
      const other = statements.flatMap((s) => s.Action).filter((a) => !a.startsWith("s3:") && !a.startsWith("logs:"));
      expect(other, role).toEqual([]);
      const logs = statements.find((s) => s.Action.includes("logs:PutLogEvents"));
      const fn = role.replace(/^Audit(\w+)Role$/, (_m, step: string) => `audit${step}`);
      expect(logs?.Resource, role).toEqual([arn("logs", `log-group:/aws/lambda/tollgate-ci-${fn}:*`)]);
    }
    // The schedule's rule may start this state machine and nothing else.
    expect(statementsOf("AuditShardedScheduleToStepFunctionsRole")).toEqual([
      { Effect: "Allow", Action: ["states:StartExecution"], Resource: { Ref: "TollgateDashciDashauditDashsharded" } },
    ]);
  });

  it("has one nightly schedule per mode, both disabled by default, with the same input", () => {
    const rules = ofType("AWS::Events::Rule").map(
      (r) => r.Properties as { ScheduleExpression: string; State: string; Targets: { Arn: unknown; Input: string }[] },
    );
    expect(rules.map((r) => [r.ScheduleExpression, r.State, r.Targets[0]!.Arn])).toEqual([
      ["cron(0 2 * * ? *)", "DISABLED", { "Fn::GetAtt": ["AuditLambdaFunction", "Arn"] }],
      ["cron(0 2 * * ? *)", "DISABLED", { Ref: "TollgateDashciDashauditDashsharded" }],
    ]);
    expect(rules[1]!.Targets[0]!.Input).toBe(rules[0]!.Targets[0]!.Input);
  });

  it("the audit zip's handler, in a fresh process, audits a folder with the bundle it ships", () => {
    expect(auditFiles).toEqual(expect.arrayContaining(["functions/audit.cjs", "examples/policies/widget-crd.yaml"]));
    const reports = join(work, "audit-reports");
    const child = `
      const { handler } = require(process.env.HANDLER);
      handler({ sources: [process.env.SOURCES], bundle: process.env.BUNDLE, out: process.env.OUT })
        .then((s) => process.stdout.write(JSON.stringify(s)));`;
    const run = spawnSync(process.execPath, ["-e", child], {
      encoding: "utf8",
      timeout: 60_000,
      env: {
        PATH: process.env.PATH,
        HANDLER: join(work, "unzipped-audit", "functions", "audit.cjs"),
        SOURCES: join(ROOT, "examples", "export"),
        BUNDLE: join(work, "unzipped-audit", "examples", "policies"),
        OUT: reports,
        POWERTOOLS_LOG_LEVEL: "SILENT",
      },
    });
    expect(run.status, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as { runId: string; folder: string; status: string; totals: Json };
    expect(summary.folder).toBe(`${join(reports, summary.runId)}/`);
    expect(summary.status).toBe("violations");
    expect(summary.totals).toMatchObject({ documents: 31, valid: 16, invalid: 7 });
    expect(JSON.parse(readFileSync(join(summary.folder, "index.json"), "utf8"))).toMatchObject({
      kind: "AuditRunIndex",
      runId: summary.runId,
    });
  });

  it("ships the CommonJS handler and the default bundle, and the handler answers from the zip", async () => {
    expect(files).toEqual(
      expect.arrayContaining([
        "functions/validate.cjs",
        "functions/tree-sitter.wasm",
        "node_modules/tree-sitter-go/tree-sitter-go.wasm",
        "examples/policies/widget-crd.yaml",
      ]),
    );
    const require = createRequire(import.meta.url);
    const previous = process.env.POWERTOOLS_LOG_LEVEL;
    process.env.POWERTOOLS_LOG_LEVEL = "SILENT";
    try {
      const mod = require(join(work, "unzipped", "functions", "validate.cjs")) as {
        handler: (e: unknown, c: unknown) => Promise<{ statusCode: number; body: string }>;
      };
      const object = {
        apiVersion: "demo.tollgate.dev/v1alpha1",
        kind: "Widget",
        metadata: { name: "w" },
        spec: { image: "busybox:1.36", replicas: 11 },
      };
      const res = await mod.handler(
        v2Event({ body: admissionReview({ uid: "zip", operation: "CREATE", object }) }),
        fakeContext(),
      );
      expect(res.statusCode).toBe(200);
      const response = (JSON.parse(res.body) as { response: { allowed: boolean; status: { code: number } } }).response;
      expect(response.allowed).toBe(false);
      expect(response.status.code).toBe(422);
    } finally {
      if (previous === undefined) delete process.env.POWERTOOLS_LOG_LEVEL;
      else process.env.POWERTOOLS_LOG_LEVEL = previous;
    }
  });

  it("the zip's handler, in a fresh process, reads Go types (declarative tags) with the WebAssembly it ships", () => {
    const child = `
      const { handler } = require(process.env.HANDLER);
      const event = { version: "2.0", rawPath: "/healthz", headers: {}, body: "",
        requestContext: { http: { method: "GET", path: "/healthz" }, stage: "$default" } };
      handler(event).then((res) => process.stdout.write(res.body));`;
    const run = spawnSync(process.execPath, ["-e", child], {
      encoding: "utf8",
      timeout: 60_000,
      env: {
        PATH: process.env.PATH,
        HANDLER: join(work, "unzipped", "functions", "validate.cjs"),
        TOLLGATE_BUNDLE: DECLARATIVE_BUNDLE,
        POWERTOOLS_LOG_LEVEL: "SILENT",
      },
    });
    expect(run.status, run.stderr).toBe(0);
    const health = JSON.parse(run.stdout) as { status: string; rules: Record<string, number>; failures: unknown[] };
    expect(health.status).toBe("ok");
    expect(health.rules.declarative).toBeGreaterThan(0);
  });
});
