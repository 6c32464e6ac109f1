/**
 * `tollgate webhook-config --bundle <bundle> --url <url>`: the ValidatingWebhookConfiguration
 * (admissionregistration.k8s.io/v1) that sends the API server's admission requests for exactly the kinds the bundle
 * covers to the tollgate webhook, printed as YAML (or JSON) for `kubectl apply -f -`.
 */
import { stringify } from "yaml";
import { type CoveredKind, loadBundle, type PolicySet } from "../../../lib/index.js";
import { isS3Url } from "../../../lib/storage/index.js";
import type { ResolvedWebhookConfigConfig } from "../bundle-args.js";
import { statOrThrow } from "../inputs.js";
import type { CommandIo, CommandOutcome } from "../io.js";

/** The webhook's name: a fully qualified name with at least three segments, as the API server requires. */
export const WEBHOOK_NAME = "validate.tollgate.dev";
export const DIGEST_ANNOTATION = "tollgate.dev/bundle-digest";

export interface WebhookRule {
  apiGroups: string[];
  apiVersions: string[];
  operations: string[];
  resources: string[];
  scope: "Namespaced" | "Cluster";
}

export async function runWebhookConfig(
  config: Readonly<ResolvedWebhookConfigConfig>,
  io: CommandIo,
): Promise<CommandOutcome> {
  if (!isS3Url(config.bundle)) await statOrThrow(config.bundle, "bundle");
  const policySet = await loadBundle(config.bundle, { s3: config.s3 });
  const { object, unregistered } = webhookConfiguration(policySet, config);
  for (const k of unregistered)
    io.stderr(`warning: ${k}: its policy failed to compile and its resource name is unknown; no rule registered\n`);
  io.stdout(config.format === "json" ? `${JSON.stringify(object, null, 2)}\n` : stringify(object, { lineWidth: 0 }));
  return "ok";
}

/**
 * The rules for a set of covered kinds. For each API group and scope, versions that serve the same resources share
 * one rule (a rule matches every combination of its groups, versions and resources, so only versions with identical
 * resource sets can share one without matching a kind the bundle does not cover). Resources are the plural, and
 * `<plural>/<subresource>` for each subresource the kind validates (status). Operations CREATE and UPDATE.
 */
export function webhookRules(kinds: readonly CoveredKind[]): WebhookRule[] {
  const byGroupScope = new Map<string, Map<string, Set<string>>>();
  for (const k of kinds) {
    const gs = `${k.group}\0${k.scope}`;
    const versions = byGroupScope.get(gs) ?? new Map<string, Set<string>>();
    const resources = versions.get(k.version) ?? new Set<string>();
    resources.add(k.plural);
    for (const s of k.subresources ?? []) resources.add(`${k.plural}/${s}`);
    versions.set(k.version, resources);
    byGroupScope.set(gs, versions);
  }
  const rules: WebhookRule[] = [];
  for (const [gs, versions] of [...byGroupScope].sort((a, b) => compare(a[0], b[0]))) {
    const [group, scope] = gs.split("\0") as [string, "Namespaced" | "Cluster"];
    const bySet = new Map<string, { versions: string[]; resources: string[] }>();
    for (const [version, resources] of versions) {
      const sorted = [...resources].sort(compare);
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
        operations: ["CREATE", "UPDATE"],
        resources: e.resources,
        scope,
      });
    }
  }
  return rules;
}

/** The ValidatingWebhookConfiguration object, and the failed kinds no rule could be written for. */
export function webhookConfiguration(
  policySet: PolicySet,
  config: Pick<ResolvedWebhookConfigConfig, "url" | "failurePolicy" | "timeoutSeconds" | "name">,
): { object: Record<string, unknown>; unregistered: string[] } {
  const covered = new Set(policySet.kinds.map((k) => `${k.group}/${k.version}/${k.kind}`));
  const unregistered = new Set<string>();
  for (const f of policySet.failures) {
    if (f.severity !== "error") continue;
    for (const k of f.kinds ?? []) if (!covered.has(k)) unregistered.add(k);
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
        rules: webhookRules(policySet.kinds),
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
