/**
 * `tollgate audit --workers <n>` as a black box (`node audit/cli/bin.js`: the worker threads load the TypeScript
 * sources through tsx themselves): the report of a run on worker threads is the report of a run on one thread.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Run, runCommand } from "../helpers/spawn.js";

const scratch = mkdtempSync(join(tmpdir(), "tollgate-audit-workers-e2e-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tollgate(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return runCommand(process.execPath, ["audit/cli/bin.js", ...args], {
    env: { ...process.env, NO_COLOR: "1", ...env },
  });
}

/** report.json without what differs between two runs: times, run id, durations. */
function reportOf(out: string): unknown {
  const [folder] = readdirSync(out).filter((n) => n !== "latest.json");
  const report = JSON.parse(readFileSync(join(out, folder!, "report.json"), "utf8")) as Record<string, unknown>;
  const times = new Set([report.startedAt, report.finishedAt]);
  const text = JSON.stringify(report, (key, value) => {
    if (key === "runId" || key === "durationMs" || key === "objectsPerSecond") return undefined;
    if (typeof value === "string" && times.has(value)) return "<time>";
    return value;
  });
  return JSON.parse(text);
}

/** Every file of the run folder, its run id, times (and the policy reports' seconds) and durations made constant. */
function filesOf(out: string): Record<string, string> {
  const [folder] = readdirSync(out).filter((n) => n !== "latest.json" && n !== "history.json");
  const files: Record<string, string> = {};
  for (const name of readdirSync(join(out, folder!)).sort()) {
    if (name === "index.json") continue;
    files[name] = readFileSync(join(out, folder!, name), "utf8")
      .replace(/\d{8}T\d{6}Z/g, "<run>")
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
      .replace(/"(durationMs|objectsPerSecond)": [\d.e+-]+/g, '"$1": 0')
      .replace(/seconds: \d+/g, "seconds: 0")
      .replace(/ time="[\d.]+"/g, ' time="0"');
  }
  return files;
}

describe("tollgate audit --workers", () => {
  it("gives the report of a run on one thread (folders, --policies-from-input, a streamed YAML file)", async () => {
    // Prepare: a YAML file over the streaming threshold (256 KiB), from the fixture snapshot.
    const big = join(scratch, "big.yaml");
    const snapshot = readFileSync("test/fixtures/audit/snapshots/current.yaml", "utf8").replace(/\n+$/, "\n");
    writeFileSync(
      big,
      Array.from({ length: 200 }, (_, i) => snapshot.replace(/^( {2}name: )(\S+)$/gm, `$1$2-${i}`)).join("---\n"),
    );
    const args = (out: string) => [
      "audit",
      "--bundle",
      "examples/policies",
      "--policies-from-input",
      "--fail-on",
      "never",
      "--out",
      out,
      "examples/export",
      "test/fixtures/audit",
      big,
    ];
    // Act
    const one = await tollgate([...args(join(scratch, "one")), "--workers", "0"]);
    const two = await tollgate(args(join(scratch, "two")), { TOLLGATE_WORKERS: "2" });
    // Assess
    expect(one.stderr).toBe("");
    expect(two.stderr).toBe("");
    expect([one.code, two.code]).toEqual([0, 0]);
    expect(two.stdout.replace(/\d{8}T\d{6}Z/g, "<run>").replaceAll("/two/", "/one/")).toBe(
      one.stdout.replace(/\d{8}T\d{6}Z/g, "<run>"),
    );
    expect(reportOf(join(scratch, "two"))).toEqual(reportOf(join(scratch, "one")));
    // Every file, byte for byte, but for the run's id, times and durations.
    const one_ = filesOf(join(scratch, "one"));
    expect(Object.keys(one_)).toHaveLength(9);
    expect(filesOf(join(scratch, "two"))).toEqual(one_);
  });

  it("refuses a bad --workers value (exit 2)", async () => {
    const r = await tollgate(["audit", "--bundle", "examples/policies", "--workers", "lots", "examples/export"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--workers must be auto or a whole number from 0 to 64/);
  });
});
