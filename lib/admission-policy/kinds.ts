/**
 * What the family tells the rest of tollgate about what it judges: the requests its policies match (for
 * `tollgate webhook-config`, as the policies' `matchConstraints.resourceRules` say), and which kinds are built-in
 * (a custom resource converts between versions by its apiVersion only).
 */
import { builtinResources } from "../policy/builtin-resources.js";
import type { AdmissionRule, GroupVersionKind } from "../policy/types.js";
import type { CompiledPolicy } from "./dispatch.js";

/** Built on first use, not at import (a process that never asks should not pay for the table). */
let builtinKinds: ReadonlySet<string> | undefined;

/** Whether a kind is one of Kubernetes' built-in kinds (not a custom resource). */
export function isBuiltinKind(k: GroupVersionKind): boolean {
  builtinKinds ??= new Set(builtinResources().map((r) => `${r.group}/${r.version}/${r.kind}`));
  return builtinKinds.has(`${k.group}/${k.version}/${k.kind}`);
}

function scopeOf(scope: string): AdmissionRule["scope"] {
  return scope === "Cluster" || scope === "Namespaced" ? scope : "*";
}

/**
 * The webhook rules of the policies' resource rules (resourceNames left out: a webhook rule has none), each once.
 * A policy without matchConstraints matches nothing (it is a configuration error when dispatched).
 */
export function admissionRulesOf(policies: readonly CompiledPolicy[]): AdmissionRule[] {
  const out = new Map<string, AdmissionRule>();
  for (const p of policies) {
    for (const r of p.doc.matchConstraints?.resourceRules ?? []) {
      const rule: AdmissionRule = {
        operations: [...r.operations],
        apiGroups: [...r.apiGroups],
        apiVersions: [...r.apiVersions],
        resources: [...r.resources],
        scope: scopeOf(r.scope),
      };
      const key = JSON.stringify(rule);
      if (!out.has(key)) out.set(key, rule);
    }
  }
  return [...out.values()];
}
