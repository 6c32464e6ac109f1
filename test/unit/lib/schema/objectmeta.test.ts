import { describe, expect, it } from "vitest";
import type { FieldError } from "../../../../lib/field/error.js";
import { Path } from "../../../../lib/field/path.js";
import { loadBundle } from "../../../../lib/index.js";
import {
  nameIsDNSSubdomain,
  validateEmbeddedResources,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from "../../../../lib/schema/objectmeta.js";
import { compileSchema } from "../../../../lib/schema/structural.js";

const ctx = { source: { kind: "crd" as const, policy: "test" } };
const lines = (errors: FieldError[]) => errors.map((e) => `${e.type} ${e.field}: ${e.message}`);

describe("validateObjectMeta (ValidateObjectMetaAccessor)", () => {
  it.each([
    { name: "no metadata at all reads as empty metadata", metadata: undefined },
    { name: "null metadata reads as empty metadata", metadata: null },
    { name: "empty metadata", metadata: {} },
    { name: "an empty name", metadata: { name: "" } },
  ])("$name: name or generateName is required", ({ metadata }) => {
    // Prepare
    const out: FieldError[] = [];
    // Act
    validateObjectMeta(metadata, null, nameIsDNSSubdomain, Path.of("metadata"), ctx, out);
    // Assess
    expect(lines(out)).toEqual(["FieldValueRequired metadata.name: Required value: name or generateName is required"]);
  });

  it.each([
    { name: "a name", metadata: { name: "a" } },
    { name: "a generateName", metadata: { generateName: "a-" } },
  ])("$name is enough", ({ metadata }) => {
    const out: FieldError[] = [];
    validateObjectMeta(metadata, null, nameIsDNSSubdomain, Path.of("metadata"), ctx, out);
    expect(out).toEqual([]);
  });
});

describe("validateObjectMetaUpdate", () => {
  it.each([
    {
      name: "metadata removed on update",
      metadata: undefined,
      old: { name: "a" },
      want: ['FieldValueInvalid metadata.name: Invalid value: "": field is immutable'],
    },
    { name: "the same name", metadata: { name: "a" }, old: { name: "a" }, want: [] },
  ])("$name", ({ metadata, old, want }) => {
    const out: FieldError[] = [];
    validateObjectMetaUpdate(metadata, old, Path.of("metadata"), ctx, out);
    expect(lines(out)).toEqual(want);
  });
});

describe("a custom resource without metadata", () => {
  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
            x-kubernetes-validations:
            - rule: self.size < 10
              message: size must be below 10
`;

  it("is rejected as the API server rejects it, and its CEL rules are not run", async () => {
    // Prepare
    const set = await loadBundle([{ path: "crd.yaml", content: crd }]);
    expect(set.failures).toEqual([]);
    // Act
    const verdict = set.validate({
      operation: "CREATE",
      object: { apiVersion: "example.com/v1", kind: "Widget", spec: { size: 20 } },
    });
    // Assess: the CEL rule would fail; the API server does not run it after a Required error.
    expect(verdict.allowed).toBe(false);
    expect(lines(verdict.errors)).toEqual([
      "FieldValueRequired metadata.name: Required value: name or generateName is required",
      "FieldValueInvalid <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
    ]);
  });
});

describe("validateEmbeddedResources: apiVersion", () => {
  const schema = compileSchema(
    {
      type: "object",
      properties: {
        template: {
          type: "object",
          "x-kubernetes-embedded-resource": true,
          "x-kubernetes-preserve-unknown-fields": true,
        },
      },
    },
    [],
  );

  it.each([
    { apiVersion: "apps/v1", want: [] },
    { apiVersion: "v1", want: [] },
    // schema.ParseGroupVersion accepts one "/" anywhere: "apps/" and "/v1" are no errors in Go (this check once
    // refused "apps/").
    { apiVersion: "apps/", want: [] },
    { apiVersion: "/v1", want: [] },
    {
      apiVersion: "a/b/c",
      want: ['FieldValueInvalid template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c'],
    },
  ])("$apiVersion", ({ apiVersion, want }) => {
    // Prepare
    const out: FieldError[] = [];
    const obj = { template: { apiVersion, kind: "Thing", metadata: { name: "x" } } };
    // Act
    validateEmbeddedResources(null, obj, schema, true, ctx, out);
    // Assess
    expect(lines(out)).toEqual(want);
  });
});
