/**
 * API Gateway events for the webhook handler, built from the fixtures in test/fixtures/events/ (payload v1 and
 * v2), and a fake Lambda Context.
 */
import { readFileSync } from "node:fs";
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, Context } from "aws-lambda";

const FIXTURES = new URL("../fixtures/events/", import.meta.url);
const V1: APIGatewayProxyEvent = JSON.parse(readFileSync(new URL("v1-rest-post.json", FIXTURES), "utf8"));
const V2: APIGatewayProxyEventV2 = JSON.parse(readFileSync(new URL("v2-http-post.json", FIXTURES), "utf8"));

export type Payload = "v1" | "v2";

export interface EventSpec {
  method?: string;
  /** Without the stage: "/validate". */
  path?: string;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  base64?: boolean;
  headers?: Record<string, string>;
  /** v1 only: put the stage into `path` too (a custom domain's base path mapping). */
  stageInPath?: boolean;
  /** v2 only: a named stage (rawPath then carries it). */
  stage?: string;
}

function bodyText(body: unknown): string | null {
  if (body === undefined) return null;
  return typeof body === "string" ? body : JSON.stringify(body);
}

/** A REST API (payload v1) event. */
export function v1Event(spec: EventSpec = {}): APIGatewayProxyEvent {
  const e: APIGatewayProxyEvent = structuredClone(V1);
  const method = spec.method ?? "POST";
  const path = spec.path ?? "/validate";
  e.httpMethod = method;
  e.requestContext.httpMethod = method;
  e.resource = path;
  e.requestContext.resourcePath = path;
  e.path = spec.stageInPath === true ? `/dev${path}` : path;
  e.requestContext.path = `/dev${path}`;
  for (const [k, v] of Object.entries(spec.headers ?? {})) {
    e.headers[k] = v;
    e.multiValueHeaders[k] = [v];
  }
  const text = bodyText(spec.body);
  e.body = text === null ? null : spec.base64 === true ? Buffer.from(text).toString("base64") : text;
  e.isBase64Encoded = spec.base64 === true;
  return e;
}

/** An HTTP API (payload v2) event. */
export function v2Event(spec: EventSpec = {}): APIGatewayProxyEventV2 {
  const e: APIGatewayProxyEventV2 = structuredClone(V2);
  const method = spec.method ?? "POST";
  const stage = spec.stage ?? "$default";
  const path = stage === "$default" ? (spec.path ?? "/validate") : `/${stage}${spec.path ?? "/validate"}`;
  e.requestContext.http.method = method;
  e.requestContext.http.path = path;
  e.requestContext.stage = stage;
  e.rawPath = path;
  e.routeKey = `${method} ${spec.path ?? "/validate"}`;
  e.requestContext.routeKey = e.routeKey;
  for (const [k, v] of Object.entries(spec.headers ?? {})) e.headers[k.toLowerCase()] = v;
  const text = bodyText(spec.body);
  if (text === null) delete e.body;
  else e.body = spec.base64 === true ? Buffer.from(text).toString("base64") : text;
  e.isBase64Encoded = spec.base64 === true;
  return e;
}

export function event(payload: Payload, spec: EventSpec = {}): APIGatewayProxyEvent | APIGatewayProxyEventV2 {
  return payload === "v1" ? v1Event(spec) : v2Event(spec);
}

/** A Lambda Context as the runtime passes it (powertools' testing/context.ts idea). */
export function fakeContext(functionName = "tollgate-test-validate"): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${functionName}`,
    memoryLimitInMB: "1024",
    awsRequestId: "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: "2026/11/23/[$LATEST]abcdef",
    getRemainingTimeInMillis: () => 10_000,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/** An admission.k8s.io/v1 AdmissionReview request. */
export function admissionReview(request: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request };
}
