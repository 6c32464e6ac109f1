import { describe, expect, it } from "vitest";
import type { ParamRefSpec } from "../../../../lib/admission-policy/documents.js";
import { collectParams, compileParamSelector, type ParamKind } from "../../../../lib/admission-policy/params.js";
import { builtinResources } from "../../../../lib/policy/builtin-resources.js";
import { createClusterState } from "../../../../lib/policy/cluster-state.js";

const configMapResource = builtinResources().find((r) => r.group === "" && r.resource === "configmaps")!;
const nodeResource = builtinResources().find((r) => r.group === "" && r.resource === "nodes")!;
const CONFIG_MAP: ParamKind = { apiVersion: "v1", group: "", kind: "ConfigMap", resource: configMapResource };
const NODE: ParamKind = { apiVersion: "v1", group: "", kind: "Node", resource: nodeResource };

function cm(name: string, namespace: string, labels: Record<string, string> = {}): Record<string, unknown> {
  return { metadata: { name, namespace, labels }, data: { v: name } };
}

const state = createClusterState([
  { ...cm("limits", "a", { tier: "small" }), apiVersion: "v1", kind: "ConfigMap" },
  { ...cm("limits", "b", { tier: "large" }), apiVersion: "v1", kind: "ConfigMap" },
  { ...cm("other", "a", { tier: "large" }), apiVersion: "v1", kind: "ConfigMap" },
  { apiVersion: "v1", kind: "Node", metadata: { name: "n1" } },
]);

function collect(kind: ParamKind | undefined, ref: ParamRefSpec | undefined, namespace = "a") {
  const r = collectParams(kind, ref, compileParamSelector(ref), namespace, state);
  return r.kind === "error" ? r.message : r.params.map((p) => (p === null ? null : p.id));
}

describe("params (CollectParams)", () => {
  it("no paramKind, or no paramRef: one evaluation with null params", () => {
    expect(collect(undefined, { name: "x", namespace: "" })).toEqual([null]);
    expect(collect(CONFIG_MAP, undefined)).toEqual([null]);
  });

  it.each([
    { name: "by name in the request's namespace", ref: { name: "limits", namespace: "" }, want: ["a/limits"] },
    { name: "by name in another namespace", ref: { name: "limits", namespace: "b" }, want: ["b/limits"] },
    { name: "by name, missing, no action", ref: { name: "none", namespace: "" }, want: [] },
    {
      name: "by name, missing, Deny",
      ref: { name: "none", namespace: "", parameterNotFoundAction: "Deny" },
      want: "no params found for policy binding with `Deny` parameterNotFoundAction",
    },
    {
      name: "by selector",
      ref: { name: "", namespace: "", selector: { matchLabels: { tier: "large" }, matchExpressions: [] } },
      want: ["a/other"],
    },
    {
      name: "an empty selector selects every param of the namespace",
      ref: { name: "", namespace: "", selector: { matchLabels: {}, matchExpressions: [] } },
      want: ["a/limits", "a/other"],
    },
  ])("$name", ({ ref, want }) => {
    expect(collect(CONFIG_MAP, ref as ParamRefSpec)).toEqual(want);
  });

  it("a namespaced param kind without a namespace on a cluster-scoped request", () => {
    expect(collect(CONFIG_MAP, { name: "limits", namespace: "" }, "")).toBe(
      "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources",
    );
  });

  it("a cluster-scoped param kind: a namespace is refused, names are found anywhere", () => {
    expect(collect(NODE, { name: "n1", namespace: "a" })).toBe(
      "paramRef.namespace must not be provided for a cluster-scoped `paramKind`",
    );
    expect(collect(NODE, { name: "n1", namespace: "" })).toEqual(["n1"]);
  });

  it("a param gets the paramKind's apiVersion and kind", () => {
    const r = collectParams(
      CONFIG_MAP,
      { name: "limits", namespace: "" },
      undefined,
      "a",
      createClusterState([cm("limits", "a")].map((o) => ({ ...o, apiVersion: "v1", kind: "ConfigMap" }))),
    );
    expect(r.kind === "params" && r.params[0]?.object).toMatchObject({
      apiVersion: "v1",
      kind: "ConfigMap",
      data: { v: "limits" },
    });
  });
});
