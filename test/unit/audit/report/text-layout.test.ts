/**
 * The writers that render their rows as text straight from the findings (report.sarif's results, the lines of
 * fielderrors.ndjson) write exactly what `JSON.stringify` writes for the same values: checked on findings with every
 * optional member present and absent, and text that JSON must escape, on a run kept in memory and on one on disk.
 */
import { describe, expect, it } from "vitest";
import type { AuditResult, Finding, ObjectRecord } from "../../../../audit/model.js";
import { disposeResult, type RunFacts, RunRecorder } from "../../../../audit/recorder.js";
import { releaseReports, renderReports } from "../../../../audit/report/index.js";
import { textOf } from "../../../../audit/report/stream.js";

const START = new Date("2026-11-22T02:15:00.000Z");
const ODD = 'quote " backslash \\ line\nbreak tab\t control \u0001 non-BMP \u{1f600} lone \ud800 </script>';

function finding(n: number, extra: Partial<Finding>): Finding {
  return {
    id: `f${n}`,
    severity: "violation",
    rule: { family: "crd", policy: "widgets.example.com", rule: "self.a > 0" },
    message: `message ${n}`,
    firstSeen: "2026-01-01T00:00:00.000Z",
    ...extra,
  };
}

const object = { apiVersion: "example.com/v1", kind: "Widget", namespace: "team-a", name: "w" };

/** Documents with their findings: every optional member of a finding, present and absent. */
const DOCUMENTS: { record: ObjectRecord; findings: Finding[] }[] = [
  {
    record: { key: "a", object, location: { file: "in.yaml", line: 3 }, outcome: "invalid", findings: 2 },
    findings: [
      finding(1, {
        object,
        location: { file: "in.yaml", document: 0, line: 3 },
        field: "spec.a",
        type: "FieldValueInvalid",
        ratchet: "blocking",
        team: "team-a",
        controller: "Deployment/api",
        message: ODD,
      }),
      finding(2, {
        severity: "waived",
        object,
        location: { file: "/abs/dir with space/in.yaml", entry: "member #1.yaml" },
        rule: { family: "admission-policy", policy: "p", rule: "r", binding: "b", param: "ns/p", index: 2 },
        waiver: {
          name: "w1",
          owner: "o",
          expires: "2027-01-01T00:00:00Z",
          reason: ODD,
          ticket: "T-1",
          severity: "violation",
        },
      }),
    ],
  },
  {
    record: {
      key: "b",
      object: { apiVersion: "v1", kind: "Namespace", name: ODD, uid: "u-1" },
      location: { file: "in.yaml" },
      outcome: "invalid",
      findings: 3,
      hasStatus: true,
    },
    findings: [
      finding(3, { object: { apiVersion: "v1", kind: "Namespace", name: ODD, uid: "u-1" }, field: "<nil>" }),
      finding(4, {
        severity: "template-annotation-failure",
        object: { apiVersion: "v1", kind: "Namespace", name: ODD, uid: "u-1" },
        rule: { family: "kubevirt" },
        waiver: { name: "w2", owner: "o", expires: "2020-01-01T00:00:00Z", reason: "r", expired: true },
      }),
      finding(5, { severity: "warning", rule: { family: "crd", policy: "p" }, object }),
    ],
  },
  {
    record: { key: "c", object, location: { file: "in.yaml" }, outcome: "valid", findings: 0, hasFieldErrors: true },
    findings: [],
  },
  {
    record: { key: "d", location: { file: "bad.yaml", line: 1 }, outcome: "error", findings: 1 },
    findings: [finding(6, { severity: "input-error", rule: { family: "input" }, location: { file: "bad.yaml" } })],
  },
];

const FACTS: RunFacts = {
  finishedAt: "2026-11-22T02:15:01.000Z",
  tool: { name: "tollgate", version: "0.0.0-test" },
  bundle: { source: "b", digest: "sha256:0", kinds: 1, policiesFromInput: 0 },
  sources: ["in.yaml"],
  failOn: "violation",
};

async function runOf(memoryItems: number): Promise<AuditResult> {
  const recorder = new RunRecorder(START, { spool: { memoryItems } });
  recorder.finding(
    finding(0, { severity: "policy-failure", type: "warning", rule: { family: "crd", policy: "broken" } }),
  );
  for (const { record, findings } of DOCUMENTS) {
    recorder.object(record);
    for (const f of findings) recorder.finding(structuredClone(f));
  }
  return recorder.finish(FACTS, 0);
}

async function files(memoryItems: number): Promise<Map<string, string>> {
  const run = await runOf(memoryItems);
  try {
    const out = new Map<string, string>();
    for (const f of renderReports(run, ["sarif", "fielderrors"])) out.set(f.name, await textOf(f.chunks()));
    return out;
  } finally {
    releaseReports(run);
    disposeResult(run);
  }
}

describe("rows rendered as text", () => {
  it.each([{ memoryItems: 10_000 }, { memoryItems: 0 }])(
    "are laid out as JSON.stringify lays out the values (spool memoryItems $memoryItems)",
    async ({ memoryItems }) => {
      const out = await files(memoryItems);
      const sarif = out.get("report.sarif")!;
      expect(sarif).toBe(`${JSON.stringify(JSON.parse(sarif), null, 2)}\n`);
      const lines = out.get("fielderrors.ndjson")!.split("\n");
      expect(lines.pop()).toBe("");
      expect(lines).toHaveLength(3);
      for (const line of lines) expect(line).toBe(JSON.stringify(JSON.parse(line)));
    },
  );

  it("hold what each finding says", async () => {
    const out = await files(0);
    const results = JSON.parse(out.get("report.sarif")!).runs[0].results as Record<string, unknown>[];
    expect(results.map((r) => r.ruleId)).toEqual([
      "policy-failure/crd/broken",
      "crd/widgets.example.com/self.a > 0",
      "admission-policy/p/r",
      "crd/widgets.example.com/self.a > 0",
      "kubevirt",
      "crd/p",
      "input-error",
    ]);
    expect(results.map((r) => r.ruleIndex)).toEqual([0, 1, 2, 1, 3, 4, 5]);
    expect(results.map((r) => r.level)).toEqual(["warning", "error", "error", "error", "error", "warning", "error"]);
    expect(results[1]).toMatchObject({
      message: { text: `spec.a: ${ODD}` },
      properties: {
        severity: "violation",
        ratchet: "blocking",
        field: "spec.a",
        type: "FieldValueInvalid",
        team: "team-a",
        controller: "Deployment/api",
      },
      locations: [
        {
          physicalLocation: { artifactLocation: { uri: "in.yaml" }, region: { startLine: 3 } },
          logicalLocations: [{ fullyQualifiedName: "example.com/v1/Widget/team-a/w", kind: "object" }],
        },
      ],
    });
    expect(results[2]).toMatchObject({
      properties: { binding: "b", param: "ns/p", index: 2, waiver: DOCUMENTS[0]!.findings[1]!.waiver },
      suppressions: [
        {
          kind: "external",
          status: "accepted",
          justification: ODD,
          properties: { waiver: "w1", owner: "o", expires: "2027-01-01T00:00:00Z", ticket: "T-1" },
        },
      ],
      locations: [{ physicalLocation: { artifactLocation: { uri: "member%20%231.yaml" } } }],
    });
    // No line: no region.
    expect((results[2]!.locations as { physicalLocation: unknown }[])[0]!.physicalLocation).toEqual({
      artifactLocation: { uri: "member%20%231.yaml" },
    });
    expect(results[0]).not.toHaveProperty("locations");
    expect(results[4]).not.toHaveProperty("suppressions");

    const lines = out
      .get("fielderrors.ndjson")!
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[1]).toEqual({
      apiVersion: "v1",
      kind: "Namespace",
      name: ODD,
      uid: "u-1",
      subresource: "status",
      patch: [
        {
          op: "add",
          path: "/status/fieldErrors",
          value: [
            { type: "FieldValueInvalid", detail: "message 3", origin: "tollgate/crd/widgets.example.com" },
            { type: "FieldValueInvalid", detail: "message 4", origin: "tollgate/kubevirt" },
          ],
        },
      ],
    });
    expect(lines[2]).toEqual({
      apiVersion: "example.com/v1",
      kind: "Widget",
      namespace: "team-a",
      name: "w",
      subresource: "status",
      patch: [{ op: "remove", path: "/status/fieldErrors" }],
    });
  });
});
