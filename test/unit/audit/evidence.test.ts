/**
 * The evidence chain: each index.json records the digest of the previous run's index.json, and verifyEvidence
 * re-hashes a run or the whole chain, naming the broken file or link.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { verifyEvidence } from "../../../audit/evidence.js";
import { type AuditRunHeader, FINDING_SEVERITIES } from "../../../audit/model.js";
import { single } from "../../../audit/report/stream.js";
import { writeRun } from "../../../audit/sink.js";

const scratch = mkdtempSync(join(tmpdir(), "tollgate-evidence-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function header(runId: string): AuditRunHeader {
  return {
    apiVersion: "tollgate.dev/v1alpha1",
    kind: "AuditReport",
    reportVersion: 2,
    runId,
    startedAt: "2026-11-22T02:15:00.000Z",
    finishedAt: "2026-11-22T02:15:01.000Z",
    tool: { name: "tollgate", version: "t" },
    bundle: { source: "b", digest: "sha256:d", kinds: 1, policiesFromInput: 0 },
    sources: ["s"],
    failOn: "violation",
    summary: {
      documents: 1,
      objects: 1,
      valid: 1,
      invalid: 0,
      skippedUncovered: 0,
      skippedByKind: {},
      skippedNotKubernetes: 0,
      inputErrors: 0,
      findings: Object.fromEntries(FINDING_SEVERITIES.map((s) => [s, 0])) as AuditRunHeader["summary"]["findings"],
      grandfathered: 0,
      blocking: 0,
      policyFailures: { error: 0, warning: 0 },
      durationMs: 0,
      objectsPerSecond: 0,
    },
  };
}

const RUNS = ["20261122T021500Z", "20261123T021500Z", "20261124T021500Z"];
let out: string;

beforeEach(async () => {
  out = mkdtempSync(join(scratch, "prefix-"));
  for (const [i, runId] of RUNS.entries()) {
    await writeRun(out, header(runId), [
      { name: "report.json", chunks: single(() => `{"run":${i}}\n`), contentType: "application/json" },
      { name: "report.html", chunks: single(() => `<p>run ${i}</p>\n`), contentType: "text/html" },
    ]);
  }
});

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("the index.json chain", () => {
  it("links each run to the previous one by the sha256 of its index.json; the first links nowhere", () => {
    const first = JSON.parse(readFileSync(join(out, RUNS[0]!, "index.json"), "utf8")) as { previous?: unknown };
    expect(first.previous).toBeUndefined();
    for (let i = 1; i < RUNS.length; i++) {
      const index = JSON.parse(readFileSync(join(out, RUNS[i]!, "index.json"), "utf8")) as {
        previous: { runId: string; path: string; sha256: string };
      };
      expect(index.previous).toEqual({
        runId: RUNS[i - 1],
        path: `${RUNS[i - 1]}/`,
        sha256: sha(join(out, RUNS[i - 1]!, "index.json")),
      });
    }
    const latest = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as { index: string };
    expect(latest.index).toBe(sha(join(out, RUNS[2]!, "index.json")));
    const history = readFileSync(join(out, "history.json"), "utf8").trim().split("\n");
    expect(history.map((l) => JSON.parse(l) as { path: string; index: string })).toMatchObject(
      RUNS.map((r) => ({ path: `${r}/`, index: sha(join(out, r, "index.json")) })),
    );
  });
});

describe("verifyEvidence", () => {
  it("passes on an untouched prefix and on one run folder", async () => {
    const all = await verifyEvidence(out);
    expect(all.problems).toEqual([]);
    expect(all.runs).toEqual([...RUNS].reverse().map((r) => `${r}/`));
    expect(all.files).toBe(6);
    expect(all.head).toBe(sha(join(out, RUNS[2]!, "index.json")));
    const one = await verifyEvidence(join(out, RUNS[1]!));
    expect(one).toMatchObject({ problems: [], files: 2 });
  });

  it("names a file whose bytes changed", async () => {
    const file = join(out, RUNS[0]!, "report.html");
    writeFileSync(file, "<p>run 9</p>\n");
    const r = await verifyEvidence(out);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(
      new RegExp(`^${file}: changed \\(index.json records 13 bytes, sha256 [0-9a-f]{64}; it now has 13 bytes`),
    );
  });

  it("names a file gone and a file added", async () => {
    unlinkSync(join(out, RUNS[1]!, "report.json"));
    writeFileSync(join(out, RUNS[1]!, "extra.txt"), "x");
    const r = await verifyEvidence(join(out, RUNS[1]!));
    expect(r.problems).toEqual([
      `${join(out, RUNS[1]!, "report.json")}: missing (index.json lists it)`,
      `${join(out, RUNS[1]!, "extra.txt")}: not listed in index.json (added afterwards)`,
    ]);
  });

  it("a file changed and its index.json rewritten to match breaks the link from the next run", async () => {
    const folder = join(out, RUNS[0]!);
    writeFileSync(join(folder, "report.json"), '{"run":7}\n');
    const indexPath = join(folder, "index.json");
    const index = JSON.parse(readFileSync(indexPath, "utf8")) as { files: { name: string; sha256: string }[] };
    index.files[0]!.sha256 = sha(join(folder, "report.json"));
    writeFileSync(indexPath, `${JSON.stringify(index, null, 2)}\n`);
    const r = await verifyEvidence(out);
    expect(r.problems[0]).toBe(
      `link broken: ${join(out, RUNS[1]!, "index.json")} records sha256 ${JSON.parse(readFileSync(join(out, RUNS[1]!, "index.json"), "utf8")).previous.sha256} for ${indexPath}, which now hashes to ${sha(indexPath)}`,
    );
    // history.json recorded the old digest too.
    expect(r.problems[1]).toContain(`history.json: its line for ${RUNS[0]}/ records sha256`);
  });

  it("a run removed from the middle breaks the chain; a run folder outside it is named", async () => {
    rmSync(join(out, RUNS[1]!), { recursive: true });
    mkdirSync(join(out, "20261101T000000Z"));
    writeFileSync(join(out, "20261101T000000Z", "index.json"), readFileSync(join(out, RUNS[0]!, "index.json")));
    const r = await verifyEvidence(out);
    expect(r.problems).toEqual([
      `${join(out, RUNS[1]!, "index.json")}: missing (the run folder has no index.json)`,
      `${join(out, "20261101T000000Z", "index.json")}: a run the chain from latest.json does not reach`,
      `${join(out, RUNS[0]!, "index.json")}: a run the chain from latest.json does not reach`,
    ]);
  });

  it("the newest index.json rewritten no longer matches latest.json's digest", async () => {
    const indexPath = join(out, RUNS[2]!, "index.json");
    writeFileSync(indexPath, `${readFileSync(indexPath, "utf8")} `);
    const r = await verifyEvidence(out);
    expect(r.problems[0]).toMatch(
      /^link broken: .*latest\.json records sha256 [0-9a-f]{64} for .*index\.json, which now hashes to/,
    );
  });

  it("a location with neither latest.json nor index.json is a configuration error", async () => {
    await expect(verifyEvidence(join(out, "nowhere"))).rejects.toThrow(/holds neither an index.json/);
  });
});
