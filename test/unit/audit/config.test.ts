/** audit/config.ts: options and environment → the audit configuration, as the CLI and the scheduled Lambda use it. */
import { describe, expect, it } from "vitest";
import { DEFAULT_OWNER_LABELS, resolveAuditConfig } from "../../../audit/config.js";
import { REPORT_FORMATS } from "../../../audit/report/index.js";
import { ConfigError } from "../../../lib/errors.js";

describe("resolveAuditConfig", () => {
  it("applies the defaults to what is not given", () => {
    const config = resolveAuditConfig({ sources: ["a.yaml"], bundle: "b" }, {}, "1.2.3");

    expect(config).toEqual({
      bundle: "b",
      sources: ["a.yaml"],
      out: "reports",
      formats: REPORT_FORMATS,
      policiesFromInput: false,
      failOn: "violation",
      concurrency: 8,
      ownerLabels: DEFAULT_OWNER_LABELS,
      workers: "auto",
      s3: {},
      user: { username: "tollgate-audit", groups: ["system:authenticated"] },
      warnExpiryDays: 14,
      toolVersion: "1.2.3",
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    {
      name: "the environment over the default",
      options: {},
      env: { TOLLGATE_BUNDLE: "env-bundle", TOLLGATE_AUDIT_OUT: "env-out", TOLLGATE_CONCURRENCY: "3" },
      want: { bundle: "env-bundle", out: "env-out", concurrency: 3 },
    },
    {
      name: "the option over the environment",
      options: { bundle: "b", out: "o", concurrency: "2", failOn: "never" },
      env: { TOLLGATE_BUNDLE: "env-bundle", TOLLGATE_AUDIT_OUT: "env-out", TOLLGATE_FAIL_ON: "warning" },
      want: { bundle: "b", out: "o", concurrency: 2, failOn: "never" },
    },
    {
      name: "an empty option or variable counts as not given",
      options: { bundle: "b", out: "" },
      env: { TOLLGATE_AUDIT_OUT: "", TOLLGATE_WORKERS: "" },
      want: { out: "reports", workers: "auto" },
    },
    {
      name: "the audit user from the environment",
      options: { bundle: "b" },
      env: { TOLLGATE_AS: "ci-bot", TOLLGATE_AS_GROUPS: "ci, system:authenticated" },
      want: { user: { username: "ci-bot", groups: ["ci", "system:authenticated"] } },
    },
    {
      name: "the audit user from the options, over the environment",
      options: { bundle: "b", as: "alice", asGroups: ["dev"] },
      env: { TOLLGATE_AS: "ci-bot", TOLLGATE_AS_GROUPS: "ci" },
      want: { user: { username: "alice", groups: ["dev"] } },
    },
    {
      name: "lists and sizes",
      options: { bundle: "b", format: "sarif, json", ownerLabels: "team, ,owner", maxJsonBytes: "64Mi", workers: "0" },
      env: {},
      want: { formats: ["json", "sarif"], ownerLabels: ["team", "owner"], maxJsonBytes: 64 * 1024 * 1024, workers: 0 },
    },
    {
      name: "a what-if Pod Security level (latest when no version is given)",
      options: { bundle: "b", podSecurity: "restricted" },
      env: { TOLLGATE_POD_SECURITY: "baseline:v1.30" },
      want: { podSecurity: "restricted:latest" },
    },
    {
      name: "a what-if Pod Security level from the environment",
      options: { bundle: "b" },
      env: { TOLLGATE_POD_SECURITY: "baseline:v1.30" },
      want: { podSecurity: "baseline:v1.30" },
    },
    {
      name: "waivers and the expiry warning from the options, over the environment",
      options: { bundle: "b", waivers: "team-waivers/", warnExpiry: "30" },
      env: { TOLLGATE_WAIVERS: "s3://w/", TOLLGATE_WARN_EXPIRY: "7" },
      want: { waivers: "team-waivers/", warnExpiryDays: 30 },
    },
    {
      name: "waivers and the expiry warning from the environment",
      options: { bundle: "b" },
      env: { TOLLGATE_WAIVERS: "s3://w/", TOLLGATE_WARN_EXPIRY: "0d" },
      want: { waivers: "s3://w/", warnExpiryDays: 0 },
    },
  ])("takes $name", ({ options, env, want }) => {
    expect(resolveAuditConfig({ sources: ["s"], ...options }, env, "0.0.0")).toMatchObject(want);
  });

  it.each([
    { options: {}, env: {}, message: "--bundle <path> is required (or set TOLLGATE_BUNDLE)" },
    {
      options: { bundle: "b" },
      env: { TOLLGATE_CONCURRENCY: "0" },
      message: '--concurrency must be an integer from 1 to 9999, not "0"',
    },
    {
      options: { bundle: "b", failOn: "always" },
      env: {},
      message: '--fail-on must be one of violation, warning, audit, never, not "always"',
    },
    {
      options: { bundle: "b", maxJsonBytes: "1Ti" },
      env: {},
      message: '--max-json-bytes must be a size in bytes, optionally with Ki, Mi or Gi (64Mi), not "1Ti"',
    },
    {
      options: { bundle: "b", podSecurity: "strict" },
      env: {},
      message:
        '--pod-security must be <level>[:<version>] (privileged, baseline or restricted; latest or v1.x): Pod Security level "strict": must be one of privileged, baseline, restricted',
    },
    {
      options: { bundle: "b", podSecurity: "restricted:1.30" },
      env: {},
      message:
        '--pod-security must be <level>[:<version>] (privileged, baseline or restricted; latest or v1.x): Pod Security version "1.30": must be "latest" or "v1.x"',
    },
    {
      options: { bundle: "b", warnExpiry: "two weeks" },
      env: {},
      message: '--warn-expiry must be whole days from 0 to 3650 (14), not "two weeks" (flag or TOLLGATE_WARN_EXPIRY)',
    },
    {
      options: { bundle: "b" },
      env: { TOLLGATE_WARN_EXPIRY: "4000" },
      message: '--warn-expiry must be whole days from 0 to 3650 (14), not "4000" (flag or TOLLGATE_WARN_EXPIRY)',
    },
  ])("refuses $options $env with a ConfigError", ({ options, env, message }) => {
    const resolve = () => resolveAuditConfig({ sources: ["s"], ...options }, env, "0.0.0");

    expect(resolve).toThrow(ConfigError);
    expect(resolve).toThrow(message);
  });
});
