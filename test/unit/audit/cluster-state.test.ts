/**
 * audit/cluster-state.ts: the audited input's Namespaces become the cluster state of the admission families (a
 * pre-pass made only when one is enabled), and the what-if Pod Security level; the counts per level in the summary.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { namespacesOf, withAuditState } from "../../../audit/cluster-state.js";
import { loadPolicies, loadPolicySource } from "../../../audit/policies.js";
import { disposeResult } from "../../../audit/recorder.js";
import { runAudit } from "../../../audit/run.js";
import { DEFAULT_SOURCE_OPTIONS, openSource } from "../../../audit/sources/index.js";

const dir = mkdtempSync(join(tmpdir(), "tollgate-cluster-state-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bundle = join(dir, "bundle");
const noAdmission = join(dir, "no-admission");
mkdirs(bundle, noAdmission);
writeFileSync(
  join(bundle, "pod-security.yaml"),
  "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  audit: restricted\n",
);
writeFileSync(join(noAdmission, "tollgate.yaml"), "apiVersion: tollgate.dev/v1alpha1\nkind: BundleConfig\n");

const input = join(dir, "input");
mkdirs(input);
writeFileSync(
  join(input, "namespaces.yaml"),
  `apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels:
    pod-security.kubernetes.io/enforce: baseline
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: not-a-namespace
  namespace: shop
`,
);
// A JSON List with a Namespace among its items.
writeFileSync(
  join(input, "export.json"),
  JSON.stringify({
    apiVersion: "v1",
    kind: "List",
    items: [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "payments" } },
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "debug", namespace: "shop" },
        spec: { containers: [{ name: "c", image: "i", securityContext: { privileged: true } }] },
      },
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web", namespace: "payments" },
        spec: { template: { spec: { containers: [{ name: "c", image: "i" }] } } },
      },
    ],
  }),
);

function mkdirs(...paths: string[]) {
  for (const p of paths) mkdirSync(p, { recursive: true });
}

async function audit(bundlePath: string, podSecurity?: string) {
  const source = await openSource(input, DEFAULT_SOURCE_OPTIONS);
  const loaded = await withAuditState(
    await loadPolicies(bundlePath),
    [source],
    podSecurity === undefined ? {} : { podSecurity },
    loadPolicySource,
  );
  const run = await runAudit(
    { sources: [source], bundle: bundlePath, concurrency: 1, failOn: "violation", ownerLabels: [], toolVersion: "0" },
    loaded.policySet,
  );
  const findings = await run.findings.toArray();
  const objects = await run.objects.toArray();
  disposeResult(run);
  return { loaded, run, findings, objects };
}

describe("the input's Namespaces as cluster state", () => {
  it("namespacesOf finds the Namespaces of YAML files and JSON Lists, in input order", async () => {
    const source = await openSource(input, DEFAULT_SOURCE_OPTIONS);
    const names = (await namespacesOf([source])).map((n) => (n.metadata as { name: string }).name);
    expect(names.sort()).toEqual(["payments", "shop"]);
  });

  it("a Pod in a namespace the input labels enforce=baseline is a violation", async () => {
    const { loaded, findings, run } = await audit(bundle);
    expect(loaded.source.options?.clusterState?.length).toBe(2);
    const violations = findings.filter((f) => f.severity === "violation");
    expect(violations.map((f) => [f.object?.name, f.rule.policy, f.rule.rule])).toEqual([
      ["debug", "baseline:latest", "privileged"],
    ]);
    expect(run.summary.podSecurity).toEqual({
      "baseline:latest": { pods: 1, workloads: 0 },
      "restricted:latest": { pods: 1, workloads: 1 },
    });
  });

  it("no pre-pass and no second compile without an admission family", async () => {
    const { loaded } = await audit(noAdmission);
    expect(loaded.source.options).toBeUndefined();
  });

  it("the what-if level: every namespace enforces it, workloads' templates included", async () => {
    const { findings, run, objects } = await audit(noAdmission, "restricted:latest");
    const violations = findings.filter((f) => f.severity === "violation");
    expect([...new Set(violations.map((f) => `${f.object?.kind}/${f.object?.name} ${f.rule.policy}`))]).toEqual([
      "Pod/debug restricted:latest",
      "Deployment/web restricted:latest",
    ]);
    expect(run.summary.podSecurity).toEqual({ "restricted:latest": { pods: 1, workloads: 1 } });
    expect(objects.find((o) => o.object?.name === "debug")?.podSecurity).toEqual(["restricted:latest"]);
  });
});
