/**
 * A one-version CRD for tests of CEL rules: kind Widget (demo.tollgate.dev/v1), whose `spec` has the given
 * properties and `x-kubernetes-validations`, loaded as a bundle; and a Widget object with a given spec.
 */
import { loadBundle, type PolicySet } from "../../lib/index.js";

/** The Widget CRD with `properties` and `rules` on its spec. */
export function widgetCrd(properties: Record<string, unknown>, rules: readonly Record<string, unknown>[]) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.demo.tollgate.dev" },
    spec: {
      group: "demo.tollgate.dev",
      scope: "Namespaced",
      names: { kind: "Widget", plural: "widgets", singular: "widget", listKind: "WidgetList" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                apiVersion: { type: "string" },
                kind: { type: "string" },
                metadata: { type: "object" },
                spec: { type: "object", properties, "x-kubernetes-validations": rules },
              },
            },
          },
        },
      ],
    },
  };
}

/** The policy set of the Widget CRD with `properties` and `rules` on its spec. */
export function widgetBundle(
  properties: Record<string, unknown>,
  rules: readonly Record<string, unknown>[],
): Promise<PolicySet> {
  return loadBundle([{ path: "crd.json", content: JSON.stringify(widgetCrd(properties, rules)) }]);
}

/** A Widget named w in namespace default with `spec`. */
export function widget(spec: Record<string, unknown>) {
  return { apiVersion: "demo.tollgate.dev/v1", kind: "Widget", metadata: { name: "w", namespace: "default" }, spec };
}
