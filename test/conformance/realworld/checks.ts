/**
 * The checks of the realworld suite, each giving a {@link CheckOutcome}: whether tollgate agrees with the corpus,
 * and short `want`/`got` texts for known-failures.yaml.
 *
 * - A CRD file lints clean: loading the project's CRD folder as a bundle (what `tollgate lint --bundle` does)
 *   gives no policy failure for the file.
 * - A sample gets its `expected` verdict as a CREATE against its project's CRDs (default field validation, so an
 *   unknown field is a warning), decoded as every edge decodes input (`parseDocuments`). Where the manifest gives
 *   Istio's expected error text, one of tollgate's `<field>: <message>` texts contains it, or contains the text
 *   1.36 prints instead where Istio's validator words it differently ({@link WORDING_1_36}).
 * - An update case gets its verdict (UPDATE from `old`, or CREATE when there is no `old`).
 * - A kubectl-validate document about a custom resource gives the identical `metav1.Status`; see
 *   {@link checkKubectlValidateDocument}.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import {
  type FieldError,
  invalidStatus,
  loadBundle,
  objectIdentity,
  type PolicySet,
  parseDocuments,
  type Verdict,
} from "#lib";
import { asMetav1Status, type KubectlValidateDocument, type Metav1Status } from "./kubectl-validate.js";
import type { Sample, UpdateCase } from "./realworld-corpus.js";

export interface CheckOutcome {
  passed: boolean;
  want: string;
  got: string;
}

/**
 * Istio `_err` texts that kube-apiserver 1.36 words differently (Istio's CRD validator follows older servers in
 * places, corpus README "Expected verdicts" 5), with the text 1.36 prints and why. The manifest's text is kept
 * here too, so a change in the corpus shows up instead of being checked against a stale substitute.
 */
export const WORDING_1_36: Readonly<Record<string, { istio: string; v1_36: string; why: string }>> = {
  "istio/012-envoyfilter-invalid-0.yaml": {
    istio: 'spec.configPatches[0].match: Invalid value: "object": only support waypointMatch when context is WAYPOINT',
    v1_36: "spec.configPatches[0].match: Invalid value: only support waypointMatch when context is WAYPOINT",
    why: "a failing CEL rule on an object: 1.36 leaves the value out of the message, older servers printed its type",
  },
  "istio/013-envoyfilter-invalid-1.yaml": {
    istio: 'spec.configPatches[0].match: Invalid value: "object": only support waypointMatch when context is WAYPOINT',
    v1_36: "spec.configPatches[0].match: Invalid value: only support waypointMatch when context is WAYPOINT",
    why: "a failing CEL rule on an object: 1.36 leaves the value out of the message, older servers printed its type",
  },
  "istio/014-envoyfilter-invalid-2.yaml": {
    istio: 'spec.configPatches[0].match.waypoint.portNumber: Invalid value: "integer": port must be between 1-65535',
    v1_36: "spec.configPatches[0].match.waypoint.portNumber: Invalid value: 65536: port must be between 1-65535",
    why: "a failing CEL rule on a scalar: 1.36 prints the value, older servers printed its type",
  },
  "istio/087-wasm-invalid-11.yaml": {
    istio: 'spec in body must be of type object: "null"',
    v1_36: "spec: Required value",
    why: "the API server drops a null that its schema does not allow and that has no default before validating (apiextensions PruneNonNullableNullsWithoutDefaults), so the required field is missing",
  },
  "istio/088-wasm-invalid-12.yaml": {
    istio: 'spec.url in body must be of type string: "null"',
    v1_36: "spec.url: Required value",
    why: "the API server drops a null that its schema does not allow and that has no default before validating (apiextensions PruneNonNullableNullsWithoutDefaults), so the required field is missing",
  },
};

/** Loads each project's CRD folder once: `loadBundle(<realworld>/crds/<project>)`. */
export function createProjectBundles(root: string): (project: string) => Promise<PolicySet> {
  const cache = new Map<string, Promise<PolicySet>>();
  return (project) => {
    let set = cache.get(project);
    if (set === undefined) {
      set = loadBundle(join(root, "crds", project));
      set.catch(() => undefined);
      cache.set(project, set);
    }
    return set;
  };
}

/** The policy failures a bundle reports for `file` (relative to the bundle folder), as `tollgate lint` lists them. */
export function checkLintClean(set: PolicySet, file: string | ((f: string | undefined) => boolean)): CheckOutcome {
  const belongs = typeof file === "string" ? (f: string | undefined) => f === file : file;
  const failures = set.failures.filter((f) => belongs(f.file));
  return {
    passed: failures.length === 0,
    want: "no policy failure",
    got: failures.length === 0 ? "no policy failure" : failures.map((f) => `${f.severity} ${f.message}`).join("; "),
  };
}

export function checkSample(root: string, set: PolicySet, sample: Sample): CheckOutcome {
  const object = decodeOne(join(root, "samples", sample.file));
  if (typeof object === "string") return { passed: false, want: sample.expected, got: object };
  const verdict = set.validate({ operation: "CREATE", object });
  const got = verdictText(verdict);
  if (got !== sample.expected) return { passed: false, want: sample.expected, got: withFirstError(got, verdict) };
  if (sample.expectError === undefined) return { passed: true, want: sample.expected, got };

  const wording = WORDING_1_36[sample.file];
  if (wording !== undefined && wording.istio !== sample.expectError) {
    return {
      passed: false,
      want: `WORDING_1_36 to hold the manifest's text ${JSON.stringify(sample.expectError)}`,
      got: JSON.stringify(wording.istio),
    };
  }
  const text = wording?.v1_36 ?? sample.expectError;
  const texts = verdict.errors.map(errorLine);
  return {
    passed: texts.some((t) => t.includes(text)),
    want: `invalid, an error containing ${JSON.stringify(text)}`,
    got: `invalid: ${texts.join(" | ")}`,
  };
}

export function checkUpdate(root: string, set: PolicySet, update: UpdateCase): CheckOutcome {
  const object = decodeOne(join(root, "updates", update.new));
  const oldObject = update.old === undefined ? undefined : decodeOne(join(root, "updates", update.old));
  if (typeof object === "string") return { passed: false, want: update.expected, got: object };
  if (typeof oldObject === "string") return { passed: false, want: update.expected, got: `old: ${oldObject}` };
  const verdict =
    oldObject === undefined
      ? set.validate({ operation: "CREATE", object })
      : set.validate({ operation: "UPDATE", object, oldObject });
  const got = verdictText(verdict);
  return { passed: got === update.expected, want: update.expected, got: withFirstError(got, verdict) };
}

/** The API groups Kubernetes 1.36 serves itself: kinds of these groups are built-in (not applicable here). */
const BUILT_IN_GROUPS = new Set([
  "",
  "admissionregistration.k8s.io",
  "apiextensions.k8s.io",
  "apiregistration.k8s.io",
  "apps",
  "authentication.k8s.io",
  "authorization.k8s.io",
  "autoscaling",
  "batch",
  "certificates.k8s.io",
  "coordination.k8s.io",
  "discovery.k8s.io",
  "events.k8s.io",
  "flowcontrol.apiserver.k8s.io",
  "internal.apiserver.k8s.io",
  "networking.k8s.io",
  "node.k8s.io",
  "policy",
  "rbac.authorization.k8s.io",
  "resource.k8s.io",
  "scheduling.k8s.io",
  "storage.k8s.io",
  "storagemigration.k8s.io",
]);

/** What a kubectl-validate document is about, which decides how it is checked. */
export type KubectlValidateSubject = "empty" | "crd" | "custom-resource" | "built-in";

/**
 * Read leniently (duplicate keys allowed), so that a document tollgate's decoder rejects is still classified by
 * its apiVersion and kind.
 */
export function subjectOf(doc: KubectlValidateDocument): KubectlValidateSubject {
  if (doc.empty) return "empty";
  const id = objectIdentity(parseYaml(doc.text, { uniqueKeys: false }));
  if (id.group === "apiextensions.k8s.io" && id.kind === "CustomResourceDefinition") return "crd";
  return BUILT_IN_GROUPS.has(id.group) ? "built-in" : "custom-resource";
}

/**
 * The Status tollgate gives for a kubectl-validate document, against the one the upstream test expects:
 * - an empty document: nothing to validate, `Success`;
 * - a custom resource: a CREATE against the `crds/` bundle; `Success` when allowed (kubectl-validate's Status for
 *   a valid document), else the 422 `Invalid` Status the API server answers (`invalidStatus`, what `tollgate
 *   validate -o json` prints);
 * - a CustomResourceDefinition (`error_crd_typo.yaml`, corpus README: checked with `tollgate lint`): the document
 *   loaded as a bundle; its error-severity policy failures as the causes of an `Invalid` Status for the CRD. A
 *   PolicyFailure carries no cause type, so the causes' `reason` is not compared for this one document.
 */
export async function checkKubectlValidateDocument(
  doc: KubectlValidateDocument,
  subject: Exclude<KubectlValidateSubject, "built-in">,
  set: PolicySet,
): Promise<CheckOutcome> {
  let got: Metav1Status;
  let want = doc.expected;
  if (subject === "empty") {
    const decoded = parseDocuments(doc.text);
    got = decoded.length === 0 ? { status: "Success" } : { status: "Failure", message: JSON.stringify(decoded) };
  } else if (subject === "crd") {
    got = await lintStatus(doc);
    want = withoutCauseReasons(want);
  } else {
    got = customResourceStatus(doc, set);
  }
  const wantText = JSON.stringify(want);
  const gotText = JSON.stringify(got);
  return { passed: wantText === gotText, want: wantText, got: gotText };
}

function customResourceStatus(doc: KubectlValidateDocument, set: PolicySet): Metav1Status {
  const decoded = parseDocuments(doc.text);
  const first = decoded[0];
  if (decoded.length !== 1 || first?.object === undefined) {
    return { status: "Failure", message: first?.error ?? `${decoded.length} documents` };
  }
  const id = objectIdentity(first.object);
  if (!set.covers(id.apiVersion, id.kind)) {
    return { status: "Failure", message: `${id.apiVersion} ${id.kind} is not covered by testcases/crds` };
  }
  const verdict = set.validate({ operation: "CREATE", object: first.object });
  if (verdict.allowed) return { status: "Success" };
  return asMetav1Status(invalidStatus(id, id.name, verdict.errors));
}

async function lintStatus(doc: KubectlValidateDocument): Promise<Metav1Status> {
  const set = await loadBundle([{ path: doc.file, content: doc.text }]);
  const errors = set.failures.filter((f) => f.severity === "error");
  if (errors.length === 0) return { status: "Success" };
  const decoded = parseDocuments(doc.text)[0];
  const causes = errors.map((f) => {
    const field = f.path ?? "";
    const message = field !== "" && f.message.startsWith(`${field}: `) ? f.message.slice(field.length + 2) : f.message;
    return { type: "", field, message };
  });
  const id = objectIdentity(decoded?.object);
  return withoutCauseReasons(asMetav1Status(invalidStatus(id, id.name, causes)));
}

function withoutCauseReasons(status: Metav1Status): Metav1Status {
  if (status.details?.causes === undefined) return status;
  return {
    ...status,
    details: { ...status.details, causes: status.details.causes.map(({ reason: _reason, ...rest }) => rest) },
  };
}

/** The one object of a one-document file, or what went wrong. */
function decodeOne(path: string): Record<string, unknown> | string {
  const docs = parseDocuments(readFileSync(path, "utf8"));
  const first = docs[0];
  if (docs.length !== 1 || first === undefined) return `decoded to ${docs.length} documents`;
  if (first.error !== undefined) return `decode error: ${first.error}`;
  return first.object as Record<string, unknown>;
}

function verdictText(verdict: Verdict): string {
  if (!verdict.covered) return "not covered";
  return verdict.allowed ? "valid" : "invalid";
}

function withFirstError(got: string, verdict: Verdict): string {
  const first = verdict.errors[0];
  return first === undefined ? got : `${got}: ${errorLine(first)}${verdict.errors.length > 1 ? " ..." : ""}`;
}

function errorLine(e: FieldError): string {
  return `${e.field}: ${e.message}`;
}
