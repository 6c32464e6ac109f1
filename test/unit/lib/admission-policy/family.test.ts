import { describe, expect, it } from "vitest";
import { type BundleFile, loadBundle, type ValidateRequest } from "../../../../lib/index.js";

const AR = "admissionregistration.k8s.io/v1";

function policy(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: AR,
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"] },
        ],
      },
      ...spec,
    },
  };
}

function binding(name: string, policyName: string, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: AR,
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name },
    spec: { policyName, validationActions: ["Deny"], ...spec },
  };
}

const NAMESPACE = {
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name: "shop", labels: { "kubernetes.io/metadata.name": "shop" } },
};

function files(...docs: Record<string, unknown>[]): BundleFile[] {
  return docs.map((d, i) => ({ path: `doc-${i}.json`, content: JSON.stringify(d) }));
}

function deployment(replicas: number, namespace = "shop"): ValidateRequest {
  return {
    operation: "CREATE",
    object: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace }, spec: { replicas } },
    userInfo: { username: "alice", groups: ["dev"] },
  };
}

describe("the admission-policy family", () => {
  it("derives the resource from the object's kind, and answers with the API server's Status", async () => {
    const set = await loadBundle(
      files(
        policy("cap", { validations: [{ expression: "object.spec.replicas <= 5", reason: "Forbidden" }] }),
        binding("cap-b", "cap"),
        NAMESPACE,
      ),
    );
    expect(set.validate(deployment(3)).allowed).toBe(true);
    const v = set.validate(deployment(7));
    expect(v.allowed).toBe(false);
    expect(v.status).toMatchObject({
      code: 403,
      reason: "Forbidden",
      message:
        "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'cap' with binding 'cap-b' denied request: failed expression: object.spec.replicas <= 5",
    });
    expect(v.errors).toHaveLength(1);
    expect(v.errors[0]?.source).toEqual({
      kind: "admission-policy",
      policy: "cap",
      binding: "cap-b",
      index: 0,
      rule: "object.spec.replicas <= 5",
    });
  });

  it("a namespaced request whose Namespace is not known fails as the API server's lookup does", async () => {
    const set = await loadBundle(
      files(policy("cap", { validations: [{ expression: "true" }] }), binding("cap-b", "cap"), NAMESPACE),
    );
    const v = set.validate(deployment(1, "elsewhere"));
    expect(v.allowed).toBe(false);
    expect(v.status).toMatchObject({ code: 404, reason: "NotFound", message: 'namespaces "elsewhere" not found' });
  });

  it("an authorizer check without any RBAC object is an evaluation error under failurePolicy, never a pass", async () => {
    const check = "authorizer.group('apps').resource('deployments').check('scale').allowed()";
    const fail = await loadBundle(
      files(policy("authz", { validations: [{ expression: check }] }), binding("authz-b", "authz"), NAMESPACE),
    );
    expect(fail.validate(deployment(1)).status?.message).toBe(
      `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'authz' with binding 'authz-b' denied request: expression '${check}' resulted in error: authorization check failed: no RBAC objects (Roles, ClusterRoles and their bindings) are known to decide authorization checks`,
    );
    const ignore = await loadBundle(
      files(
        policy("authz", { failurePolicy: "Ignore", validations: [{ expression: check }] }),
        binding("authz-b", "authz"),
        NAMESPACE,
      ),
    );
    expect(ignore.validate(deployment(1)).allowed).toBe(true);
  });

  it("answers authorizer checks from the bundle's RBAC objects by default", async () => {
    const rbac = [
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "scaler" },
        rules: [{ apiGroups: ["apps"], resources: ["deployments"], verbs: ["scale"] }],
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "devs-scale", namespace: "shop" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "scaler" },
        subjects: [{ kind: "Group", name: "dev" }],
      },
    ];
    const check =
      "authorizer.group('apps').resource('deployments').namespace(request.namespace).check('scale').allowed()";
    const set = await loadBundle(
      files(policy("authz", { validations: [{ expression: check }] }), binding("authz-b", "authz"), NAMESPACE, ...rbac),
    );
    expect(set.validate(deployment(1)).allowed).toBe(true);
    const bob = { ...deployment(1), userInfo: { username: "bob" } };
    expect(set.validate(bob).allowed).toBe(false);
  });

  it("reports compile errors at load with the API server's field path and text", async () => {
    const set = await loadBundle(
      files(policy("bad", { validations: [{ expression: "object.spec.replicas" }] }), binding("bad-b", "bad")),
    );
    expect(set.failures.filter((f) => f.family === "admission-policy")).toMatchObject([
      {
        severity: "error",
        stage: "cel",
        path: "spec.validations[0].expression",
        message: 'Invalid value: "object.spec.replicas": must evaluate to bool but got dyn',
      },
    ]);
  });

  it("warns about a binding that names no known policy", async () => {
    const set = await loadBundle(files(binding("lonely", "nowhere")));
    expect(set.failures.map((f) => f.message)).toContain(
      'binding "lonely" names no known ValidatingAdmissionPolicy ("nowhere"): it is ignored',
    );
  });

  it("never judges the admission configuration resources themselves", async () => {
    const all = policy("all", {
      matchConstraints: {
        resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] }],
      },
      validations: [{ expression: "false" }],
    });
    const set = await loadBundle(files(all, binding("all-b", "all")));
    const v = set.validate({ operation: "CREATE", object: all });
    expect(v.allowed).toBe(true);
    expect(v.covered).toBe(false);
  });
});

describe("authorization checks cost what the API server charges", () => {
  it("two checks fit an expression's cost limit, three do not", async () => {
    const authz = {
      authorize: () => ({ decision: "allow" as const, reason: "" }),
    };
    const check = (verb: string) => `authorizer.group('apps').resource('deployments').check('${verb}').allowed()`;
    const two = `${check("a")} && ${check("b")}`;
    const three = `${two} && ${check("c")}`;
    const set = await loadBundle(
      files(
        policy("two", { validations: [{ expression: two }] }),
        binding("two-b", "two"),
        policy("three", { validations: [{ expression: three }] }),
        binding("three-b", "three"),
        NAMESPACE,
      ),
      { authorizer: authz },
    );
    const v = set.validate(deployment(1));
    expect(v.errors.map((e) => e.message)).toEqual([
      `ValidatingAdmissionPolicy 'three' with binding 'three-b' denied request: expression '${three}' resulted in error: operation cancelled: actual cost limit exceeded`,
    ]);
  });
});
