/** A one-version CRD (kind Big, b.tollgate.dev/v1) with a given root schema, as JSON text: for tests of big inputs. */
export function bigCrdText(schema: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "bigs.b.tollgate.dev" },
    spec: {
      group: "b.tollgate.dev",
      scope: "Namespaced",
      names: { plural: "bigs", singular: "big", kind: "Big", listKind: "BigList" },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  });
}
