/**
 * The anchor objects and reference figures of shared/research/perf-anchors.md ("Objects and CRDs used", §1,
 * §6). The Go figures are Kubernetes 1.36.3 apiextensions-apiserver code on that document's machine; they are
 * printed as a ratio, with the goal "10× faster than the apiserver code" (§6, goals 1 and 4).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CrdCase } from "../conformance/corpus.js";

export interface AnchorObject {
  id: string;
  caseFile: string;
  caseName: string;
  /** Go reference, full path from JSON text (CREATE), µs. */
  goUs: number;
}

export const ANCHOR_OBJECTS: readonly AnchorObject[] = [
  {
    id: "hr-valid",
    caseFile: "gateway-api/httproute.json",
    caseName: "example examples/standard/basic-http.yaml #2 [experimental]",
    goUs: 859,
  },
  {
    id: "hr-invalid-cel",
    caseFile: "gateway-api/httproute.json",
    caseName: "invalid-example invalid-examples/standard/httproute/invalid-filter-duplicate.yaml [experimental]",
    goUs: 955,
  },
  {
    id: "hr-invalid-schema",
    caseFile: "gateway-api/httproute.json",
    caseName: "invalid-example invalid-examples/standard/httproute/invalid-backend-port.yaml [experimental]",
    goUs: 367,
  },
  {
    id: "gw-valid",
    caseFile: "gateway-api/gateway.json",
    caseName: "example examples/standard/simple-http-https/gateway.yaml [experimental]",
    goUs: 500,
  },
  {
    id: "ocp-infra-valid",
    caseFile: "openshift-api/config.openshift.io-infrastructure.json",
    caseName:
      "v1/VSphereMultiNetworks/onCreate/Should be able to set more than 1 network in the vsphere platform spec topology [Default]",
    goUs: 326,
  },
];

/** Go reference CRD compile ("serve setup", every served version, CEL included), perf-anchors §1a / summary. */
export const GO_COMPILE = {
  /** All 150 corpus CRDs (2,544 served-version rules): 1.55 s, 608 µs/rule. */
  allMs: 1550,
  /** The experimental HTTPRoute CRD (218 rules, v1 and v1beta1): 102 ms, 466 µs/rule. */
  httpRouteMs: 102,
};

/** The goal: at most this fraction of the Go reference's time (perf-anchors §6: 0.1× per object, 0.2× compile). */
export const GOAL_FRACTION = { validate: 0.1, compile: 0.2 } as const;

export const HTTPROUTE_CRD = "gateway-api/experimental/gateway.networking.k8s.io_httproutes.yaml";

/** An anchor's case, found by case file and case name. Throws when the corpus no longer has it. */
export function findAnchorCase(corpusRoot: string, anchor: AnchorObject): CrdCase {
  const cases = JSON.parse(readFileSync(join(corpusRoot, "cases", anchor.caseFile), "utf8")) as CrdCase[];
  const found = cases.find((c) => c.name === anchor.caseName);
  if (found === undefined)
    throw new Error(`anchor ${anchor.id}: no case ${JSON.stringify(anchor.caseName)} in ${anchor.caseFile}`);
  return found;
}
