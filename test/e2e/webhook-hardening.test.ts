/**
 * The webhook against adversarial requests, each a case the fuzz suite or a probe found: an object with 124,000
 * errors under failurePolicy Ignore, wide lists, responses that outgrow Lambda's limit, Warning headers HTTP cannot
 * carry, credential values in derived texts, integers beyond 2^53, unauthenticated bodies that are too large or not
 * UTF-8, nesting beyond 4,000 levels, request fields in log lines. Bundle: test/fixtures/bundles/secrets (Ignore)
 * with the example Widget CRD.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { FunctionLogger } from "../../functions/logger.js";
import { createRuntime } from "../../functions/runtime.js";
import { createHandler, type Handler } from "../../functions/webhook.js";
import { loadBundle } from "../../lib/index.js";
import { FUZZ_BUNDLE, LAMBDA_RESPONSE_BYTES } from "../fuzz/webhook-harness.js";
import { admissionReview, fakeContext, v2Event } from "../helpers/events.js";

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: Record<string, unknown>;
}

function logger(lines: string[]): FunctionLogger {
  const line = (message: string, attributes: Record<string, unknown> = {}) =>
    lines.push(JSON.stringify({ message, ...attributes }));
  return { info: line, warn: line, error: line, addContext: () => {} };
}

async function handlerFor(env: Record<string, string> = {}, lines: string[] = []): Promise<Handler> {
  const runtime = createRuntime(env, { logger: logger(lines), load: () => loadBundle(FUZZ_BUNDLE) });
  await runtime.policySet();
  return createHandler(runtime);
}

async function send(handler: Handler, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await handler(v2Event({ body, headers }), fakeContext());
  const whole = JSON.stringify(res);
  expect(Buffer.byteLength(whole)).toBeLessThanOrEqual(LAMBDA_RESPONSE_BYTES);
  return { status: res.statusCode, headers: res.headers, text: res.body, body: JSON.parse(res.body) };
}

const vault = (spec: Record<string, unknown>) => ({
  apiVersion: "fuzz.tollgate.dev/v1",
  kind: "Vault",
  metadata: { name: "v", namespace: "ns" },
  spec,
});

function review(object: unknown, extra: Record<string, unknown> = {}) {
  return admissionReview({ uid: "u-1", operation: "CREATE", object, ...extra });
}

type Response = {
  allowed: boolean;
  warnings?: string[];
  status?: { message: string; details?: { causes: unknown[] } };
};

function responseOf(a: Answer): Response {
  return a.body.response as Response;
}

describe("webhook hardening", () => {
  let open: Handler;
  beforeAll(async () => {
    open = await handlerFor();
  });

  it("denies under Ignore an object with 124,000 errors, with at most 100 causes and a last one saying how many more", async () => {
    const items = Array.from({ length: 124_000 }, () => ({ value: 101 }));
    const text = JSON.stringify(review(vault({ items })));
    expect(text.length).toBeLessThan(3 * 1024 * 1024);
    const a = await send(open, text);
    const r = responseOf(a);
    expect(r.allowed).toBe(false);
    const causes = r.status?.details?.causes as { reason: string; message: string }[];
    expect(causes).toHaveLength(101);
    expect(causes[100]).toMatchObject({ reason: "FieldValueTooMany" });
    expect(causes[100]!.message).toContain("123900 more errors not shown");
    expect(a.text.length).toBeLessThan(1024 * 1024);
  });

  it("allows under Ignore an object with 124,000 unknown fields only after checking it, with bounded warnings", async () => {
    const spec: Record<string, unknown> = { image: "ok" };
    for (let i = 0; i < 124_000; i++) spec[`u${i}`] = 1;
    const a = await send(open, review(vault(spec)));
    const r = responseOf(a);
    expect(r.allowed).toBe(true);
    expect(r.warnings?.length).toBeLessThanOrEqual(100);
    expect(r.warnings?.join("\n")).not.toContain("failure policy");
    expect(r.warnings?.at(-1)).toMatch(/^\d+ more warnings not shown$/);
  });

  it("validates a 300,000-item list without an internal error", async () => {
    const items = Array.from({ length: 300_000 }, () => 1);
    const a = await send(open, review(vault({ items })));
    const r = responseOf(a);
    expect(r.allowed).toBe(false);
    expect(JSON.stringify(r)).not.toContain("nternal");
    expect(r.status?.details?.causes).toHaveLength(101);
  });

  it("keeps a response far below Lambda's limit when every item fails with a long message", async () => {
    // Each item fails its enum and its maxLength; every message quotes a long value.
    const items = Array.from({ length: 20_000 }, (_, i) => ({ name: `${"n".repeat(40)}${i}`, value: 1000 + i }));
    const request = JSON.stringify(review(vault({ items, size: "s".repeat(200_000) })));
    const a = await send(open, request);
    expect(responseOf(a).allowed).toBe(false);
    expect(a.text.length).toBeLessThan(1024 * 1024);
  });

  it("answers a bare object's warnings in a Warning header HTTP can carry, bounded as kube-apiserver bounds them", async () => {
    const free: Record<string, unknown> = {};
    const spec: Record<string, unknown> = { free };
    for (let i = 0; i < 3000; i++) spec[`x\u0000é€\ud800${i}${"y".repeat(300)}`] = i;
    const a = await send(open, vault(spec));
    expect(a.status).toBe(200);
    const header = a.headers.warning ?? "";
    expect(header).toMatch(/^[\t\x20-\x7e]*$/);
    expect(header.length).toBeLessThan(16 * 1024);
  });

  it.each([
    { name: "a pattern failure", spec: { password: "PLANTED-1" } },
    { name: "an enum failure of dbPassword", spec: { dbPassword: "PLANTED-2" } },
    {
      name: "apiToken, accessToken, sshPrivateKey, tlsKey, webhookSecret",
      spec: {
        apiToken: "PLANTED-3",
        accessToken: "PLANTED-4",
        sshPrivateKey: "PLANTED-5",
        tlsKey: "PLANTED-6",
        webhookSecret: "PLANTED-7",
        connectionString: "PLANTED-8",
        dsn: "PLANTED-9",
      },
    },
    { name: "a set list named tokens", spec: { tokens: ["PLANTED-a", "PLANTED-a"] } },
    { name: "a map of credentials", spec: { credentials: { db: "PLANTED-b" } } },
    { name: "a messageExpression quoting the password", spec: { password: "plantedvalue" } },
  ])("never answers a credential's value: $name", async ({ spec }) => {
    const a = await send(open, review(vault(spec)));
    expect(responseOf(a).allowed).toBe(false);
    expect(a.text).not.toMatch(/PLANTED|plantedvalue/);
  });

  it("keeps a credential's value out of the ratcheted warning of an UPDATE that leaves it unchanged", async () => {
    const object = vault({ password: "plantedvalue", image: "ok" });
    const a = await send(open, review(object, { operation: "UPDATE", oldObject: object }));
    const r = responseOf(a);
    expect(r.allowed).toBe(true);
    expect(r.warnings?.join("\n")).toContain("<redacted>");
    expect(a.text).not.toContain("plantedvalue");
  });

  it("answers 400, not 500, to integers beyond 2^53 where a string belongs", async () => {
    const a = await send(open, '{"apiVersion": 9007199254740993, "kind": "AdmissionReview"}');
    expect(a.status).toBe(400);
    expect(a.body.message).toContain("AdmissionReview apiVersion 9007199254740993 is not supported");
    const b = await send(
      open,
      '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":9223372036854775807}}',
    );
    expect(b.status).toBe(400);
    expect(b.body.message).toContain("request.operation 9223372036854775807 is not one of");
  });

  it("answers 400 to integers beyond 2^53 on a cold container too, before the bundle has loaded", async () => {
    let release: () => void = () => {};
    const loaded = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runtime = createRuntime(
      {},
      {
        logger: logger([]),
        load: async () => {
          await loaded;
          return loadBundle(FUZZ_BUNDLE);
        },
      },
    );
    const cold = createHandler(runtime);
    expect(runtime.loaded()).toBeUndefined();
    const a = await send(cold, '{"apiVersion": 9007199254740993, "kind": "AdmissionReview"}');
    expect(a.status).toBe(400);
    expect(a.body.message).toContain("AdmissionReview apiVersion 9007199254740993 is not supported");
    expect(a.text).not.toMatch(/bundle|InternalError/);
    release();
    await runtime.policySet();
  });

  it("answers 401 to an unauthenticated request before looking at its body", async () => {
    const guarded = await handlerFor({ TOLLGATE_TOKEN: "secret-token-123", TOLLGATE_MAX_BODY_BYTES: "1024" });
    const tooLarge = await guarded(v2Event({ body: "x".repeat(5000) }), fakeContext());
    expect(tooLarge.statusCode).toBe(401);
    const e = v2Event({ body: "{}" });
    e.body = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString("base64");
    e.isBase64Encoded = true;
    expect((await guarded(e, fakeContext())).statusCode).toBe(401);
    const authorized = await guarded(
      v2Event({ body: "x".repeat(5000), headers: { authorization: "Bearer secret-token-123" } }),
    );
    expect(authorized.statusCode).toBe(400);
  });

  it("takes TOLLGATE_MAX_DEPTH above 4,000 into effect: deep input is decoded and answered, never a fault", async () => {
    const deep = await handlerFor({ TOLLGATE_MAX_DEPTH: "10000" });
    const nest = (depth: number, leaf: string) => `${'{"a":'.repeat(depth)}${leaf}${"}".repeat(depth)}`;
    const head =
      '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE","object":';
    const object = (free: string) =>
      `{"apiVersion":"fuzz.tollgate.dev/v1","kind":"Vault","metadata":{"name":"v"},"spec":{"free":${free}}}`;
    // An integer beyond 2^53 makes the decoder re-read the text losslessly.
    const big = await deep(v2Event({ body: `${head}${object(nest(9000, "9007199254740993"))}}}` }), fakeContext());
    expect(big.statusCode).toBe(200);
    expect(big.body).not.toContain("internal");
    // A syntax error at the far end: the lossless parser words it as Go does.
    const broken = await deep(v2Event({ body: `${head}${object(nest(9000, "tru"))}}}` }), fakeContext());
    expect(broken.statusCode).toBe(400);
    expect(JSON.parse(broken.body).message).toContain("invalid character '}' in literal true (expecting 'e')");
  });

  it("cuts request fields in log lines", async () => {
    const lines: string[] = [];
    const h = await handlerFor({}, lines);
    await send(h, review(vault({}), { uid: "u".repeat(100_000) }));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l.length).toBeLessThan(4096);
  });

  it.each([
    { failurePolicy: "Fail", allowed: false },
    { failurePolicy: "Ignore", allowed: true },
  ])(
    "answers under failurePolicy $failurePolicy before the Lambda timeout when the bundle never loads",
    async ({ failurePolicy, allowed }) => {
      const runtime = createRuntime(
        { TOLLGATE_FAILURE_POLICY: failurePolicy },
        { logger: logger([]), load: () => new Promise(() => {}) },
      );
      const h = createHandler(runtime);
      const context = { ...fakeContext(), getRemainingTimeInMillis: () => 1_500 };
      const t0 = performance.now();
      const res = await h(v2Event({ body: review(vault({})) }), context);
      expect(performance.now() - t0).toBeLessThan(1_400);
      const r = JSON.parse(res.body).response as Response;
      expect(r.allowed).toBe(allowed);
    },
  );

  it("answers under the failure policy when evaluation would pass the deadline", async () => {
    const context = { ...fakeContext(), getRemainingTimeInMillis: () => 1_000 };
    const res = await open(v2Event({ body: review(vault({ password: "bad" })) }), context);
    const r = JSON.parse(res.body).response as Response;
    expect(r.allowed).toBe(true);
    expect(r.warnings).toEqual(["<nil>: Internal error: validation was stopped: it would exceed the deadline"]);
  });
});
