/**
 * Reading a previous report.json as a stream (audit/compare.ts): what the comparison keeps of it, read from the
 * layout report.json is written in, and from other layouts parsed whole.
 */
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readPreviousReport } from "../../../audit/compare.js";
import { disposeResult } from "../../../audit/recorder.js";
import { reportJson } from "../../../audit/report/json.js";
import { textOf } from "../../../audit/report/stream.js";
import { auditFixture } from "./audit-fixture.js";

function opener(text: string): { open: () => Promise<Readable>; opened: () => number } {
  let n = 0;
  return {
    open: async () => {
      n++;
      // Small chunks, so lines fall across them.
      const chunks: Buffer[] = [];
      const bytes = Buffer.from(text, "utf8");
      for (let i = 0; i < bytes.length; i += 7) chunks.push(bytes.subarray(i, i + 7));
      return Readable.from(chunks);
    },
    opened: () => n,
  };
}

const pick = (f: {
  id: string;
  severity: string;
  message: string;
  firstSeen: string;
  object?: unknown;
  field?: string;
}) => ({
  id: f.id,
  severity: f.severity,
  message: f.message,
  firstSeen: f.firstSeen,
  ...(f.object !== undefined && { object: f.object }),
  ...(f.field !== undefined && { field: f.field }),
});

describe("readPreviousReport", () => {
  it("reads the runId, first-seen times and findings of a report.json as tollgate writes it, line by line", async () => {
    // Prepare
    const run = await auditFixture({ previous: true, spool: { memoryItems: 0 } });
    const text = await textOf(reportJson(run));
    const findings = await run.findings.toArray();
    disposeResult(run);
    const source = opener(text);
    // Act
    const previous = await readPreviousReport(source.open, "report.json");
    const again = [];
    for await (const f of previous.findings()) again.push(f);
    // Assess
    expect(previous.runId).toBe(run.runId);
    expect([...previous.firstSeen]).toEqual(findings.map((f) => [f.id, f.firstSeen]));
    expect(again.map(pick)).toEqual(findings.map(pick));
    expect(source.opened()).toBe(2);
  });

  it("parses a report laid out otherwise whole", async () => {
    const text = JSON.stringify({
      runId: "r1",
      findings: [{ id: "a", severity: "violation", message: "m", firstSeen: "2026-01-01T00:00:00.000Z" }],
    });
    const previous = await readPreviousReport(opener(text).open, "compact.json");
    expect(previous.runId).toBe("r1");
    expect([...previous.firstSeen]).toEqual([["a", "2026-01-01T00:00:00.000Z"]]);
  });

  it("reads a report without findings", async () => {
    const text = '{\n  "runId": "r2",\n  "objects": [],\n  "findings": [],\n  "summary": {}\n}\n';
    const previous = await readPreviousReport(opener(text).open, "empty.json");
    expect(previous.runId).toBe("r2");
    expect(previous.firstSeen.size).toBe(0);
  });

  it.each([
    { name: "not JSON", text: "hello", want: /not a tollgate report \(not JSON\)/ },
    { name: "JSON but no findings", text: '{"runId":"x"}', want: /is not a tollgate report/ },
    {
      name: "laid out, without findings",
      text: '{\n  "runId": "x"\n}\n',
      want: /not a tollgate report \(no findings\)/,
    },
    {
      name: "laid out, a finding without an id",
      text: '{\n  "runId": "x",\n  "findings": [\n    {\n      "message": "m"\n    }\n  ]\n}\n',
      want: /a finding without a string id/,
    },
  ])("refuses $name with a ConfigError naming the file", async ({ text, want }) => {
    await expect(readPreviousReport(opener(text).open, "bad.json")).rejects.toThrow(want);
    await expect(readPreviousReport(opener(text).open, "bad.json")).rejects.toThrow(/^bad\.json/);
  });
});
