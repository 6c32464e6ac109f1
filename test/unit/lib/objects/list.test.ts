import { describe, expect, it } from "vitest";
import { unwrapList } from "../../../../lib/objects/list.js";

const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } };
const service = { apiVersion: "v1", kind: "Service", metadata: { name: "s" } };

describe("unwrapList", () => {
  it.each([
    { name: "v1 List", obj: { apiVersion: "v1", kind: "List", items: [pod, service] }, items: [pod, service] },
    { name: "empty List", obj: { apiVersion: "v1", kind: "List", items: [] }, items: [] },
    { name: "typed list", obj: { apiVersion: "v1", kind: "PodList", items: [pod] }, items: [pod] },
    {
      name: "typed list items without kind take it from the list",
      obj: { apiVersion: "apps/v1", kind: "DeploymentList", items: [{ metadata: { name: "d" } }] },
      items: [{ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" } }],
    },
    {
      name: "items with only one of kind and apiVersion are left alone",
      obj: { apiVersion: "apps/v1", kind: "DeploymentList", items: [{ kind: "Deployment" }] },
      items: [{ kind: "Deployment" }],
    },
    {
      name: "v1 List items without kind are left alone",
      obj: { apiVersion: "v1", kind: "List", items: [{ metadata: { name: "x" } }] },
      items: [{ metadata: { name: "x" } }],
    },
    {
      name: "nested lists flatten breadth first, as kubectl does",
      obj: {
        apiVersion: "v1",
        kind: "List",
        items: [
          { kind: "A" },
          { apiVersion: "v1", kind: "List", items: [{ kind: "B" }, { kind: "C" }] },
          { kind: "D" },
        ],
      },
      items: [{ kind: "A" }, { kind: "D" }, { kind: "B" }, { kind: "C" }],
    },
    { name: "non-object items are kept", obj: { kind: "List", items: [1, null, "x"] }, items: [1, null, "x"] },
  ])("$name", ({ obj, items }) => {
    expect(unwrapList(obj)).toEqual(items);
  });

  it("never changes the list or its items", () => {
    // Prepare
    const item = { metadata: { name: "d" } };
    const list = { apiVersion: "apps/v1", kind: "DeploymentList", items: [item] };

    // Act
    unwrapList(list);

    // Assess
    expect(item).toEqual({ metadata: { name: "d" } });
    expect(list.items[0]).toBe(item);
  });

  it.each([
    { name: "an ordinary object", obj: pod },
    { name: "an object with items but no List kind", obj: { kind: "Widget", items: [1] } },
    { name: "a List without items", obj: { apiVersion: "v1", kind: "List" } },
    { name: "a List whose items is not an array", obj: { apiVersion: "v1", kind: "List", items: { a: 1 } } },
    { name: "a non-string kind", obj: { kind: ["List"], items: [] } },
    { name: "an array", obj: [pod] },
    { name: "null", obj: null },
    { name: "a string", obj: "List" },
  ])("is undefined for $name", ({ obj }) => {
    expect(unwrapList(obj)).toBeUndefined();
  });
});
