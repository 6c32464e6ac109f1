import { describe, expect, it } from "vitest";
import { readValidateBody, validateRequestOf } from "../../../../functions/http/admission.js";

const limits = { maxBytes: 1 << 20, maxDepth: 64 };

function review(request: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request });
}

const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "prod" } };

describe("AdmissionReview attributes", () => {
  it("carries the user, namespace, name, resource, kinds, options and dryRun into the PolicySet request", () => {
    // Prepare
    const text = review({
      uid: "u1",
      operation: "CREATE",
      kind: { group: "apps", version: "v1", kind: "Deployment" },
      resource: { group: "apps", version: "v1", resource: "deployments" },
      requestKind: { group: "apps", version: "v1beta1", kind: "Deployment" },
      requestResource: { group: "apps", version: "v1beta1", resource: "deployments" },
      name: "web",
      namespace: "prod",
      userInfo: { username: "alice", uid: "1", groups: ["dev"], extra: { scopes: ["a"] } },
      options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" },
      dryRun: true,
      object: deployment,
    });
    // Act
    const body = readValidateBody(text, limits);
    // Assess
    if (body.kind !== "review") throw new Error("not a review");
    expect(validateRequestOf(body.review)).toEqual({
      operation: "CREATE",
      object: deployment,
      dryRun: true,
      kind: { group: "apps", version: "v1", kind: "Deployment" },
      resource: { group: "apps", version: "v1", resource: "deployments" },
      requestKind: { group: "apps", version: "v1beta1", kind: "Deployment" },
      requestResource: { group: "apps", version: "v1beta1", resource: "deployments" },
      name: "web",
      namespace: "prod",
      userInfo: { username: "alice", uid: "1", groups: ["dev"], extra: { scopes: ["a"] } },
      options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" },
    });
  });

  it("gives a CONNECT's options object to the policy set; a CONNECT without one has nothing to judge", () => {
    const options = { stdin: true, command: ["sh"] };
    const connect = (object?: unknown) =>
      readValidateBody(
        review({
          uid: "u1",
          operation: "CONNECT",
          kind: { group: "", version: "v1", kind: "PodExecOptions" },
          resource: { group: "", version: "v1", resource: "pods" },
          subResource: "exec",
          name: "web-0",
          namespace: "prod",
          ...(object === undefined ? {} : { object }),
        }),
        limits,
      );
    const body = connect(options);
    if (body.kind !== "review") throw new Error("not a review");
    expect(validateRequestOf(body.review)).toEqual({
      operation: "CONNECT",
      object: { apiVersion: "v1", kind: "PodExecOptions", ...options },
      subresource: "exec",
      kind: { group: "", version: "v1", kind: "PodExecOptions" },
      resource: { group: "", version: "v1", resource: "pods" },
      name: "web-0",
      namespace: "prod",
    });
    const bare = connect();
    if (bare.kind !== "review") throw new Error("not a review");
    expect(validateRequestOf(bare.review)).toBeUndefined();
  });

  it.each([
    { field: "userInfo", value: { username: 3 }, message: "request.userInfo.username must be a string" },
    { field: "userInfo", value: { groups: "dev" }, message: "request.userInfo.groups must be a list of strings" },
    { field: "namespace", value: 7, message: "request.namespace must be a string" },
    {
      field: "resource",
      value: { version: "v1" },
      message: "request.resource must have string group, version and resource",
    },
    { field: "options", value: [], message: "request.options must be a JSON object" },
  ])("refuses a request whose $field has the wrong shape", ({ field, value, message }) => {
    const text = review({ uid: "u1", operation: "CREATE", object: deployment, [field]: value });
    expect(() => readValidateBody(text, limits)).toThrow(message);
  });
});
