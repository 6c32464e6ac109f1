/**
 * The custom-resource request path (lib/crd/request.ts) on UPDATE: list-type uniqueness errors are checked only when
 * the stored object has none (customResourceStrategy.ValidateUpdate); otherwise the API server discards them, and
 * the verdict keeps them as ratcheted (the auditor's grandfathered violations).
 */
import { describe, expect, it } from "vitest";
import { loadBundle } from "../../../../lib/bundle/load.js";

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.g.example.com
spec:
  group: g.example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
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
                ports:
                  type: array
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [name]
                  items: {type: object, required: [name], properties: {name: {type: string}, port: {type: integer}}}
                tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
`;

const gizmo = (spec: Record<string, unknown>) => ({
  apiVersion: "g.example.com/v1",
  kind: "Gizmo",
  metadata: { name: "g", namespace: "ns" },
  spec,
});
const DUPLICATE_PORTS = {
  ports: [
    { name: "http", port: 80 },
    { name: "http", port: 8080 },
  ],
};
const brief = (errors: readonly { field: string; message: string }[]) => errors.map((e) => `${e.field}: ${e.message}`);

describe("list-type uniqueness on UPDATE", () => {
  it.each([
    {
      name: "an unchanged duplicate is ratcheted (admitted), not dropped",
      old: DUPLICATE_PORTS,
      now: DUPLICATE_PORTS,
      errors: [],
      ratcheted: ['spec.ports[1]: Duplicate value: {"name":"http"}'],
    },
    {
      name: "while the stored object has a list-type error, a new one elsewhere is ratcheted too",
      old: DUPLICATE_PORTS,
      now: { ...DUPLICATE_PORTS, tags: ["a", "a"] },
      errors: [],
      ratcheted: ['spec.ports[1]: Duplicate value: {"name":"http"}', 'spec.tags[1]: Duplicate value: "a"'],
    },
    {
      name: "a duplicate added to a stored object without list-type errors is an error",
      old: { ports: [{ name: "http", port: 80 }] },
      now: DUPLICATE_PORTS,
      errors: ['spec.ports[1]: Duplicate value: {"name":"http"}'],
      ratcheted: [],
    },
  ])("$name", async ({ old, now, errors, ratcheted }) => {
    // Prepare
    const set = await loadBundle([{ path: "crd.yaml", content: CRD }]);
    // Act
    const v = set.validate({ operation: "UPDATE", object: gizmo(now), oldObject: gizmo(old) });
    // Assess
    expect(brief(v.errors)).toEqual(errors);
    expect(brief(v.ratcheted)).toEqual(ratcheted);
    expect(v.allowed).toBe(errors.length === 0);
  });
});
