/**
 * The auditor's shared test run: test/fixtures/audit (bundle, current and previous snapshots) audited with a fixed
 * clock, so every report is byte-for-byte stable once durations are zeroed.
 */

import { readFileSync } from "node:fs";
import type { PreviousReport } from "../../../audit/compare.js";
import type { AuditResult } from "../../../audit/model.js";
import { type AuditConfig, runAudit } from "../../../audit/run.js";
import { DEFAULT_SOURCE_OPTIONS, openSource } from "../../../audit/sources/index.js";
import type { SpoolOptions } from "../../../audit/spool.js";
import { loadBundle } from "../../../lib/index.js";

export const FIXTURE_BUNDLE = "test/fixtures/audit/bundle";
export const FIXTURE_CURRENT = "test/fixtures/audit/snapshots/current.yaml";
export const FIXTURE_PREVIOUS = "test/fixtures/audit/snapshots/previous.yaml";
export const FIXED_START = new Date("2026-11-22T02:15:00.000Z");
/** Waivers of the fixture's findings: active, expiring, expired and unused at FIXED_START. */
export const FIXTURE_WAIVERS = "test/fixtures/audit/waivers/waivers.yaml";

/** Audits the fixture; the clock returns FIXED_START, then one second later. Durations are zeroed. */
export async function auditFixture(
  options: {
    previous?: boolean;
    compareWith?: PreviousReport;
    sources?: string[];
    spool?: SpoolOptions;
    waivers?: boolean;
  } = {},
): Promise<AuditResult> {
  const waivers =
    options.waivers === true ? [{ path: FIXTURE_WAIVERS, content: readFileSync(FIXTURE_WAIVERS, "utf8") }] : [];
  const policySet = await loadBundle(FIXTURE_BUNDLE, { waivers });
  const times = [FIXED_START, new Date(FIXED_START.getTime() + 1000)];
  let call = 0;
  const config: AuditConfig = {
    sources: await Promise.all(
      (options.sources ?? [FIXTURE_CURRENT]).map((s) => openSource(s, DEFAULT_SOURCE_OPTIONS)),
    ),
    bundle: FIXTURE_BUNDLE,
    concurrency: 4,
    failOn: "violation",
    ownerLabels: ["owner", "team"],
    toolVersion: "0.0.0-test",
    now: () => times[Math.min(call++, 1)]!,
  };
  if (options.previous === true) config.previous = await openSource(FIXTURE_PREVIOUS, DEFAULT_SOURCE_OPTIONS);
  if (options.compareWith !== undefined) config.compareWith = options.compareWith;
  if (options.spool !== undefined) config.spool = options.spool;
  const run = await runAudit(config, policySet);
  run.summary.durationMs = 0;
  run.summary.objectsPerSecond = 0;
  return run;
}
