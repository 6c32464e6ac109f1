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
    const text =
      "ValidatingAdmissionPolicy 'cap' with binding 'cap-b' denied request: failed expression: object.spec.replicas <= 5";
    expect(v.status).toEqual({
      code: 403,
      reason: "Forbidden",
      message: `deployments.apps "web" is forbidden: ${text}`,
      details: { group: "apps", kind: "deployments", name: "web", causes: [{ message: text }] },
      family: "admission-policy",
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

  it("keeps the Namespaces, RBAC objects and params it consults out of the bundle's ignored documents", async () => {
    const role = (kind: string) => ({ apiVersion: "rbac.authorization.k8s.io/v1", kind, metadata: { name: "r" } });
    const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "limits", namespace: "shop" } };
    const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "shop" } };
    const state = [NAMESPACE, role("ClusterRole"), role("ClusterRoleBinding"), configMap, secret];
    const withParams = policy("cap", {
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      validations: [{ expression: "true" }],
    });
    const paramRef = { paramRef: { name: "limits", parameterNotFoundAction: "Deny" } };
    const ignored = (set: { notes: readonly { message: string }[] }) =>
      set.notes.map((n) => n.message).filter((m) => m.startsWith("not a policy document"));
    // Act
    const consulting = await loadBundle(files(withParams, binding("cap-b", "cap", paramRef), ...state));
    const unbound = await loadBundle(files(withParams, ...state));
    const custom = await loadBundle(files(withParams, binding("cap-b", "cap", paramRef), ...state), {
      authorizer: { authorize: () => ({ decision: "allow", reason: "" }) },
    });
    // Assess: no binding, no compiled policy: nothing is consulted; a caller's authorizer leaves RBAC unread.
    expect(ignored(consulting)).toEqual(['not a policy document (v1 Secret "s"): ignored']);
    expect(ignored(unbound)).toHaveLength(5);
    expect(ignored(custom)).toEqual([
      'not a policy document (rbac.authorization.k8s.io/v1 ClusterRole "r"): ignored',
      'not a policy document (rbac.authorization.k8s.io/v1 ClusterRoleBinding "r"): ignored',
      'not a policy document (v1 Secret "s"): ignored',
    ]);
  });

  it("a namespaced request whose Namespace is not known fails as the API server's lookup does", async () => {
    const set = await loadBundle(
      files(policy("cap", { validations: [{ expression: "true" }] }), binding("cap-b", "cap"), NAMESPACE),
    );
    const v = set.validate(deployment(1, "elsewhere"));
    expect(v.allowed).toBe(false);
    expect(v.status).toEqual({
      code: 404,
      reason: "NotFound",
      message: 'namespaces "elsewhere" not found',
      details: { name: "elsewhere", kind: "namespaces" },
      family: "admission-policy",
    });
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

describe("library calls on request data cost what the API server charges (by size, before they run)", () => {
  it("a list the call would make past the per-call limit is not made: the expression is cancelled", async () => {
    const expression = "lists.range(object.spec.replicas).size() >= 0";
    const set = await loadBundle(
      files(policy("range", { validations: [{ expression }] }), binding("range-b", "range"), NAMESPACE),
    );
    const denied = (n: number) => set.validate(deployment(n)).errors.map((e) => e.message);
    expect(set.validate(deployment(1000)).allowed).toBe(true);
    // past the per-call limit (1,000,000), within the budget (10,000,000)
    expect(denied(1_200_000)).toEqual([
      `ValidatingAdmissionPolicy 'range' with binding 'range-b' denied request: expression '${expression}' resulted in error: operation cancelled: actual cost limit exceeded`,
    ]);
    // the cancelled evaluation's cost (2,000,000,011 and more) is charged first: past the budget
    expect(denied(2_000_000_000)).toEqual([
      "ValidatingAdmissionPolicy 'range' with binding 'range-b' denied request: validation failed due to running out of cost budget, no further validation rules will be run",
    ]);
  });
});

describe("type checking against the bundle's CRD schemas (status.typeChecking)", () => {
  const widgetCrd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
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
                spec: { type: "object", properties: { replicas: { type: "integer" }, size: { type: "string" } } },
              },
            },
          },
        },
      ],
    },
  };
  const widgets = {
    matchConstraints: {
      resourceRules: [
        { apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["widgets"] },
      ],
    },
  };

  it("warns about a field the schema does not have, per kind, with cel-go's issue text", async () => {
    const set = await loadBundle(
      files(
        widgetCrd,
        policy("typo", {
          ...widgets,
          validations: [
            { expression: "object.spec.replica <= 5", messageExpression: "'size ' + object.spec.size" },
            { expression: "object.spec.replicas <= 5" },
          ],
        }),
        binding("typo-b", "typo"),
      ),
    );
    expect(set.failures.filter((f) => f.family === "admission-policy")).toEqual([
      {
        severity: "warning",
        family: "admission-policy",
        stage: "cel",
        file: "doc-1.json",
        document: 0,
        path: "spec.validations[0].expression",
        message:
          "type checking: example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'replica'\n | object.spec.replica <= 5\n | ...........^",
      },
    ]);
  });

  it("has nothing to say about kinds without a known schema (wildcards, built-in kinds)", async () => {
    const set = await loadBundle(
      files(policy("builtin", { validations: [{ expression: "object.spec.replica <= 5" }] }), binding("b", "builtin")),
    );
    expect(set.failures.filter((f) => f.family === "admission-policy")).toEqual([]);
  });
});

describe("Secrets", () => {
  it("findings never hold what a messageExpression computed from a Secret, and the answer masks its values", async () => {
    const set = await loadBundle(
      files(
        {
          apiVersion: AR,
          kind: "ValidatingAdmissionPolicy",
          metadata: { name: "no-default-password" },
          spec: {
            matchConstraints: {
              resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["secrets"] }],
            },
            validations: [
              {
                expression: "object.data.password != 'aHVudGVyMg=='",
                messageExpression: "'the password ' + string(object.data.password) + ' is a default one'",
                message: "the password is a default one",
              },
            ],
          },
        },
        binding("ndp-b", "no-default-password", { validationActions: ["Deny", "Audit"] }),
        NAMESPACE,
      ),
    );
    const v = set.validate({
      operation: "CREATE",
      object: {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "db", namespace: "shop" },
        data: { password: "aHVudGVyMg==" },
      },
    });
    // Every text of a verdict has the request's credential values masked (lib/field/redact.ts).
    expect(v.status?.message).toContain("the password <redacted> is a default one");
    const reported = [...v.errors, ...v.audits].map((e) => `${e.detail} | ${e.message}`);
    expect(reported).toEqual([
      "the password is a default one | ValidatingAdmissionPolicy 'no-default-password' with binding 'ndp-b' denied request: the password is a default one",
      "the password is a default one | Validation failed for ValidatingAdmissionPolicy 'no-default-password' with binding 'ndp-b': the password is a default one",
    ]);
  });
});

describe("CONNECT", () => {
  it("judges a connect request on its options object, with no operation options", async () => {
    const execPolicy = {
      apiVersion: AR,
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "no-exec-in-prod" },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CONNECT"], resources: ["pods/exec"] }],
        },
        validations: [
          {
            expression: "request.options == null && object.kind == 'PodExecOptions' && !object.stdin",
            message: "interactive exec is not allowed",
          },
        ],
      },
    };
    const set = await loadBundle(files(execPolicy, binding("b", "no-exec-in-prod"), NAMESPACE));
    const exec = (stdin: boolean): ValidateRequest => ({
      operation: "CONNECT",
      object: { apiVersion: "v1", kind: "PodExecOptions", stdin, command: ["sh"] },
      kind: { group: "", version: "v1", kind: "PodExecOptions" },
      resource: { group: "", version: "v1", resource: "pods" },
      subresource: "exec",
      namespace: "shop",
      name: "web-0",
      userInfo: { username: "alice" },
    });
    expect(set.validate(exec(false)).allowed).toBe(true);
    expect(set.validate(exec(true)).status?.message).toBe(
      "pods \"web-0\" is forbidden: ValidatingAdmissionPolicy 'no-exec-in-prod' with binding 'b' denied request: interactive exec is not allowed",
    );
  });
});
