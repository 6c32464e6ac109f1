/**
 * `tollgate webhook-config --bundle <bundle> --url <url>`: the ValidatingWebhookConfiguration
 * (admissionregistration.k8s.io/v1) that sends the API server's admission requests for exactly the kinds the bundle
 * covers, and the requests its ValidatingAdmissionPolicies match, to the tollgate webhook, printed as YAML (or JSON)
 * for `kubectl apply -f -`.
 */
import { stringify } from "yaml";
import { type CoveredKind, EVERY_KIND, loadBundle, type PolicySet } from "#lib";
import { requireLocation } from "../../sources/index.js";
import type { ResolvedWebhookConfigConfig } from "../bundle-args.js";
import type { CommandIo, CommandOutcome } from "../io.js";

/** The webhook's name: a fully qualified name with at least three segments, as the API server requires. */
const WEBHOOK_NAME = "validate.tollgate.dev";
const DIGEST_ANNOTATION = "tollgate.dev/bundle-digest";

export interface WebhookRule {
  apiGroups: string[];
  apiVersions: string[];
  operations: string[];
  resources: string[];
  scope: "Namespaced" | "Cluster" | "*";
}

export async function runWebhookConfig(
  config: Readonly<ResolvedWebhookConfigConfig>,
  io: CommandIo,
): Promise<CommandOutcome> {
  await requireLocation(config.bundle, "bundle path");
  const policySet = await loadBundle(config.bundle, { s3: config.s3 });
  const { object, unregistered } = webhookConfiguration(policySet, config);
  for (const k of unregistered)
    io.stderr(`warning: ${k}: its policy failed to compile and its resource name is unknown; no rule registered\n`);
  for (const f of policySet.failures) {
    if (f.severity !== "error" || f.kinds?.includes(EVERY_KIND) !== true) continue;
    const where = f.file === undefined ? "the bundle" : f.document === undefined ? f.file : `${f.file}#${f.document}`;
    io.stderr(
      `warning: ${where} cannot be used and may hold the policy of any kind (see tollgate lint); only the kinds the bundle covers are registered\n`,
    );
  }
  io.stdout(config.format === "json" ? `${JSON.stringify(object, null, 2)}\n` : stringify(object, { lineWidth: 0 }));
  return "ok";
}

/**
 * The rules for a set of covered kinds. For each API group and scope, versions that serve the same resources share
 * one rule (a rule matches every combination of its groups, versions and resources, so only versions with identical
 * resource sets can share one without matching a kind the bundle does not cover). The main resources (plurals) are
 * matched on CREATE and UPDATE; `<plural>/status`, for kinds that validate their status subresource, on UPDATE
 * (the API server serves status writes as updates only), in rules of their own.
 */
export function webhookRules(kinds: readonly CoveredKind[]): WebhookRule[] {
  const byGroupScope = new Map<string, Map<string, { main: Set<string>; sub: Set<string> }>>();
  for (const k of kinds) {
    const gs = `${k.group}\0${k.scope}`;
    const versions = byGroupScope.get(gs) ?? new Map<string, { main: Set<string>; sub: Set<string> }>();
    const resources = versions.get(k.version) ?? { main: new Set<string>(), sub: new Set<string>() };
    resources.main.add(k.plural);
    for (const s of k.subresources ?? []) resources.sub.add(`${k.plural}/${s}`);
    versions.set(k.version, resources);
    byGroupScope.set(gs, versions);
  }
  const rules: WebhookRule[] = [];
  for (const [gs, versions] of [...byGroupScope].sort((a, b) => compare(a[0], b[0]))) {
    const [group, scope] = gs.split("\0") as [string, "Namespaced" | "Cluster"];
    for (const part of ["main", "sub"] as const) {
      const bySet = new Map<string, { versions: string[]; resources: string[] }>();
      for (const [version, resources] of versions) {
        const sorted = [...resources[part]].sort(compare);
        if (sorted.length === 0) continue;
        const key = sorted.join("\0");
        const entry = bySet.get(key) ?? { versions: [], resources: sorted };
        entry.versions.push(version);
        bySet.set(key, entry);
      }
      const entries = [...bySet.values()].map((e) => ({ ...e, versions: e.versions.sort(compare) }));
      entries.sort((a, b) => compare(a.versions[0]!, b.versions[0]!));
      for (const e of entries) {
        rules.push({
          apiGroups: [group],
          apiVersions: e.versions,
          operations: part === "main" ? ["CREATE", "UPDATE"] : ["UPDATE"],
          resources: e.resources,
          scope,
        });
      }
    }
  }
  return rules;
}

/** The ValidatingWebhookConfiguration object, and the failed kinds no rule could be written for. */
export function webhookConfiguration(
  policySet: PolicySet,
  config: Pick<ResolvedWebhookConfigConfig, "url" | "failurePolicy" | "timeoutSeconds" | "name" | "excludeNamespaces">,
): { object: Record<string, unknown>; unregistered: string[] } {
  const covered = new Set(policySet.kinds.map((k) => `${k.group}/${k.version}/${k.kind}`));
  const unregistered = new Set<string>();
  for (const f of policySet.failures) {
    if (f.severity !== "error") continue;
    for (const k of f.kinds ?? []) if (k !== EVERY_KIND && !covered.has(k)) unregistered.add(k);
  }
  const object = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: {
      name: config.name,
      annotations: { [DIGEST_ANNOTATION]: policySet.digest },
    },
    webhooks: [
      {
        name: WEBHOOK_NAME,
        clientConfig: { url: config.url },
        ...(config.excludeNamespaces.length === 0
          ? {}
          : {
              // Namespaced objects of these namespaces never reach the webhook, so a broken webhook cannot block the
              // cluster's own objects (cluster-scoped objects are not filtered by a namespaceSelector).
              namespaceSelector: {
                matchExpressions: [
                  { key: "kubernetes.io/metadata.name", operator: "NotIn", values: [...config.excludeNamespaces] },
                ],
              },
            }),
        // Kinds the schema families cover, then the requests admission policies match (as their rules say).
        rules: [...webhookRules(policySet.kinds), ...policySet.admissionRules],
        failurePolicy: config.failurePolicy ?? policySet.config.failurePolicy,
        matchPolicy: "Equivalent",
        sideEffects: "None",
        timeoutSeconds: config.timeoutSeconds,
        admissionReviewVersions: ["v1"],
      },
    ],
  };
  return { object, unregistered: [...unregistered].sort(compare) };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
