/**
 * `npm run dev` for real: infra/dev.ts starts s3rver and `serverless offline` (osls, serverless-offline,
 * serverless-esbuild) on free 127.0.0.1 ports, and real HTTP requests reach the handler through the REST API
 * (payload v1, /local/...) and the HTTP API (payload v2). Nothing is downloaded: telemetry is off and the AWS
 * credentials are dummies. SIGINT stops everything and frees the ports.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admissionReview } from "../helpers/events.js";
import { type Offline, startOffline } from "../helpers/offline.js";
import { ROOT, runCommand } from "../helpers/spawn.js";

const TOKEN = "e2e-offline-token";

const widget = (replicas: number) => ({
  apiVersion: "demo.tollgate.dev/v1alpha1",
  kind: "Widget",
  metadata: { name: "w", namespace: "shop" },
  spec: { image: "busybox:1.36", replicas },
});

describe("serverless offline (npm run dev)", () => {
  let offline: Offline;
  let base: string;
  const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

  beforeAll(async () => {
    offline = await startOffline({ label: "e2e-offline", lambda: true, env: { TOLLGATE_TOKEN: TOKEN } });
    base = offline.base;
  }, 90_000);

  afterAll(async () => {
    await offline?.stop();
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

  it("the README's curl examples get the documented answers", async () => {
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
    // ValidatingAdmissionPolicies (examples/policies/admission-policies.yaml): kube-apiserver's Status for the first
    // denying binding (replica-limit, with platform's param), a Warn binding's warning, the policy's audit annotation.
    const message =
      "ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-per-namespace' denied request: " +
      "replicas must be at most 2 in platform, not 4";
    const deployment = await post("deployment-denied.json");
    expect(deployment.response).toEqual({
      uid: "3c9d2f61-8a4b-4e2c-9f1d-5b6a7c8d9e01",
      allowed: false,
      status: {
        metadata: {},
        status: "Failure",
        message: `deployments.apps "importer" is forbidden: ${message}`,
        reason: "Forbidden",
        details: { name: "importer", group: "apps", kind: "deployments", causes: [{ message }] },
        code: 403,
      },
      warnings: [
        "Validation failed for ValidatingAdmissionPolicy 'trusted-registry' with binding 'trusted-registry-warn': " +
          "images must come from registry.example.com: docker.io/library/python:3.13",
      ],
      auditAnnotations: {
        // Pod Security's audit level (restricted by the example configuration's defaults)...
        "audit-violations": expect.stringMatching(
          /^would violate PodSecurity "restricted:latest": allowPrivilegeEscalation/,
        ),
        // ...and replica-limit's own annotation.
        "replica-limit/replicas": "4",
      },
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

describe("npm run dev refuses a bad setting before it starts anything", () => {
  /** infra/dev.ts as `npm run dev` runs it, with a clean environment plus `env`. */
  const dev = (env: Record<string, string>) =>
    runCommand(process.execPath, ["--openssl-legacy-provider", "--import", "tsx", "infra/dev.ts"], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TOLLGATE_DEV_S3_PORT: "0",
        TOLLGATE_DEV_LAMBDA_PORT: "0",
        ...env,
      },
    });

  it.each<{ name: string; env: Record<string, string>; message: string }>([
    {
      name: "a wrong TOLLGATE_* value (was: serverless offline's 200 with the stack trace)",
      env: { TOLLGATE_DEV_HTTP_PORT: "0", TOLLGATE_FAILURE_POLICY: "fail" },
      message: 'tollgate dev: TOLLGATE_FAILURE_POLICY="fail" is not Fail or Ignore\n',
    },
    {
      name: "a bundle that does not exist",
      env: { TOLLGATE_DEV_HTTP_PORT: "0", TOLLGATE_BUNDLE: "no-such-bundle" },
      message: `tollgate dev: TOLLGATE_BUNDLE: ${join(ROOT, "no-such-bundle")} does not exist\n`,
    },
    {
      name: "a port that is not one",
      env: { TOLLGATE_DEV_HTTP_PORT: "http" },
      message: 'tollgate dev: TOLLGATE_DEV_HTTP_PORT="http" is not a port (0 to 65535; 0 picks a free one)\n',
    },
  ])(
    "$name: one line naming it, exit 2",
    async ({ env, message }) => {
      const r = await dev(env);
      expect(r.stderr).toBe(message);
      expect(r.stdout).toBe("");
      expect(r.code).toBe(2);
    },
    30_000,
  );

  it("a busy port (was: esbuild's goroutine dump): one line naming the variable, exit 2", async () => {
    // Prepare: hold a port.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    try {
      // Act
      const r = await dev({ TOLLGATE_DEV_HTTP_PORT: String(port) });
      // Assess
      expect(r.stderr).toBe(
        `tollgate dev: 127.0.0.1:${port} is in use: stop what listens there, or set TOLLGATE_DEV_HTTP_PORT to another port (0 picks a free one)\n`,
      );
      expect(r.code).toBe(2);
    } finally {
      await new Promise((r) => server.close(r));
    }
  }, 30_000);
});
