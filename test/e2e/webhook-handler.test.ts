/**
 * The webhook Lambda driven in-process with API Gateway REST (payload v1) and HTTP API (payload v2) events built
 * from test/fixtures/events/: AdmissionReview answers, bare objects, /healthz, every bad-input path, auth, the
 * failure policy and the logs.
 */
import { readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import type { FunctionLogger } from "../../functions/logger.js";
import { createRuntime, resolveEnvConfig } from "../../functions/runtime.js";
import { createHandler, type Handler } from "../../functions/webhook.js";
import { type BundleOptions, loadBundle, type PolicySet, StorageError } from "../../lib/index.js";
import { admissionReview, event, fakeContext, type Payload } from "../helpers/events.js";

const BROKEN_BUNDLE = fileURLToPath(new URL("../fixtures/bundles/broken-crd", import.meta.url));
const POD_SECURITY_BUNDLE = fileURLToPath(new URL("../fixtures/bundles/pod-security", import.meta.url));

interface LogLine {
  level: "info" | "warn" | "error";
  message: string;
  attributes: Record<string, unknown>;
}

function recorder(): FunctionLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    info: (message, attributes = {}) => lines.push({ level: "info", message, attributes }),
    warn: (message, attributes = {}) => lines.push({ level: "warn", message, attributes }),
    error: (message, attributes = {}) => lines.push({ level: "error", message, attributes }),
    addContext: () => {},
  };
}

function setup(
  env: Record<string, string> = {},
  load?: (source: string, options: BundleOptions) => Promise<PolicySet>,
): { handler: Handler; logger: ReturnType<typeof recorder> } {
  const logger = recorder();
  const runtime = createRuntime(env, load === undefined ? { logger } : { logger, load });
  return { handler: createHandler(runtime), logger };
}

const widget = (spec: Record<string, unknown>, name = "frontend") => ({
  apiVersion: "demo.tollgate.dev/v1alpha1",
  kind: "Widget",
  metadata: { name, namespace: "shop" },
  spec: { image: "registry.example.com/shop/frontend:1.4.2", ...spec },
});

const rollout = (strategy: string) => ({
  apiVersion: "demo.tollgate.dev/v1alpha1",
  kind: "Rollout",
  metadata: { name: "web", namespace: "default" },
  spec: { replicas: 10, maxUnavailable: 4, strategy, memory: "2Gi", canary: { steps: [10, 50, 100] } },
});

const TOO_MANY_REPLICAS = "Invalid value: 11: spec.replicas in body should be less than or equal to 10";

async function call(handler: Handler, payload: Payload, spec: Parameters<typeof event>[1]) {
  const res = await handler(event(payload, spec), fakeContext());
  return { status: res.statusCode, headers: res.headers, body: JSON.parse(res.body) as Record<string, unknown> };
}

describe.each<{ payload: Payload }>([{ payload: "v1" }, { payload: "v2" }])("payload $payload", ({ payload }) => {
  const { handler, logger } = setup();

  describe("POST /validate with an AdmissionReview", () => {
    it("allows a valid object: same uid, no status, no warnings", async () => {
      const res = await call(handler, payload, {
        body: admissionReview({ uid: "u-allowed", operation: "CREATE", object: widget({ replicas: 3 }) }),
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response: { uid: "u-allowed", allowed: true },
      });
    });

    it("denies an invalid object with kube-apiserver's 422 Invalid status and causes", async () => {
      const res = await call(handler, payload, {
        body: admissionReview({
          uid: "u-denied",
          operation: "CREATE",
          object: widget({ replicas: 11, size: "huge" }, "too-many"),
        }),
      });
      expect(res.status).toBe(200);
      const response = res.body.response as Record<string, unknown>;
      expect(response.uid).toBe("u-denied");
      expect(response.allowed).toBe(false);
      expect(response.status).toEqual({
        metadata: {},
        status: "Failure",
        message:
          `Widget.demo.tollgate.dev "too-many" is invalid: [spec.replicas: ${TOO_MANY_REPLICAS}, ` +
          'spec.size: Unsupported value: "huge": supported values: "small", "medium", "large"]',
        reason: "Invalid",
        details: {
          name: "too-many",
          group: "demo.tollgate.dev",
          kind: "Widget",
          causes: [
            { reason: "FieldValueInvalid", message: TOO_MANY_REPLICAS, field: "spec.replicas" },
            {
              reason: "FieldValueNotSupported",
              message: 'Unsupported value: "huge": supported values: "small", "medium", "large"',
              field: "spec.size",
            },
          ],
        },
        code: 422,
      });
    });

    it("returns warnings (an unknown field) on an allowed object", async () => {
      const res = await call(handler, payload, {
        body: admissionReview({ uid: "u-warn", operation: "CREATE", object: widget({ replicas: 2, colour: "red" }) }),
      });
      expect(res.body.response).toEqual({ uid: "u-warn", allowed: true, warnings: ['unknown field "spec.colour"'] });
    });

    it("allows a kind no policy covers, with no warning", async () => {
      const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "b" }, x: 1 };
      const res = await call(handler, payload, {
        body: admissionReview({ uid: "u-cm", operation: "CREATE", object: configMap }),
      });
      expect(res.body.response).toEqual({ uid: "u-cm", allowed: true });
    });

    it("UPDATE: a transition rule sees oldObject", async () => {
      const res = await call(handler, payload, {
        body: admissionReview({
          uid: "u-update",
          operation: "UPDATE",
          object: rollout("BlueGreen"),
          oldObject: rollout("Canary"),
        }),
      });
      const response = res.body.response as { allowed: boolean; status: { details: { causes: unknown[] } } };
      expect(response.allowed).toBe(false);
      expect(response.status.details.causes).toEqual([
        { reason: "FieldValueInvalid", message: expect.stringMatching(/strategy is immutable$/), field: "spec" },
      ]);
    });

    it("UPDATE: an error the stored object already had is ratcheted (allowed)", async () => {
      const old = widget({ replicas: 11 });
      const res = await call(handler, payload, {
        body: admissionReview({ uid: "u-ratchet", operation: "UPDATE", object: old, oldObject: old }),
      });
      expect(res.body.response).toEqual({ uid: "u-ratchet", allowed: true });
    });

    it("dryRun gets the same answer and is logged", async () => {
      const res = await call(handler, payload, {
        body: admissionReview({ uid: "u-dry", operation: "CREATE", dryRun: true, object: widget({ replicas: 11 }) }),
      });
      expect((res.body.response as { allowed: boolean }).allowed).toBe(false);
      const line = logger.lines.find((l) => l.attributes.uid === "u-dry");
      expect(line?.attributes).toMatchObject({ dryRun: true, decision: "denied", operation: "CREATE" });
    });

    it("subResource status validates the status subresource", async () => {
      const res = await call(handler, payload, {
        body: admissionReview({
          uid: "u-status",
          operation: "UPDATE",
          subResource: "status",
          object: widget({ replicas: 11 }),
          oldObject: widget({ replicas: 3 }),
        }),
      });
      // The status subresource ignores spec changes (the API server resets spec to the stored one).
      expect(res.body.response).toEqual({ uid: "u-status", allowed: true });
    });

    it("DELETE with only oldObject is allowed", async () => {
      const res = await call(handler, payload, {
        body: admissionReview({ uid: "u-del", operation: "DELETE", object: null, oldObject: widget({ replicas: 11 }) }),
      });
      expect(res.body.response).toEqual({ uid: "u-del", allowed: true });
    });

    it("takes apiVersion and kind from request.kind when the object lacks them", async () => {
      const { apiVersion: _a, kind: _k, ...bare } = widget({ replicas: 11 });
      const res = await call(handler, payload, {
        body: admissionReview({
          uid: "u-kind",
          operation: "CREATE",
          kind: { group: "demo.tollgate.dev", version: "v1alpha1", kind: "Widget" },
          object: bare,
        }),
      });
      expect((res.body.response as { allowed: boolean }).allowed).toBe(false);
    });
  });

  describe("POST /validate with a bare object (dry-run style Status)", () => {
    it("200 Success for a valid object", async () => {
      const res = await call(handler, payload, { body: widget({ replicas: 1 }) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 200 });
    });

    it("422 Failure with causes and a Warning header", async () => {
      const res = await call(handler, payload, { body: widget({ replicas: 11, extra: true }, "w") });
      expect(res.status).toBe(422);
      expect(res.headers.warning).toBe('299 - "unknown field \\"spec.extra\\""');
      expect(res.body).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `Widget.demo.tollgate.dev "w" is invalid: spec.replicas: ${TOO_MANY_REPLICAS}`,
        reason: "Invalid",
        details: {
          name: "w",
          group: "demo.tollgate.dev",
          kind: "Widget",
          causes: [{ reason: "FieldValueInvalid", message: TOO_MANY_REPLICAS, field: "spec.replicas" }],
        },
        code: 422,
      });
    });
  });

  describe("bad input: HTTP 400 with a Status", () => {
    const review = (request: unknown) => ({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request });
    it.each<{ name: string; body: unknown; message: string | RegExp }>([
      { name: "empty body", body: undefined, message: /the request body is empty/ },
      { name: "not JSON", body: "hello: world", message: "the request body is not a JSON object" },
      { name: "broken JSON", body: '{"kind": ', message: /^the request body cannot be decoded: / },
      { name: "a JSON array", body: "[1, 2]", message: "the request body is not a JSON object" },
      { name: "wrong shape", body: { hello: "world" }, message: /neither an admission.k8s.io\/v1 AdmissionReview/ },
      { name: "no request", body: review(undefined), message: "the AdmissionReview has no request" },
      { name: "no uid", body: review({ operation: "CREATE", object: {} }), message: /has no uid/ },
      { name: "empty uid", body: review({ uid: "", operation: "CREATE", object: {} }), message: /has no uid/ },
      { name: "no object", body: review({ uid: "u", operation: "CREATE" }), message: /\(CREATE\) has no object/ },
      {
        name: "UPDATE without oldObject",
        body: review({ uid: "u", operation: "UPDATE", object: widget({}) }),
        message: /\(UPDATE\) has no oldObject/,
      },
      { name: "bad operation", body: review({ uid: "u", operation: "PATCH", object: {} }), message: /PATCH/ },
      {
        name: "v1beta1 review",
        body: { apiVersion: "admission.k8s.io/v1beta1", kind: "AdmissionReview", request: { uid: "u" } },
        message: /admission.k8s.io\/v1beta1.*not supported/,
      },
      {
        name: "object not an object",
        body: review({ uid: "u", operation: "CREATE", object: "x" }),
        message: "request.object must be a JSON object",
      },
    ])("$name", async ({ body, message }) => {
      const res = await call(handler, payload, { body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ kind: "Status", status: "Failure", reason: "BadRequest", code: 400 });
      if (typeof message === "string") expect(res.body.message).toBe(message);
      else expect(res.body.message).toMatch(message);
    });

    it("too large (TOLLGATE_MAX_BODY_BYTES), plain and base64", async () => {
      const small = setup({ TOLLGATE_MAX_BODY_BYTES: "100" }).handler;
      const body = widget({ image: "x".repeat(200) });
      for (const base64 of [false, true]) {
        const res = await call(small, payload, { body, base64 });
        expect(res.status).toBe(400);
        expect(res.body.message).toMatch(/^the request body is \d+ bytes, over the limit of 100 bytes$/);
      }
    });

    it("too deep (TOLLGATE_MAX_DEPTH)", async () => {
      const shallow = setup({ TOLLGATE_MAX_DEPTH: "5" }).handler;
      const res = await call(shallow, payload, { body: widget({ a: { b: { c: { d: { e: 1 } } } } }) });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^the request body cannot be decoded: .*(depth|deep|nest)/);
    });

    it("a base64 body that is not UTF-8", async () => {
      const e = event(payload, { body: "x" });
      e.body = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString("base64");
      e.isBase64Encoded = true;
      const res = await handler(e, fakeContext());
      expect(res.statusCode).toBe(400);
      expect(JSON.parse(res.body).message).toBe("the request body is not valid UTF-8");
    });

    it("never quotes the body in the answer or the logs", async () => {
      await call(handler, payload, { body: '{"secret": "hunter2-value", ' });
      expect(JSON.stringify(logger.lines)).not.toContain("hunter2-value");
    });
  });

  describe("events", () => {
    it("base64 bodies are decoded", async () => {
      const res = await call(handler, payload, { body: widget({ replicas: 11 }), base64: true });
      expect(res.status).toBe(422);
    });

    it("stage prefixes are removed", async () => {
      const spec = payload === "v1" ? { stageInPath: true } : { stage: "prod" };
      const res = await call(handler, payload, { ...spec, body: widget({ replicas: 1 }) });
      expect(res.status).toBe(200);
    });

    it("unknown paths are 404 and wrong methods 405", async () => {
      expect((await call(handler, payload, { path: "/nope" })).status).toBe(404);
      const res = await call(handler, payload, { method: "GET", path: "/validate" });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe("POST");
    });
  });

  describe("GET /healthz", () => {
    it("without a configured token: ok with the bundle's details", async () => {
      const res = await call(handler, payload, { method: "GET", path: "/healthz" });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: "ok", failurePolicy: "Fail", failures: [] });
      expect(res.body.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(res.body.kinds).toContain("demo.tollgate.dev/v1alpha1/Widget");
      expect((res.body.rules as Record<string, number>).crd).toBeGreaterThan(0);
      expect((res.body.waivers as { name: string }[]).map((w) => w.name)).toEqual([
        "checkout-replicas",
        "debug-shell-privileged",
      ]);
    });
  });
});

describe("auth (TOLLGATE_TOKEN)", () => {
  const { handler, logger } = setup({ TOLLGATE_TOKEN: "s3cret-token" });
  const body = admissionReview({ uid: "u-auth", operation: "CREATE", object: widget({ replicas: 1 }) });

  it.each<{ name: string; authorization?: string; status: number }>([
    { name: "missing", status: 401 },
    { name: "wrong", authorization: "Bearer nope", status: 401 },
    { name: "not bearer", authorization: "Basic czNjcmV0LXRva2Vu", status: 401 },
    { name: "right", authorization: "Bearer s3cret-token", status: 200 },
    { name: "right, scheme in lower case", authorization: "bearer s3cret-token", status: 200 },
  ])("$name → $status", async ({ authorization, status }) => {
    for (const payload of ["v1", "v2"] as const) {
      const headers: Record<string, string> = authorization === undefined ? {} : { Authorization: authorization };
      const res = await call(handler, payload, { body, headers });
      expect(res.status).toBe(status);
      if (status === 401) expect(res.body).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
    }
  });

  it("healthz: ok without the token, details with it", async () => {
    const anonymous = await call(handler, "v2", { method: "GET", path: "/healthz" });
    expect(anonymous.body).toEqual({ status: "ok" });
    const authorized = await call(handler, "v2", {
      method: "GET",
      path: "/healthz",
      headers: { authorization: "Bearer s3cret-token" },
    });
    expect(authorized.body.digest).toMatch(/^sha256:/);
  });

  it("never logs the token", () => {
    expect(JSON.stringify(logger.lines)).not.toContain("s3cret-token");
  });
});

describe("Pod Security (a bundle with a PodSecurityConfiguration and Namespaces)", () => {
  const { handler } = setup({ TOLLGATE_BUNDLE: POD_SECURITY_BUNDLE });
  const privilegedPod = (name: string, namespace = "shop") => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace },
    spec: { containers: [{ name: "app", image: "nginx", securityContext: { privileged: true } }] },
  });
  const podReview = (uid: string, pod: Record<string, unknown>, username = "alice") =>
    admissionReview({
      uid,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      name: (pod.metadata as { name: string }).name,
      namespace: (pod.metadata as { namespace: string }).namespace,
      operation: "CREATE",
      userInfo: { username },
      object: pod,
    });
  const RESTRICTED_AUDIT =
    'would violate PodSecurity "restricted:latest": privileged (container "app" must not set securityContext.privileged=true), ' +
    'allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), ' +
    'unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), ' +
    'runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), ' +
    'seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

  it.each<{ payload: Payload }>([{ payload: "v1" }, { payload: "v2" }])(
    "denies a privileged Pod in an enforce=baseline namespace with the admission controller's Status ($payload)",
    async ({ payload }) => {
      const res = await call(handler, payload, { body: podReview("u-psa", privilegedPod("web")) });
      expect(res.status).toBe(200);
      expect(res.body.response).toEqual({
        uid: "u-psa",
        allowed: false,
        status: {
          metadata: {},
          status: "Failure",
          message:
            'pods "web" is forbidden: violates PodSecurity "baseline:latest": privileged (container "app" must not set securityContext.privileged=true)',
          reason: "Forbidden",
          details: { name: "web", kind: "pods" },
          code: 403,
        },
        // The library's keys: kube-apiserver prefixes them with the webhook's name.
        auditAnnotations: { "enforce-policy": "baseline:latest", "audit-violations": RESTRICTED_AUDIT },
      });
    },
  );

  it("warns about a Deployment's template instead of denying it", async () => {
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "shop" },
      spec: { template: { spec: privilegedPod("web").spec } },
    };
    const res = await call(handler, "v2", {
      body: admissionReview({ uid: "u-dep", operation: "CREATE", namespace: "shop", name: "web", object: deployment }),
    });
    const response = res.body.response as Record<string, unknown>;
    expect(response.allowed).toBe(true);
    expect(response.warnings).toEqual([
      `would violate PodSecurity "restricted:v1.30": ${RESTRICTED_AUDIT.slice(RESTRICTED_AUDIT.indexOf(": ") + 2)}`,
    ]);
    expect(response.auditAnnotations).toEqual({ "audit-violations": RESTRICTED_AUDIT });
  });

  it("exempts a user named in the configuration", async () => {
    const res = await call(handler, "v1", {
      body: podReview("u-exempt", privilegedPod("ds-pod"), "system:serviceaccount:kube-system:daemon-set-controller"),
    });
    expect(res.body.response).toEqual({ uid: "u-exempt", allowed: true, auditAnnotations: { exempt: "user" } });
  });

  it("a bare object gets the 403 Status itself", async () => {
    const res = await call(handler, "v1", { body: privilegedPod("bare") });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ kind: "Status", reason: "Forbidden", code: 403 });
    expect(res.body.message).toMatch(/^pods "bare" is forbidden: violates PodSecurity "baseline:latest": privileged/);
  });

  it("/healthz shows the family, its defaults, exemptions and the version latest stands for", async () => {
    const res = await call(handler, "v2", { method: "GET", path: "/healthz" });
    const families = res.body.families as { family: string }[];
    expect(families.filter((f) => f.family === "pod-security")).toEqual([
      {
        family: "pod-security",
        stage: "admission",
        settings: {
          defaults: { enforce: "privileged:latest", audit: "restricted:latest", warn: "privileged:latest" },
          exemptions: {
            usernames: ["system:serviceaccount:kube-system:daemon-set-controller"],
            namespaces: ["kube-system"],
            runtimeClasses: [],
          },
          latest: "v1.36",
          namespaces: 2,
        },
      },
    ]);
    expect((res.body.rules as Record<string, number>)["pod-security"]).toBeGreaterThan(0);
    expect(res.body.failures).toEqual([]);
  });

  it("a namespace the bundle does not hold: 500 InternalError, as a failed namespace lookup", async () => {
    const res = await call(handler, "v1", { body: podReview("u-missing", privilegedPod("x", "unknown")) });
    expect(res.body.response).toEqual({
      uid: "u-missing",
      allowed: false,
      status: {
        metadata: {},
        status: "Failure",
        message: 'Internal error occurred: failed to lookup namespace "unknown"',
        reason: "InternalError",
        details: { causes: [{ message: 'failed to lookup namespace "unknown"' }] },
        code: 500,
      },
      auditAnnotations: {
        error: 'Internal error occurred: failed to lookup namespace "unknown": namespaces "unknown" not found',
      },
    });
  });
});

describe("failure policy", () => {
  const broken = { apiVersion: "fixtures.tollgate.dev/v1", kind: "Broken", metadata: { name: "b" }, spec: {} };
  const body = admissionReview({ uid: "u-broken", operation: "CREATE", object: broken });

  it("Fail (the default): a kind whose policy failed to compile is denied with a clear message", async () => {
    const { handler } = setup({ TOLLGATE_BUNDLE: BROKEN_BUNDLE });
    const res = await call(handler, "v2", { body });
    const response = res.body.response as { allowed: boolean; status: { message: string } };
    expect(response.allowed).toBe(false);
    expect(response.status.message).toMatch(/^Broken.fixtures.tollgate.dev "b" is invalid: /);
  });

  it("TOLLGATE_FAILURE_POLICY=Ignore overrides the bundle: allowed with a warning", async () => {
    const { handler } = setup({ TOLLGATE_BUNDLE: BROKEN_BUNDLE, TOLLGATE_FAILURE_POLICY: "Ignore" });
    const res = await call(handler, "v1", { body });
    const response = res.body.response as { allowed: boolean; warnings: string[] };
    expect(response.allowed).toBe(true);
    expect(response.warnings.length).toBeGreaterThan(0);
    const health = await call(handler, "v1", { method: "GET", path: "/healthz" });
    expect(health.body.failurePolicy).toBe("Ignore");
    expect((health.body.failures as unknown[]).length).toBeGreaterThan(0);
  });

  it("a bundle that cannot be loaded: denied (Fail) with a 500 status, then retried on the next invocation", async () => {
    let attempts = 0;
    const { handler, logger } = setup({}, async (source, options) => {
      attempts++;
      if (attempts === 1) throw new StorageError("cannot read s3://bucket/bundle: connection refused");
      return loadBundle(source, options);
    });
    const review = admissionReview({ uid: "u-fault", operation: "CREATE", object: widget({ replicas: 1 }) });
    const first = await call(handler, "v2", { body: review });
    expect(first.status).toBe(200);
    expect(first.body.response).toEqual({
      uid: "u-fault",
      allowed: false,
      status: {
        metadata: {},
        status: "Failure",
        message: "tollgate could not load its policy bundle; see the function's logs",
        reason: "InternalError",
        code: 500,
      },
    });
    const bare = await call(handler, "v2", { body: widget({ replicas: 1 }) });
    expect(bare.status).toBe(200); // the second invocation retried the load, which succeeded
    expect(attempts).toBe(2);
    expect(logger.lines.some((l) => l.level === "error" && l.message === "bundle load failed")).toBe(true);
  });

  it("a bundle that cannot be loaded under Ignore: allowed with a warning; a bare object gets a 500", async () => {
    const { handler } = setup({ TOLLGATE_FAILURE_POLICY: "Ignore" }, async () => {
      throw new StorageError("unreachable");
    });
    const res = await call(handler, "v1", {
      body: admissionReview({ uid: "u-ign", operation: "CREATE", object: widget({}) }),
    });
    expect(res.body.response).toEqual({
      uid: "u-ign",
      allowed: true,
      warnings: [
        "tollgate could not load its policy bundle; see the function's logs (allowed: tollgate's failure policy is Ignore)",
      ],
    });
    const bare = await call(handler, "v1", { body: widget({}) });
    expect(bare.status).toBe(500);
    expect(bare.body).toMatchObject({ kind: "Status", reason: "InternalError", code: 500 });
  });
});

describe("failure policy: a bundle document that cannot be used may hold any kind's policy", () => {
  const EXAMPLES = fileURLToPath(new URL("../../examples/policies", import.meta.url));
  /** The example bundle, plus a document that does not decode and a ConfigMap (cluster state: a note). */
  const load = async (_source: string, options: BundleOptions) => {
    const files = await Promise.all(
      readdirSync(EXAMPLES).map(async (name) => ({
        path: name,
        content: await readFile(join(EXAMPLES, name), "utf8"),
      })),
    );
    files.push({ path: "broken.yaml", content: "apiVersion: v1\nkind: [\n" });
    // A kind no family consults (a ConfigMap would be: the example replica-limit policy's params are ConfigMaps).
    files.push({ path: "state.yaml", content: "apiVersion: v1\nkind: Service\nmetadata:\n  name: c\n" });
    return loadBundle(files, options);
  };
  const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "shop" } };
  const message =
    "kind: Internal error: the policy for v1/ConfigMap may be in broken.yaml#0, which cannot be used: document 0 (line 1): line 2, column 8: Flow sequence in block collection must be sufficiently indented and end with a ]";

  it("Fail: an object of any kind, even one no policy covers, is denied with a message naming the document", async () => {
    const { handler } = setup({}, load);
    const res = await call(handler, "v2", {
      body: admissionReview({ uid: "u-doc", operation: "CREATE", object: configMap }),
    });
    expect(res.body.response).toMatchObject({
      uid: "u-doc",
      allowed: false,
      status: { code: 422, reason: "Invalid", message: `ConfigMap "settings" is invalid: ${message}` },
    });
    const valid = await call(handler, "v2", {
      body: admissionReview({ uid: "u-w", operation: "CREATE", object: widget({}) }),
    });
    expect(valid.body.response).toMatchObject({ allowed: false });
  });

  it("Ignore: allowed, with a warning naming the document", async () => {
    const { handler } = setup({ TOLLGATE_FAILURE_POLICY: "Ignore" }, load);
    const res = await call(handler, "v1", {
      body: admissionReview({ uid: "u-doc", operation: "CREATE", object: configMap }),
    });
    expect(res.body.response).toEqual({ uid: "u-doc", allowed: true, warnings: [message] });
  });

  it("/healthz lists it as an error of every kind, and the ignored Service as a note", async () => {
    const { handler } = setup({}, load);
    const health = await call(handler, "v2", { method: "GET", path: "/healthz" });
    expect(health.body.failures).toEqual([
      expect.objectContaining({ severity: "error", stage: "decode", file: "broken.yaml", kinds: ["*"] }),
    ]);
    expect(health.body.notes).toEqual([
      { file: "state.yaml", document: 0, message: 'not a policy document (v1 Service "c"): ignored' },
    ]);
  });
});

describe("logs", () => {
  it("carry uid, kind, decision and latency, never object content", async () => {
    const { handler, logger } = setup();
    const object = widget({ replicas: 11, image: "registry.example.com/confidential-image:1" });
    await call(handler, "v2", { body: admissionReview({ uid: "u-log", operation: "CREATE", object }) });
    const line = logger.lines.find((l) => l.attributes.uid === "u-log");
    expect(line?.attributes).toMatchObject({
      kind: "demo.tollgate.dev/v1alpha1/Widget",
      decision: "denied",
      causes: 1,
    });
    expect(typeof line?.attributes.latencyMs).toBe("number");
    expect(JSON.stringify(logger.lines)).not.toContain("confidential-image");
  });
});

describe("configuration (resolveEnvConfig)", () => {
  it("applies the defaults", () => {
    const c = resolveEnvConfig({});
    expect(c).toMatchObject({ token: undefined, failurePolicy: undefined, maxBodyBytes: 3 * 1024 * 1024 });
    expect(c.bundle).toMatch(/examples[\\/]policies$/);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it.each<{ env: Record<string, string>; message: RegExp }>([
    { env: { TOLLGATE_FAILURE_POLICY: "fail" }, message: /^TOLLGATE_FAILURE_POLICY="fail" is not Fail or Ignore$/ },
    { env: { TOLLGATE_MAX_BODY_BYTES: "3MiB" }, message: /^TOLLGATE_MAX_BODY_BYTES="3MiB" is not a whole number/ },
    { env: { TOLLGATE_MAX_DEPTH: "0" }, message: /^TOLLGATE_MAX_DEPTH="0"/ },
    { env: { TOLLGATE_S3_ENDPOINT: "localhost:4569" }, message: /^TOLLGATE_S3_ENDPOINT=.* is not an http\(s\) URL$/ },
    { env: { TOLLGATE_BUNDLE: "https://example.com/b" }, message: /^TOLLGATE_BUNDLE=.*only local paths and s3:/ },
    { env: { TOLLGATE_WAIVERS: "https://example.com/w" }, message: /^TOLLGATE_WAIVERS=.*only local paths and s3:/ },
  ])("refuses $env with an error naming the variable", ({ env, message }) => {
    expect(() => resolveEnvConfig(env)).toThrow(message);
  });

  it("keeps s3:// bundles as they are", () => {
    expect(resolveEnvConfig({ TOLLGATE_BUNDLE: "s3://b/p/" }).bundle).toBe("s3://b/p/");
  });
});

describe("waivers (the examples' examples/policies/waivers.yaml, at a fixed clock)", () => {
  const at = (iso: string) => {
    const logger = recorder();
    return { handler: createHandler(createRuntime({}, { logger, now: () => new Date(iso) })), logger };
  };
  const checkout = (spec: Record<string, unknown>) => widget({ replicas: 11, ...spec }, "checkout");
  const WAIVED =
    "waived by checkout-replicas (owner payments, expires 2030-06-30T00:00:00Z): spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10";

  it("allows an object denied only by a waived error, with a warning naming the waiver and its expiry", async () => {
    const { handler, logger } = at("2026-11-22T00:00:00Z");
    const res = await call(handler, "v1", {
      body: admissionReview({ uid: "u-waived", operation: "CREATE", object: checkout({}) }),
    });
    expect(res.body.response).toEqual({ uid: "u-waived", allowed: true, warnings: [WAIVED] });
    expect(logger.lines.find((l) => l.message === "waivers")?.attributes).toEqual({
      waived: ["checkout-replicas"],
      expired: [],
    });
    // A bare object: 200 Success, the warning in the Warning header.
    const bare = await call(handler, "v2", { body: checkout({}) });
    expect(bare.status).toBe(200);
    expect(bare.headers?.warning).toBe(`299 - "${WAIVED}"`);
  });

  it("/healthz lists the waivers in force with their standing at the runtime's clock", async () => {
    const { handler } = at("2030-06-20T00:00:00Z");
    const res = await call(handler, "v2", { method: "GET", path: "/healthz" });
    expect(res.body.waivers).toEqual([
      {
        name: "checkout-replicas",
        policy: "widgets.demo.tollgate.dev",
        owner: "payments",
        expires: "2030-06-30T00:00:00Z",
        standing: "expiring",
      },
      {
        name: "debug-shell-privileged",
        policy: "baseline:latest",
        owner: "platform",
        expires: "2026-01-31T00:00:00Z",
        standing: "expired",
      },
    ]);
  });

  it("denies an object with another error besides the waived one, with every cause", async () => {
    const { handler } = at("2026-11-22T00:00:00Z");
    const res = await call(handler, "v1", {
      body: admissionReview({ uid: "u-both", operation: "CREATE", object: checkout({ size: "huge" }) }),
    });
    const response = res.body.response as { allowed: boolean; status: { details: { causes: unknown[] } } };
    expect(response.allowed).toBe(false);
    expect(response.status.details.causes).toHaveLength(2);
  });

  it("once the waiver has expired, denies the object and says the waiver expired", async () => {
    const { handler } = at("2030-06-30T00:00:00Z");
    const res = await call(handler, "v1", {
      body: admissionReview({ uid: "u-expired", operation: "CREATE", object: checkout({}) }),
    });
    const response = res.body.response as { allowed: boolean; warnings: string[] };
    expect(response.allowed).toBe(false);
    expect(response.warnings).toEqual([
      "waiver checkout-replicas expired at 2030-06-30T00:00:00Z and no longer waives spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
    ]);
  });

  it("never waives a denial of another object, nor an internal error (a policy that failed to compile)", async () => {
    const { handler } = at("2026-11-22T00:00:00Z");
    const other = await call(handler, "v1", {
      body: admissionReview({ uid: "u-other", operation: "CREATE", object: widget({ replicas: 11 }, "payments") }),
    });
    expect((other.body.response as { allowed: boolean }).allowed).toBe(false);
    // The failure policy's InternalError names the broken file as its policy: a waiver of that "policy" and kind
    // matches it on paper, and still waives nothing (fail-closed).
    const waivers = [
      {
        path: "waivers.yaml",
        content: `apiVersion: tollgate.dev/v1alpha1
kind: Waiver
metadata: { name: broken-anyway }
spec: { policy: broken-crd.yaml, kinds: [Broken], reason: r, owner: o, expires: "2030-01-01T00:00:00Z" }
`,
      },
    ];
    const runtime = createRuntime(
      { TOLLGATE_BUNDLE: BROKEN_BUNDLE },
      {
        logger: recorder(),
        load: (source, options) => loadBundle(source, { ...options, waivers }),
        now: () => new Date("2026-11-22T00:00:00Z"),
      },
    );
    const broken = { apiVersion: "fixtures.tollgate.dev/v1", kind: "Broken", metadata: { name: "b" }, spec: {} };
    const res = await call(createHandler(runtime), "v2", {
      body: admissionReview({ uid: "u-broken-waived", operation: "CREATE", object: broken }),
    });
    const response = res.body.response as { allowed: boolean; status: { message: string }; warnings?: string[] };
    expect(response.allowed).toBe(false);
    expect(response.status.message).toMatch(/^Broken.fixtures.tollgate.dev "b" is invalid: /);
    expect(response.warnings).toBeUndefined();
  });

  it("TOLLGATE_WAIVERS adds waiver files beside the bundle's own", async () => {
    const file = join(fileURLToPath(new URL("../fixtures/audit/waivers", import.meta.url)), "waivers.yaml");
    const runtime = createRuntime(
      { TOLLGATE_WAIVERS: file },
      { logger: recorder(), now: () => new Date("2026-11-22T00:00:00Z") },
    );
    expect(runtime.config.waivers).toBe(file);
    const res = await call(createHandler(runtime), "v2", { method: "GET", path: "/healthz" });
    expect((res.body.waivers as { name: string }[]).map((w) => w.name)).toEqual([
      "checkout-replicas",
      "debug-shell-privileged",
      "legacy-replicas",
      "changed-labels",
      "leaky-size",
      "broken-gizmo",
    ]);
  });

  it("waives a Pod Security denial (its own Status) when every error is waived", async () => {
    const waivers = [
      {
        path: "waivers.yaml",
        content: `apiVersion: tollgate.dev/v1alpha1
kind: Waiver
metadata: { name: web-privileged }
spec:
  policy: "baseline:latest"
  rule: privileged
  kinds: [Pod]
  names: [web]
  reason: a privileged debugging Pod
  owner: platform
  expires: "2027-01-01T00:00:00Z"
`,
      },
    ];
    const runtime = createRuntime(
      { TOLLGATE_BUNDLE: POD_SECURITY_BUNDLE },
      {
        logger: recorder(),
        load: (source, options) => loadBundle(source, { ...options, waivers }),
        now: () => new Date("2026-11-22T00:00:00Z"),
      },
    );
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web", namespace: "shop" },
      spec: { containers: [{ name: "app", image: "nginx", securityContext: { privileged: true } }] },
    };
    const res = await call(createHandler(runtime), "v2", {
      body: admissionReview({
        uid: "u-psa-waived",
        kind: { group: "", version: "v1", kind: "Pod" },
        resource: { group: "", version: "v1", resource: "pods" },
        operation: "CREATE",
        namespace: "shop",
        name: "web",
        object: pod,
      }),
    });
    const response = res.body.response as { allowed: boolean; status?: unknown; warnings: string[] };
    expect(response.allowed).toBe(true);
    expect(response.status).toBeUndefined();
    expect(response.warnings).toContain(
      'waived by web-privileged (owner platform, expires 2027-01-01T00:00:00Z): spec.containers[0].securityContext.privileged: Forbidden: privileged (container "app" must not set securityContext.privileged=true)',
    );
  });
});

describe("the exported handler (process environment)", () => {
  it("answers with the bundled examples", async () => {
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "SILENT");
    const { handler } = await import("../../functions/validate.js");
    const res = await handler(event("v2", { method: "GET", path: "/healthz" }), fakeContext());
    expect(res.statusCode).toBe(200);
    vi.unstubAllEnvs();
  });
});
