import { describe, expect, it } from "vitest";
import { type CompileIssue, compileSchema } from "../../../../lib/schema/structural.js";
import { validateValue } from "../../../../lib/schema/validate.js";

const ctx = { source: { kind: "crd" as const, policy: "test" } };

function schemaOf(raw: unknown) {
  const issues: CompileIssue[] = [];
  const node = compileSchema(raw, issues);
  expect(issues).toEqual([]);
  return node;
}

function causes(raw: unknown, data: unknown, old?: unknown) {
  const r = validateValue(schemaOf(raw), data, null, ctx, old === undefined ? {} : { old, hasOld: true });
  return { errors: r.errors.map((e) => `${e.type} ${e.field}: ${e.message}`).sort(), ratcheted: r.ratcheted.length };
}

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  ...extra,
});

describe("kube-openapi value validation", () => {
  it.each([
    {
      name: "maximum on an integer",
      schema: obj({ spec: obj({ replicas: { type: "integer", maximum: 10 } }) }),
      data: { spec: { replicas: 11 } },
      want: [
        "FieldValueInvalid spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
      ],
    },
    {
      name: "exclusive minimum",
      schema: obj({ n: { type: "integer", minimum: 0, exclusiveMinimum: true } }),
      data: { n: 0 },
      want: ["FieldValueInvalid n: Invalid value: 0: n in body should be greater than 0"],
    },
    {
      name: "integer datum against a fractional bound truncates it",
      schema: obj({ n: { type: "number", maximum: 2.5 } }),
      data: { n: 3 },
      want: ["FieldValueInvalid n: Invalid value: 3: n in body should be less than or equal to 2"],
    },
    {
      name: "type error with the JSON type name",
      schema: obj({ n: { type: "integer" } }),
      data: { n: "x" },
      want: ['FieldValueTypeInvalid n: Invalid value: "string": n in body must be of type integer: "string"'],
    },
    {
      name: "required at the root drops the leading dot",
      schema: obj({ spec: { type: "object" } }, { required: ["spec"] }),
      data: {},
      want: ["FieldValueRequired spec: Required value"],
    },
    {
      name: "enum lists values in schema order",
      schema: obj({ c: { type: "string", enum: ["red", "green"] } }),
      data: { c: "blue" },
      want: ['FieldValueNotSupported c: Unsupported value: "blue": supported values: "red", "green"'],
    },
    {
      name: "maxLength is TooLong and counts code points",
      schema: obj({ s: { type: "string", maxLength: 2 } }),
      data: { s: "ééé" },
      want: ["FieldValueTooLong s: Too long: may not be more than 2 bytes"],
    },
    {
      name: "maxLength and minLength count a surrogate pair as one and a lone surrogate as one",
      schema: obj({
        a: { type: "string", maxLength: 2 },
        b: { type: "string", maxLength: 2 },
        c: { type: "string", minLength: 3 },
        d: { type: "string", minLength: 2, maxLength: 2 },
        e: { type: "string", minLength: 3 },
      }),
      data: { a: "😀😀", b: "😀😀\ud800", c: "😀😀", d: "😀\udc00", e: "😀\ud800\ud800" },
      want: [
        'FieldValueInvalid c: Invalid value: "😀😀": c in body should be at least 3 chars long',
        "FieldValueTooLong b: Too long: may not be more than 2 bytes",
      ],
    },
    {
      name: "string checks stop at the first failure",
      schema: obj({ s: { type: "string", minLength: 3, pattern: "^[a-z]+$" } }),
      data: { s: "A" },
      want: ['FieldValueInvalid s: Invalid value: "A": s in body should be at least 3 chars long'],
    },
    {
      name: "pattern is an unanchored search",
      schema: obj({ s: { type: "string", pattern: "[0-9]" } }),
      data: { s: "abc1" },
      want: [],
    },
    {
      name: "maxItems",
      schema: obj({ l: { type: "array", maxItems: 1, items: { type: "string" } } }),
      data: { l: ["a", "b"] },
      want: ["FieldValueTooMany l: Too many: 2: must have at most 1 item"],
    },
    {
      name: "additionalProperties values use dotted paths",
      schema: obj({ m: { type: "object", additionalProperties: { type: "integer", minimum: 1 } } }),
      data: { m: { a: 0 } },
      want: ["FieldValueInvalid m.a: Invalid value: 0: m.a in body should be greater than or equal to 1"],
    },
    {
      name: "null in a non-nullable array item",
      schema: obj({ l: { type: "array", items: { type: "string" } } }),
      data: { l: ["a", null] },
      want: ['FieldValueTypeInvalid l[1]: Invalid value: "null": l[1] in body must be of type string: "null"'],
    },
    {
      name: "anyOf reports its message and the best branch's errors",
      schema: obj({ a: { type: "string", anyOf: [{ format: "ipv4" }, { format: "ipv6" }] } }),
      data: { a: "nope" },
      want: [
        'FieldValueInvalid <nil>: Invalid value: "": "a" must validate at least one schema (anyOf)',
        'FieldValueTypeInvalid a: Invalid value: "nope": a in body must be of type ipv4: "nope"',
      ],
    },
    {
      name: "int-or-string",
      schema: obj({ p: { "x-kubernetes-int-or-string": true } }),
      data: { p: true },
      want: ['FieldValueTypeInvalid p: Invalid value: "boolean": p in body must be of type integer,string: "boolean"'],
    },
    {
      name: "fractional value for an integer also fails the 1.36 range check",
      schema: obj({ n: { type: "integer" } }),
      data: { n: 1.5 },
      want: [
        'FieldValueInvalid <nil>: Invalid value: "": Checked value must be of type integer (default format) in n',
        'FieldValueTypeInvalid n: Invalid value: "number": n in body must be of type integer: "number"',
      ],
    },
  ])("$name", ({ schema, data, want }) => {
    expect(causes(schema, data).errors).toEqual([...want].sort());
  });
});

describe("ratcheting", () => {
  const schema = obj({
    spec: obj({
      a: { type: "string", maxLength: 2 },
      b: { type: "string", maxLength: 2 },
    }),
  });

  it("ratchets an unchanged invalid field while a sibling changes", () => {
    const r = causes(schema, { spec: { a: "long", b: "x" } }, { spec: { a: "long", b: "y" } });
    expect(r.errors).toEqual([]);
    expect(r.ratcheted).toBe(1);
  });

  it("reports a changed field even if it was invalid before", () => {
    const r = causes(schema, { spec: { a: "longer" } }, { spec: { a: "long" } });
    expect(r.errors).toEqual(["FieldValueTooLong spec.a: Too long: may not be more than 2 bytes"]);
  });
});
