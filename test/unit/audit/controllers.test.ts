import { describe, expect, it } from "vitest";
import { ControllerChain } from "../../../audit/controllers.js";
import type { ObjectRecord } from "../../../audit/model.js";

function record(namespace: string | undefined, kind: string, name: string, controller?: string): ObjectRecord {
  const r = {
    key: `${kind}/${name}`,
    object: { apiVersion: "v1", kind, name, ...(namespace !== undefined && { namespace }) },
    location: { file: "x.yaml" },
    outcome: "valid",
    findings: 0,
  } as ObjectRecord;
  if (controller !== undefined) r.controller = controller;
  return r;
}

describe("ControllerChain", () => {
  it("resolves from its links alone (another thread's copy) exactly as the whole chain does", () => {
    const records: ObjectRecord[] = [];
    for (const ns of ["a", "b"]) {
      records.push(record(ns, "Deployment", "web"));
      records.push(record(ns, "ReplicaSet", "web-1", "Deployment/web"));
      for (let i = 0; i < 50; i++) records.push(record(ns, "Pod", `web-1-${i}`, "ReplicaSet/web-1"));
      // A cycle (a hand-made input), a controller that is not in the input, and a cluster-scoped chain.
      records.push(record(ns, "Thing", "x", "Thing/y"), record(ns, "Thing", "y", "Thing/x"));
      records.push(record(ns, "Pod", "lonely", "StatefulSet/absent"));
    }
    records.push(record(undefined, "Node", "n1", "Cluster/c1"), record(undefined, "Cluster", "c1", "Fleet/f"));
    const chain = new ControllerChain();
    for (const r of records) chain.learn(r);
    const links = chain.links();
    const copy = ControllerChain.fromLinks(links);
    // Only the links above a controller are needed: the ReplicaSets', the cycle's and the Cluster's, not each Pod's.
    expect(links.length).toBe(2 * 3 + 1);
    for (const r of records) expect(copy.resolved(r)).toEqual(chain.resolved(r));
    expect(copy.resolved(records[2]!).controller).toBe("Deployment/web");
    expect(copy.resolved(records[records.length - 2]!).controller).toBe("Fleet/f");
  });
});
