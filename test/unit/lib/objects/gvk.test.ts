import { describe, expect, it } from "vitest";
import { objectIdentity, parseApiVersion, parseGroupVersion } from "../../../../lib/objects/gvk.js";

describe("parseGroupVersion (schema.ParseGroupVersion)", () => {
  it.each([
    { gv: "v1", want: { group: "", version: "v1" } },
    { gv: "apps/v1", want: { group: "apps", version: "v1" } },
    { gv: "", want: { group: "", version: "" } },
    { gv: "/", want: { group: "", version: "" } },
    // Where parseApiVersion and lib/schema/objectmeta.ts once disagreed: Go splits at the one "/".
    { gv: "/v1", want: { group: "", version: "v1" } },
    { gv: "apps/", want: { group: "apps", version: "" } },
    { gv: "a/b/c", want: { error: "unexpected GroupVersion string: a/b/c" } },
  ])("$gv", ({ gv, want }) => {
    expect(parseGroupVersion(gv)).toEqual(want);
  });
});

describe("parseApiVersion", () => {
  it.each([
    { apiVersion: "v1", want: { group: "", version: "v1" } },
    { apiVersion: "apps/v1", want: { group: "apps", version: "v1" } },
    { apiVersion: "kubevirt.io/v1alpha3", want: { group: "kubevirt.io", version: "v1alpha3" } },
    { apiVersion: "", want: undefined },
    { apiVersion: "/", want: undefined },
    { apiVersion: "apps/", want: undefined },
    { apiVersion: "/v1", want: undefined },
    { apiVersion: "a/b/c", want: undefined },
    { apiVersion: "apps/ v1", want: undefined },
    { apiVersion: " v1", want: undefined },
  ])("$apiVersion", ({ apiVersion, want }) => {
    expect(parseApiVersion(apiVersion)).toEqual(want);
  });
});

describe("objectIdentity", () => {
  const empty = {
    apiVersion: "",
    kind: "",
    group: "",
    version: "",
    name: "",
    namespace: "",
    generateName: "",
    uid: "",
  };

  it.each([
    {
      name: "a namespaced object",
      obj: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web", namespace: "shop", generateName: "web-", uid: "1234" },
      },
      want: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        group: "apps",
        version: "v1",
        name: "web",
        namespace: "shop",
        generateName: "web-",
        uid: "1234",
      },
    },
    {
      name: "a core object",
      obj: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } },
      want: { ...empty, apiVersion: "v1", kind: "Pod", version: "v1", name: "p" },
    },
    {
      name: "an invalid apiVersion",
      obj: { apiVersion: "a/b/c", kind: "X" },
      want: { ...empty, apiVersion: "a/b/c", kind: "X" },
    },
    {
      name: "fields of the wrong type",
      obj: { apiVersion: 1, kind: true, metadata: { name: 5, namespace: null, uid: {} } },
      want: empty,
    },
    { name: "metadata that is not a mapping", obj: { kind: "Pod", metadata: ["x"] }, want: { ...empty, kind: "Pod" } },
    { name: "null", obj: null, want: empty },
    { name: "an array", obj: [{ kind: "Pod" }], want: empty },
    { name: "a string", obj: "Pod", want: empty },
  ])("$name", ({ obj, want }) => {
    expect(objectIdentity(obj)).toEqual(want);
  });
});
