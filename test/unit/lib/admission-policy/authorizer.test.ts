import { describe, expect, it } from "vitest";
import { createRbacAuthorizer } from "../../../../lib/admission-policy/authorizer.js";
import { type AuthorizationAttributes, AuthorizationUndecidable } from "../../../../lib/policy/authorizer.js";
import { createClusterState } from "../../../../lib/policy/cluster-state.js";

const RBAC = "rbac.authorization.k8s.io/v1";

const state = createClusterState([
  {
    apiVersion: RBAC,
    kind: "ClusterRole",
    metadata: { name: "widget-approver" },
    rules: [{ apiGroups: ["example.com"], resources: ["widgets"], verbs: ["approve"] }],
  },
  {
    apiVersion: RBAC,
    kind: "ClusterRoleBinding",
    metadata: { name: "approvers" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "widget-approver" },
    subjects: [{ kind: "Group", name: "approvers" }],
  },
  {
    apiVersion: RBAC,
    kind: "Role",
    metadata: { name: "scaler", namespace: "team-a" },
    rules: [
      { apiGroups: ["apps"], resources: ["deployments/scale"], verbs: ["update"] },
      { apiGroups: [""], resources: ["configmaps"], resourceNames: ["settings"], verbs: ["get"] },
    ],
  },
  {
    apiVersion: RBAC,
    kind: "RoleBinding",
    metadata: { name: "ci-scaler", namespace: "team-a" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "scaler" },
    subjects: [{ kind: "ServiceAccount", name: "ci" }],
  },
  {
    apiVersion: RBAC,
    kind: "RoleBinding",
    metadata: { name: "dangling", namespace: "team-a" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "missing" },
    subjects: [{ kind: "User", name: "bob" }],
  },
  {
    apiVersion: RBAC,
    kind: "ClusterRole",
    metadata: { name: "healthz" },
    rules: [{ nonResourceURLs: ["/healthz", "/metrics/*"], verbs: ["get"] }],
  },
  {
    apiVersion: RBAC,
    kind: "ClusterRoleBinding",
    metadata: { name: "healthz" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "healthz" },
    subjects: [{ kind: "User", name: "alice" }],
  },
]);
const rbac = createRbacAuthorizer(state);

function ask(overrides: Partial<AuthorizationAttributes>): AuthorizationAttributes {
  return {
    user: { username: "alice", groups: [] },
    verb: "get",
    resourceRequest: true,
    path: "",
    apiGroup: "",
    apiVersion: "*",
    resource: "",
    subresource: "",
    namespace: "",
    name: "",
    fieldSelector: "",
    labelSelector: "",
    ...overrides,
  };
}

describe("the offline RBAC authorizer", () => {
  it("allows through a ClusterRoleBinding to a group, naming the binding", () => {
    const d = rbac.authorize(
      ask({
        user: { username: "carol", groups: ["approvers"] },
        verb: "approve",
        apiGroup: "example.com",
        resource: "widgets",
      }),
    );
    expect(d).toEqual({
      decision: "allow",
      reason: 'RBAC: allowed by ClusterRoleBinding "approvers" of ClusterRole "widget-approver" to Group "approvers"',
    });
  });

  it.each([
    { name: "another verb", a: { verb: "delete", apiGroup: "example.com", resource: "widgets" } },
    { name: "another group", a: { verb: "approve", apiGroup: "other.com", resource: "widgets" } },
  ])("has no opinion otherwise ($name)", ({ a }) => {
    expect(rbac.authorize(ask({ user: { username: "carol", groups: ["approvers"] }, ...a }))).toEqual({
      decision: "noOpinion",
      reason: "",
    });
  });

  it("a RoleBinding to a service account applies in its namespace, to subresources and names", () => {
    const sa = { username: "system:serviceaccount:team-a:ci", groups: [] };
    const scale = ask({ user: sa, verb: "update", apiGroup: "apps", resource: "deployments", subresource: "scale" });
    expect(rbac.authorize({ ...scale, namespace: "team-a" }).decision).toBe("allow");
    expect(rbac.authorize({ ...scale, namespace: "team-a" }).reason).toBe(
      'RBAC: allowed by RoleBinding "ci-scaler/team-a" of Role "scaler" to ServiceAccount "ci/team-a"',
    );
    expect(rbac.authorize({ ...scale, namespace: "team-b" }).decision).toBe("noOpinion");
    expect(rbac.authorize({ ...scale, namespace: "team-a", subresource: "" }).decision).toBe("noOpinion");
    const get = ask({ user: sa, resource: "configmaps", namespace: "team-a" });
    expect(rbac.authorize({ ...get, name: "settings" }).decision).toBe("allow");
    expect(rbac.authorize({ ...get, name: "other" }).decision).toBe("noOpinion");
  });

  it("a binding to a missing role is the reason of no opinion", () => {
    expect(rbac.authorize(ask({ user: { username: "bob" }, namespace: "team-a", resource: "pods" }))).toEqual({
      decision: "noOpinion",
      reason: 'RBAC: role.rbac.authorization.k8s.io "missing" not found',
    });
  });

  it("non-resource URLs, with a trailing * as a prefix", () => {
    const path = (p: string) => rbac.authorize(ask({ resourceRequest: false, path: p })).decision;
    expect(path("/healthz")).toBe("allow");
    expect(path("/metrics/cadvisor")).toBe("allow");
    expect(path("/readyz")).toBe("noOpinion");
  });

  it("without any RBAC object, nothing can be decided", () => {
    const none = createRbacAuthorizer(createClusterState([]));
    expect(() => none.authorize(ask({ resource: "pods" }))).toThrow(AuthorizationUndecidable);
  });
});
