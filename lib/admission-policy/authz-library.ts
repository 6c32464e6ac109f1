/**
 * Kubernetes' CEL authorizer library (k8s.io/apiserver pkg/cel/library/authz.go), the `authorizer` of admission
 * policies: `authorizer.group(g).resource(r)[.subresource(s)][.namespace(n)][.name(n)].check(verb)`,
 * `authorizer.path(p).check(verb)`, `authorizer.serviceAccount(ns, name)` (the same checks as that service
 * account), `authorizer.requestResource` (a check of the request's own resource), and on a decision `allowed()`,
 * `reason()`, `errored()`, `error()`. The questions go to the Authorizer the values carry (lib/policy/authorizer.ts);
 * an undecidable question is an evaluation error.
 */
import { type CelLibrary, celError, chargeRuntimeCost } from "../cel/index.js";
import { isDNS1123Label, isDNS1123Subdomain } from "../objects/names.js";
import { type AuthorizationAttributes, AuthorizationUndecidable, type Authorizer } from "../policy/authorizer.js";
import type { UserInfo } from "../policy/types.js";

const NS = "kubernetes.authorization";
export const AUTHORIZER_TYPE = `${NS}.Authorizer`;
const PATH_CHECK = `${NS}.PathCheck`;
const GROUP_CHECK = `${NS}.GroupCheck`;
export const RESOURCE_CHECK_TYPE = `${NS}.ResourceCheck`;
const DECISION = `${NS}.Decision`;

/** An `authorizer` value: the user the checks are made for, and who answers them. */
export class AuthorizerValue {
  constructor(
    readonly user: UserInfo,
    readonly authorizer: Authorizer,
    /** `authorizer.requestResource`: a check of the request's resource, subresource, namespace and name. */
    readonly requestResource: ResourceCheckValue | null = null,
  ) {}
}

class PathCheckValue {
  constructor(
    readonly authz: AuthorizerValue,
    readonly path: string,
  ) {}
}

class GroupCheckValue {
  constructor(
    readonly authz: AuthorizerValue,
    readonly group: string,
  ) {}
}

export class ResourceCheckValue {
  constructor(
    readonly authz: AuthorizerValue,
    readonly group: string,
    readonly resource: string,
    readonly subresource = "",
    readonly namespace = "",
    readonly name = "",
    readonly fieldSelector = "",
    readonly labelSelector = "",
  ) {}

  with(
    changes: Partial<
      Pick<ResourceCheckValue, "subresource" | "namespace" | "name" | "fieldSelector" | "labelSelector">
    >,
  ) {
    return new ResourceCheckValue(
      this.authz,
      this.group,
      this.resource,
      changes.subresource ?? this.subresource,
      changes.namespace ?? this.namespace,
      changes.name ?? this.name,
      changes.fieldSelector ?? this.fieldSelector,
      changes.labelSelector ?? this.labelSelector,
    );
  }
}

class DecisionValue {
  constructor(
    readonly decision: "allow" | "deny" | "noOpinion",
    readonly reason: string,
    readonly error: string | undefined,
  ) {}
}

/** A check of the request's own resource (library.NewResourceAuthorizerVal). */
export function requestResourceCheck(
  authz: AuthorizerValue,
  resource: { group: string; resource: string; subresource: string; namespace: string; name: string },
): ResourceCheckValue {
  return new ResourceCheckValue(
    authz,
    resource.group,
    resource.resource,
    resource.subresource,
    resource.namespace,
    resource.name,
  );
}

/**
 * An authorization check's runtime cost (apiserver pkg/cel/library/cost.go CallCost "check": set so that an
 * expression can make at most two checks), beyond the call's own 1.
 */
const CHECK_COST = 350_000;

function ask(authz: AuthorizerValue, attributes: AuthorizationAttributes): DecisionValue {
  chargeRuntimeCost(CHECK_COST - 1);
  try {
    const d = authz.authorizer.authorize(attributes);
    return new DecisionValue(d.decision, d.reason, d.error);
  } catch (e) {
    if (e instanceof AuthorizationUndecidable) throw celError(`authorization check failed: ${e.message}`);
    throw e;
  }
}

const NO_SELECTORS = { fieldSelector: "", labelSelector: "" };

function checkPath(p: PathCheckValue, verb: string): DecisionValue {
  return ask(p.authz, {
    user: p.authz.user,
    verb,
    resourceRequest: false,
    path: p.path,
    apiGroup: "",
    apiVersion: "",
    resource: "",
    subresource: "",
    namespace: "",
    name: "",
    ...NO_SELECTORS,
  });
}

function checkResource(r: ResourceCheckValue, verb: string): DecisionValue {
  return ask(r.authz, {
    user: r.authz.user,
    verb,
    resourceRequest: true,
    path: "",
    apiGroup: r.group,
    apiVersion: "*",
    resource: r.resource,
    subresource: r.subresource,
    namespace: r.namespace,
    name: r.name,
    fieldSelector: r.fieldSelector,
    labelSelector: r.labelSelector,
  });
}

/** serviceaccount.ServiceAccountInfo.UserInfo(). */
function serviceAccount(a: AuthorizerValue, namespace: string, name: string): AuthorizerValue {
  // apimachinery ValidateServiceAccountName (a DNS subdomain) and ValidateNamespaceName (a DNS label).
  if (isDNS1123Subdomain(name).length > 0) throw celError("Invalid service account name");
  if (isDNS1123Label(namespace).length > 0) throw celError("Invalid service account namespace");
  const user: UserInfo = {
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`],
  };
  return new AuthorizerValue(user, a.authorizer);
}

function register(env: Parameters<CelLibrary["register"]>[0]): void {
  env.registerType(RESOURCE_CHECK_TYPE, { ctor: ResourceCheckValue, fields: {} });
  env.registerType(AUTHORIZER_TYPE, { ctor: AuthorizerValue, fields: { requestResource: RESOURCE_CHECK_TYPE } });
  env.registerType(PATH_CHECK, { ctor: PathCheckValue, fields: {} });
  env.registerType(GROUP_CHECK, { ctor: GroupCheckValue, fields: {} });
  env.registerType(DECISION, { ctor: DecisionValue, fields: {} });
  env.registerFunction(`${AUTHORIZER_TYPE}.path(string): ${PATH_CHECK}`, (a: AuthorizerValue, path: string) => {
    if (path.trim() === "") throw celError("path must not be empty");
    return new PathCheckValue(a, path);
  });
  env.registerFunction(
    `${AUTHORIZER_TYPE}.group(string): ${GROUP_CHECK}`,
    (a: AuthorizerValue, group: string) => new GroupCheckValue(a, group),
  );
  env.registerFunction(`${AUTHORIZER_TYPE}.serviceAccount(string, string): ${AUTHORIZER_TYPE}`, serviceAccount);
  env.registerFunction(`${GROUP_CHECK}.resource(string): ${RESOURCE_CHECK_TYPE}`, (g: GroupCheckValue, r: string) => {
    if (r.trim() === "") throw celError("resource must not be empty");
    return new ResourceCheckValue(g.authz, g.group, r);
  });
  for (const field of ["subresource", "namespace", "name", "fieldSelector", "labelSelector"] as const) {
    env.registerFunction(
      `${RESOURCE_CHECK_TYPE}.${field}(string): ${RESOURCE_CHECK_TYPE}`,
      (r: ResourceCheckValue, v: string) => r.with({ [field]: v }),
    );
  }
  env.registerFunction(`${PATH_CHECK}.check(string): ${DECISION}`, checkPath);
  env.registerFunction(`${RESOURCE_CHECK_TYPE}.check(string): ${DECISION}`, checkResource);
  env.registerFunction(`${DECISION}.allowed(): bool`, (d: DecisionValue) => d.decision === "allow");
  env.registerFunction(`${DECISION}.reason(): string`, (d: DecisionValue) => d.reason);
  env.registerFunction(`${DECISION}.errored(): bool`, (d: DecisionValue) => d.error !== undefined);
  env.registerFunction(`${DECISION}.error(): string`, (d: DecisionValue) => d.error ?? "");
}

/** The library (admission policies have no static cost limit, so no static cost estimates are given). */
export const AUTHZ_LIBRARY: CelLibrary = {
  name: "authz",
  register,
};
