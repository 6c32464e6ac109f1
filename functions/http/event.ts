/**
 * API Gateway events → one small {@link HttpRequest}. REST APIs (payload v1) and HTTP APIs (payload v2) differ in
 * where they keep the method, the path (with or without the stage), the headers (any case, or lower case with
 * repeated values joined) and the query; nothing past this file sees an event. The body size cap and base64
 * decoding live here too, so a large body is refused before it is decoded.
 */
import { Buffer } from "node:buffer";
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, APIGatewayProxyResult } from "aws-lambda";
import { InputError } from "#lib";

/** The two event shapes the handler accepts. */
export type ApiGatewayEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2;

/** The result the handler returns; the same object is a valid v1 and v2 proxy result. */
export type HttpResponse = APIGatewayProxyResult & { headers: Record<string, string> };

/** One HTTP request, whatever event carried it. */
export interface HttpRequest {
  /** Upper case: "GET", "POST". */
  method: string;
  /** The path without the API Gateway stage, without a trailing slash: "/validate". */
  path: string;
  query: Readonly<Record<string, string>>;
  /** Names in lower case; repeated headers joined with ", ". */
  headers: Readonly<Record<string, string>>;
  /** The body as text ("" when there is none, or when it could not be read: see `bodyError`). */
  body: string;
  /**
   * Why the body could not be read (over the size cap, not UTF-8). Kept for the route to answer after it checked
   * the caller's token: an unauthenticated request gets 401 whatever its body.
   */
  bodyError?: InputError;
  /** Which payload format carried the request. */
  payload: "1.0" | "2.0";
}

export interface EventOptions {
  /** Largest request body, in bytes after base64 decoding. */
  maxBodyBytes: number;
}

function isV2(event: ApiGatewayEvent): event is APIGatewayProxyEventV2 {
  return (event as { version?: unknown }).version === "2.0";
}

/** Headers with lower-case names; a name given twice (or in several cases) gets its values joined. */
function lowerCaseHeaders(
  single: Record<string, string | undefined> | null | undefined,
  multi?: Record<string, string[] | undefined> | null,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (multi != null) {
    for (const [name, values] of Object.entries(multi)) {
      if (values === undefined || values.length === 0) continue;
      const key = name.toLowerCase();
      out[key] = out[key] === undefined ? values.join(", ") : `${out[key]}, ${values.join(", ")}`;
    }
  }
  if (single != null) {
    for (const [name, value] of Object.entries(single)) {
      const key = name.toLowerCase();
      if (value === undefined || out[key] !== undefined) continue;
      out[key] = value;
    }
  }
  return out;
}

function definedEntries(record: Record<string, string | undefined> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (record == null) return out;
  for (const [k, v] of Object.entries(record)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * The path without the stage: REST APIs put the stage in `requestContext.path` ("/dev/validate") but not in
 * `path`; HTTP APIs put a named stage in `rawPath` ("/dev/validate") and leave `$default` out.
 */
function stripStage(path: string, stage: string | undefined): string {
  let p = path === "" ? "/" : path;
  if (stage !== undefined && stage !== "" && stage !== "$default") {
    const prefix = `/${stage}`;
    if (p === prefix) p = "/";
    else if (p.startsWith(`${prefix}/`)) p = p.slice(prefix.length);
  }
  if (p.length > 1 && p.endsWith("/")) p = p.slice(0, -1);
  return p;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The body as text, refused (InputError) when over the cap or not UTF-8. */
function bodyText(body: string | null | undefined, base64: boolean, maxBytes: number): string {
  if (body == null || body === "") return "";
  if (base64) {
    // 4 characters of base64 carry 3 bytes: refuse before decoding what is certainly too large.
    if (Math.floor((body.length * 3) / 4) - 2 > maxBytes) throw tooLarge(Math.floor((body.length * 3) / 4), maxBytes);
    const bytes = Buffer.from(body, "base64");
    if (bytes.length > maxBytes) throw tooLarge(bytes.length, maxBytes);
    try {
      return UTF8.decode(bytes);
    } catch {
      throw new InputError("the request body is not valid UTF-8");
    }
  }
  // A UTF-16 unit is at most 3 bytes of UTF-8: count the bytes only when the length alone cannot decide.
  if (body.length > maxBytes || body.length * 3 > maxBytes) {
    const bytes = Buffer.byteLength(body, "utf8");
    if (bytes > maxBytes) throw tooLarge(bytes, maxBytes);
  }
  return body;
}

function tooLarge(bytes: number, maxBytes: number): InputError {
  return new InputError(`the request body is ${bytes} bytes, over the limit of ${maxBytes} bytes`);
}

/**
 * Normalises an API Gateway REST (payload v1) or HTTP API (payload v2) event. A body over `maxBodyBytes` or not
 * UTF-8 is not read: the request carries the reason in `bodyError`.
 */
export function toHttpRequest(event: ApiGatewayEvent, options: EventOptions): HttpRequest {
  let req: HttpRequest;
  if (isV2(event)) {
    const http = event.requestContext?.http;
    req = {
      method: (http?.method ?? "GET").toUpperCase(),
      path: stripStage(event.rawPath ?? http?.path ?? "/", event.requestContext?.stage),
      query: definedEntries(event.queryStringParameters),
      headers: lowerCaseHeaders(event.headers),
      body: "",
      payload: "2.0",
    };
  } else {
    // `path` has no stage, except behind a custom domain's base path mapping; `requestContext.path` always has it.
    const path = event.path ?? event.requestContext?.path ?? "/";
    req = {
      method: (event.httpMethod ?? "GET").toUpperCase(),
      path: stripStage(path, event.requestContext?.stage),
      query: definedEntries(event.queryStringParameters),
      headers: lowerCaseHeaders(event.headers, event.multiValueHeaders),
      body: "",
      payload: "1.0",
    };
  }
  try {
    req.body = bodyText(event.body, event.isBase64Encoded === true, options.maxBodyBytes);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    req.bodyError = error;
  }
  return req;
}

/** A JSON response. */
export function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return {
    statusCode,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  };
}
