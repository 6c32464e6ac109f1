/**
 * Every report format, snapshotted from the fixture run (test/fixtures/audit, fixed clock, durations zeroed,
 * relative paths: nothing to normalise beyond that), plus the properties a snapshot does not say out loud: secrets
 * never written, untrusted text escaped, CSV formulas neutralised, report.json valid against its JSON Schema.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compareWithPrevious, previousReportOf } from "../../../../audit/compare.js";
import type { AuditResult } from "../../../../audit/model.js";
import { disposeResult } from "../../../../audit/recorder.js";
import { csvCell, escapeHtml, escapeXml } from "../../../../audit/report/escape.js";
import { renderHtml } from "../../../../audit/report/html.js";
import { REPORT_FORMATS, releaseReports, renderReports } from "../../../../audit/report/index.js";
import { jsonThread } from "../../../../audit/report/json.js";
import { renderPolicyReports } from "../../../../audit/report/policy-report.js";
import { textOf } from "../../../../audit/report/stream.js";
import { fromThread } from "../../../../audit/report/thread.js";
import { parseDocuments } from "../../../../lib/index.js";
import { auditFixture } from "../audit-fixture.js";
import { type Schema, validateSchema } from "./json-schema.js";

const compareWith = previousReportOf("20261121T021500Z", [
  { id: "597602c4cdae2589", severity: "violation" as const, message: "old", firstSeen: "2026-01-01T00:00:00.000Z" },
  {
    id: "00000000deadbeef",
    severity: "violation" as const,
    message: "fixed since",
    firstSeen: "2026-01-01T00:00:00.000Z",
  },
]);
const run: AuditResult = await auditFixture({ previous: true, compareWith, waivers: true });
const findings = await run.findings.toArray();
const files = renderReports(run);
const byName = new Map(await Promise.all(files.map(async (f) => [f.name, await textOf(f.chunks())] as const)));

describe("reports from spools on disk", () => {
  it("are byte for byte those of a run kept in memory, and every file reads its spools again", async () => {
    // memoryItems 0: every object and finding goes to the temporary file at once.
    const onDisk = await auditFixture({ previous: true, compareWith, spool: { memoryItems: 0 }, waivers: true });
    try {
      expect(onDisk.objects.onDisk && onDisk.findings.onDisk).toBe(true);
      expect(run.objects.onDisk || run.findings.onDisk).toBe(false);
      for (const f of renderReports(onDisk)) expect(await textOf(f.chunks()), f.name).toBe(byName.get(f.name));
    } finally {
      disposeResult(onDisk);
    }
  });

  it("every file but report.json and report.html comes from one reading of the spools", async () => {
    const onDisk = await auditFixture({ previous: true, compareWith, spool: { memoryItems: 0 }, waivers: true });
    const reads = { objects: 0, findings: 0 };
    const counted = <T>(name: keyof typeof reads, spool: Iterable<T>): void => {
      const iterate = spool[Symbol.iterator].bind(spool);
      spool[Symbol.iterator] = () => {
        reads[name]++;
        return iterate();
      };
    };
    counted("objects", onDisk.objects);
    counted("findings", onDisk.findings);
    try {
      for (const f of renderReports(
        onDisk,
        REPORT_FORMATS.filter((n) => n !== "json" && n !== "html"),
      )) {
        expect(await textOf(f.chunks()), f.name).toBe(byName.get(f.name));
      }
      // The findings once more for JUnit's policy failures (the first few only).
      expect(reads).toEqual({ objects: 1, findings: 2 });
    } finally {
      releaseReports(onDisk);
      disposeResult(onDisk);
    }
  });

  it("report.json of a run on disk is rendered on a thread of its own, byte for byte the same", async () => {
    const onDisk = await auditFixture({ previous: true, compareWith, spool: { memoryItems: 0 }, waivers: true });
    try {
      expect(jsonThread(run)).toBeUndefined();
      const thread = jsonThread(onDisk);
      expect(thread).toBeDefined();
      expect(await textOf(fromThread(thread!.at, { ...thread!.data }))).toBe(byName.get("report.json"));
      // A thread that fails (here: its spool files are gone) fails the file with its error.
      disposeResult(onDisk);
      await expect(textOf(fromThread(thread!.at, { ...thread!.data }))).rejects.toThrow(/ENOENT/);
    } finally {
      disposeResult(onDisk);
    }
  });

  it.each([1, 2, 3, 5])("policy reports gathered in batches of %i results are the same", async (batch) => {
    // 1: every namespace is a batch of its own, written from its spool; larger: small namespaces gathered together.
    expect(await textOf(renderPolicyReports(run, "policyreport", batch))).toBe(byName.get("policyreport.yaml"));
    expect(await textOf(renderPolicyReports(run, "openreports", batch))).toBe(byName.get("openreports.yaml"));
  });

  it("both policy-report flavours written at once share one dealing of the results and each comes out whole", async () => {
    for (const batch of [1, 3, 10_000]) {
      const [wg, open] = await Promise.all([
        textOf(renderPolicyReports(run, "policyreport", batch)),
        textOf(renderPolicyReports(run, "openreports", batch)),
      ]);
      expect(wg).toBe(byName.get("policyreport.yaml"));
      expect(open).toBe(byName.get("openreports.yaml"));
    }
  });

  it("policy reports over the size one object may have are cut into several, whose results add up", async () => {
    const whole = parseDocuments(byName.get("policyreport.yaml")!).map((d) => d.object as Report);
    for (const limits of [
      { results: 1, bytes: 1024 * 1024 },
      { results: 1000, bytes: 1 },
    ]) {
      const docs = parseDocuments(await textOf(renderPolicyReports(run, "policyreport", 3, limits)));
      expect(docs.every((d) => d.error === undefined)).toBe(true);
      const parts = docs.map((d) => d.object as Report);
      // One result per report; names get -2, -3... within a namespace; summaries add up to the uncut reports'.
      expect(
        parts.every((p) => p.results.length === 1 || (p.results.length === 0 && parts.length === whole.length)),
      ).toBe(true);
      for (const w of whole) {
        const mine = parts.filter((p) => p.metadata.namespace === w.metadata.namespace);
        expect(mine.map((p) => p.metadata.name)).toEqual(
          mine.map((_, i) => (i === 0 ? w.metadata.name : `${w.metadata.name}-${i + 1}`)),
        );
        expect(mine.flatMap((p) => p.results)).toEqual(w.results);
        const total = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
        for (const p of mine) for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += p.summary[k];
        expect(total).toEqual(w.summary);
      }
    }
  });

  it("the HTML table stops at its row limit and says where the rest is", async () => {
    const html = await textOf(renderHtml(run, 2));
    expect(html.match(/<tr data-severity=/g)).toHaveLength(2);
    expect(html).toContain(`the first 2 of the run's ${findings.length} findings`);
    expect(byName.get("report.html")).not.toContain('id="truncated"');
  });
});

describe("report writers", () => {
  it.each(files.map((f) => ({ name: f.name })))("$name matches its snapshot", async ({ name }) => {
    await expect(byName.get(name)).toMatchFileSnapshot(`__snapshots__/${name}.snap`);
  });

  it("writes every registered format", () => {
    expect(REPORT_FORMATS).toEqual([
      "json",
      "summary",
      "sarif",
      "junit",
      "policyreport",
      "openreports",
      "csv",
      "fielderrors",
      "html",
    ]);
    expect(files.map((f) => f.name)).toEqual([
      "report.json",
      "summary.json",
      "report.sarif",
      "junit.xml",
      "policyreport.yaml",
      "openreports.yaml",
      "findings.csv",
      "fielderrors.ndjson",
      "report.html",
    ]);
  });

  it.each(files.map((f) => ({ name: f.name })))("$name holds no secret value", ({ name }) => {
    const text = byName.get(name)!;
    expect(text).not.toContain("TOPSECRET-PASSWORD");
    expect(text).not.toContain("S3CR3T-VALUE-123");
  });

  it("carries firstSeen over and counts new, resolved and persisting findings", () => {
    expect(run.comparison).toMatchObject({
      previousRunId: "20261121T021500Z",
      resolvedFindings: 1,
      persistingFindings: 1,
      newFindings: findings.length - 1,
    });
    expect(findings.find((f) => f.id === "597602c4cdae2589")?.firstSeen).toBe("2026-01-01T00:00:00.000Z");
  });

  it("escapes untrusted text in the HTML report and allows no external asset", () => {
    const html = byName.get("report.html")!;
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("default-src 'none'");
    expect(html).not.toMatch(/\s(src|href)=/);
  });

  it("neutralises spreadsheet formulas in findings.csv", () => {
    const csv = byName.get("findings.csv")!;
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    expect(csv.split("\r\n").some((line) => /(^|,)=/.test(line))).toBe(false);
  });

  it("writes well-formed policy reports (one document per namespace plus a cluster report)", () => {
    for (const name of ["policyreport.yaml", "openreports.yaml"]) {
      const docs = parseDocuments(byName.get(name)!);
      expect(docs.every((d) => d.error === undefined)).toBe(true);
      const kinds = docs.map((d) => `${(d.object as { kind: string }).kind}`);
      expect(kinds).toEqual(
        name === "policyreport.yaml"
          ? ["ClusterPolicyReport", "PolicyReport", "PolicyReport"]
          : ["ClusterReport", "Report", "Report"],
      );
    }
  });

  it("report.json is valid against audit/report/report.schema.json", () => {
    const schema = JSON.parse(readFileSync("audit/report/report.schema.json", "utf8")) as Schema;
    expect(validateSchema(schema, JSON.parse(byName.get("report.json")!), schema)).toEqual([]);
  });

  it("compareWithPrevious leaves firstSeen alone for new findings", async () => {
    const one = [{ ...findings[0]!, firstSeen: "2026-11-22T02:15:00.000Z" }];
    const c = await compareWithPrevious(one, previousReportOf("r", []));
    expect(c).toEqual({ previousRunId: "r", newFindings: 1, resolvedFindings: 0, persistingFindings: 0, resolved: [] });
    expect(one[0]!.firstSeen).toBe("2026-11-22T02:15:00.000Z");
  });
});

interface Report {
  metadata: { name: string; namespace?: string };
  summary: Record<"pass" | "fail" | "warn" | "error" | "skip", number>;
  results: unknown[];
}

describe("escaping", () => {
  it.each([
    { input: "plain", html: "plain", xml: "plain", csv: "plain" },
    {
      input: `<a href="x">'&'</a>`,
      html: "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;",
      xml: "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;",
      csv: `"<a href=""x"">'&'</a>"`,
    },
    { input: "=1+2", html: "=1+2", xml: "=1+2", csv: "'=1+2" },
    { input: "+cmd", html: "+cmd", xml: "+cmd", csv: "'+cmd" },
    { input: "-2,3", html: "-2,3", xml: "-2,3", csv: `"'-2,3"` },
    { input: "@SUM(A1)", html: "@SUM(A1)", xml: "@SUM(A1)", csv: "'@SUM(A1)" },
    { input: "a\u0001b", html: "a\u0001b", xml: "a\ufffdb", csv: "a\u0001b" },
    { input: "line\nbreak", html: "line\nbreak", xml: "line\nbreak", csv: `"line\nbreak"` },
  ])("escapes $input", ({ input, html, xml, csv }) => {
    expect(escapeHtml(input)).toBe(html);
    expect(escapeXml(input)).toBe(xml);
    expect(csvCell(input)).toBe(csv);
  });
});
