/**
 * report.sarif: SARIF 2.1.0 (OASIS), for code hosts. One rule per (family, policy, rule); one result per finding,
 * with the finding id as a partial fingerprint (stable across runs). Locations point at the file (or archive member)
 * and the line where the object's document starts; each result also names the object as a logical location. A
 * waived finding keeps the level it has without its waiver and carries an accepted external suppression (SARIF
 * 2.1.0 §3.35) whose justification is the waiver's reason, so code hosts show it as suppressed.
 */
import { type AuditResult, type Finding, type FindingSeverity, type Location, ruleId } from "../model.js";
import { sharedStream } from "./shared-pass.js";
import { nestedJson } from "./stream.js";
import type { ReportWriter } from "./types.js";

const LEVEL: Record<FindingSeverity, "error" | "warning" | "note"> = {
  violation: "error",
  "template-annotation-failure": "error",
  "input-error": "error",
  "policy-failure": "error",
  warning: "warning",
  audit: "note",
  shadow: "note",
  // Replaced by the level of the severity the finding has without its waiver (levelOf).
  waived: "note",
};

function levelOf(f: Finding): "error" | "warning" | "note" {
  if (f.severity === "policy-failure" && f.type === "warning") return "warning";
  if (f.severity === "waived" && f.waiver?.severity !== undefined) return LEVEL[f.waiver.severity];
  return LEVEL[f.severity];
}

/** A relative URI with forward slashes (percent-encoded), or a file: URI for an absolute path. */
function artifactUri(l: Location): string {
  const path = (l.entry ?? l.file).replace(/\\/g, "/");
  const encoded = path
    .split("/")
    .map((s) => encodeURIComponent(s))
    .join("/");
  return path.startsWith("/") ? `file://${encoded}` : encoded;
}

export const sarifWriter: ReportWriter = {
  name: "sarif",
  render(run) {
    sarifBody.want(run);
    return [{ name: "report.sarif", chunks: () => sarifChunks(run), contentType: "application/sarif+json" }];
  },
};

/**
 * The results, rendered in the shared pass as the file is written: the rules come before them in the file, from the
 * run's rule list (its findings' rules in the order their first findings come), so each result's rule index is known.
 */
const sarifBody = sharedStream((pass) => {
  const ruleIndex = new Map(pass.run.rules.map((r, i) => [r.id, i]));
  const results = pass.liveText();
  let first = true;
  return {
    finding(f: Finding) {
      const id = ruleId(f);
      const index = ruleIndex.get(id);
      if (index === undefined) throw new Error(`the rule ${JSON.stringify(id)} of a finding is not in the run's rules`);
      results.append(`${first ? "[\n" : ",\n"}${resultText(f, id, index)}`);
      first = false;
    },
    early: { results },
    result() {
      results.append(first ? "[]" : `\n${RESULTS_PAD}]`);
      return { results };
    },
  };
});

/** The run's rule table. */
function rulesOf(run: AuditResult): Record<string, unknown>[] {
  return run.rules.map((r) => ({
    id: r.id,
    name: r.rule.rule ?? r.rule.policy ?? r.severity,
    shortDescription: { text: ruleText(r) },
    properties: { family: r.rule.family },
  }));
}

/** Laid out as `JSON.stringify(sarif, null, 2)`; rules (the run's list) come before results (the shared pass's). */
async function* sarifChunks(run: AuditResult): AsyncGenerator<string | Uint8Array> {
  const { results } = await sarifBody(run);
  const rules = rulesOf(run);
  const head = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
  };
  const runHead = {
    tool: {
      driver: {
        name: "tollgate",
        version: run.tool.version,
        informationUri: "https://github.com/tollgate-dev/tollgate",
        rules,
      },
    },
    invocations: [{ executionSuccessful: true, startTimeUtc: run.startedAt, endTimeUtc: run.finishedAt }],
  };
  const properties = { runId: run.runId, bundleDigest: run.bundle.digest, summary: run.summary };
  const members = (o: Record<string, unknown>, depth: number): string =>
    Object.entries(o)
      .map(([k, v]) => `${"  ".repeat(depth)}${JSON.stringify(k)}: ${nestedJson(v, depth)}`)
      .join(",\n");
  yield `{\n${members(head, 1)},\n  "runs": [\n    {\n${members(runHead, 3)},\n      "results": `;
  yield* results.chunks();
  yield `,\n${members({ properties }, 3)}\n    }\n  ]\n}\n`;
}

/** The results array's indentation (it is nested three levels deep: sarif.runs[0].results). */
const RESULTS_PAD = "      ";
/** A result's members, and theirs, one and two levels deeper. */
const P1 = "          ";
const P2 = `${P1}  `;
const P3 = `${P2}  `;
const P4 = `${P3}  `;
const P5 = `${P4}  `;
const j = JSON.stringify;

/** Any JSON value as `JSON.stringify(value, null, 2)` lays it out with its first line at `pad` (strings hold no line feed). */
function nested(value: unknown, pad: string): string {
  return j(value, null, 2).replaceAll("\n", `\n${pad}`);
}

/**
 * A result, as `JSON.stringify` of the result object (ruleId, ruleIndex, level, message, partialFingerprints,
 * properties, then suppressions and locations when there are) lays it out as an item of the results array, written
 * straight from the finding: building each result's object and stringifying it was most of the file's time.
 */
function resultText(f: Finding, id: string, index: number): string {
  let out =
    `${RESULTS_PAD}  {\n${P1}"ruleId": ${j(id)},\n${P1}"ruleIndex": ${index},\n${P1}"level": ${j(levelOf(f))},\n` +
    `${P1}"message": {\n${P2}"text": ${j(f.field === undefined ? f.message : `${f.field}: ${f.message}`)}\n${P1}},\n` +
    `${P1}"partialFingerprints": {\n${P2}"tollgateFindingId/v1": ${j(f.id)}\n${P1}},\n` +
    `${P1}"properties": {\n${propertiesText(f)}\n${P1}}`;
  if (f.severity === "waived" && f.waiver !== undefined) {
    const w = f.waiver;
    out +=
      `,\n${P1}"suppressions": [\n${P2}{\n${P3}"kind": "external",\n${P3}"status": "accepted",\n` +
      `${P3}"justification": ${j(w.reason)},\n${P3}"properties": {\n${P4}"waiver": ${j(w.name)},\n` +
      `${P4}"owner": ${j(w.owner)},\n${P4}"expires": ${j(w.expires)}` +
      `${w.ticket === undefined ? "" : `,\n${P4}"ticket": ${j(w.ticket)}`}\n${P3}}\n${P2}}\n${P1}]`;
  }
  if (f.location !== undefined || f.object !== undefined) {
    const members: string[] = [];
    if (f.location !== undefined) {
      const uri = `${P4}"artifactLocation": {\n${P5}"uri": ${j(artifactUri(f.location))}\n${P4}}`;
      const region =
        f.location.line === undefined ? "" : `,\n${P4}"region": {\n${P5}"startLine": ${j(f.location.line)}\n${P4}}`;
      members.push(`${P3}"physicalLocation": {\n${uri}${region}\n${P3}}`);
    }
    if (f.object !== undefined) {
      const o = f.object;
      const name = `${o.apiVersion}/${o.kind}/${o.namespace === undefined ? "" : `${o.namespace}/`}${o.name}`;
      members.push(
        `${P3}"logicalLocations": [\n${P4}{\n${P5}"fullyQualifiedName": ${j(name)},\n${P5}"kind": "object"\n${P4}}\n${P3}]`,
      );
    }
    out += `,\n${P1}"locations": [\n${P2}{\n${members.join(",\n")}\n${P2}}\n${P1}]`;
  }
  return `${out}\n${RESULTS_PAD}  }`;
}

/** A property's line, when it has a value. */
function property(key: string, value: unknown): string {
  return value === undefined ? "" : `,\n${P2}${j(key)}: ${nested(value, P2)}`;
}

/** The result's properties' members (severity, firstSeen, then those the finding has), as {@link resultText} lays them out. */
function propertiesText(f: Finding): string {
  return (
    `${P2}"severity": ${j(f.severity)},\n${P2}"firstSeen": ${j(f.firstSeen)}` +
    property("ratchet", f.ratchet) +
    property("field", f.field) +
    property("type", f.type) +
    property("team", f.team) +
    property("controller", f.controller) +
    property("binding", f.rule.binding) +
    property("param", f.rule.param) +
    property("index", f.rule.index) +
    property("waiver", f.waiver)
  );
}

function ruleText(f: Pick<Finding, "severity" | "rule">): string {
  if (f.severity === "input-error") return "A document that cannot be read as a Kubernetes object";
  const what = f.severity === "policy-failure" ? "Policy that cannot be used" : "Policy rule";
  return `${what}: ${[f.rule.family, f.rule.policy, f.rule.rule].filter((x) => x !== undefined).join(" ")}`;
}
