/**
 * Type checking of a policy's expressions against the schemas of the kinds it matches, as kube-controller-manager
 * reports it in the policy's `status.typeChecking` (k8s.io/apiserver pkg/admission/plugin/policy/validating
 * typechecking.go): the kinds of `matchConstraints.resourceRules` without wildcards (at most 10), each with a schema
 * tollgate knows (the bundle's CRDs; built-in kinds' OpenAPI schemas are not in the bundle), `object`/`oldObject`
 * (and `params` when its kind has a schema) typed by it; each validation's expression and messageExpression compiled
 * there. The problems are warnings: the API server admits such a policy.
 */
import { CelTypeRegistry } from "../cel/schema-types.js";
import type { ResourceCatalogue } from "../policy/resources.js";
import type { GroupVersionKind } from "../policy/types.js";
import type { SchemaNode } from "../schema/structural.js";
import { compileAdmissionExpression, compileVariables } from "./compile.js";
import type { NamedRule, PolicyDocument } from "./documents.js";
import type { TypedDeclarations } from "./environment.js";

const MAX_TYPES_TO_CHECK = 10;

export type SchemaLookup = (group: string, version: string, kind: string) => SchemaNode | undefined;

/** One `status.typeChecking.expressionWarnings` entry. */
export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

function compareKinds(a: GroupVersionKind, b: GroupVersionKind): number {
  const c = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return c(a.group, b.group) || c(a.version, b.version) || c(a.kind, b.kind);
}

function noWildcard(items: readonly string[]): string[] | undefined {
  return items.some((i) => i.includes("*")) ? undefined : [...items];
}

/** typechecking.go typesToCheck: the kinds of the rules' group × version × resource, sorted, at most 10. */
function kindsToCheck(rules: readonly NamedRule[], resources: ResourceCatalogue): GroupVersionKind[] {
  const seen = new Map<string, GroupVersionKind>();
  let count = 0;
  for (const rule of rules) {
    const groups = noWildcard(rule.apiGroups)?.sort();
    const versions = noWildcard(rule.apiVersions)?.sort();
    const plurals = rule.resources.filter((r) => !/[*/]/.test(r)).sort();
    if (groups === undefined || versions === undefined || groups.length === 0 || versions.length === 0) continue;
    for (const group of groups) {
      for (const version of versions) {
        for (const resource of plurals) {
          const kind = resources.kindFor({ group, version, resource });
          if (kind === undefined) continue;
          seen.set(`${kind.group}/${kind.version}/${kind.kind}`, kind);
          if (++count === MAX_TYPES_TO_CHECK) return [...seen.values()].sort(compareKinds);
        }
      }
    }
  }
  return [...seen.values()].sort(compareKinds);
}

/** schema.GroupVersionKind's %v. */
function kindText(k: GroupVersionKind): string {
  return `${k.group}/${k.version}, Kind=${k.kind}`;
}

let registries = 0;

/** The typed declarations of one kind's schema, and of the params' kind when it has one. */
function typedDeclarations(schema: SchemaNode, params: SchemaNode | undefined): TypedDeclarations | undefined {
  const registry = new CelTypeRegistry(`k8s.tc${registries++}.`);
  const object = registry.typeOf(schema, true);
  if (object === null) return undefined;
  const paramsType = params === undefined ? null : registry.typeOf(params, true);
  const typed: TypedDeclarations = { object: object.name, objectTypes: registry.objectTypes };
  if (paramsType !== null) typed.params = paramsType.name;
  return typed;
}

/** The expression warnings of a policy (none when no matched kind has a known schema). */
export function typeCheckPolicy(
  doc: PolicyDocument,
  resources: ResourceCatalogue,
  schemaOf: SchemaLookup,
): ExpressionWarning[] {
  const kinds = kindsToCheck(doc.matchConstraints?.resourceRules ?? [], resources).flatMap((k) => {
    const schema = schemaOf(k.group, k.version, k.kind);
    return schema === undefined ? [] : [{ kind: k, schema }];
  });
  if (kinds.length === 0) return [];
  const pk = doc.paramKind;
  const slash = pk?.apiVersion.indexOf("/") ?? -1;
  const paramsSchema =
    pk === undefined
      ? undefined
      : schemaOf(slash === -1 ? "" : pk.apiVersion.slice(0, slash), pk.apiVersion.slice(slash + 1), pk.kind);
  const envs = kinds.flatMap(({ kind, schema }) => {
    const typed = typedDeclarations(schema, paramsSchema);
    return typed === undefined ? [] : [{ kind, env: compileVariables(doc, typed).env }];
  });
  const warnings: ExpressionWarning[] = [];
  const check = (fieldRef: string, expression: string) => {
    const results: string[] = [];
    for (const { kind, env } of envs) {
      const r = compileAdmissionExpression(env, expression, "any");
      if (r.kind === "failed") results.push(`${kindText(kind)}: ${r.error.replace(/^compilation failed: /, "")}\n`);
    }
    if (results.length > 0) warnings.push({ fieldRef, warning: results.join("\n") });
  };
  doc.validations.forEach((v, i) => {
    check(`spec.validations[${i}].expression`, v.expression);
    if (v.messageExpression !== "") check(`spec.validations[${i}].messageExpression`, v.messageExpression);
  });
  return warnings;
}
