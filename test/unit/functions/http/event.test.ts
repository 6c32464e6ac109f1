import { describe, expect, it } from "vitest";
import { toHttpRequest } from "../../../../functions/http/event.js";
import { v1Event, v2Event } from "../../../helpers/events.js";

const options = { maxBodyBytes: 64 };

describe("toHttpRequest", () => {
  it.each<{ name: string; event: Parameters<typeof toHttpRequest>[0]; path: string; payload: "1.0" | "2.0" }>([
    { name: "v1, path without the stage", event: v1Event({ path: "/validate" }), path: "/validate", payload: "1.0" },
    { name: "v1, stage in the path", event: v1Event({ stageInPath: true }), path: "/validate", payload: "1.0" },
    { name: "v2, $default stage", event: v2Event({ path: "/healthz" }), path: "/healthz", payload: "2.0" },
    { name: "v2, named stage", event: v2Event({ stage: "prod" }), path: "/validate", payload: "2.0" },
  ])("$name → $path", ({ event, path, payload }) => {
    const req = toHttpRequest(event, options);
    expect(req.path).toBe(path);
    expect(req.payload).toBe(payload);
  });

  it("lower-cases header names and joins repeated v1 values", () => {
    const e = v1Event({ headers: { Authorization: "Bearer a" } });
    e.multiValueHeaders["X-Trace"] = ["1", "2"];
    const req = toHttpRequest(e, options);
    expect(req.headers.authorization).toBe("Bearer a");
    expect(req.headers["x-trace"]).toBe("1, 2");
    expect(req.headers["content-type"]).toBe("application/json");
  });

  it("keeps the query", () => {
    expect(toHttpRequest(v2Event(), options).query).toEqual({ timeout: "10s" });
  });

  it.each<{ name: string; body: string; base64: boolean; text: string }>([
    { name: "plain", body: '{"a":"é"}', base64: false, text: '{"a":"é"}' },
    { name: "base64", body: '{"a":"é"}', base64: true, text: '{"a":"é"}' },
  ])("decodes a $name body", ({ body, base64, text }) => {
    expect(toHttpRequest(v2Event({ body, base64 }), options).body).toBe(text);
    expect(toHttpRequest(v1Event({ body, base64 }), options).body).toBe(text);
  });

  it("counts UTF-8 bytes, not characters, against the cap", () => {
    const body = `"${"é".repeat(40)}"`; // 42 characters, 82 bytes
    // The request is still made (auth is checked before the body), with the reason the body was not read.
    expect(toHttpRequest(v2Event({ body }), options).bodyError?.message).toBe(
      "the request body is 82 bytes, over the limit of 64 bytes",
    );
    expect(toHttpRequest(v2Event({ body, base64: true }), options).bodyError?.message).toMatch(
      /over the limit of 64 bytes/,
    );
    expect(toHttpRequest(v2Event({ body }), options).body).toBe("");
  });

  it("accepts a body of exactly the cap", () => {
    expect(toHttpRequest(v2Event({ body: "x".repeat(64) }), options).body).toHaveLength(64);
  });

  it("an event without a body has an empty one", () => {
    expect(toHttpRequest(v1Event({ method: "GET", path: "/healthz" }), options)).toMatchObject({
      method: "GET",
      body: "",
    });
  });
});
