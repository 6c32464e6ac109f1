/**
 * Pod Security (lib/pod-security):
 * - `pod-security/pod-restricted`: a typical Pod (an init container and two containers, probes, volumes, a
 *   restricted security context) created in a namespace that enforces restricted: its JSON text decoded and
 *   validated (`PolicySet.validate`), against the JSON.parse + JSON.stringify round trip of the same text (goal ≤ 3×);
 * - `pod-security/deployment-template`: a Deployment with the same pod template, warned about at restricted;
 * - `pod-security/audit-workloads`: an audit of a generated export of workloads (Pods, Deployments, StatefulSets,
 *   DaemonSets, Jobs, CronJobs and their Namespaces; `TOLLGATE_BENCH_POD_SECURITY_OBJECTS`, default 100,000) with the
 *   family on (a PodSecurityConfiguration in the bundle: the Namespace pre-pass, then every object evaluated) against
 *   the same export with it off (the workloads are then skipped: reading and decoding only).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BundleFile, loadBundle, type PolicySet } from "#lib";
import { withAuditState } from "../../audit/cluster-state.js";
import { DEFAULT_OWNER_LABELS } from "../../audit/config.js";
import { loadPolicySource } from "../../audit/policies.js";
import { disposeResult } from "../../audit/recorder.js";
import { runAudit } from "../../audit/run.js";
import { DEFAULT_SOURCE_OPTIONS, openSource } from "../../audit/sources/index.js";
import { type BenchCase, type BenchRow, goal } from "./bench-case.js";
import { objectRow } from "./object-row.js";

const CONFIG = `apiVersion: pod-security.admission.config.k8s.io/v1
kind: PodSecurityConfiguration
defaults:
  audit: restricted
  warn: baseline
`;

const NAMESPACE = `apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels:
    pod-security.kubernetes.io/enforce: restricted
`;

const GOAL_ROUND_TRIPS = 3;

const container = (name: string, image: string, extra: Record<string, unknown> = {}) => ({
  name,
  image,
  imagePullPolicy: "IfNotPresent",
  env: [
    { name: "LOG_LEVEL", value: "info" },
    { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
  ],
  resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
  securityContext: {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ["ALL"] },
  },
  volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
  ...extra,
});

/** A typical pod spec: an init container and two containers, restricted-compliant. */
const POD_SPEC = {
  serviceAccountName: "storefront",
  securityContext: { runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001, seccompProfile: { type: "RuntimeDefault" } },
  initContainers: [container("migrate", "registry.example.com/shop/migrate:3.2.0", { args: ["--up"] })],
  containers: [
    container("web", "registry.example.com/shop/storefront:3.2.0", {
      ports: [{ name: "http", containerPort: 8080 }],
      readinessProbe: { httpGet: { path: "/ready", port: 8080 }, periodSeconds: 5 },
      livenessProbe: { httpGet: { path: "/live", port: 8080 }, periodSeconds: 10 },
    }),
    container("metrics", "registry.example.com/shop/metrics-sidecar:1.4.1", {
      ports: [{ name: "metrics", containerPort: 9090 }],
    }),
  ],
  volumes: [
    { name: "tmp", emptyDir: {} },
    { name: "config", configMap: { name: "storefront" } },
  ],
};

const POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "storefront-7d9c8b6f5-x2x7q", namespace: "shop", labels: { app: "storefront", team: "shop" } },
  spec: POD_SPEC,
};

const DEPLOYMENT = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "storefront", namespace: "shop", labels: { app: "storefront", team: "shop" } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: "storefront" } },
    template: { metadata: { labels: { app: "storefront" } }, spec: POD_SPEC },
  },
};

let setPromise: Promise<PolicySet> | undefined;

function restrictedSet(): Promise<PolicySet> {
  setPromise ??= loadBundle([
    { path: "pod-security.yaml", content: CONFIG },
    { path: "namespaces.yaml", content: NAMESPACE },
  ]);
  return setPromise;
}

async function objectCase(name: string, object: Record<string, unknown>, describe: string): Promise<BenchRow> {
  const set = await restrictedSet();
  const text = JSON.stringify(object);
  const check = set.validate({ operation: "CREATE", object });
  if (!check.allowed || !check.covered) throw new Error(`${name}: expected an allowed, covered object`);
  const row = objectRow(name, text, (o) => set.validate({ operation: "CREATE", object: o }), describe);
  const ratio = row.value / row.baseline.value;
  // In the run's goal table, with the other goals.
  row.goals = [goal("÷ JSON round trip", ratio, "<=", GOAL_ROUND_TRIPS, "×")];
  row.data.ratio = ratio;
  return row;
}

/** Namespaces, then workloads of six kinds spread over them (about one in eight breaks restricted). */
function writeExport(file: string, n: number): void {
  const namespaces = Math.max(1, Math.floor(n / 1000));
  const parts: string[] = [];
  const levels = ["restricted", "baseline", "privileged"];
  for (let i = 0; i < namespaces; i++) {
    const labels: Record<string, string> = { "pod-security.kubernetes.io/enforce": levels[i % 3]! };
    parts.push(JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: `ns-${i}`, labels } }));
  }
  const template = (i: number) => {
    const spec = structuredClone(POD_SPEC) as Record<string, unknown> & { containers: Record<string, unknown>[] };
    if (i % 8 === 0) spec.containers[0]!.securityContext = { privileged: true };
    return { metadata: { labels: { app: `app-${i}` } }, spec };
  };
  const kinds = ["Pod", "Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"];
  for (let i = namespaces; i < n; i++) {
    const kind = kinds[i % kinds.length]!;
    const metadata = { name: `w-${i}`, namespace: `ns-${i % namespaces}`, uid: `uid-${i}` };
    const t = template(i);
    let o: Record<string, unknown>;
    if (kind === "Pod") o = { apiVersion: "v1", kind, metadata, spec: t.spec };
    else if (kind === "Job") o = { apiVersion: "batch/v1", kind, metadata, spec: { template: t } };
    else if (kind === "CronJob") {
      o = {
        apiVersion: "batch/v1",
        kind,
        metadata,
        spec: { schedule: "0 * * * *", jobTemplate: { spec: { template: t } } },
      };
    } else
      o = {
        apiVersion: "apps/v1",
        kind,
        metadata,
        spec: { selector: { matchLabels: t.metadata.labels }, template: t },
      };
    parts.push(JSON.stringify(o));
  }
  writeFileSync(file, `{"apiVersion":"v1","kind":"List","items":[\n${parts.join(",\n")}\n]}\n`);
}

async function auditMs(file: string, files: BundleFile[]): Promise<{ ms: number; invalid: number; skipped: number }> {
  const source = await openSource(file, DEFAULT_SOURCE_OPTIONS);
  const t0 = performance.now();
  const loaded = await withAuditState(
    { policySet: await loadBundle(files), policiesFromInput: 0, source: { files } },
    [source],
    {},
    loadPolicySource,
  );
  const run = await runAudit(
    {
      sources: [source],
      bundle: "bench",
      concurrency: 8,
      failOn: "violation",
      ownerLabels: DEFAULT_OWNER_LABELS,
      toolVersion: "bench",
    },
    loaded.policySet,
  );
  const ms = performance.now() - t0;
  disposeResult(run);
  return { ms, invalid: run.summary.invalid, skipped: run.summary.skippedUncovered };
}

async function auditCase(): Promise<BenchRow> {
  const n = Number(process.env.TOLLGATE_BENCH_POD_SECURITY_OBJECTS ?? 100_000);
  const dir = mkdtempSync(join(tmpdir(), "tollgate-bench-psa-"));
  try {
    const file = join(dir, "workloads.json");
    writeExport(file, n);
    const on: BundleFile[] = [{ path: "pod-security.yaml", content: CONFIG }];
    const off: BundleFile[] = [
      { path: "tollgate.yaml", content: "apiVersion: tollgate.dev/v1alpha1\nkind: BundleConfig\n" },
    ];
    // A warm-up run of each, then the measured ones.
    await auditMs(file, on);
    await auditMs(file, off);
    const withFamily = await auditMs(file, on);
    const without = await auditMs(file, off);
    const perS = (ms: number) => Math.round((n * 1000) / ms);
    return {
      name: "pod-security/audit-workloads",
      unit: "ms",
      value: withFamily.ms,
      min: withFamily.ms,
      max: withFamily.ms,
      baseline: { label: "the same export, family off", value: without.ms },
      notes: [
        `${n.toLocaleString("en")} objects: ${perS(withFamily.ms).toLocaleString("en")} objects/s with Pod Security ` +
          `(${withFamily.invalid.toLocaleString("en")} invalid), ${perS(without.ms).toLocaleString("en")} objects/s without ` +
          `(${without.skipped.toLocaleString("en")} skipped): ${(withFamily.ms / without.ms).toFixed(2)}× the time`,
      ],
      data: { objects: n, onPerS: perS(withFamily.ms), offPerS: perS(without.ms), ratio: withFamily.ms / without.ms },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const podSecurityCases: readonly BenchCase[] = [
  {
    name: "pod-security/pod-restricted",
    run: () => objectCase("pod-security/pod-restricted", POD, "a 3-container Pod created where restricted is enforced"),
  },
  {
    name: "pod-security/deployment-template",
    run: () =>
      objectCase(
        "pod-security/deployment-template",
        DEPLOYMENT,
        "a Deployment's 3-container template, warned at restricted",
      ),
  },
  { name: "pod-security/audit-workloads", run: auditCase },
];
