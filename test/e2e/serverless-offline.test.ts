/**
 * `npm run dev` for real: infra/dev.ts starts s3rver and `serverless offline` (osls, serverless-offline,
 * serverless-esbuild) on free 127.0.0.1 ports, and real HTTP requests reach the handler through the REST API
 * (payload v1, /local/...) and the HTTP API (payload v2). Nothing is downloaded: telemetry is off and the AWS
 * credentials are dummies. SIGINT stops everything and frees the ports.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admissionReview } from "../helpers/events.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TOKEN = "e2e-offline-token";
/** Per test process, so that concurrent runs in one checkout do not share esbuild's output. */
const ESBUILD_DIR = `.esbuild-e2e-offline-${process.pid}`;

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

async function waitForHealthz(base: string, child: ChildProcess, output: () => string): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm run dev exited ${child.exitCode}:\n${output()}`);
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.status === 200) return Date.now() - t0;
    } catch {
      // not listening yet
    }
    if (Date.now() - t0 > 60_000) throw new Error(`serverless offline not ready after 60 s:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const widget = (replicas: number) => ({
  apiVersion: "demo.tollgate.dev/v1alpha1",
  kind: "Widget",
  metadata: { name: "w", namespace: "shop" },
  spec: { image: "busybox:1.36", replicas },
});

describe("serverless offline (npm run dev)", () => {
  let child: ChildProcess;
  let base: string;
  let log = "";
  const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

  beforeAll(async () => {
    const httpPort = await freePort();
    const lambdaPort = await freePort();
    base = `http://127.0.0.1:${httpPort}`;
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
        TOLLGATE_TOKEN: TOKEN,
        POWERTOOLS_LOG_LEVEL: "WARN",
      },
    });
    child.stdout?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    child.stderr?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    await waitForHealthz(base, child, () => log);
  }, 90_000);

  afterAll(async () => {
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGINT");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    rmSync(join(ROOT, ESBUILD_DIR), { recursive: true, force: true });
  }, 20_000);

  it("HTTP API (v2): an AdmissionReview that breaks a rule is denied with causes", async () => {
    const res = await fetch(`${base}/validate`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify(admissionReview({ uid: "offline-1", operation: "CREATE", object: widget(11) })),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { response: Record<string, unknown> };
    expect(body.response).toMatchObject({
      uid: "offline-1",
      allowed: false,
      status: { code: 422, reason: "Invalid", details: { kind: "Widget", causes: [{ field: "spec.replicas" }] } },
    });
  });

  it("REST API (v1, stage in the path): a valid AdmissionReview is allowed", async () => {
    const res = await fetch(`${base}/local/validate`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify(admissionReview({ uid: "offline-2", operation: "CREATE", object: widget(3) })),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: "offline-2", allowed: true },
    });
  });

  it("a bare object gets a 422 Status; bad input a 400; no token a 401", async () => {
    const bare = await fetch(`${base}/local/validate`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify(widget(11)),
    });
    expect(bare.status).toBe(422);
    expect(await bare.json()).toMatchObject({ kind: "Status", reason: "Invalid", code: 422 });
    const bad = await fetch(`${base}/validate`, { method: "POST", headers: auth, body: "not json" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
    const anonymous = await fetch(`${base}/validate`, { method: "POST", body: JSON.stringify(widget(3)) });
    expect(anonymous.status).toBe(401);
  });

  it("the README's two curl examples get the documented answers", async () => {
    const post = async (file: string) => {
      const body = readFileSync(join(ROOT, "examples", "admission", file), "utf8");
      const res = await fetch(`${base}/validate`, { method: "POST", headers: auth, body });
      return (await res.json()) as { response: Record<string, unknown> };
    };
    const denied = await post("widget-denied.json");
    expect(denied.response).toMatchObject({
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: false,
      status: {
        message:
          'Widget.demo.tollgate.dev "too-many-replicas" is invalid: [spec.replicas: Invalid value: 11: spec.replicas ' +
          'in body should be less than or equal to 10, spec.size: Unsupported value: "huge": supported values: ' +
          '"small", "medium", "large"]',
        reason: "Invalid",
        code: 422,
      },
    });
    const allowed = await post("widget-allowed.json");
    expect(allowed.response).toEqual({
      uid: "9e4e5c8a-2f1d-4c3b-8a57-0d6f1b2c3d4e",
      allowed: true,
      warnings: ['unknown field "spec.colour"'],
    });
  });

  it("healthz: ok for anyone, details with the token", async () => {
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: "ok" });
    const detailed = (await (await fetch(`${base}/local/healthz`, { headers: auth })).json()) as Record<
      string,
      unknown
    >;
    expect(detailed).toMatchObject({ status: "ok", failurePolicy: "Fail" });
    expect(detailed.kinds).toContain("demo.tollgate.dev/v1alpha1/Widget");
  });
});
