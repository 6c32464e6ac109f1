/**
 * The CEL environments of admission policies (k8s.io/apiserver pkg/admission/plugin/cel compile.go and
 * composition.go): Kubernetes' base environment plus the authorizer library, with `object`, `oldObject` (dyn),
 * `request` (kubernetes.AdmissionRequest, exactly the fields upstream declares: no `uid`), `namespaceObject`
 * (kubernetes.Namespace, as upstream types it), `params` (dyn, only when the policy has a paramKind), `authorizer`
 * (with `authorizer.requestResource`; not in messageExpressions), and `variables` (kubernetes.variables, whose fields
 * are the policy's variables typed by their expressions).
 */
import {
  type CelEnvironment,
  type CelLibrary,
  type CelObjectType,
  createCelEnvironment,
  KUBERNETES_LIBRARIES,
  splitTopLevel,
} from "../cel/index.js";
import { AUTHORIZER_TYPE, AUTHZ_LIBRARY } from "./authz-library.js";

const GVK = "kubernetes.GroupVersionKind";
const GVR = "kubernetes.GroupVersionResource";
const USER_INFO = "kubernetes.UserInfo";
const REQUEST = "kubernetes.AdmissionRequest";
const NAMESPACE = "kubernetes.Namespace";
export const VARIABLES_TYPE = "kubernetes.variables";

/** compile.go BuildRequestType and BuildNamespaceType. */
const OBJECT_TYPES: readonly CelObjectType[] = [
  { name: GVK, fields: { group: "string", version: "string", kind: "string" } },
  { name: GVR, fields: { group: "string", version: "string", resource: "string" } },
  {
    name: USER_INFO,
    fields: { username: "string", uid: "string", groups: "list<string>", extra: "map<string, list<string>>" },
  },
  {
    name: REQUEST,
    fields: {
      kind: GVK,
      resource: GVR,
      subResource: "string",
      requestKind: GVK,
      requestResource: GVR,
      requestSubResource: "string",
      name: "string",
      namespace: "string",
      operation: "string",
      userInfo: USER_INFO,
      dryRun: "bool",
      options: "dyn",
    },
  },
  { name: "kubernetes.NamespaceSpec", fields: { finalizers: "list<string>" } },
  {
    name: "kubernetes.NamespaceCondition",
    fields: {
      status: "string",
      type: "string",
      lastTransitionTime: "google.protobuf.Timestamp",
      message: "string",
      reason: "string",
    },
  },
  {
    name: "kubernetes.NamespaceStatus",
    fields: { conditions: "list<kubernetes.NamespaceCondition>", phase: "string" },
  },
  {
    name: "kubernetes.NamespaceMetadata",
    fields: {
      name: "string",
      generateName: "string",
      namespace: "string",
      labels: "map<string, string>",
      annotations: "map<string, string>",
      UID: "string",
      creationTimestamp: "google.protobuf.Timestamp",
      deletionGracePeriodSeconds: "int",
      deletionTimestamp: "google.protobuf.Timestamp",
      generation: "int",
      resourceVersion: "string",
      finalizers: "list<string>",
    },
  },
  {
    name: NAMESPACE,
    fields: {
      metadata: "kubernetes.NamespaceMetadata",
      spec: "kubernetes.NamespaceSpec",
      status: "kubernetes.NamespaceStatus",
    },
  },
];

/**
 * The admission request and Namespace types, and their comparison with null (cel-go compares a value of an object
 * type with null; namespaceObject is null for cluster-scoped requests).
 */
const ADMISSION_TYPES: CelLibrary = {
  name: "admission-types",
  register(env) {
    for (const t of OBJECT_TYPES) env.registerType({ name: t.name, fields: { ...t.fields } });
    env.registerOperator(`${NAMESPACE} == null`, (a: unknown) => a === null);
  },
};

const LIBRARIES = Object.freeze([...KUBERNETES_LIBRARIES, AUTHZ_LIBRARY, ADMISSION_TYPES]);

/** Which optional variables an expression has (cel.OptionalVariableDeclarations). */
export interface OptionalDeclarations {
  params: boolean;
  authorizer: boolean;
}

const bases = new Map<string, CelEnvironment>();

/**
 * Types of `object`/`oldObject` and `params` other than dyn (the type check against a kind's schema, as
 * kube-controller-manager's status.typeChecking does), with the object types they are built from.
 */
export interface TypedDeclarations {
  object?: string;
  params?: string;
  objectTypes: readonly CelObjectType[];
}

function variablesOf(decl: OptionalDeclarations, typed: TypedDeclarations | undefined): Record<string, string> {
  const object = typed?.object ?? "dyn";
  const variables: Record<string, string> = {
    object,
    oldObject: object,
    namespaceObject: NAMESPACE,
    request: REQUEST,
  };
  if (decl.params) variables.params = typed?.params ?? "dyn";
  if (decl.authorizer) variables.authorizer = AUTHORIZER_TYPE;
  return variables;
}

/** The environment without `variables` (shared by every policy with the same declarations, when untyped). */
function baseEnvironment(decl: OptionalDeclarations, typed: TypedDeclarations | undefined): CelEnvironment {
  if (typed !== undefined) {
    return createCelEnvironment({
      libraries: LIBRARIES,
      objectTypes: typed.objectTypes,
      variables: variablesOf(decl, typed),
    });
  }
  const key = `${decl.params}/${decl.authorizer}`;
  let env = bases.get(key);
  if (env === undefined) {
    env = createCelEnvironment({ libraries: LIBRARIES, variables: variablesOf(decl, undefined) });
    bases.set(key, env);
  }
  return env;
}

/**
 * The environment of a policy's expressions: the base one plus `variables`, a value of `valueClass` whose fields are
 * the given variables with their types.
 */
export function policyEnvironment(
  decl: OptionalDeclarations,
  variableTypes: Readonly<Record<string, string>>,
  valueClass: abstract new (...args: never[]) => object,
  typed?: TypedDeclarations,
): CelEnvironment {
  return baseEnvironment(decl, typed).extend({
    objectTypes: [{ name: VARIABLES_TYPE, fields: { ...variableTypes }, valueClass }],
    variables: { variables: VARIABLES_TYPE },
  });
}

const KEPT_TYPES = new Set([
  "any",
  "bool",
  "bytes",
  "double",
  "google.protobuf.Duration",
  "int",
  "null",
  "string",
  "google.protobuf.Timestamp",
  "uint",
]);

/**
 * The type a variable's field gets from its expression's output type (composition.go convertCelTypeToDeclType):
 * primitives, timestamps and durations are kept, lists and maps keep their element types converted, everything
 * else (object types, optionals, type) becomes dyn.
 */
export function variableFieldType(outputType: string | undefined): string {
  if (outputType === undefined) return "dyn";
  if (KEPT_TYPES.has(outputType)) return outputType;
  if (outputType === "list") return "list<dyn>";
  if (outputType === "map") return "map<dyn, dyn>";
  const list = /^list<(.*)>$/.exec(outputType);
  if (list !== null) return `list<${variableFieldType(list[1])}>`;
  const map = /^map<(.*)>$/.exec(outputType);
  if (map !== null) {
    const parts = splitTopLevel(map[1]!);
    if (parts.length === 2) return `map<${variableFieldType(parts[0])}, ${variableFieldType(parts[1])}>`;
  }
  return "dyn";
}
