/**
 * The webhook Lambda answering AdmissionReviews, built as kube-apiserver sends them, for a bundle of
 * ValidatingAdmissionPolicies (test/fixtures/bundles/admission-policy: policies, bindings, a param, Namespaces and
 * RBAC objects): the Status, warnings and audit annotations kube-apiserver 1.36's ValidatingAdmissionPolicy plugin
 * would give, as the corpus (cases/vap) records them for the same situations.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { FunctionLogger } from "../../functions/logger.js";
import { createRuntime } from "../../functions/runtime.js";
import { createHandler } from "../../functions/webhook.js";
import { admissionReview, event, fakeContext, type Payload } from "../helpers/events.js";

const BUNDLE = fileURLToPath(new URL("../fixtures/bundles/admission-policy", import.meta.url));

const quiet: FunctionLogger = { info: () => {}, warn: () => {}, error: () => {}, addContext: () => {} };
const handler = createHandler(createRuntime({ TOLLGATE_BUNDLE: BUNDLE }, { logger: quiet }));

const ALICE = { username: "alice", uid: "u-1", groups: ["shop-leads", "system:authenticated"] };
const BOB = { username: "bob", uid: "u-2", groups: ["system:authenticated"] };

function deployment(replicas: number, image: string, namespace = "shop"): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image }] } },
    },
  };
}

/** An AdmissionReview request as kube-apiserver builds it (its kind, resource and options for the operation). */
function request(
  operation: "CREATE" | "UPDATE" | "DELETE",
  target: { group: string; version: string; kind: string; resource: string; subResource?: string },
  fields: { name: string; namespace?: string; object?: unknown; oldObject?: unknown; userInfo?: unknown },
): Record<string, unknown> {
  const { group, version, kind, resource, subResource } = target;
  const options = { CREATE: "CreateOptions", UPDATE: "UpdateOptions", DELETE: "DeleteOptions" }[operation];
  return {
    uid: `uid-${fields.name}-${operation.toLowerCase()}`,
    kind: { group, version, kind },
    resource: { group, version, resource },
    requestKind: { group, version, kind },
    requestResource: { group, version, resource },
    ...(subResource === undefined ? {} : { subResource, requestSubResource: subResource }),
    name: fields.name,
    ...(fields.namespace === undefined ? {} : { namespace: fields.namespace }),
    operation,
    userInfo: fields.userInfo ?? ALICE,
    ...(fields.object === undefined ? {} : { object: fields.object }),
    ...(fields.oldObject === undefined ? {} : { oldObject: fields.oldObject }),
    dryRun: false,
    options: { apiVersion: "meta.k8s.io/v1", kind: options },
  };
}

const DEPLOYMENTS = { group: "apps", version: "v1", kind: "Deployment", resource: "deployments" };

async function review(payload: Payload, req: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await handler(event(payload, { body: admissionReview(req) }), fakeContext());
  expect(res.statusCode).toBe(200);
  const body = JSON.parse(res.body) as { response: Record<string, unknown> };
  expect(body.response.uid).toBe(req.uid);
  return body.response;
}

describe.each<{ payload: Payload }>([{ payload: "v1" }, { payload: "v2" }])("payload $payload", ({ payload }) => {
  it("denies with the first denying binding's Status (reason Forbidden: 403) and records the policy's annotation", async () => {
    const r = await review(
      payload,
      request("CREATE", DEPLOYMENTS, {
        name: "web",
        namespace: "shop",
        object: deployment(8, "registry.example.com/shop/web:1.0"),
      }),
    );
    const message =
      "ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-everywhere' denied request: replicas must be at most 5, not 8";
    expect(r).toEqual({
      uid: "uid-web-create",
      allowed: false,
      status: {
        metadata: {},
        status: "Failure",
        message: `deployments.apps "web" is forbidden: ${message}`,
        reason: "Forbidden",
        details: { name: "web", group: "apps", kind: "deployments", causes: [{ message }] },
        code: 403,
      },
      auditAnnotations: { "replica-limit/replicas": "8" },
    });
  });

  it("admits with a Warn binding's warning", async () => {
    const r = await review(
      payload,
      request("CREATE", DEPLOYMENTS, { name: "web", namespace: "shop", object: deployment(3, "docker.io/nginx:1.27") }),
    );
    expect(r).toEqual({
      uid: "uid-web-create",
      allowed: true,
      warnings: [
        "Validation failed for ValidatingAdmissionPolicy 'trusted-registry' with binding 'trusted-registry-warn': images must come from registry.example.com",
      ],
      auditAnnotations: { "replica-limit/replicas": "3" },
    });
  });

  it("admits with an Audit binding's validation_failure annotation", async () => {
    const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: "sandbox" } };
    const r = await review(
      payload,
      request(
        "CREATE",
        { group: "", version: "v1", kind: "Namespace", resource: "namespaces" },
        { name: "sandbox", object: ns },
      ),
    );
    expect(r).toEqual({
      uid: "uid-sandbox-create",
      allowed: true,
      auditAnnotations: {
        "validation.policy.admission.k8s.io/validation_failure":
          '[{"message":"every namespace names its owner","policy":"namespace-owner","binding":"namespace-owner-audit","expressionIndex":0,"validationActions":["Audit"]}]',
      },
    });
  });

  it("judges a DELETE on the stored object (oldObject; object is null)", async () => {
    const stored = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "settings", namespace: "shop", labels: { protected: "true" } },
      data: { a: "1" },
    };
    const r = await review(
      payload,
      request(
        "DELETE",
        { group: "", version: "v1", kind: "ConfigMap", resource: "configmaps" },
        { name: "settings", namespace: "shop", oldObject: stored },
      ),
    );
    expect(r.allowed).toBe(false);
    expect(r.status).toMatchObject({
      message:
        "configmaps \"settings\" is forbidden: ValidatingAdmissionPolicy 'delete-protect' with binding 'delete-protect-b' denied request: protected ConfigMaps cannot be deleted",
      reason: "Invalid",
      code: 422,
    });
  });

  it("answers authorizer checks from the bundle's RBAC objects, for the scale subresource", async () => {
    const scale = (replicas: number) => ({
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      metadata: { name: "web", namespace: "shop" },
      spec: { replicas },
    });
    const target = {
      group: "apps",
      version: "v1",
      kind: "Scale",
      resource: "deployments",
      subResource: "scale",
    };
    const scaleRequest = (userInfo: unknown) => {
      const req = request("UPDATE", target, {
        name: "web",
        namespace: "shop",
        object: scale(4),
        oldObject: scale(2),
        userInfo,
      });
      // The kind of a scale request is autoscaling/v1 Scale, its resource the Deployment's.
      req.kind = { group: "autoscaling", version: "v1", kind: "Scale" };
      req.requestKind = req.kind;
      return req;
    };
    expect((await review(payload, scaleRequest(ALICE))).allowed).toBe(true);
    const denied = await review(payload, scaleRequest(BOB));
    expect(denied.status).toMatchObject({
      message:
        "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'scale-approvers' with binding 'scale-approvers-b' denied request: user bob may not scale deployments",
      code: 422,
    });
  });

  it("a namespace the bundle does not hold fails as kube-apiserver's namespace lookup does", async () => {
    const r = await review(
      payload,
      request("CREATE", DEPLOYMENTS, {
        name: "web",
        namespace: "nowhere",
        object: deployment(1, "registry.example.com/shop/web:1.0", "nowhere"),
      }),
    );
    expect(r).toEqual({
      uid: "uid-web-create",
      allowed: false,
      status: {
        metadata: {},
        status: "Failure",
        message: 'namespaces "nowhere" not found',
        reason: "NotFound",
        details: { name: "nowhere", kind: "namespaces" },
        code: 404,
      },
    });
  });

  it("judges a CONNECT (pods/exec) on its options object", async () => {
    const exec = (stdin: boolean, userInfo: unknown) => {
      const target = { group: "", version: "v1", kind: "PodExecOptions", resource: "pods", subResource: "exec" };
      const options = { apiVersion: "v1", kind: "PodExecOptions", stdin, stdout: true, command: ["sh"] };
      const req = request("CREATE", target, { name: "web-0", namespace: "shop", object: options, userInfo });
      // kube-apiserver sends a CONNECT's options as its object, and no operation options.
      req.operation = "CONNECT";
      req.options = undefined;
      req.uid = `uid-exec-${String(stdin)}`;
      return req;
    };
    expect(await review(payload, exec(false, BOB))).toEqual({ uid: "uid-exec-false", allowed: true });
    expect(await review(payload, exec(true, ALICE))).toEqual({ uid: "uid-exec-true", allowed: true });
    const message =
      "ValidatingAdmissionPolicy 'no-interactive-exec' with binding 'no-interactive-exec-b' denied request: interactive exec is for shop-leads only";
    expect(await review(payload, exec(true, BOB))).toEqual({
      uid: "uid-exec-true",
      allowed: false,
      status: {
        metadata: {},
        status: "Failure",
        message: `pods "web-0" is forbidden: ${message}`,
        reason: "Forbidden",
        details: { name: "web-0", kind: "pods", causes: [{ message }] },
        code: 403,
      },
    });
  });
});
