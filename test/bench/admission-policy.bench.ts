/**
 * ValidatingAdmissionPolicy (issue "ValidatingAdmissionPolicy", Performance):
 *
 * - `admission-policy/evaluate`: one binding of a five-validation policy on a Deployment (the webhook's path: the
 *   Deployment's JSON text decoded, then PolicySet.validate, CREATE), next to the JSON.parse + JSON.stringify round trip of the Deployment's text measured in
 *   the same run; goal ≤ 10×;
 * - `admission-policy/compile`: compiling a policy's expressions, per expression (a bundle of policies loaded in
 *   memory), next to compiling CRD `x-kubernetes-validations` rules of the same shape, per rule;
 * - `admission-policy/audit`: an audit of an export of mixed built-in objects (runAudit, one thread, JSON `kind:
 *   List`) with 20 bindings, next to the same export audited with no policy (every object skipped).
 *
 * `TOLLGATE_BENCH_AUDIT_OBJECTS` sets the audit's number of objects (default 100,000).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BundleFile, loadBundle, type PolicySet, parseDocuments } from "#lib";
import { auditOnce } from "./audit.bench.js";
import { type BenchCase, type BenchRow, goal } from "./bench-case.js";
import { measureSide } from "./measure.js";

const AR = "admissionregistration.k8s.io/v1";
const EVALUATE_GOAL = 10;

function namespace(name: string): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels: { "kubernetes.io/metadata.name": name, env: name.endsWith("0") ? "prod" : "dev" } },
  };
}

function rule(resources: string[], groups = [""]): Record<string, unknown> {
  return { apiGroups: groups, apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources };
}

function policy(
  name: string,
  rules: Record<string, unknown>[],
  spec: Record<string, unknown>,
): Record<string, unknown> {
  return {
    apiVersion: AR,
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: { matchConstraints: { resourceRules: rules }, ...spec },
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

/** The five validations of the evaluate case, typical of what platform teams write. */
const FIVE_VALIDATIONS = [
  { expression: "object.spec.replicas <= 10", message: "at most 10 replicas" },
  {
    expression: "object.spec.template.spec.containers.all(c, c.image.startsWith('registry.example.com/'))",
    messageExpression: "'untrusted image in ' + object.metadata.name",
  },
  { expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", reason: "Forbidden" },
  {
    expression:
      "object.spec.template.spec.containers.all(c, has(c.resources) && has(c.resources.limits) && 'memory' in c.resources.limits)",
  },
  { expression: "!object.spec.template.spec.containers.exists(c, c.image.endsWith(':latest'))" },
];

function deployment(name: string, ns: string): Record<string, unknown> {
  const container = (n: string) => ({
    name: n,
    image: `registry.example.com/shop/${n}:1.2.3`,
    ports: [{ containerPort: 8080, name: "http" }],
    resources: { limits: { cpu: "500m", memory: "256Mi" }, requests: { cpu: "100m", memory: "128Mi" } },
    env: [{ name: "MODE", value: "production" }],
  });
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: ns, labels: { app: name, team: "shop" } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [container("web"), container("sidecar"), container("metrics")] },
      },
    },
  };
}

function files(docs: readonly Record<string, unknown>[]): BundleFile[] {
  return docs.map((d, i) => ({ path: `doc-${i}.json`, content: JSON.stringify(d) }));
}

async function evaluateRow(): Promise<BenchRow> {
  const set = await loadBundle(
    files([
      policy("deployments", [rule(["deployments"], ["apps"])], { validations: FIVE_VALIDATIONS }),
      binding("deployments-b", "deployments"),
      namespace("shop"),
    ]),
  );
  const text = JSON.stringify(deployment("web", "shop"));
  // The webhook's path: the bounded decoder, then validate (each request is a new object).
  const fromText = () => set.validate({ operation: "CREATE", object: parseDocuments(text)[0]?.object });
  const check = fromText();
  if (!check.allowed || !check.covered) throw new Error(`the Deployment should pass: ${JSON.stringify(check.errors)}`);
  const t = measureSide({
    tollgate: fromText,
    roundTrip: () => JSON.stringify(JSON.parse(text)),
  });
  const tollgate = t.tollgate!;
  const roundTrip = t.roundTrip!;
  const ratio = tollgate.median / roundTrip.median;
  return {
    name: "admission-policy/evaluate",
    unit: "µs",
    value: tollgate.median,
    min: tollgate.min,
    max: tollgate.max,
    baseline: { label: "JSON.parse+stringify", value: roundTrip.median },
    goals: [goal("÷ JSON round trip", ratio, "<=", EVALUATE_GOAL, "×")],
    notes: [
      `one binding of a five-validation policy on a ${text.length}-byte Deployment: ${ratio.toFixed(1)}× the JSON round trip`,
    ],
    data: { bytes: text.length, roundTripRatio: ratio, goalMet: ratio <= EVALUATE_GOAL },
  };
}

const COMPILE_POLICIES = 20;

/** A CRD whose schema carries the five validations as x-kubernetes-validations rules (on self, not object). */
function crdWithRules(i: number): Record<string, unknown> {
  const rules = FIVE_VALIDATIONS.map((v) => ({ rule: v.expression.replaceAll("object.", "self.") }));
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `things${i}.bench.example.com` },
    spec: {
      group: "bench.example.com",
      scope: "Namespaced",
      names: { kind: `Thing${i}`, plural: `things${i}`, singular: `thing${i}`, listKind: `Thing${i}List` },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              "x-kubernetes-validations": rules,
              properties: {
                metadata: { type: "object" },
                spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
              },
            },
          },
        },
      ],
    },
  };
}

async function timeLoad(bundle: BundleFile[], runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await loadBundle(bundle);
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

async function compileRow(): Promise<BenchRow> {
  const policies: Record<string, unknown>[] = [];
  for (let i = 0; i < COMPILE_POLICIES; i++) {
    policies.push(policy(`p${i}`, [rule(["deployments"], ["apps"])], { validations: FIVE_VALIDATIONS }));
    policies.push(binding(`p${i}-b`, `p${i}`));
  }
  const crds = Array.from({ length: COMPILE_POLICIES }, (_, i) => crdWithRules(i));
  const expressions = COMPILE_POLICIES * FIVE_VALIDATIONS.length;
  const vapBundle = files(policies);
  const crdBundle = files(crds);
  const empty = await timeLoad([], 5);
  await timeLoad(vapBundle, 3);
  await timeLoad(crdBundle, 3);
  const vapMs = (await timeLoad(vapBundle, 9)) - empty;
  const crdMs = (await timeLoad(crdBundle, 9)) - empty;
  const vapUs = (vapMs * 1000) / expressions;
  const crdUs = (crdMs * 1000) / expressions;
  return {
    name: "admission-policy/compile",
    unit: "µs",
    value: vapUs,
    min: vapUs,
    max: vapUs,
    baseline: { label: "CRD rule compile", value: crdUs },
    notes: [
      `${expressions} expressions in ${COMPILE_POLICIES} policies (with bindings) vs the same ${expressions} expressions as ` +
        `x-kubernetes-validations rules of ${COMPILE_POLICIES} CRDs; bundle load time less an empty bundle's, per expression`,
    ],
    data: { expressions, vapMs, crdMs },
  };
}

const DEFAULT_OBJECTS = 100_000;
const NAMESPACES = 64;

function objectCount(): number {
  const raw = process.env.TOLLGATE_BENCH_AUDIT_OBJECTS;
  const n = raw === undefined || raw === "" ? DEFAULT_OBJECTS : Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error("TOLLGATE_BENCH_AUDIT_OBJECTS must be a positive integer");
  return n;
}

/** 10 policies and 20 bindings over Deployments, ConfigMaps, Services, Pods and every resource. */
function auditPolicies(): Record<string, unknown>[] {
  const prod = { namespaceSelector: { matchLabels: { env: "prod" } } };
  const dev = { namespaceSelector: { matchLabels: { env: "dev" } } };
  const out: Record<string, unknown>[] = [
    policy("replicas", [rule(["deployments"], ["apps"])], { validations: FIVE_VALIDATIONS.slice(0, 1) }),
    policy("images", [rule(["deployments"], ["apps"])], { validations: FIVE_VALIDATIONS.slice(1, 2) }),
    policy("team-label", [rule(["*"], ["*"])], {
      matchConditions: [{ name: "not-system", expression: "!request.userInfo.username.startsWith('system:')" }],
      validations: [{ expression: "has(object.metadata.labels) && 'team' in object.metadata.labels" }],
    }),
    policy("limits", [rule(["deployments"], ["apps"])], { validations: FIVE_VALIDATIONS.slice(3, 4) }),
    policy("no-latest", [rule(["deployments"], ["apps"])], { validations: FIVE_VALIDATIONS.slice(4, 5) }),
    policy("cm-size", [rule(["configmaps"])], {
      validations: [{ expression: "!has(object.data) || size(object.data) <= 20" }],
    }),
    policy("svc-type", [rule(["services"])], { validations: [{ expression: "object.spec.type != 'NodePort'" }] }),
    policy("pod-host", [rule(["pods"])], {
      variables: [{ name: "spec", expression: "object.spec" }],
      validations: [{ expression: "!has(variables.spec.hostNetwork) || !variables.spec.hostNetwork" }],
    }),
    policy("ns-owner", [rule(["namespaces"])], {
      validations: [{ expression: "has(object.metadata.labels) && 'env' in object.metadata.labels" }],
    }),
    policy("names", [rule(["*"], ["*"])], { validations: [{ expression: "size(object.metadata.name) <= 63" }] }),
  ];
  const names = out.map((p) => (p.metadata as { name: string }).name);
  for (const n of names) {
    out.push(binding(`${n}-prod`, n, { matchResources: prod }));
    out.push(binding(`${n}-dev`, n, { matchResources: dev, validationActions: ["Warn", "Audit"] }));
  }
  return out;
}

function sample(i: number): Record<string, unknown> {
  const ns = `ns-${i % NAMESPACES}`;
  switch (i % 5) {
    case 0:
      return deployment(`web-${i}`, ns);
    case 1:
      return {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `cfg-${i}`, namespace: ns, labels: { team: "a" } },
        data: { mode: "prod" },
      };
    case 2:
      return {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: `svc-${i}`, namespace: ns },
        spec: { type: i % 10 === 2 ? "NodePort" : "ClusterIP", ports: [{ port: 80 }] },
      };
    case 3:
      return {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `pod-${i}`, namespace: ns, labels: { team: "b" } },
        spec: { containers: [{ name: "c", image: "registry.example.com/c:1" }] },
      };
    default:
      return { apiVersion: "v1", kind: "Secret", metadata: { name: `s-${i}`, namespace: ns }, data: { k: "dg==" } };
  }
}

async function auditMs(file: string, policySet: PolicySet): Promise<{ ms: number; summary: string }> {
  const { ms, run } = await auditOnce(file, policySet);
  const s = run.summary;
  return {
    ms,
    summary: `${s.valid} valid, ${s.invalid} invalid, ${s.skippedUncovered} skipped; ${s.findings.violation} violations, ${s.findings.warning} warnings`,
  };
}

async function auditRow(): Promise<BenchRow> {
  const n = objectCount();
  const dir = mkdtempSync(join(tmpdir(), "tollgate-bench-vap-"));
  try {
    const file = join(dir, "export.json");
    const items: string[] = [];
    for (let i = 0; i < n; i++) items.push(JSON.stringify(sample(i)));
    writeFileSync(file, `{"apiVersion":"v1","kind":"List","items":[\n${items.join(",\n")}\n]}\n`);
    const nsDocs = Array.from({ length: NAMESPACES }, (_, i) => namespace(`ns-${i}`));
    const withVaps = await loadBundle(files([...auditPolicies(), ...nsDocs]));
    const without = await loadBundle(files(nsDocs));
    await auditMs(file, withVaps);
    const a = await auditMs(file, withVaps);
    await auditMs(file, without);
    const b = await auditMs(file, without);
    const perObject = (a.ms * 1000) / n;
    const basePerObject = (b.ms * 1000) / n;
    const rate = Math.round((n * 1000) / a.ms);
    const baseRate = Math.round((n * 1000) / b.ms);
    return {
      name: "admission-policy/audit",
      unit: "µs",
      value: perObject,
      min: perObject,
      max: perObject,
      baseline: { label: "no policies", value: basePerObject },
      notes: [
        `${n.toLocaleString("en")} built-in objects (Deployments, ConfigMaps, Services, Pods, Secrets in ${NAMESPACES} namespaces), ` +
          `10 policies with 20 bindings: ${rate.toLocaleString("en")} objects/s, ${((rate / baseRate) * 100).toFixed(0)}% of the ` +
          `same export without policies (${baseRate.toLocaleString("en")} objects/s)`,
        `with policies: ${a.summary}; without: ${b.summary}`,
      ],
      data: { objects: n, objectsPerSecond: rate, baselineObjectsPerSecond: baseRate },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const admissionPolicyCases: BenchCase[] = [
  { name: "admission-policy/evaluate", run: evaluateRow },
  { name: "admission-policy/compile", run: compileRow },
  { name: "admission-policy/audit", run: auditRow },
];
