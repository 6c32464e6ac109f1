/** history.json: one line per run, appended, bounded, readable when a line is damaged. */
import { describe, expect, it } from "vitest";
import type { GroupCounts } from "../../../audit/groups.js";
import {
  appendHistory,
  GROUPS_PER_LINE,
  HISTORY_KEPT,
  type HistoryEntry,
  historyEntryOf,
  parseHistory,
} from "../../../audit/history.js";
import { auditFixture } from "./audit-fixture.js";

function entry(n: number): HistoryEntry {
  return {
    runId: `run${n}`,
    path: `run${n}/`,
    startedAt: "s",
    finishedAt: "f",
    bundle: "d",
    index: "i",
    objects: { checked: 2, failed: 1 },
    findings: { violation: n },
    groups: {},
  };
}

describe("history.json", () => {
  it("appends one line per run, in order, and replaces the line of the same run folder", () => {
    let text = appendHistory(undefined, entry(1));
    text = appendHistory(text, entry(2));
    expect(text.split("\n")).toHaveLength(3);
    expect(parseHistory(text).map((e) => e.runId)).toEqual(["run1", "run2"]);
    text = appendHistory(text, { ...entry(1), findings: { violation: 9 } });
    expect(parseHistory(text).map((e) => [e.runId, e.findings.violation])).toEqual([
      ["run2", 2],
      ["run1", 9],
    ]);
  });

  it("keeps the last runs only, and skips lines that are not entries", () => {
    let text = "";
    for (let i = 0; i < HISTORY_KEPT + 5; i++) text += `${JSON.stringify(entry(i))}\n`;
    text = appendHistory(`${text}{"broken\nnull\n`, entry(9999));
    const entries = parseHistory(text);
    expect(entries).toHaveLength(HISTORY_KEPT);
    expect(entries[0]!.runId).toBe("run6");
    expect(entries.at(-1)!.runId).toBe("run9999");
  });

  it("a run's line: totals, the pass rate's parts, the bundle digest, and the largest groups only", async () => {
    const run = await auditFixture();
    const namespaces: Record<string, GroupCounts> = {};
    for (let i = 0; i < GROUPS_PER_LINE + 10; i++)
      namespaces[`ns${i}`] = { findings: { warning: i }, checked: 1, failed: 0 };
    const e = historyEntryOf({ ...run, groups: { ...run.groups, namespace: namespaces } }, `${run.runId}/`, "abc");
    expect(e).toMatchObject({
      runId: run.runId,
      path: `${run.runId}/`,
      bundle: run.bundle.digest,
      index: "abc",
      objects: { checked: run.summary.valid + run.summary.invalid, failed: run.summary.invalid },
      findings: run.summary.findings,
    });
    expect(Object.keys(e.groups.namespace!)).toHaveLength(GROUPS_PER_LINE);
    expect(e.groups.namespace!.ns59).toBeDefined();
    expect(e.groups.namespace!.ns0).toBeUndefined();
    expect(e.groups.team).toEqual(run.groups.team);
    expect(JSON.stringify(e)).not.toContain("\n");
    run.objects.dispose();
    run.findings.dispose();
  });
});
