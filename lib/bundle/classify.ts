/**
 * Recognising a bundle's documents and files: each is tollgate.yaml, a family's policy, cluster state (noted and
 * kept), or something that cannot be used. What a file promises decides which:
 *
 * | found                                                                  | outcome                                     |
 * |------------------------------------------------------------------------|---------------------------------------------|
 * | a YAML/JSON document that cannot be decoded                            | error failure, every kind                   |
 * | a tollgate.dev/v1alpha1 Waiver                                         | a waiver (lib/waivers); one that cannot be  |
 * |                                                                        | read: an error failure of no kind           |
 * | a document that is not a Kubernetes object (not a mapping, or without  | error failure, every kind (kubectl apply    |
 * | apiVersion or kind)                                                    | refuses it too: "apiVersion not set")       |
 * | a document of a group of policy documents (tollgate.dev, a family's    | error failure, every kind: a policy that    |
 * | policyGroups, e.g. apiextensions.k8s.io) that no family takes          | could not be recognised (a misspelt kind)   |
 * | any other Kubernetes object no family takes                            | a note; kept as cluster state               |
 * | a non-YAML/JSON file no family takes                                   | a note                                      |
 *
 * "Every kind" ({@link EVERY_KIND}): the document may hold the policy of any kind, so the failure policy applies to
 * every object (lib/policy/policy-set.ts). Go files are the declarative family's: one that does not parse is its
 * failure, of every kind too.
 */

import { parseApiVersion } from "../objects/gvk.js";
import { unwrapList } from "../objects/list.js";
import { isMapping } from "../objects/mapping.js";
import type { BundleDocument, FamilyCompiler } from "../policy/family.js";
import { type BundleFile, EVERY_KIND, type PolicyFailure, type PolicyNote } from "../policy/types.js";
import type { WaiverCollector } from "../waivers/collect.js";
import { isWaiverDocument } from "../waivers/waiver.js";
import type { BundleEntry } from "./artifact.js";
import { BUNDLE_CONFIG_API_VERSION, BUNDLE_CONFIG_KIND, type BundleConfigDoc, parseBundleConfig } from "./config.js";

/** tollgate's own API group: BundleConfig (and artifacts, reports), never cluster state. */
const TOLLGATE_GROUP = "tollgate.dev";

/** What classifying the bundle's documents found. */
export interface Classified {
  config: BundleConfigDoc;
  /** Objects no family took as a policy: the bundle's cluster state (Namespaces, RBAC objects, parameters). */
  state: Record<string, unknown>[];
  /** The "not a policy document" note of each state object (dropped when a compiled family consults it). */
  stateNotes: Map<PolicyNote, Record<string, unknown>>;
}

/** Offers every file and document to the families; takes tollgate.yaml; keeps the rest as cluster state. */
export function classifyEntries(
  entries: readonly BundleEntry[],
  compilers: readonly FamilyCompiler[],
  failures: PolicyFailure[],
  notes: PolicyNote[],
  waivers: WaiverCollector,
): Classified {
  const classifier = new Classifier(compilers, failures, notes, waivers);
  for (const { file, documents } of entries) {
    if (documents === undefined) {
      if (!compilers.some((c) => c.claimFile(file)))
        notes.push({ file: file.path, message: "not a policy file: ignored" });
      continue;
    }
    for (const doc of documents) {
      if (doc.error !== undefined) {
        classifier.unusable({ file: file.path, document: doc.document }, doc.error, "decode");
        continue;
      }
      const items = unwrapList(doc.object);
      if (items === undefined) classifier.classify(doc.object, file, doc.document, "");
      else for (const [i, obj] of items.entries()) classifier.classify(obj, file, doc.document, `items[${i}]`);
    }
  }
  return classifier.out;
}

class Classifier {
  readonly out: Classified = { config: {}, state: [], stateNotes: new Map() };
  private configFile: string | undefined;
  private readonly policyGroups: ReadonlySet<string>;

  constructor(
    private readonly compilers: readonly FamilyCompiler[],
    private readonly failures: PolicyFailure[],
    private readonly notes: PolicyNote[],
    private readonly waivers: WaiverCollector,
  ) {
    this.policyGroups = new Set([TOLLGATE_GROUP, ...compilers.flatMap((c) => c.policyGroups ?? [])]);
  }

  /** An error-severity failure of every kind: the document may hold any kind's policy. */
  unusable(at: { file: string; document: number; path?: string }, message: string, stage: "decode" | "config"): void {
    const f: PolicyFailure = {
      severity: "error",
      family: "config",
      stage,
      file: at.file,
      document: at.document,
      message,
    };
    if (at.path !== undefined && at.path !== "") f.path = at.path;
    f.kinds = [EVERY_KIND];
    this.failures.push(f);
  }

  classify(obj: unknown, file: BundleFile, document: number, where: string): void {
    const at = { file: file.path, document, path: where };
    if (!isMapping(obj)) {
      this.unusable(at, `not a Kubernetes object (${describe(obj)}, not a mapping)`, "config");
      return;
    }
    const apiVersion = typeof obj.apiVersion === "string" ? obj.apiVersion : "";
    const kind = typeof obj.kind === "string" ? obj.kind : "";
    if (apiVersion === "" || kind === "") {
      // kubectl apply's own check (validation's "apiVersion not set, kind not set").
      const missing = [apiVersion === "" && "apiVersion not set", kind === "" && "kind not set"].filter(Boolean);
      this.unusable(at, `not a Kubernetes object: ${missing.join(", ")}`, "config");
      return;
    }
    if (apiVersion === BUNDLE_CONFIG_API_VERSION && kind === BUNDLE_CONFIG_KIND) {
      this.bundleConfig(obj, file, document);
      return;
    }
    if (isWaiverDocument(obj)) {
      this.waivers.add(obj, file.path, document, where);
      return;
    }
    const offered: BundleDocument = { object: obj, file: file.path, document };
    if (where !== "") offered.item = where;
    if (this.compilers.some((c) => c.claimDocument(offered))) return;
    const meta = isMapping(obj.metadata) ? obj.metadata : {};
    const name = typeof meta.name === "string" ? ` "${meta.name}"` : "";
    const group = parseApiVersion(apiVersion)?.group;
    if (group !== undefined && this.policyGroups.has(group)) {
      const message = `${apiVersion} ${kind}${name} is not a policy tollgate recognises, though ${group} holds policy documents (a misspelt kind, or a version tollgate does not read?)`;
      this.unusable(at, message, "config");
      return;
    }
    this.out.state.push(obj);
    const note: PolicyNote = {
      file: file.path,
      document,
      message: `not a policy document (${apiVersion} ${kind}${name}): ignored`,
    };
    if (where !== "") note.path = where;
    this.notes.push(note);
    this.out.stateNotes.set(note, obj);
  }

  private bundleConfig(obj: Record<string, unknown>, file: BundleFile, document: number): void {
    if (this.configFile !== undefined) {
      const message = `a second BundleConfig; the bundle already has one in ${this.configFile}`;
      this.failures.push({ file: file.path, document, severity: "error", family: "config", stage: "config", message });
      return;
    }
    this.configFile = file.path;
    this.out.config = parseBundleConfig(obj, file.path, document, this.failures);
  }
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  return `a ${typeof v === "bigint" ? "number" : typeof v}`;
}
