import { describe, expect, it } from "vitest";
import type { AdmissionAttributes } from "../../../../lib/admission-policy/attributes.js";
import { celValue, defaultOptions, namespaceValue, requestValue } from "../../../../lib/admission-policy/values.js";

function attrs(overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: "CREATE",
    kind: { group: "apps", version: "v1beta1", kind: "Deployment" },
    resource: { group: "apps", version: "v1beta1", resource: "deployments" },
    subresource: "",
    namespace: "",
    name: "web",
    object: {},
    oldObject: null,
    userInfo: { username: "alice" },
    dryRun: false,
    options: null,
    secret: false,
    ...overrides,
  };
}

describe("CEL values of an admission request", () => {
  it("unstructured JSON: integers are int, other numbers double, objects maps", () => {
    expect(celValue({ a: 1, b: 1.5, c: [true, null, "x"], d: { e: 2 } })).toEqual(
      new Map<string, unknown>([
        ["a", 1n],
        ["b", 1.5],
        ["c", [true, null, "x"]],
        ["d", new Map([["e", 2n]])],
      ]),
    );
  });

  it("request: kind/resource are the matched ones, requestKind/requestResource the request's; empty fields absent", () => {
    const r = requestValue(
      attrs(),
      { group: "apps", version: "v1", resource: "deployments" },
      {
        group: "apps",
        version: "v1",
        kind: "Deployment",
      },
    );
    expect(r).toEqual({
      kind: { group: "apps", version: "v1", kind: "Deployment" },
      resource: { group: "apps", version: "v1", resource: "deployments" },
      requestKind: { group: "apps", version: "v1beta1", kind: "Deployment" },
      requestResource: { group: "apps", version: "v1beta1", resource: "deployments" },
      operation: "CREATE",
      userInfo: { username: "alice" },
      dryRun: false,
      options: new Map([
        ["apiVersion", "meta.k8s.io/v1"],
        ["kind", "CreateOptions"],
      ]),
      name: "web",
    });
  });

  it("request: the user's uid, groups and extra when set; the namespace and subresource when set", () => {
    const r = requestValue(
      attrs({
        userInfo: { username: "bob", uid: "u-2", groups: ["dev"], extra: { scopes: ["a", "b"] } },
        namespace: "shop",
        subresource: "status",
      }),
      { group: "apps", version: "v1", resource: "deployments" },
      { group: "apps", version: "v1", kind: "Deployment" },
    );
    expect(r.userInfo).toEqual({
      username: "bob",
      uid: "u-2",
      groups: ["dev"],
      extra: new Map([["scopes", ["a", "b"]]]),
    });
    expect(r.namespace).toBe("shop");
    expect(r.subResource).toBe("status");
    expect(r.requestSubResource).toBe("status");
  });

  it.each([
    { operation: "CREATE", dryRun: false, want: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" } },
    {
      operation: "UPDATE",
      dryRun: true,
      want: { apiVersion: "meta.k8s.io/v1", kind: "UpdateOptions", dryRun: ["All"] },
    },
    { operation: "DELETE", dryRun: false, want: { apiVersion: "meta.k8s.io/v1", kind: "DeleteOptions" } },
    { operation: "CONNECT", dryRun: false, want: null },
  ] as const)("default options of $operation (dry run $dryRun)", ({ operation, dryRun, want }) => {
    expect(defaultOptions(attrs({ operation, dryRun }))).toEqual(want);
  });

  it("namespaceObject: status, spec and the metadata fields the plugin copies", () => {
    const ns = namespaceValue({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: "shop",
        uid: "1234",
        labels: { a: "b" },
        ownerReferences: [{ name: "x" }],
        managedFields: [{}],
        generation: 2,
      },
      status: { phase: "Active" },
    });
    expect(ns).toEqual(
      new Map<string, unknown>([
        [
          "metadata",
          new Map<string, unknown>([
            ["name", "shop"],
            ["uid", "1234"],
            ["generation", 2n],
            ["labels", new Map([["a", "b"]])],
            ["creationTimestamp", null],
          ]),
        ],
        ["spec", new Map()],
        ["status", new Map([["phase", "Active"]])],
      ]),
    );
  });
});
