/**
 * report.html at scale: the findings table holds at most 10,000 rows, of which the first 500 are shown and the rest
 * hidden (no layout cost) until the reader asks for more; the page stays a few MB.
 */
import { describe, expect, it } from "vitest";
import type { Finding } from "../../../../audit/model.js";
import { RunRecorder } from "../../../../audit/recorder.js";
import { renderHtml } from "../../../../audit/report/html.js";
import { PAGE_ROWS } from "../../../../audit/report/html-assets.js";
import { textOf } from "../../../../audit/report/stream.js";

async function runWith(findings: number) {
  const recorder = new RunRecorder(new Date("2026-11-22T02:15:00Z"), { spool: { memoryItems: 1000 } });
  for (let i = 0; i < findings; i++) {
    const object = { apiVersion: "demo/v1", kind: "Widget", namespace: `ns-${i % 7}`, name: `w-${i}` };
    recorder.object({
      key: `w-${i}`,
      object,
      location: { file: "f.yaml", document: i, line: 1 + i * 10 },
      outcome: "invalid",
      findings: 1,
      team: "t",
    });
    const f: Finding = {
      id: `${i}`.padStart(16, "0"),
      severity: "violation",
      object,
      location: { file: "f.yaml", document: i, line: 1 + i * 10 },
      rule: { family: "crd", policy: "widgets.demo" },
      field: "spec.replicas",
      type: "FieldValueInvalid",
      message: "Invalid value: 11: spec.replicas in body should be less than or equal to 10",
      team: "t",
      firstSeen: "2026-11-22T02:15:00.000Z",
    };
    recorder.finding(f);
  }
  return recorder.finish(
    {
      finishedAt: "2026-11-22T02:16:00Z",
      tool: { name: "tollgate", version: "t" },
      bundle: { source: "b", digest: "d", kinds: 1, policiesFromInput: 0 },
      sources: ["f.yaml"],
      failOn: "violation",
    },
    0,
  );
}

describe("report.html at scale", () => {
  it("shows the first 500 rows, hides the rest until 'show more', and caps the table", async () => {
    const run = await runWith(12_000);
    const html = await textOf(renderHtml(run));
    const rows = html.match(/<tr data-severity="violation"[^>]*>/g) ?? [];
    expect(rows).toHaveLength(10_000);
    expect(rows.filter((r) => r.endsWith(" hidden>"))).toHaveLength(10_000 - PAGE_ROWS);
    expect(rows.slice(0, PAGE_ROWS).every((r) => !r.includes("hidden"))).toBe(true);
    expect(html).toContain(
      `<button id="more" type="button">Show ${PAGE_ROWS} more of the ${10_000 - PAGE_ROWS} not shown</button>`,
    );
    expect(html).toContain('<p id="truncated">The table holds the first 10000 of the run\'s 12000 findings');
    // About 400 bytes a row: 10,000 rows stay a few MB.
    expect(html.length).toBeLessThan(5_000_000);
    run.objects.dispose();
    run.findings.dispose();
  });

  it("a small run: every row shown, no button", async () => {
    const run = await runWith(3);
    const html = await textOf(renderHtml(run));
    expect(html).not.toMatch(/<tr [^>]* hidden>/);
    expect(html).toContain('<button id="more" type="button" hidden>');
    run.objects.dispose();
    run.findings.dispose();
  });
});
