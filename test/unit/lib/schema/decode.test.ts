/**
 * Decoding a custom resource as the API server does (lib/schema/decode.ts): unknown fields pruned with
 * their paths, non-nullable nulls dropped (on a copy: the input is left as it is), defaults applied (also inside
 * defaults, list items and map values), and nothing changed where no schema below has a default.
 */
import { describe, expect, it } from "vitest";
import { decodedCopy } from "../../../../lib/schema/decode.js";
import { type CompileIssue, compileSchema, type SchemaNode } from "../../../../lib/schema/structural.js";

function schema(raw: unknown): SchemaNode {
  const issues: CompileIssue[] = [];
  const s = compileSchema(raw, issues);
  expect(issues).toEqual([]);
  return s;
}

const SCHEMA = schema({
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        name: { type: "string" },
        mode: { type: "string", default: "auto" },
        items: {
          type: "array",
          items: { type: "object", properties: { port: { type: "integer", default: 80 }, host: { type: "string" } } },
        },
        labels: { type: "object", additionalProperties: { type: "string", default: "none" } },
        nested: {
          type: "object",
          default: { inner: {} },
          properties: { inner: { type: "object", properties: { level: { type: "integer", default: 3 } } } },
        },
        plain: { type: "object", properties: { a: { type: "string" }, b: { type: "string", nullable: true } } },
      },
    },
    embedded: { type: "object", "x-kubernetes-embedded-resource": true, properties: { spec: { type: "string" } } },
  },
});

describe("pruning unknown fields", () => {
  it("removes them and names each with its path", () => {
    const input = {
      spec: {
        name: "a",
        extra: 1,
        items: [{ port: 1, bogus: true }, { host: "h" }],
        labels: { "[x": "y" },
        plain: { a: "s", z: { deep: 1 } },
      },
      top: 2,
      embedded: { apiVersion: "v1", kind: "K", metadata: { name: "n" }, spec: "s", other: 1 },
    };
    const before = structuredClone(input);
    const { value, pruned } = decodedCopy(input, SCHEMA);
    expect(pruned).toEqual(["spec.extra", "spec.items[0].bogus", "spec.plain.z", "top", "embedded.other"]);
    expect(value).toEqual({
      spec: {
        name: "a",
        items: [{ port: 1 }, { host: "h", port: 80 }],
        labels: { "[x": "y" },
        plain: { a: "s" },
        mode: "auto",
        nested: { inner: { level: 3 } },
      },
      embedded: { apiVersion: "v1", kind: "K", metadata: { name: "n" }, spec: "s" },
    });
    expect(input).toEqual(before);
  });

  it("names a field under a map key by the key as written", () => {
    const s = schema({
      type: "object",
      properties: {
        m: { type: "object", additionalProperties: { type: "object", properties: { k: { type: "string" } } } },
      },
    });
    expect(decodedCopy({ m: { "[x": { u: 1 }, "0": { v: 2 } } }, s).pruned).toEqual(["m.0.v", "m.[x.u"]);
  });
});

describe("nulls and defaults", () => {
  it("drops non-nullable nulls and applies defaults, also inside defaults, items and map values", () => {
    const input = {
      spec: {
        name: null,
        mode: null,
        items: [{}, { port: 8 }],
        labels: { a: null, b: "x" },
        plain: { a: null, b: null },
      },
    };
    const obj = decodedCopy(input, SCHEMA).value as Record<string, unknown>;
    expect(obj).toEqual({
      spec: {
        mode: "auto",
        items: [{ port: 80 }, { port: 8 }],
        labels: { a: "none", b: "x" },
        plain: { b: null },
        nested: { inner: { level: 3 } },
      },
    });
    expect(Object.keys(obj.spec as object)).toEqual(["mode", "items", "labels", "plain", "nested"]);
  });

  it("copies a value without defaults below it as it is", () => {
    const plain = { a: "s" };
    const obj = decodedCopy({ spec: { plain, nested: { inner: {} } } }, SCHEMA).value as { spec: { plain: unknown } };
    expect(obj.spec.plain).not.toBe(plain);
    expect(obj.spec).toEqual({ mode: "auto", plain: { a: "s" }, nested: { inner: { level: 3 } } });
  });
});
