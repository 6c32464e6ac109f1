/**
 * Requests for the webhook fuzz: AdmissionReviews and bare objects of the fuzz bundle's kinds (test/fixtures/bundles/
 * secrets and the examples), mutated at random places with random JSON, numbers beyond 2^53, deep nesting, wide
 * lists and odd keys; envelopes of the wrong shape; raw text; base64 bodies; both API Gateway payloads; with and
 * without the bearer token. Credential-named fields carry planted values (planted.ts).
 */
import fc from "fast-check";
import { admissionReview, type EventSpec, type Payload } from "../helpers/events.js";
import { planted } from "./planted.js";

/** A raw JSON number literal placed in the text where this string is (JSON.stringify cannot write one). */
const NUMBER_MARK = "\u0001num:";

const CREDENTIAL_KEYS = [
  "password",
  "dbPassword",
  "apiToken",
  "accessToken",
  "sshPrivateKey",
  "tlsKey",
  "webhookSecret",
  "connectionString",
  "dsn",
] as const;

const bigNumber = fc
  .constantFrom(
    "9007199254740993",
    "-9007199254740993",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "1e400",
    "-1e400",
    "1.5e308",
    "123456789012345678901234567890",
    "0.1e-400",
    "4294967296",
    "2147483648",
  )
  .map((n) => `${NUMBER_MARK}${n}`);

const oddKey = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom("__proto__", "constructor", "", "a\u0000b", "\ud800", "é\u2028", "x\r\ny", "a.b", "a[0]", "🙂"),
  fc.string({ maxLength: 8, unit: "binary" }),
);

const leaf = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 2, arbitrary: bigNumber },
  { weight: 1, arbitrary: fc.string({ maxLength: 40, unit: "binary" }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, 0, -0.0, 1.5, "", "a".repeat(300)) },
);

/** Nesting far beyond any schema: [[[...]]] or {"a":{"a":...}}. */
const deep = fc.record({ depth: fc.integer({ min: 50, max: 3000 }), array: fc.boolean() }).map(({ depth, array }) => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = array ? [v] : { a: v };
  return v;
});

/** A wide value: many items or many keys. */
const wide = fc
  .record({ n: fc.integer({ min: 100, max: 20_000 }), kind: fc.constantFrom("items", "keys", "strings", "objects") })
  .map(({ n, kind }) => {
    if (kind === "keys") {
      const o: Record<string, number> = {};
      for (let i = 0; i < n; i++) o[`k${i}`] = i;
      return o;
    }
    if (kind === "strings") return Array.from({ length: n }, (_, i) => `PLAIN${i % 7}`);
    if (kind === "objects") return Array.from({ length: n }, (_, i) => ({ name: `item-name-${i}`, value: i }));
    return Array.from({ length: n }, (_, i) => i);
  });

const anyValue = fc.oneof(
  { weight: 12, arbitrary: leaf },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: wide },
);

interface Mutation {
  path: string[];
  key: string;
  value: unknown;
  remove: boolean;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  path: fc.array(fc.constantFrom("spec", "metadata", "status", "items", "0", "free", "labels", "settings"), {
    maxLength: 3,
  }),
  key: fc.oneof(fc.constantFrom("spec", "metadata", "kind", "apiVersion", "name", "replicas", "items"), oddKey),
  value: anyValue,
  remove: fc.boolean(),
});

function applyMutation(root: Record<string, unknown>, m: Mutation): void {
  let at: unknown = root;
  for (const p of m.path) {
    if (typeof at !== "object" || at === null) return;
    const next = (at as Record<string, unknown>)[p];
    if (typeof next !== "object" || next === null) break;
    at = next;
  }
  if (typeof at !== "object" || at === null) return;
  const target = at as Record<string, unknown>;
  if (m.remove) delete target[m.key];
  else Object.defineProperty(target, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
}

const vaultSpec = fc.record({
  credentials: fc.dictionary(fc.constantFrom(...CREDENTIAL_KEYS), planted, { maxKeys: 4 }),
  tokens: fc.option(fc.array(planted, { maxLength: 3 }), { nil: undefined }),
  credentialMap: fc.option(fc.dictionary(fc.string({ maxLength: 3 }), planted, { maxKeys: 2 }), { nil: undefined }),
  replicas: fc.option(fc.oneof(fc.integer({ min: -5, max: 20 }), bigNumber), { nil: undefined }),
  size: fc.option(fc.constantFrom("small", "huge", ""), { nil: undefined }),
});

const baseObject = fc.oneof(
  vaultSpec.map((v) => {
    const spec: Record<string, unknown> = { ...v.credentials };
    if (v.tokens !== undefined) spec.tokens = v.tokens;
    if (v.credentialMap !== undefined) spec.credentials = v.credentialMap;
    if (v.replicas !== undefined) spec.replicas = v.replicas;
    if (v.size !== undefined) spec.size = v.size;
    return { apiVersion: "fuzz.tollgate.dev/v1", kind: "Vault", metadata: { name: "v", namespace: "ns" }, spec };
  }),
  fc.record({ replicas: fc.integer({ min: -2, max: 20 }), image: fc.string({ maxLength: 10 }) }).map((s) => ({
    apiVersion: "demo.tollgate.dev/v1alpha1",
    kind: "Widget",
    metadata: { name: "w", namespace: "shop" },
    spec: { image: s.image, replicas: s.replicas, ports: [{ name: "http", port: 80 }] },
  })),
  fc.constant({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "b" } }),
);

const mutatedObject = fc.tuple(baseObject, fc.array(mutation, { maxLength: 4 })).map(([o, ms]) => {
  const copy = structuredClone(o) as Record<string, unknown>;
  for (const m of ms) applyMutation(copy, m);
  return copy;
});

const uid = fc.oneof({ weight: 8, arbitrary: fc.uuid() }, { weight: 1, arbitrary: leaf });

const review = fc
  .record({
    apiVersion: fc.oneof({ weight: 10, arbitrary: fc.constant("admission.k8s.io/v1") }, { weight: 1, arbitrary: leaf }),
    uid,
    operation: fc.oneof(
      { weight: 10, arbitrary: fc.constantFrom("CREATE", "UPDATE", "DELETE", "CONNECT") },
      { weight: 1, arbitrary: leaf },
    ),
    object: mutatedObject,
    old: fc.constantFrom("same", "other", "none"),
    other: mutatedObject,
    extra: fc.dictionary(
      fc.constantFrom("dryRun", "subResource", "userInfo", "kind", "namespace", "name", "options", "resource"),
      leaf,
      { maxKeys: 2 },
    ),
  })
  .map((r) => {
    const request: Record<string, unknown> = { uid: r.uid, operation: r.operation, object: r.object, ...r.extra };
    if (r.old === "same") request.oldObject = JSON.parse(JSON.stringify(r.object));
    else if (r.old === "other") request.oldObject = r.other;
    return { ...admissionReview(request), apiVersion: r.apiVersion };
  });

/** The JSON text of a body, with raw number literals where NUMBER_MARK strings were. */
function jsonText(body: unknown): string {
  const text = JSON.stringify(body) ?? "null";
  return text.replace(/"\\u0001num:([^"]*)"/g, "$1");
}

const textMutation = fc.oneof(
  { weight: 12, arbitrary: fc.constant((t: string) => t) },
  { weight: 1, arbitrary: fc.nat().map((n) => (t: string) => t.slice(0, n % (t.length + 1))) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.nat(), fc.string({ maxLength: 3, unit: "binary" })).map(
      ([n, s]) =>
        (t: string) =>
          t.slice(0, n % (t.length + 1)) + s + t.slice(n % (t.length + 1)),
    ),
  },
  { weight: 1, arbitrary: fc.constant((t: string) => `${t}${t}`) },
);

const body = fc.oneof(
  { weight: 10, arbitrary: fc.tuple(review, textMutation).map(([r, m]) => m(jsonText(r))) },
  { weight: 3, arbitrary: fc.tuple(mutatedObject, textMutation).map(([o, m]) => m(jsonText(o))) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200, unit: "binary" }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? "") },
);

export interface FuzzRequest {
  payload: Payload;
  /** Whether the request goes to the handler configured with a token. */
  withToken: boolean;
  /** "right", "wrong" or "none": the Authorization header sent. */
  auth: "right" | "wrong" | "none";
  spec: EventSpec;
  /** A base64 body that is not UTF-8 (set as is on the event). */
  rawBase64?: string;
}

export const TOKEN = "fuzz-token-0123456789";

export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    payload: fc.constantFrom<Payload>("v1", "v2"),
    withToken: fc.boolean(),
    auth: fc.constantFrom<"right" | "wrong" | "none">("right", "right", "right", "wrong", "none"),
    body,
    base64: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    notUtf8: fc.oneof({ weight: 20, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    route: fc.oneof(
      { weight: 20, arbitrary: fc.constant({ method: "POST", path: "/validate" }) },
      { weight: 1, arbitrary: fc.constant({ method: "GET", path: "/healthz" }) },
      { weight: 1, arbitrary: fc.constant({ method: "GET", path: "/validate" }) },
      { weight: 1, arbitrary: fc.record({ method: fc.constant("POST"), path: fc.string({ maxLength: 12 }) }) },
    ),
  })
  .map((r) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (r.auth === "right") headers.authorization = `Bearer ${TOKEN}`;
    else if (r.auth === "wrong") headers.authorization = `Bearer ${TOKEN.slice(0, -1)}x`;
    const out: FuzzRequest = {
      payload: r.payload,
      withToken: r.withToken,
      auth: r.auth,
      spec: { ...r.route, body: r.body, base64: r.base64, headers },
    };
    if (r.notUtf8)
      out.rawBase64 = Buffer.concat([Buffer.from(r.body), Buffer.from([0xff, 0xfe, 0x80])]).toString("base64");
    // A counterexample prints as a summary: bodies can be megabytes.
    Object.defineProperty(out, fc.toStringMethod, { value: () => describeRequest(out), enumerable: false });
    return out;
  });

function describeRequest(r: FuzzRequest): string {
  const text = typeof r.spec.body === "string" ? r.spec.body : JSON.stringify(r.spec.body);
  const body = text.length > 600 ? `${text.slice(0, 600)}... (${text.length} characters)` : text;
  const { method, path, base64 } = r.spec;
  return JSON.stringify({ payload: r.payload, withToken: r.withToken, auth: r.auth, method, path, base64, body });
}
