/**
 * `tollgate validate`: every object of every input, validated as kube-apiserver would on admission, printed as
 * kubectl prints the answer. See `tollgate validate --help` and README.md for the output formats.
 */

import type { PolicySet, Status, ValidateRequest, Verdict } from "#lib";
import { badRequestStatus, invalidStatus, loadBundle, successStatus } from "#lib";
import { appendAll } from "#lib/objects/append.js";
import { bundleLimitsOf } from "../../config.js";
import type { Location, ObjectOutcome } from "../../model.js";
import {
  DEFAULT_SOURCE_OPTIONS,
  type KubeObject,
  openSource,
  type Source,
  type SourceDoc,
  type SourceOptions,
  type SourceUnit,
  statPath,
} from "../../sources/index.js";
import type { ResolvedValidateConfig } from "../args.js";
import type { CommandIo, CommandOutcome } from "../io.js";
import { invalidObjectText, type ObjectIdentity, objectRef } from "../kubectl-text.js";

/** The result of one document (or List item). */
interface ObjectResult {
  location: Location;
  outcome: Exclude<ObjectOutcome, "not-kubernetes">;
  identity?: ObjectIdentity;
  /** Absent for skipped objects and errors. */
  verdict?: Verdict;
  /** For outcome "error": why the document could not be used. */
  error?: string;
}

export async function runValidate(config: Readonly<ResolvedValidateConfig>, io: CommandIo): Promise<CommandOutcome> {
  await statPath(config.bundle, "bundle path");
  // The inputs are read as `tollgate audit` reads its sources (audit/sources), each file of a folder included;
  // documents that are not Kubernetes objects are errors here, since every document given is meant to be one.
  const options: SourceOptions = {
    ...DEFAULT_SOURCE_OPTIONS,
    maxFileBytes: config.maxInputBytes,
    nonKubernetes: "error",
    ...(config.maxDocumentBytes !== undefined && { maxDocumentBytes: config.maxDocumentBytes }),
  };
  const oldSource =
    config.old === undefined ? undefined : await openSource(config.old, options, { label: "--old path" });
  const units = await listUnits(config.inputs, options, io);
  if (units.length === 0) io.stderr(`warning: no *.yaml, *.yml or *.json files in ${config.inputs.join(", ")}\n`);

  const policySet = await loadBundle(config.bundle, { limits: bundleLimitsOf(config.maxDocumentBytes) });
  const errorFailures = policySet.failures.filter((f) => f.severity === "error").length;
  if (errorFailures > 0) {
    io.stderr(
      `error: the bundle ${config.bundle} has ${plural(errorFailures, "policy failure")} of severity error; ` +
        `run 'tollgate lint --bundle ${config.bundle}' for details\n`,
    );
  }

  const results: ObjectResult[] = [];
  let olds: OldObjects | undefined;
  if (oldSource !== undefined) {
    const docs = await readDocs(oldSource);
    olds = new OldObjects(config.old!, docs);
    // An unreadable stored object is an input error like any other; the rest still pairs.
    for (const d of docs) if (d.kind !== "object") results.push(errorResult(d));
  }

  const text = config.output === "text" ? new TextPrinter(io, config) : undefined;
  if (text !== undefined) {
    text.start(policySet);
    for (const r of results) text.print(r);
  }

  for (const unit of units) {
    const docs = await unit.read();
    text?.file(unit.name);
    for (const doc of docs) {
      const result = validateDoc(doc, policySet, config, olds, units.length === 1 && docs.length === 1);
      results.push(result);
      text?.print(result);
    }
  }

  if (text !== undefined) text.end(results, units.length);
  else io.stdout(`${JSON.stringify(results.map(jsonEntry), null, 2)}\n`);

  if (config.demo) return "ok";
  // A bundle with an error-severity policy failure fails the run, as `tollgate audit` and `tollgate lint` do, even
  // when no object here is of a kind it breaks: the bundle is not what its author meant.
  if (errorFailures > 0) return "violations";
  return results.some((r) => r.outcome === "invalid" || r.outcome === "error") ? "violations" : "ok";
}

/**
 * The units (files, archive members, standard input) of the inputs, in order. Every input is opened first, so that
 * one that does not exist is a usage error (exit 2) before anything is validated.
 */
async function listUnits(inputs: readonly string[], options: SourceOptions, io: CommandIo): Promise<SourceUnit[]> {
  const sources: Source[] = [];
  for (const input of inputs) sources.push(await openSource(input, options, { label: "input path", stdin: io.stdin }));
  const units: SourceUnit[] = [];
  for (const source of sources) for await (const unit of source.units()) units.push(unit);
  return units;
}

/** Every document of a source, read whole. */
async function readDocs(source: Source): Promise<SourceDoc[]> {
  const docs: SourceDoc[] = [];
  for await (const unit of source.units()) appendAll(docs, await unit.read());
  return docs;
}

function errorResult(doc: Exclude<SourceDoc, { kind: "object" }>): ObjectResult {
  // Documents that are not Kubernetes objects are errors with `nonKubernetes: "error"`; never skipped here.
  const error = doc.kind === "error" ? doc.error : "not a Kubernetes object";
  return { location: doc.location, outcome: "error", error };
}

function validateDoc(
  doc: SourceDoc,
  policySet: PolicySet,
  config: Readonly<ResolvedValidateConfig>,
  olds: OldObjects | undefined,
  isOnlyObject: boolean,
): ObjectResult {
  if (doc.kind !== "object") return errorResult(doc);
  const { object, location } = doc;
  const identity = identityOf(object);
  if (!policySet.covers(object.apiVersion, object.kind)) return { location, outcome: "skipped", identity };

  const request: ValidateRequest = { operation: config.operation, object };
  if (config.operation === "UPDATE" && olds !== undefined) {
    const old = olds.find(object, isOnlyObject);
    if (old === undefined) {
      return {
        location,
        outcome: "error",
        identity,
        error: `${documentText(location)}no stored object with apiVersion ${object.apiVersion}, kind ${object.kind}, ${namespaceText(identity)}name ${JSON.stringify(identity.name)} in ${olds.file} to update`,
      };
    }
    request.oldObject = old;
  } else if (config.operation === "DELETE") {
    // The object being deleted is also the stored one (an AdmissionReview for DELETE carries it as oldObject).
    request.oldObject = object;
  }
  if (config.subresource !== undefined) request.subresource = config.subresource;

  const verdict = policySet.validate(request);
  // covers() answers for the group and kind; the verdict knows better (a family turned off in tollgate.yaml).
  if (!verdict.covered && verdict.allowed) return { location, outcome: "skipped", identity };
  return { location, outcome: verdict.allowed ? "valid" : "invalid", identity, verdict };
}

/**
 * `document <n> (line <l>): ` (plus `item <i>: ` inside a List) in the decoder's format, or "" for a result not
 * tied to a document.
 */
function documentText(location: Location): string {
  if (location.document === undefined) return "";
  const line = location.line === undefined ? "" : ` (line ${location.line})`;
  const item = location.item === undefined ? "" : `item ${location.item}: `;
  return `document ${location.document}${line}: ${item}`;
}

function namespaceText(identity: ObjectIdentity): string {
  return identity.namespace === undefined ? "" : `namespace ${JSON.stringify(identity.namespace)}, `;
}

function identityOf(object: KubeObject): ObjectIdentity {
  const metadata = object.metadata;
  const meta = typeof metadata === "object" && metadata !== null ? (metadata as Record<string, unknown>) : {};
  const slash = object.apiVersion.indexOf("/");
  const identity: ObjectIdentity = {
    apiVersion: object.apiVersion,
    group: slash < 0 ? "" : object.apiVersion.slice(0, slash),
    kind: object.kind,
    name: typeof meta.name === "string" ? meta.name : "",
  };
  if (typeof meta.namespace === "string" && meta.namespace !== "") identity.namespace = meta.namespace;
  return identity;
}

/**
 * The stored objects of `--old`, matched to new objects by apiVersion, kind, namespace and name. A file with a
 * single stored object pairs with a file holding a single new object, whatever their names.
 */
class OldObjects {
  private readonly byKey = new Map<string, KubeObject>();
  private readonly single: KubeObject | undefined;

  constructor(
    readonly file: string,
    docs: readonly SourceDoc[],
  ) {
    const objects = docs.flatMap((d) => (d.kind === "object" ? [d.object] : []));
    for (const o of objects) this.byKey.set(keyOf(identityOf(o)), o);
    this.single = objects.length === 1 ? objects[0] : undefined;
  }

  /** @param isOnlyObject the run validates this one object and nothing else */
  find(object: KubeObject, isOnlyObject: boolean): KubeObject | undefined {
    const exact = this.byKey.get(keyOf(identityOf(object)));
    if (exact !== undefined) return exact;
    return isOnlyObject ? this.single : undefined;
  }
}

function keyOf(id: ObjectIdentity): string {
  return JSON.stringify([id.apiVersion, id.kind, id.namespace ?? "", id.name]);
}

/** Text output: kubectl's wording for each object, in input order. */
class TextPrinter {
  constructor(
    private readonly io: CommandIo,
    private readonly config: Readonly<ResolvedValidateConfig>,
  ) {}

  start(policySet: PolicySet): void {
    if (!this.config.demo) return;
    const kinds = policySet.kinds.map((k) => k.kind).join(", ");
    this.io.stdout(
      `tollgate demo: validating ${this.config.inputs.join(" ")} against the bundle ${this.config.bundle}\n` +
        `(${plural(policySet.kinds.length, "kind")}${kinds.length > 0 ? `: ${kinds}` : ""}; ` +
        `${plural(policySet.failures.length, "policy failure")}).\n` +
        "Several examples are invalid on purpose; each says in its leading comment what is wrong.\n",
    );
  }

  /** In --demo, a header before each file's results. */
  file(name: string): void {
    if (this.config.demo) this.io.stdout(`\n# ${name}\n`);
  }

  print(result: ObjectResult): void {
    const { io } = this;
    switch (result.outcome) {
      case "error": {
        const { file, entry } = result.location;
        io.stdout(`${entry === undefined ? file : `${file}!${entry}`}: ${result.error ?? "error"}\n`);
        return;
      }
      case "skipped": {
        const id = result.identity!;
        io.stdout(`${objectRef(id)} skipped (no policy for ${id.apiVersion}/${id.kind})\n`);
        return;
      }
      case "valid":
      case "invalid": {
        const verdict = result.verdict!;
        // kubectl prints the server's warnings as they arrive, before the result of the request.
        for (const w of verdict.warningTexts) io.stdout(`Warning: ${w}\n`);
        io.stdout(
          result.outcome === "valid"
            ? `${objectRef(result.identity!)} valid\n`
            : invalidObjectText(result.identity!, verdict.errors),
        );
        return;
      }
    }
  }

  end(results: readonly ObjectResult[], files: number): void {
    if (!this.config.summary) return;
    const count = (o: ObjectResult["outcome"]) => results.filter((r) => r.outcome === o).length;
    const objects = results.length - count("error");
    this.io.stdout(
      `${this.config.demo ? "\n" : ""}Summary: ${plural(objects, "object")} in ${plural(files, "file")}: ` +
        `${count("valid")} valid, ${count("invalid")} invalid, ${count("skipped")} skipped, ` +
        `${plural(count("error"), "error")}\n`,
    );
  }
}

/** One entry of `-o json`: where the object is, what it is, and the `Status` the API server would answer. */
function jsonEntry(result: ObjectResult): Record<string, unknown> {
  const entry: Record<string, unknown> = { file: result.location.file };
  if (result.location.entry !== undefined) entry.entry = result.location.entry;
  if (result.location.document !== undefined) entry.document = result.location.document;
  if (result.location.line !== undefined) entry.line = result.location.line;
  if (result.location.item !== undefined) entry.item = result.location.item;
  const id = result.identity;
  if (id !== undefined) {
    entry.apiVersion = id.apiVersion;
    entry.kind = id.kind;
    if (id.namespace !== undefined) entry.namespace = id.namespace;
    entry.name = id.name;
  }
  entry.outcome = result.outcome;
  entry.status = statusOf(result);
  entry.warnings = result.verdict?.warningTexts ?? [];
  return entry;
}

/** The `metav1.Status` the API server would answer for this entry (a dry-run create of a bare object). */
function statusOf(result: ObjectResult): Status {
  switch (result.outcome) {
    case "valid":
      return successStatus();
    case "skipped": {
      const id = result.identity!;
      return successStatus(`no policy for ${id.apiVersion}/${id.kind}`);
    }
    case "invalid": {
      const { group, kind, name } = result.identity!;
      return invalidStatus({ group, kind }, name, result.verdict!.errors);
    }
    case "error":
      return badRequestStatus(result.error ?? "error");
  }
}

function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n} ${n === 1 ? word : pluralWord}`;
}
