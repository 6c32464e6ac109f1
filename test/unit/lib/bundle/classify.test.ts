/**
 * What the loader makes of each bundle document and file (lib/bundle/classify.ts): a document that cannot be decoded
 * or recognised as what its file promises is an error-severity failure of every kind; an object no family reads is a
 * note, never a policy failure.
 */
import { describe, expect, it } from "vitest";
import { loadBundle } from "../../../../lib/bundle/load.js";
import { EVERY_KIND } from "../../../../lib/policy/types.js";

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
            spec: {type: object, properties: {size: {type: integer, maximum: 3}}}
`;

describe("bundle documents: what each file promises", () => {
  it.each([
    {
      name: "a document that cannot be decoded",
      content: `${CRD}---\napiVersion: v1\nkind: [\n`,
      message:
        "document 1 (line 19): line 20, column 8: Flow sequence in block collection must be sufficiently indented and end with a ]",
      stage: "decode",
    },
    {
      name: "a CRD whose kind is misspelt",
      content: CRD.replace("kind: CustomResourceDefinition", "kind: CustomResourceDefiniton"),
      message:
        'apiextensions.k8s.io/v1 CustomResourceDefiniton "gizmos.g.example.com" is not a policy tollgate recognises, though apiextensions.k8s.io holds policy documents (a misspelt kind, or a version tollgate does not read?)',
      stage: "config",
    },
    {
      name: "a BundleConfig of a version tollgate does not read",
      content: "apiVersion: tollgate.dev/v1\nkind: BundleConfig\nfailurePolicy: Ignore\n",
      message:
        "tollgate.dev/v1 BundleConfig is not a policy tollgate recognises, though tollgate.dev holds policy documents (a misspelt kind, or a version tollgate does not read?)",
      stage: "config",
    },
    {
      name: "a document without apiVersion (kubectl apply refuses it too)",
      content: CRD.replace("apiVersion: apiextensions.k8s.io/v1\n", ""),
      message: "not a Kubernetes object: apiVersion not set",
      stage: "config",
    },
    {
      name: "a mapping that is no Kubernetes object",
      content: "replicas: 3\n",
      message: "not a Kubernetes object: apiVersion not set, kind not set",
      stage: "config",
    },
  ])(
    "$name: an error of every kind, and every object is rejected (failurePolicy Fail)",
    async ({ content, message, stage }) => {
      // Act
      const set = await loadBundle([{ path: "policies.yaml", content }]);
      // Assess
      expect(set.failures).toEqual([
        expect.objectContaining({
          severity: "error",
          family: "config",
          stage,
          file: "policies.yaml",
          kinds: [EVERY_KIND],
          message,
        }),
      ]);
      expect(set.notes).toEqual([]);
      const configMap = set.validate({
        operation: "CREATE",
        object: { apiVersion: "v1", kind: "ConfigMap", metadata: {} },
      });
      expect(configMap).toMatchObject({ allowed: false, covered: true });
      expect(configMap.errors[0]?.message).toContain("the policy for v1/ConfigMap may be in policies.yaml#");
    },
  );

  it("an item of a List that is not an object names the item", async () => {
    const set = await loadBundle([{ path: "list.yaml", content: "apiVersion: v1\nkind: List\nitems:\n  - 3\n" }]);
    expect(set.failures).toEqual([
      expect.objectContaining({
        path: "items[0]",
        kinds: [EVERY_KIND],
        message: "not a Kubernetes object (a number, not a mapping)",
      }),
    ]);
  });

  it("objects no family reads and files no family takes are notes, not failures; the policies still work", async () => {
    // Prepare
    const files = [
      { path: "crd.yaml", content: CRD },
      {
        path: "state.yaml",
        content: "apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n",
      },
      { path: "ns.yaml", content: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n" },
      { path: "README.md", content: "# policies\n" },
    ];
    // Act
    const set = await loadBundle(files);
    // Assess
    expect(set.failures).toEqual([]);
    expect(set.notes).toEqual([
      {
        file: "state.yaml",
        document: 0,
        path: "items[0]",
        message: 'not a policy document (v1 ConfigMap "c"): ignored',
      },
      { file: "ns.yaml", document: 0, message: 'not a policy document (v1 Namespace "team-a"): ignored' },
      { file: "README.md", message: "not a policy file: ignored" },
    ]);
    const gizmo = (size: number) => ({
      apiVersion: "g.example.com/v1",
      kind: "Gizmo",
      metadata: { name: "g" },
      spec: { size },
    });
    expect(set.validate({ operation: "CREATE", object: gizmo(2) }).allowed).toBe(true);
    expect(set.validate({ operation: "CREATE", object: gizmo(4) }).allowed).toBe(false);
    expect(set.covers("v1", "ConfigMap")).toBe(false);
  });
});
