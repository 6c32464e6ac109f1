/**
 * report.sarif: SARIF 2.1.0 (OASIS), for code hosts. One rule per (family, policy, rule); one result per finding,
 * with the finding id as a partial fingerprint (stable across runs). Locations point at the file (or archive member)
 * and the line where the object's document starts; each result also names the object as a logical location.
 */
import type { Finding, FindingSeverity, Location } from "../model.js";
import type { ReportWriter } from "./types.js";

const LEVEL: Record<FindingSeverity, "error" | "warning" | "note"> = {
  violation: "error",
  "template-annotation-failure": "error",
  "input-error": "error",
  "policy-failure": "error",
  warning: "warning",
  shadow: "note",
};

function ruleId(f: Finding): string {
  if (f.severity === "input-error") return "input-error";
  const parts: string[] = [f.rule.family];
  if (f.rule.policy !== undefined) parts.push(f.rule.policy);
  if (f.rule.rule !== undefined) parts.push(f.rule.rule);
  return f.severity === "policy-failure" ? `policy-failure/${parts.join("/")}` : parts.join("/");
}

/** A relative URI with forward slashes (percent-encoded), or a file: URI for an absolute path. */
export function artifactUri(l: Location): string {
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
    const ruleIndex = new Map<string, number>();
    const rules: Record<string, unknown>[] = [];
    const results: Record<string, unknown>[] = [];
    for (const f of run.findings) {
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
      const result: Record<string, unknown> = {
        ruleId: id,
        ruleIndex: index,
        level: f.severity === "policy-failure" && f.type === "warning" ? "warning" : LEVEL[f.severity],
        message: { text: f.field === undefined ? f.message : `${f.field}: ${f.message}` },
        partialFingerprints: { "tollgateFindingId/v1": f.id },
        properties: propertiesOf(f),
      };
      const locations: Record<string, unknown>[] = [];
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
        locations.push(location);
      }
      if (locations.length > 0) result.locations = locations;
      results.push(result);
    }
    const sarif = {
      $schema: "https://json.schemastore.org/sarif-2.1.0.json",
      version: "2.1.0",
      runs: [
        {
          tool: {
            driver: {
              name: "tollgate",
              version: run.tool.version,
              informationUri: "https://github.com/tollgate-dev/tollgate",
              rules,
            },
          },
          invocations: [
            {
              executionSuccessful: true,
              startTimeUtc: run.startedAt,
              endTimeUtc: run.finishedAt,
            },
          ],
          results,
          properties: { runId: run.runId, bundleDigest: run.bundle.digest, summary: run.summary },
        },
      ],
    };
    return [
      { name: "report.sarif", content: `${JSON.stringify(sarif, null, 2)}\n`, contentType: "application/sarif+json" },
    ];
  },
};

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
  if (f.owner !== undefined) p.owner = f.owner;
  return p;
}
