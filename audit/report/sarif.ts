/**
 * report.sarif: SARIF 2.1.0 (OASIS), for code hosts. One rule per (family, policy, rule); one result per finding,
 * with the finding id as a partial fingerprint (stable across runs). Locations point at the file (or archive member)
 * and the line where the object's document starts; each result also names the object as a logical location. A
 * waived finding keeps the level it has without its waiver and carries an accepted external suppression (SARIF
 * 2.1.0 §3.35) whose justification is the waiver's reason, so code hosts show it as suppressed.
 */
import type { AuditResult, Finding, FindingSeverity, Location } from "../model.js";
import { sharedProduct } from "./shared-pass.js";
import { JsonArrayWriter, nestedJson } from "./stream.js";
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

function ruleId(f: Finding): string {
  if (f.severity === "input-error") return "input-error";
  const parts: string[] = [f.rule.family];
  if (f.rule.policy !== undefined) parts.push(f.rule.policy);
  if (f.rule.rule !== undefined) parts.push(f.rule.rule);
  return f.severity === "policy-failure" ? `policy-failure/${parts.join("/")}` : parts.join("/");
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
 * The run's rules in the order their first findings come, and the results (their text, rendered in the shared pass:
 * a result's rule index is known when it is written, as its rule comes first at or before it).
 */
const sarifBody = sharedProduct((pass) => {
  const ruleIndex = new Map<string, number>();
  const rules: Record<string, unknown>[] = [];
  const results = pass.textSpool();
  const array = new JsonArrayWriter(3);
  return {
    finding(f: Finding) {
      const id = ruleId(f);
      let index = ruleIndex.get(id);
      if (index === undefined) {
        index = rules.length;
        ruleIndex.set(id, index);
        rules.push({
          id,
          name: f.rule.rule ?? f.rule.policy ?? f.severity,
          shortDescription: { text: ruleText(f) },
          properties: { family: f.rule.family },
        });
      }
      const text = array.push(resultOf(f, index));
      if (text !== undefined) results.append(text);
    },
    result() {
      results.append(array.end());
      return { rules, results };
    },
  };
});

/** Laid out as `JSON.stringify(sarif, null, 2)`; rules come before results (both from the shared pass). */
async function* sarifChunks(run: AuditResult): AsyncGenerator<string | Uint8Array> {
  const { rules, results } = await sarifBody(run);
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

function resultOf(f: Finding, index: number): Record<string, unknown> {
  const result: Record<string, unknown> = {
    ruleId: ruleId(f),
    ruleIndex: index,
    level: levelOf(f),
    message: { text: f.field === undefined ? f.message : `${f.field}: ${f.message}` },
    partialFingerprints: { "tollgateFindingId/v1": f.id },
    properties: propertiesOf(f),
  };
  if (f.severity === "waived" && f.waiver !== undefined) {
    const w = f.waiver;
    const properties: Record<string, string> = { waiver: w.name, owner: w.owner, expires: w.expires };
    if (w.ticket !== undefined) properties.ticket = w.ticket;
    result.suppressions = [{ kind: "external", status: "accepted", justification: w.reason, properties }];
  }
  if (f.location !== undefined || f.object !== undefined) {
    const location: Record<string, unknown> = {};
    if (f.location !== undefined) {
      const physical: Record<string, unknown> = { artifactLocation: { uri: artifactUri(f.location) } };
      if (f.location.line !== undefined) physical.region = { startLine: f.location.line };
      location.physicalLocation = physical;
    }
    if (f.object !== undefined) {
      const o = f.object;
      location.logicalLocations = [
        {
          fullyQualifiedName: `${o.apiVersion}/${o.kind}/${o.namespace === undefined ? "" : `${o.namespace}/`}${o.name}`,
          kind: "object",
        },
      ];
    }
    result.locations = [location];
  }
  return result;
}

function ruleText(f: Finding): string {
  if (f.severity === "input-error") return "A document that cannot be read as a Kubernetes object";
  const what = f.severity === "policy-failure" ? "Policy that cannot be used" : "Policy rule";
  return `${what}: ${[f.rule.family, f.rule.policy, f.rule.rule].filter((x) => x !== undefined).join(" ")}`;
}

function propertiesOf(f: Finding): Record<string, unknown> {
  const p: Record<string, unknown> = { severity: f.severity, firstSeen: f.firstSeen };
  if (f.ratchet !== undefined) p.ratchet = f.ratchet;
  if (f.field !== undefined) p.field = f.field;
  if (f.type !== undefined) p.type = f.type;
  if (f.team !== undefined) p.team = f.team;
  if (f.controller !== undefined) p.controller = f.controller;
  if (f.rule.binding !== undefined) p.binding = f.rule.binding;
  if (f.rule.param !== undefined) p.param = f.rule.param;
  if (f.rule.index !== undefined) p.index = f.rule.index;
  if (f.waiver !== undefined) p.waiver = f.waiver;
  return p;
}
