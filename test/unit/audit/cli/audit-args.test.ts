/** `tollgate audit`'s S3 flags: endpoint and path style, flag over environment, resolved in audit/cli. */
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../../../audit/cli/args.js";

function s3Of(argv: string[], env: Record<string, string | undefined> = {}): unknown {
  const parsed = parseArgs(["audit", "--bundle", "b", ...argv, "src"], env, "0.0.0");
  if (parsed.kind !== "audit") return parsed.kind === "usage-error" ? parsed.message.split("\n")[0] : parsed.kind;
  return parsed.config.s3;
}

describe("tollgate audit S3 options", () => {
  it.each([
    { name: "none: AWS S3", argv: [], env: {}, want: {} },
    {
      name: "the flag",
      argv: ["--s3-endpoint", "http://127.0.0.1:4569"],
      env: {},
      want: { endpoint: "http://127.0.0.1:4569" },
    },
    {
      name: "the environment",
      argv: [],
      env: { TOLLGATE_S3_ENDPOINT: "https://minio.local" },
      want: { endpoint: "https://minio.local" },
    },
    {
      name: "the flag over the environment",
      argv: ["--s3-endpoint", "http://a:1"],
      env: { TOLLGATE_S3_ENDPOINT: "http://b:2" },
      want: { endpoint: "http://a:1" },
    },
    { name: "--no-s3-path-style", argv: ["--no-s3-path-style"], env: {}, want: { pathStyle: false } },
    { name: "--s3-path-style", argv: ["--s3-path-style"], env: {}, want: { pathStyle: true } },
    { name: "TOLLGATE_S3_PATH_STYLE", argv: [], env: { TOLLGATE_S3_PATH_STYLE: "false" }, want: { pathStyle: false } },
    {
      name: "the path-style flag over the environment",
      argv: ["--s3-path-style"],
      env: { TOLLGATE_S3_PATH_STYLE: "false" },
      want: { pathStyle: true },
    },
  ])("resolves $name", ({ argv, env, want }) => {
    expect(s3Of(argv, env)).toEqual(want);
  });

  it.each([
    {
      argv: ["--s3-endpoint", "127.0.0.1:4569"],
      env: {},
      want: /--s3-endpoint must be an http:\/\/ or https:\/\/ URL/,
    },
    {
      argv: [],
      env: { TOLLGATE_S3_ENDPOINT: "ftp://x" },
      want: /--s3-endpoint must be an http:\/\/ or https:\/\/ URL/,
    },
    { argv: [], env: { TOLLGATE_S3_PATH_STYLE: "yes" }, want: /TOLLGATE_S3_PATH_STYLE must be true or false/ },
  ])("refuses $argv $env", ({ argv, env, want }) => {
    expect(s3Of(argv, env)).toMatch(want);
  });
});

describe("tollgate audit --max-json-bytes", () => {
  function maxJsonOf(argv: string[], env: Record<string, string | undefined> = {}): unknown {
    const parsed = parseArgs(["audit", "--bundle", "b", ...argv, "src"], env, "0.0.0");
    if (parsed.kind !== "audit") return parsed.kind === "usage-error" ? parsed.message.split("\n")[0] : parsed.kind;
    return parsed.config.maxJsonBytes;
  }

  it.each([
    { argv: [], env: {}, want: undefined },
    { argv: ["--max-json-bytes", "1048576"], env: {}, want: 1048576 },
    { argv: ["--max-json-bytes", "64Mi"], env: {}, want: 64 * 1024 * 1024 },
    { argv: ["--max-json-bytes", "2GiB"], env: {}, want: 2 * 1024 ** 3 },
    { argv: [], env: { TOLLGATE_MAX_JSON_BYTES: "1Ki" }, want: 1024 },
    { argv: ["--max-json-bytes", "2Ki"], env: { TOLLGATE_MAX_JSON_BYTES: "1Ki" }, want: 2048 },
  ])("resolves $argv $env", ({ argv, env, want }) => {
    expect(maxJsonOf(argv, env)).toBe(want);
  });

  it.each(["0", "-1", "1.5Mi", "64MB", "lots", "99999999999999999Gi"])("refuses %s with a usage error", (raw) => {
    expect(maxJsonOf(["--max-json-bytes", raw])).toMatch(/--max-json-bytes must be a size in bytes/);
  });
});

function workersOf(argv: string[], env: Record<string, string | undefined> = {}): unknown {
  const parsed = parseArgs(["audit", "--bundle", "b", ...argv, "src"], env, "0.0.0");
  if (parsed.kind !== "audit") return parsed.kind === "usage-error" ? parsed.message.split("\n")[0] : parsed.kind;
  return parsed.config.workers;
}

describe("tollgate audit --workers", () => {
  it.each([
    { name: "none: auto", argv: [], env: {}, want: "auto" },
    { name: "the flag", argv: ["--workers", "4"], env: {}, want: 4 },
    { name: "0: one thread", argv: ["--workers", "0"], env: {}, want: 0 },
    { name: "auto, any case", argv: ["--workers", "AUTO"], env: {}, want: "auto" },
    { name: "the environment", argv: [], env: { TOLLGATE_WORKERS: "1" }, want: 1 },
    {
      name: "the flag over the environment",
      argv: ["--workers", "auto"],
      env: { TOLLGATE_WORKERS: "3" },
      want: "auto",
    },
  ])("resolves $name", ({ argv, env, want }) => {
    expect(workersOf(argv, env)).toEqual(want);
  });

  it.each([
    { argv: ["--workers", "-1"], env: {} },
    { argv: ["--workers", "65"], env: {} },
    { argv: ["--workers", "many"], env: {} },
    { argv: [], env: { TOLLGATE_WORKERS: "2.5" } },
  ])("refuses $argv $env", ({ argv, env }) => {
    expect(workersOf(argv, env)).toMatch(/--workers must be auto or a whole number from 0 to 64/);
  });
});
