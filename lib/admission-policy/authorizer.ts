/**
 * The default authorizer of the admission-policy family: an offline RBAC authorizer over the cluster state's Roles,
 * ClusterRoles and their bindings (kubernetes plugin/pkg/auth/authorizer/rbac). BundleOptions.authorizer replaces
 * it (lib/policy/authorizer.ts has the interface).
 */
import {
  type AuthorizationAttributes,
  type AuthorizationDecision,
  AuthorizationUndecidable,
  type Authorizer,
} from "../policy/authorizer.js";
import type { ClusterState } from "../policy/cluster-state.js";
import type { UserInfo } from "../policy/types.js";

const RBAC_GROUP = "rbac.authorization.k8s.io";
const RBAC_KINDS: ReadonlySet<string> = new Set(["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"]);

/** Whether an object is one the RBAC authorizer reads (a Role, ClusterRole or one of their bindings). */
export function isRbacObject(obj: Record<string, unknown>): boolean {
  return (
    typeof obj.apiVersion === "string" &&
    obj.apiVersion.startsWith(`${RBAC_GROUP}/`) &&
    RBAC_KINDS.has(String(obj.kind))
  );
}

interface Subject {
  kind: string;
  name: string;
  namespace: string;
}

interface PolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
  nonResourceURLs: string[];
}

function rec(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function strs(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function rulesOf(role: Record<string, unknown>): PolicyRule[] {
  const rules = rec(role).rules;
  if (!Array.isArray(rules)) return [];
  return rules.map((r) => {
    const o = rec(r);
    return {
      verbs: strs(o.verbs),
      apiGroups: strs(o.apiGroups),
      resources: strs(o.resources),
      resourceNames: strs(o.resourceNames),
      nonResourceURLs: strs(o.nonResourceURLs),
    };
  });
}

function subjectsOf(binding: Record<string, unknown>): Subject[] {
  const subjects = binding.subjects;
  if (!Array.isArray(subjects)) return [];
  return subjects.map((s) => {
    const o = rec(s);
    return { kind: str(o.kind), name: str(o.name), namespace: str(o.namespace) };
  });
}

/** k8s.io/apiserver serviceaccount.MakeUsername. */
function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** rbac/validation appliesToUser: the subject that makes a binding apply to the user, if any. */
function appliesTo(user: UserInfo, subjects: Subject[], bindingNamespace: string): Subject | undefined {
  for (const s of subjects) {
    switch (s.kind) {
      case "User":
        if (user.username === s.name) return s;
        break;
      case "Group":
        if ((user.groups ?? []).includes(s.name)) return s;
        break;
      case "ServiceAccount": {
        const ns = s.namespace !== "" ? s.namespace : bindingNamespace;
        if (ns !== "" && serviceAccountUsername(ns, s.name) === user.username) return s;
        break;
      }
    }
  }
  return undefined;
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === "ServiceAccount") {
    return `${s.kind} "${s.name}/${s.namespace !== "" ? s.namespace : bindingNamespace}"`;
  }
  return `${s.kind} "${s.name}"`;
}

/** rbac.VerbMatches, APIGroupMatches, ResourceMatches, ResourceNameMatches, NonResourceURLMatches. */
export function ruleAllows(a: AuthorizationAttributes, rule: PolicyRule): boolean {
  const verb = rule.verbs.includes("*") || rule.verbs.includes(a.verb);
  if (!a.resourceRequest) {
    return (
      verb &&
      rule.nonResourceURLs.some(
        (u) => u === "*" || u === a.path || (u.endsWith("*") && a.path.startsWith(u.slice(0, -1))),
      )
    );
  }
  const combined = a.subresource === "" ? a.resource : `${a.resource}/${a.subresource}`;
  const resource = rule.resources.some(
    (r) =>
      r === "*" ||
      r === combined ||
      (a.subresource !== "" && r.length === a.subresource.length + 2 && r === `*/${a.subresource}`),
  );
  const group = rule.apiGroups.includes("*") || rule.apiGroups.includes(a.apiGroup);
  const name = rule.resourceNames.length === 0 || rule.resourceNames.includes(a.name);
  return verb && group && resource && name;
}

/**
 * The RBAC authorizer over the cluster state (kubernetes plugin/pkg/auth/authorizer/rbac): ClusterRoleBindings
 * first, then the RoleBindings of the request's namespace; the first rule that allows decides, with the binding it
 * came from as the reason. Otherwise no opinion, with the references that could not be resolved as the reason.
 * RBAC never denies. Without any RBAC object in the state, every question is undecidable.
 */
export function createRbacAuthorizer(cluster: ClusterState): Authorizer {
  const clusterRoles = new Map<string, Record<string, unknown>>();
  for (const r of cluster.objectsOf(RBAC_GROUP, "ClusterRole")) clusterRoles.set(str(rec(r.metadata).name), r);
  const roles = new Map<string, Record<string, unknown>>();
  for (const r of cluster.objectsOf(RBAC_GROUP, "Role")) {
    const m = rec(r.metadata);
    roles.set(`${str(m.namespace)}/${str(m.name)}`, r);
  }
  const clusterRoleBindings = cluster.objectsOf(RBAC_GROUP, "ClusterRoleBinding");
  const roleBindings = cluster.objectsOf(RBAC_GROUP, "RoleBinding");
  const known = clusterRoles.size + roles.size + clusterRoleBindings.length + roleBindings.length > 0;

  /** The rules of a binding's roleRef, or the error of resolving it. */
  function roleRules(ref: Record<string, unknown>, namespace: string): PolicyRule[] | string {
    const kind = str(ref.kind);
    const name = str(ref.name);
    if (kind === "ClusterRole") {
      const role = clusterRoles.get(name);
      return role === undefined ? `clusterrole.rbac.authorization.k8s.io "${name}" not found` : rulesOf(role);
    }
    if (kind === "Role" && namespace !== "") {
      const role = roles.get(`${namespace}/${name}`);
      return role === undefined ? `role.rbac.authorization.k8s.io "${name}" not found` : rulesOf(role);
    }
    return `unsupported role reference kind: "${kind}"`;
  }

  return {
    authorize(a: AuthorizationAttributes): AuthorizationDecision {
      if (!known) {
        throw new AuthorizationUndecidable(
          "no RBAC objects (Roles, ClusterRoles and their bindings) are known to decide authorization checks",
        );
      }
      const errors: string[] = [];
      const visit = (binding: Record<string, unknown>, kind: string, bindingNamespace: string): string | undefined => {
        const subject = appliesTo(a.user, subjectsOf(binding), bindingNamespace);
        if (subject === undefined) return undefined;
        const ref = rec(binding.roleRef);
        const rules = roleRules(ref, bindingNamespace);
        if (typeof rules === "string") {
          errors.push(rules);
          return undefined;
        }
        if (!rules.some((r) => ruleAllows(a, r))) return undefined;
        const name = str(rec(binding.metadata).name);
        const bindingName = kind === "RoleBinding" ? `${name}/${bindingNamespace}` : name;
        return `RBAC: allowed by ${kind} "${bindingName}" of ${str(ref.kind)} "${str(ref.name)}" to ${describeSubject(subject, bindingNamespace)}`;
      };
      for (const b of clusterRoleBindings) {
        const reason = visit(b, "ClusterRoleBinding", "");
        if (reason !== undefined) return { decision: "allow", reason };
      }
      if (a.namespace !== "") {
        for (const b of roleBindings) {
          if (str(rec(b.metadata).namespace) !== a.namespace) continue;
          const reason = visit(b, "RoleBinding", a.namespace);
          if (reason !== undefined) return { decision: "allow", reason };
        }
      }
      const reason = errors.length === 0 ? "" : `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`}`;
      return { decision: "noOpinion", reason };
    },
  };
}
