/**
 * report.sarif validated against the official SARIF 2.1.0 schema and the SDK's rules by Microsoft's
 * `sarif-multitool validate` (the Linux binary ships in its npm package). The tool exits 0 even when it finds
 * errors, so the test reads its output log and fails on any `error` result; a deliberately broken copy checks
 * that the tool really reports what it finds.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Run, runCommand } from "../helpers/spawn.js";

const MULTITOOL: string = createRequire(import.meta.url)("@microsoft/sarif-multitool");
const scratch = mkdtempSync(join(tmpdir(), "tollgate-sarif-e2e-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(command: string, args: readonly string[]): Promise<Run> {
  return runCommand(command, args, {
    // The .NET runtime needs no ICU with invariant globalisation; no telemetry from a test.
    env: {
      ...process.env,
      NO_COLOR: "1",
      DOTNET_SYSTEM_GLOBALIZATION_INVARIANT: "1",
      DOTNET_CLI_TELEMETRY_OPTOUT: "1",
    },
  });
}

interface ValidationResult {
  level: string;
  ruleId: string;
  message: unknown;
  locations?: unknown;
}

/** Runs `Sarif.Multitool validate` on a file and returns the results of its output log. */
async function validate(file: string): Promise<ValidationResult[]> {
  const log = `${file}.validation.sarif`;
  const r = await run(MULTITOOL, ["validate", file, "--output", log, "--log", "ForceOverwrite"]);
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
  const parsed = JSON.parse(readFileSync(log, "utf8")) as { runs: { results?: ValidationResult[] }[] };
  return parsed.runs.flatMap((x) => x.results ?? []);
}

/** Audits `sources` into a fresh folder with only the SARIF report and returns its path. */
async function auditSarif(name: string, args: readonly string[]): Promise<string> {
  const out = join(scratch, name);
  const r = await run(process.execPath, [
    "audit/cli/bin.js",
    "audit",
    "--format",
    "sarif",
    "--fail-on",
    "never",
    "--out",
    out,
    ...args,
  ]);
  expect(r.code, r.stderr).toBe(0);
  const runs = readdirSync(out).filter((n) => /^\d{8}T\d{6}Z$/.test(n));
  expect(runs).toHaveLength(1);
  return join(out, runs[0] as string, "report.sarif");
}

function errorsOf(results: readonly ValidationResult[]): ValidationResult[] {
  return results.filter((r) => r.level === "error");
}

describe("report.sarif against the SARIF 2.1.0 schema (sarif-multitool validate)", () => {
  it("the example export's report has no validation errors and has findings with file and line", async () => {
    // Prepare
    const sarif = await auditSarif("example", [
      "--bundle",
      "examples/policies",
      "--policies-from-input",
      "examples/export",
    ]);
    const log = JSON.parse(readFileSync(sarif, "utf8")) as {
      runs: { results: { locations?: { physicalLocation?: { region?: { startLine?: number } } }[] }[] }[];
    };
    // Act
    const results = await validate(sarif);
    // Assess
    expect(errorsOf(results)).toEqual([]);
    expect(results).toEqual([]); // no warnings or notes from the SDK's rules either
    const findings = log.runs.flatMap((r) => r.results);
    expect(findings.length).toBeGreaterThan(5);
    expect(findings.every((f) => (f.locations?.[0]?.physicalLocation?.region?.startLine ?? 0) >= 1)).toBe(true);
  }, 120_000);

  it("a report with grandfathered and blocking findings (--previous) has no validation errors", async () => {
    // Prepare
    const sarif = await auditSarif("update", [
      "--bundle",
      "test/fixtures/audit/bundle",
      "--previous",
      "test/fixtures/audit/snapshots/previous.yaml",
      "test/fixtures/audit/snapshots/current.yaml",
    ]);
    // Act
    const results = await validate(sarif);
    // Assess
    expect(errorsOf(results)).toEqual([]);
  }, 120_000);

  it("a broken copy (an unknown level, a driver without a name) is reported as errors", async () => {
    // Prepare
    const good = await auditSarif("broken", [
      "--bundle",
      "examples/policies",
      "--policies-from-input",
      "examples/export",
    ]);
    const log = JSON.parse(readFileSync(good, "utf8")) as {
      runs: { tool: { driver: Record<string, unknown> }; results: Record<string, unknown>[] }[];
    };
    const first = log.runs[0];
    if (first === undefined || first.results[0] === undefined) throw new Error("the example report has no result");
    first.results[0].level = "fatal";
    delete first.tool.driver.name;
    const broken = join(scratch, "broken.sarif");
    writeFileSync(broken, JSON.stringify(log));
    // Act
    const results = await validate(broken);
    // Assess
    const texts = errorsOf(results).map((r) => JSON.stringify(r.message));
    expect(texts.some((t) => t.includes("runs[0].results[0].level") && t.includes("fatal"))).toBe(true);
    expect(texts.some((t) => t.includes("runs[0].tool.driver") && t.includes("name"))).toBe(true);
  }, 120_000);
});
