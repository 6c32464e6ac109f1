/**
 * Teams and controllers: the team from label (else annotation) keys, the controller followed up the ownerReferences
 * chain found in the input, in the findings, the records and the group-bys.
 */
import { describe, expect, it } from "vitest";
import { controllerRefOf, teamOf } from "../../../audit/findings.js";
import type { Finding, ObjectRecord } from "../../../audit/model.js";
import { type RunFacts, RunRecorder } from "../../../audit/recorder.js";

const meta = (m: Record<string, unknown>) => ({ apiVersion: "v1", kind: "Pod", metadata: m });

describe("teamOf", () => {
  const keys = { labels: ["app.kubernetes.io/part-of", "team", "owner"] };
  it("takes the first key present, a label before an annotation of the same key", () => {
    expect(teamOf(meta({ labels: { team: "pay", owner: "bob" } }), keys)).toBe("pay");
    expect(teamOf(meta({ annotations: { "app.kubernetes.io/part-of": "shop" }, labels: { team: "pay" } }), keys)).toBe(
      "shop",
    );
    expect(teamOf(meta({ labels: { team: "pay" }, annotations: { team: "other" } }), keys)).toBe("pay");
    expect(teamOf(meta({ annotations: { owner: "ops" } }), keys)).toBe("ops");
  });
  it("is undefined without any of the keys, and never takes an owner reference", () => {
    expect(teamOf(meta({ labels: { app: "x" }, ownerReferences: [{ kind: "ReplicaSet", name: "r" }] }), keys)).toBe(
      undefined,
    );
    expect(teamOf(meta({ labels: { team: "" } }), keys)).toBe(undefined);
  });
});

describe("controllerRefOf", () => {
  it("prefers the reference marked controller, else the first", () => {
    const refs = [
      { kind: "ConfigMap", name: "c" },
      { kind: "ReplicaSet", name: "api-7d9", controller: true },
    ];
    expect(controllerRefOf(meta({ ownerReferences: refs }))).toBe("ReplicaSet/api-7d9");
    expect(controllerRefOf(meta({ ownerReferences: [refs[0]] }))).toBe("ConfigMap/c");
    expect(controllerRefOf(meta({}))).toBe(undefined);
    expect(controllerRefOf(meta({ ownerReferences: [{ kind: "X" }] }))).toBe(undefined);
  });
});

function rec(
  kind: string,
  name: string,
  ns: string,
  controller?: string,
  outcome: ObjectRecord["outcome"] = "invalid",
) {
  const r: ObjectRecord = {
    key: `v1/${kind}/${ns}/${name}`,
    object: { apiVersion: "apps/v1", kind, namespace: ns, name },
    location: { file: "f.yaml" },
    outcome,
    findings: 0,
  };
  if (controller !== undefined) r.controller = controller;
  return r;
}

function finding(r: ObjectRecord, id: string): Finding {
  const f: Finding = {
    id,
    severity: "violation",
    object: r.object!,
    rule: { family: "crd", policy: "pods" },
    message: "m",
    firstSeen: "2026-01-01T00:00:00.000Z",
  };
  if (r.controller !== undefined) f.controller = r.controller;
  return f;
}

const FACTS: RunFacts = {
  finishedAt: "2026-11-22T02:16:00Z",
  tool: { name: "tollgate", version: "t" },
  bundle: { source: "b", digest: "d", kinds: 1, policiesFromInput: 0 },
  sources: [],
  failOn: "violation",
};

describe("the recorder's controller chain", () => {
  it("resolves a Pod of a ReplicaSet of a Deployment to the Deployment, whatever the input order", async () => {
    const recorder = new RunRecorder(new Date("2026-11-22T02:15:00Z"));
    const pod = rec("Pod", "api-7d9-x", "shop", "ReplicaSet/api-7d9");
    pod.findings = 1;
    recorder.object(pod);
    recorder.finding(finding(pod, "a".repeat(16)));
    // An orphan Pod whose ReplicaSet is not in the input keeps its own controller.
    const orphan = rec("Pod", "web-1", "shop", "ReplicaSet/web-5c");
    orphan.findings = 1;
    recorder.object(orphan);
    recorder.finding(finding(orphan, "b".repeat(16)));
    // The same names in another namespace are another chain.
    const other = rec("Pod", "api-7d9-x", "lab", "ReplicaSet/api-7d9");
    other.findings = 1;
    recorder.object(other);
    recorder.finding(finding(other, "c".repeat(16)));
    recorder.object(rec("ReplicaSet", "api-7d9", "shop", "Deployment/api", "valid"));
    recorder.object(rec("Deployment", "api", "shop", undefined, "valid"));
    const run = await recorder.finish(FACTS, 0);
    expect([...run.findings].map((f) => f.controller)).toEqual([
      "Deployment/api",
      "ReplicaSet/web-5c",
      "ReplicaSet/api-7d9",
    ]);
    expect([...run.objects].map((o) => o.controller)).toEqual([
      "Deployment/api",
      "ReplicaSet/web-5c",
      "ReplicaSet/api-7d9",
      "Deployment/api",
      undefined,
    ]);
    // Group-by controller: the Pod and its ReplicaSet count under the Deployment.
    expect(run.groups.controller).toEqual({
      "shop/Deployment/api": { findings: { violation: 1 }, checked: 2, failed: 1 },
      "shop/ReplicaSet/web-5c": { findings: { violation: 1 }, checked: 1, failed: 1 },
      "lab/ReplicaSet/api-7d9": { findings: { violation: 1 }, checked: 1, failed: 1 },
    });
    expect(run.groups.namespace.shop).toEqual({ findings: { violation: 2 }, checked: 4, failed: 2 });
    // Per policy: objects of the kinds it reported on (three Pods), failed once each.
    expect(run.groups.policy["crd pods"]).toEqual({ findings: { violation: 3 }, checked: 3, failed: 3 });
    recorder.dispose();
  });

  it("stops at a cycle of owner references", async () => {
    const recorder = new RunRecorder(new Date("2026-11-22T02:15:00Z"));
    recorder.object(rec("A", "a", "ns", "B/b"));
    recorder.object(rec("B", "b", "ns", "A/a"));
    const run = await recorder.finish(FACTS, 0);
    const controllers = [...run.objects].map((o) => o.controller);
    expect(controllers.every((c) => c === "A/a" || c === "B/b")).toBe(true);
    recorder.dispose();
  });
});
