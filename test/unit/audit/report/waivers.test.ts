/**
 * Waivers in the auditor: the fixture run with test/fixtures/audit/waivers (one active, one expiring, one expired,
 * one unused at the fixed start) — waived findings keep their id, fail nothing and carry their waiver in every
 * format (SARIF suppressions, JUnit skipped, PolicyReport/OpenReports skip, CSV columns, HTML section); the expired
 * waiver's finding stays a violation and says so; the same run on worker threads gives the same reports.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WAIVER_IN_INPUT } from "../../../../audit/audit-document.js";
import { type AuditResult, summaryReachesFailOn } from "../../../../audit/model.js";
import { loadPolicies } from "../../../../audit/policies.js";
import { disposeResult } from "../../../../audit/recorder.js";
import { renderReports } from "../../../../audit/report/index.js";
import { textOf } from "../../../../audit/report/stream.js";
import { runAudit } from "../../../../audit/run.js";
import { DEFAULT_SOURCE_OPTIONS, openSource } from "../../../../audit/sources/index.js";
import { parseDocuments } from "../../../../lib/index.js";
import { auditFixture, FIXED_START, FIXTURE_BUNDLE } from "../audit-fixture.js";

const run: AuditResult = await auditFixture({ previous: true, waivers: true });
const plain: AuditResult = await auditFixture({ previous: true });
const files = new Map(
  await Promise.all(renderReports(run).map(async (f) => [f.name, await textOf(f.chunks())] as const)),
);
const findings = await run.findings.toArray();
const plainFindings = await plain.findings.toArray();
disposeResult(plain);

describe("waived findings", () => {
  it("keep the id they have without the waiver, and name the waiver, its owner and expiry", () => {
    const waived = findings.filter((f) => f.severity === "waived");
    expect(waived.map((f) => [f.object?.name, f.field, f.waiver])).toEqual([
      [
        "legacy",
        "spec.replicas",
        {
          name: "legacy-replicas",
          owner: "team-a",
          expires: "2030-01-01T00:00:00Z",
          reason: "legacy widgets keep their replica count until they are migrated",
          ticket: "MIG-7",
          severity: "violation",
        },
      ],
      [
        "changed",
        "metadata.labels",
        {
          name: "changed-labels",
          owner: "team-a",
          expires: "2026-11-30T00:00:00Z",
          reason: "labels are rewritten by the next release",
          severity: "violation",
        },
      ],
    ]);
    expect(findings.map((f) => f.id)).toEqual(plainFindings.map((f) => f.id));
  });

  it("an expired waiver waives nothing, and the finding it covered says so", () => {
    const lapsed = findings.filter((f) => f.waiver?.expired === true);
    expect(lapsed.map((f) => [f.severity, f.object?.name, f.field, f.waiver?.name])).toEqual([
      ["violation", "leaky", "spec.size", "leaky-size"],
    ]);
  });

  it("do not fail --fail-on, and the summary counts the waivers by standing", () => {
    expect(run.summary.findings.waived).toBe(2);
    expect(run.summary.findings.violation).toBe(plain.summary.findings.violation - 2);
    expect(run.summary.waivers).toEqual({ total: 4, active: 2, expiring: 1, expired: 1, unused: 1 });
    expect(run.waivers?.map((w) => [w.name, w.standing, w.waived, w.lapsed])).toEqual([
      ["legacy-replicas", "active", 1, 0],
      ["changed-labels", "expiring", 1, 0],
      ["leaky-size", "expired", 0, 1],
      ["broken-gizmo", "active", 0, 0],
    ]);
    const onlyWaived = { ...run.summary, findings: { ...run.summary.findings, violation: 0, "input-error": 0 } };
    expect(summaryReachesFailOn({ ...onlyWaived, policyFailures: { error: 0, warning: 0 } }, "audit")).toBe(false);
  });
});

describe("every format carries the waiver", () => {
  it("SARIF: an accepted external suppression with the waiver's reason, the level of the unwaived severity", () => {
    const sarif = JSON.parse(files.get("report.sarif")!) as {
      runs: { results: { level: string; suppressions?: unknown[]; properties: { severity: string } }[] }[];
    };
    const waived = sarif.runs[0]!.results.filter((r) => r.properties.severity === "waived");
    expect(waived).toHaveLength(2);
    expect(waived[0]).toMatchObject({
      level: "error",
      suppressions: [
        {
          kind: "external",
          status: "accepted",
          justification: "legacy widgets keep their replica count until they are migrated",
          properties: { waiver: "legacy-replicas", owner: "team-a", expires: "2030-01-01T00:00:00Z", ticket: "MIG-7" },
        },
      ],
    });
    expect(sarif.runs[0]!.results.filter((r) => r.suppressions !== undefined)).toHaveLength(2);
  });

  it("JUnit: a document whose only findings are waived is skipped, naming the waiver", () => {
    const junit = files.get("junit.xml")!;
    expect(junit).toContain(
      '<skipped message="waived by legacy-replicas (owner team-a, expires 2030-01-01T00:00:00Z): spec.replicas: Invalid value: 11',
    );
    expect(junit).toContain("(waiver leaky-size expired 2026-01-01T00:00:00Z)");
  });

  it("PolicyReport and OpenReports: a skip result with the waiver in its properties", () => {
    for (const name of ["policyreport.yaml", "openreports.yaml"]) {
      const results = parseDocuments(files.get(name)!).flatMap(
        (d) =>
          (d.object as { results: { result: string; category: string; properties: Record<string, string> }[] }).results,
      );
      const waived = results.filter((r) => r.category === "waived");
      expect(waived.map((r) => [r.result, r.properties.waiver, r.properties.waiverOwner])).toEqual([
        ["skip", "legacy-replicas", "team-a"],
        ["skip", "changed-labels", "team-a"],
      ]);
      expect(results.find((r) => r.properties.waiver === "leaky-size")).toMatchObject({
        result: "fail",
        properties: { waiverExpired: "true" },
      });
    }
  });

  it("CSV: waiver, owner, expiry, expired and the unwaived severity", () => {
    const lines = files.get("findings.csv")!.split("\r\n");
    const header = lines[0]!.split(",");
    expect(header.slice(-6)).toEqual([
      "waiver",
      "waiverOwner",
      "waiverExpires",
      "waiverExpired",
      "waiverTicket",
      "waivedSeverity",
    ]);
    expect(lines.find((l) => l.includes("legacy-replicas"))).toMatch(
      /,waived,.*,legacy-replicas,team-a,2030-01-01T00:00:00Z,,MIG-7,violation$/,
    );
    expect(lines.find((l) => l.includes("leaky-size"))).toMatch(
      /,violation,.*,leaky-size,team-b,2026-01-01T00:00:00Z,true,,$/,
    );
  });

  it("HTML: the waived count, the waivers with the expiring one highlighted, and the waived findings", () => {
    const html = files.get("report.html")!;
    expect(html).toContain('<div class="card" id="total-waived"><b>2</b>waived</div>');
    expect(html).toContain('<tr class="waiver-expiring" data-waiver="changed-labels">');
    expect(html).toContain('<tr class="waiver-expired" data-waiver="leaky-size">');
    expect(html).toMatch(/data-waiver="broken-gizmo">.*active<\/span>, unused/);
    expect(html).toContain('<option value="waived">waived</option>');
    expect(html).toContain("<h3>Waived findings (2)</h3>");
  });

  it("fielderrors.ndjson leaves waived findings out (the webhook admits them)", () => {
    expect(files.get("fielderrors.ndjson")).not.toContain('"metadata.labels"');
  });
});

describe("a Waiver among the audited objects", () => {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-waiver-input-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is never applied, also with --policies-from-input, and the run notes it", async () => {
    // Prepare: the fixture's invalid Widget, and a Waiver in the same input that would cover it.
    const input = join(dir, "input.yaml");
    writeFileSync(
      input,
      `apiVersion: audit.tollgate.dev/v1
kind: Widget
metadata: { name: legacy, namespace: team-a }
spec: { replicas: 11 }
---
apiVersion: tollgate.dev/v1alpha1
kind: Waiver
metadata: { name: self-service }
spec: { policy: widgets.audit.tollgate.dev, reason: mine, owner: me, expires: "2030-01-01T00:00:00Z" }
`,
    );
    const sources = [await openSource(input, DEFAULT_SOURCE_OPTIONS)];
    const loaded = await loadPolicies(FIXTURE_BUNDLE, sources);
    // Act
    const result = await runAudit(
      {
        sources,
        bundle: FIXTURE_BUNDLE,
        concurrency: 1,
        failOn: "violation",
        ownerLabels: [],
        toolVersion: "0.0.0-test",
        now: () => FIXED_START,
      },
      loaded.policySet,
    );
    try {
      // Assess
      expect(loaded.policySet.waivers).toEqual([]);
      const found = await result.findings.toArray();
      expect(found.filter((f) => f.object?.name === "legacy").map((f) => f.severity)).toEqual(["violation"]);
      expect(result.summary.findings.waived).toBe(0);
      expect(result.summary.waiversInInput).toBe(1);
      const records = await result.objects.toArray();
      expect(records.find((o) => o.object?.kind === "Waiver")).toMatchObject({
        outcome: "skipped",
        note: WAIVER_IN_INPUT,
      });
    } finally {
      disposeResult(result);
    }
  });
});
