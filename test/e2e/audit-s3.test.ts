/**
 * `tollgate audit` with S3 everywhere, against a real S3-compatible server (s3rver, started by this file on
 * 127.0.0.1; requests go through the AWS SDK and HTTP): `s3://` sources, `--bundle s3://`, `--out s3://`, the
 * endpoint from `--s3-endpoint` or `TOLLGATE_S3_ENDPOINT`; and servers that fail mid-run: the run exits 3, says what
 * failed and what state it left, and never leaves an index.json for a partial run.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { single } from "../../audit/report/stream.js";
import { DEFAULT_SOURCE_OPTIONS, openSource } from "../../audit/sources/index.js";
import { type BlobStore, createS3Store } from "../../lib/storage/index.js";
import { freePort } from "../helpers/offline.js";
import { type S3TestServer, startS3Server } from "../helpers/s3-server.js";
import { ROOT, type Run, runCommand } from "../helpers/spawn.js";
import { buildTar } from "../helpers/tar.js";

const POLICIES = join(ROOT, "examples/policies");
const EXPORT = join(ROOT, "examples/export");

let s3: S3TestServer;
let inputs: BlobStore;
let reports: BlobStore;

beforeAll(async () => {
  s3 = await startS3Server({ buckets: ["inputs", "reports"] });
  inputs = await createS3Store({ ...s3.options, bucket: "inputs" });
  reports = await createS3Store({ ...s3.options, bucket: "reports" });
  for (const name of readdirSync(POLICIES)) {
    await inputs.write(`policies/${name}`, readFileSync(join(POLICIES, name), "utf8"));
  }
  const exported = readFileSync(join(EXPORT, "cluster-export.yaml"), "utf8");
  await inputs.write("exports/cluster-a/cluster-export.yaml", exported);
  await inputs.write("exports/cluster-a/.git/config.yaml", "not: audited\n");
  await inputs.write("exports/cluster-a/ci/values.yaml", "replicas: 3\n");
  await inputs.write("exports/cluster-a/README.md", "# not a document file\n");
  await inputs.write("exports/cluster-a-old/cluster-export.yaml", "ignored: the prefix is cluster-a/ only\n");
});
afterAll(async () => {
  inputs?.close();
  reports?.close();
  await s3?.stop();
});

function tollgate(args: readonly string[], env: Record<string, string> = s3.env): Promise<Run> {
  const base = { ...process.env };
  delete base.TOLLGATE_S3_ENDPOINT;
  delete base.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  // The CLI's stderr is asserted exactly: the SDK's Node version warning (Node 20) is the CLI's to silence.
  return runCommand(process.execPath, ["audit/cli/bin.js", ...args], { env: { ...base, NO_COLOR: "1", ...env } });
}

async function keys(store: BlobStore, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const b of store.list(prefix)) out.push(b.key.slice(prefix.length));
  return out;
}

const normalise = (text: string) => text.replace(/\d{8}T\d{6}Z(-\d+)?/g, "<run>");

describe("tollgate audit with s3://", () => {
  it("audits an S3 prefix against an S3 bundle and writes the run folder, index.json then latest.json to S3", async () => {
    // Prepare
    const local = await tollgate([
      "audit",
      "--bundle",
      "examples/policies",
      "--policies-from-input",
      "--fail-on",
      "never",
      "--format",
      "json",
      "--out",
      "s3://reports/local-baseline",
      // The one file of examples/export the S3 prefix holds.
      "examples/export/cluster-export.yaml",
    ]);
    expect(local.code).toBe(0);
    // Act
    const r = await tollgate([
      "audit",
      "--bundle",
      "s3://inputs/policies/",
      "--policies-from-input",
      "--fail-on",
      "never",
      "--out",
      "s3://reports/nightly",
      "s3://inputs/exports/cluster-a",
    ]);
    // Assess
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = normalise(r.stdout).split("\n");
    // The same objects and findings as the local export (the skipped CI file adds one not-Kubernetes document).
    const localLines = normalise(local.stdout).split("\n");
    expect(lines[0]).toBe(
      "tollgate audit <run>: 16 documents from s3://inputs/exports/cluster-a against s3://inputs/policies/ (16 kinds, 2 policies from the input)",
    );
    expect(lines[1]).toBe(localLines[1]!.replace("0 not Kubernetes objects", "1 not Kubernetes objects"));
    expect(lines[2]).toBe(localLines[2]);
    expect(lines).toContain(
      "Reports: s3://reports/nightly/<run>/ (report.json, summary.json, report.sarif, junit.xml, policyreport.yaml, openreports.yaml, findings.csv, fielderrors.ndjson, report.html)",
    );
    expect(lines).toContain("HTML report: s3://reports/nightly/<run>/report.html");

    const latest = JSON.parse(await reports.readText("nightly/latest.json")) as { path: string; runId: string };
    const folder = latest.path;
    expect(folder).toMatch(/^\d{8}T\d{6}Z\/$/);
    const index = JSON.parse(await reports.readText(`nightly/${folder}index.json`)) as {
      files: { name: string; bytes: number; sha256: string }[];
    };
    expect(index.files.map((f) => f.name)).toEqual([
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
    expect((await keys(reports, `nightly/${folder}`)).sort()).toEqual(
      [...index.files.map((f) => f.name), "index.json"].sort(),
    );
    const { createHash } = await import("node:crypto");
    for (const f of index.files) {
      const bytes = await reports.readBytes(`nightly/${folder}${f.name}`);
      expect(bytes.byteLength).toBe(f.bytes);
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(f.sha256);
    }
    // index.json is written after every file, then the history line, and latest.json last.
    const puts = s3.requests.filter((q) => q.method === "PUT" && q.url.startsWith(`/reports/nightly/`));
    const order = puts.map((q) => q.url.split("?")[0]!.split("/").pop());
    expect(order.indexOf("index.json")).toBe(order.length - 3);
    expect(order.at(-2)).toBe("history.json");
    expect(order.at(-1)).toBe("latest.json");
    // Locations name the S3 objects.
    const report = JSON.parse(await reports.readText(`nightly/${folder}report.json`)) as {
      findings: { location?: { file: string } }[];
    };
    expect(report.findings.some((f) => f.location?.file === "s3://inputs/exports/cluster-a/cluster-export.yaml")).toBe(
      true,
    );

    // A second run at the same prefix compares with the latest one (read back from S3).
    const again = await tollgate([
      "audit",
      "--bundle",
      "s3://inputs/policies",
      "--policies-from-input",
      "--fail-on",
      "never",
      "--out",
      "s3://reports/nightly/",
      "s3://inputs/exports/cluster-a/",
    ]);
    expect(again.code).toBe(0);
    expect(normalise(again.stdout)).toContain("  since <run>: 0 new, 0 resolved, 11 persisting");

    // The two runs are one chain: history.json has a line each, and tollgate verify re-hashes both from S3.
    const history = (await reports.readText("nightly/history.json")).trim().split("\n");
    expect(history.map((l) => (JSON.parse(l) as { path: string }).path)).toEqual(
      (await keys(reports, "nightly/"))
        .filter((k) => k.endsWith("/index.json"))
        .map((k) => k.replace("index.json", "")),
    );
    const verified = await tollgate(["verify", "s3://reports/nightly"]);
    expect(verified.stderr).toBe("");
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/^verified s3:\/\/reports\/nightly: 2 run\(s\), 18 file\(s\) as written; /);
    // One byte of the first run's SARIF changed: verify names the object and exits 1.
    const sarifKey = `nightly/${folder}report.sarif`;
    const sarif = Buffer.from(await reports.readBytes(sarifKey));
    sarif[10] = sarif[10] === 0x20 ? 0x09 : 0x20;
    await reports.write(sarifKey, sarif);
    const broken = await tollgate(["verify", "s3://reports/nightly"]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(`BROKEN s3://reports/${sarifKey}: changed (`);
  });

  it("takes the endpoint from --s3-endpoint, and one object named by its key", async () => {
    // Act
    const r = await tollgate(
      [
        "audit",
        "--s3-endpoint",
        s3.endpoint,
        "--bundle",
        "s3://inputs/policies/widget-crd.yaml",
        "--format",
        "summary",
        "--out",
        "s3://reports/one",
        "s3://inputs/exports/cluster-a/cluster-export.yaml",
      ],
      { ...s3.env, TOLLGATE_S3_ENDPOINT: "" },
    );
    // Assess
    expect(r.stderr).toBe("");
    expect(r.code).toBe(1);
    expect(normalise(r.stdout).split("\n")[0]).toBe(
      "tollgate audit <run>: 15 documents from s3://inputs/exports/cluster-a/cluster-export.yaml against s3://inputs/policies/widget-crd.yaml (1 kind)",
    );
    expect(await keys(reports, "one/")).toEqual(expect.arrayContaining(["latest.json"]));
  });

  it("without credentials for the server: exit 3, and the error says where they come from", async () => {
    // Act: no keys anywhere the SDK's default chain looks (environment, files, instance metadata).
    const nowhere = join(tmpdir(), "tollgate-no-aws-config");
    const r = await tollgate(
      ["audit", "--bundle", "examples/policies", "--out", "s3://reports/no-keys", "examples/export"],
      {
        TOLLGATE_S3_ENDPOINT: s3.endpoint,
        AWS_ACCESS_KEY_ID: "",
        AWS_SECRET_ACCESS_KEY: "",
        AWS_SESSION_TOKEN: "",
        AWS_PROFILE: "",
        AWS_SHARED_CREDENTIALS_FILE: nowhere,
        AWS_CONFIG_FILE: nowhere,
        AWS_EC2_METADATA_DISABLED: "true",
        AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: "",
        AWS_CONTAINER_CREDENTIALS_FULL_URI: "",
        AWS_WEB_IDENTITY_TOKEN_FILE: "",
      },
    );
    // Assess
    expect(r.stderr).toBe(
      "storage error: cannot read s3://reports/no-keys/latest.json: CredentialsProviderError: Could not load credentials from any providers (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE; an S3-compatible server such as s3rver or MinIO takes its own keys)\n",
    );
    expect(r.code).toBe(3);
  });

  it("rejects an endpoint that is not an http(s) URL (exit 2)", async () => {
    const r = await tollgate(["audit", "--s3-endpoint", "127.0.0.1:9", "--bundle", "examples/policies", "x"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--s3-endpoint must be an http:// or https:// URL");
  });
});

describe("S3 failing mid-run", () => {
  it("a report write that keeps failing: exit 3, a clear message, files so far but no index.json, latest.json untouched", async () => {
    // Prepare: a first complete run, then the server fails every upload of report.html (after the SDK's retries).
    const first = await tollgate([
      "audit",
      ...["--bundle", "examples/policies", "--fail-on", "never", "--out", "s3://reports/failing"],
      "examples/export",
    ]);
    expect(first.code).toBe(0);
    const latestBefore = await reports.readText("failing/latest.json");
    const remove = s3.injectFault({ method: "PUT", path: /^\/reports\/failing\/[^/]+\/report\.html/ });
    let r: Run;
    try {
      // Act
      r = await tollgate([
        "audit",
        ...["--bundle", "examples/policies", "--fail-on", "never", "--out", "s3://reports/failing"],
        "examples/export",
      ]);
    } finally {
      remove();
    }
    // Assess
    expect(r.code).toBe(3);
    expect(r.stdout).toBe("");
    expect(normalise(r.stderr)).toBe(
      "storage error: reports not written: the run folder s3://reports/failing/<run>/ is incomplete and has no index.json: " +
        "cannot write s3://reports/failing/<run>/report.html: InternalError (HTTP 500): We encountered an internal error. Please try again.\n",
    );
    const runs = (await keys(reports, "failing/")).filter((k) => k !== "latest.json" && k !== "history.json");
    const folders = [...new Set(runs.map((k) => k.split("/")[0]))];
    expect(folders).toHaveLength(2);
    const partial = folders.find((f) => !runs.includes(`${f}/index.json`));
    expect(partial).toBeDefined();
    expect(runs.filter((k) => k.startsWith(`${partial}/`)).length).toBeGreaterThan(0);
    expect(await reports.readText("failing/latest.json")).toBe(latestBefore);
  });

  it("a source object the server stops serving: exit 3 naming the object, and no run folder at all", async () => {
    // Prepare
    const remove = s3.injectFault({
      method: "GET",
      path: /^\/inputs\/exports\/cluster-a\/cluster-export\.yaml/,
      status: 503,
      code: "SlowDown",
      message: "Please reduce your request rate.",
    });
    let r: Run;
    try {
      // Act
      r = await tollgate([
        "audit",
        ...["--bundle", "examples/policies", "--out", "s3://reports/unreadable"],
        "s3://inputs/exports/cluster-a/",
      ]);
    } finally {
      remove();
    }
    // Assess
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      "storage error: cannot read s3://inputs/exports/cluster-a/cluster-export.yaml: SlowDown (HTTP 503): Please reduce your request rate.\n",
    );
    expect(await keys(reports, "unreadable/")).toEqual([]);
  });

  it("a reports bucket that disappeared: exit 3, and nothing written", async () => {
    // Prepare: the bucket is gone for every request from now on (NoSuchBucket), as after a deletion.
    const remove = s3.injectFault({ path: /^\/gone-reports/, status: 404, code: "NoSuchBucket", message: "gone" });
    let r: Run;
    try {
      r = await tollgate([
        "audit",
        ...["--bundle", "examples/policies", "--fail-on", "never", "--out", "s3://gone-reports/nightly"],
        "examples/export",
      ]);
    } finally {
      remove();
    }
    // Assess
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /^storage error: cannot (read|list objects under) s3:\/\/gone-reports\/nightly\/.*NoSuchBucket/,
    );
  });

  it("a server that is not running (stopped): exit 3 naming the location", async () => {
    // Prepare: a port with nothing listening, taken from a server that was started and stopped.
    const port = await freePort();
    // Act
    const r = await tollgate(
      ["audit", "--bundle", "examples/policies", "--out", "s3://reports/x", "s3://inputs/exports/cluster-a/"],
      { ...s3.env, TOLLGATE_S3_ENDPOINT: `http://127.0.0.1:${port}` },
    );
    // Assess
    expect(r.code).toBe(3);
    // The examples enable Pod Security, so the input is read first (its Namespaces: audit/cluster-state.ts).
    expect(r.stderr).toMatch(/^storage error: cannot .*s3:\/\/inputs\/exports\/cluster-a\/.*ECONNREFUSED/);
  });
});

describe("S3 sources", () => {
  it("lists every document object under a prefix, in key order, leaving .git out", async () => {
    const source = await openSource("s3://inputs/exports/cluster-a", DEFAULT_SOURCE_OPTIONS, { s3: s3.options });
    try {
      const names: string[] = [];
      for await (const unit of source.units()) names.push(unit.name);
      expect(names).toEqual([
        "s3://inputs/exports/cluster-a/ci/values.yaml",
        "s3://inputs/exports/cluster-a/cluster-export.yaml",
      ]);
    } finally {
      await source.close?.();
    }
  });

  it("reports an object over the size limit as an input error of that object", async () => {
    const source = await openSource(
      "s3://inputs/exports/cluster-a/",
      { ...DEFAULT_SOURCE_OPTIONS, maxFileBytes: 100 },
      { s3: s3.options },
    );
    try {
      const docs = [];
      for await (const unit of source.units()) docs.push(...(await unit.read()));
      expect(docs.map((d) => (d.kind === "error" ? d.error : d.kind))).toEqual([
        "not-kubernetes",
        expect.stringMatching(/^object is \d+ bytes, over the limit of 100 bytes per input file$/),
      ]);
    } finally {
      await source.close?.();
    }
  });
});

describe("the report sink on S3", () => {
  it("uploads a report over the multipart threshold in parts, and its digest in index.json matches", async () => {
    // Prepare: a run with a large report file (9 MiB, over lib/storage's 8 MiB part size) and a 6 MiB threshold.
    const { writeRun } = await import("../../audit/sink.js");
    const run = {
      apiVersion: "tollgate.dev/v1alpha1",
      runId: "20261122T021500Z",
      startedAt: "2026-11-22T02:15:00.000Z",
      finishedAt: "2026-11-22T02:16:00.000Z",
      bundle: { digest: "sha256:0" },
      summary: { valid: 0, invalid: 0, findings: {} },
    } as unknown as Parameters<typeof writeRun>[1];
    const big = "x".repeat(9 * 1024 * 1024);
    // Act
    const written = await writeRun(
      "s3://reports/big",
      run,
      [{ name: "findings.csv", chunks: single(() => big), contentType: "text/csv" }],
      { s3: s3.options, multipartThreshold: 6 * 1024 * 1024 },
    );
    // Assess
    expect(written.folder).toBe("s3://reports/big/20261122T021500Z");
    expect(
      s3.requests.some(
        (q) => q.method === "POST" && q.url.includes("/reports/big/20261122T021500Z/findings.csv?uploads"),
      ),
    ).toBe(true);
    const back = await reports.readText("big/20261122T021500Z/findings.csv");
    expect(back.length).toBe(big.length);
    const index = JSON.parse(await reports.readText("big/20261122T021500Z/index.json")) as {
      files: { sha256: string }[];
    };
    expect(index.files[0]!.sha256).toBe(written.files[0]!.sha256);
  });
});

describe("an S3 source with nothing to audit", () => {
  it("is a configuration error (exit 2), never an empty pass", async () => {
    const r = await tollgate([
      "audit",
      "--bundle",
      "examples/policies",
      "--out",
      "s3://reports/empty",
      "s3://inputs/exportz/",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: source "s3://inputs/exportz/": no object, and no *.yaml, *.yml, *.json, *.tar, *.tar.gz or *.tgz object under it\n',
    );
    expect(await keys(reports, "empty/")).toEqual([]);
  });
});

describe("archive objects under an S3 prefix", () => {
  const OBJECTS = join(ROOT, "examples/objects");
  const example = (name: string) => readFileSync(join(OBJECTS, name), "utf8");
  // A git-archive-like snapshot: two Widgets (one invalid), a file that is no object, a file that is not read, and a
  // member that climbs out of the archive.
  const snap = gzipSync(
    buildTar([
      { name: "snap/", type: "5" },
      { name: "snap/widget-valid.yaml", content: example("widget-valid.yaml") },
      { name: "snap/widget-too-many-replicas.yaml", content: example("widget-too-many-replicas.yaml") },
      { name: "snap/values.yaml", content: "replicas: 3\n" },
      { name: "snap/notes.txt", content: "not read\n" },
      { name: "../escape.yaml", content: example("widget-minimal.yaml") },
    ]),
  );
  // A tar whose header checksum is wrong, compressed: a corrupt archive.
  const broken = gzipSync(buildTar([{ name: "a.yaml", content: example("widget-minimal.yaml"), badChecksum: true }]));
  const PREFIX = "s3://inputs/archives/mixed/";
  const local = mkdtempSync(join(tmpdir(), "tollgate-s3-archives-"));

  beforeAll(async () => {
    await inputs.write("archives/mixed/broken.tgz", broken);
    await inputs.write("archives/mixed/plain.yaml", example("widget-minimal.yaml"));
    await inputs.write("archives/mixed/README.md", "# not a document file\n");
    await inputs.write("archives/mixed/snap.tar.gz", snap);
    await inputs.write("archives/mixed/.git/old.tar", buildTar([{ name: "x.yaml", content: "not: audited\n" }]));
    writeFileSync(join(local, "snap.tar.gz"), snap);
  });
  afterAll(() => rmSync(local, { recursive: true, force: true }));

  interface Report {
    objects: { location: { file: string; entry?: string }; outcome: string }[];
    findings: {
      id: string;
      severity: string;
      location: { file: string; entry?: string };
      message: string;
      firstSeen: string;
    }[];
    summary: Record<string, unknown>;
  }

  async function latestReport(prefix: string): Promise<Report> {
    const latest = JSON.parse(await reports.readText(`${prefix}/latest.json`)) as { path: string };
    return JSON.parse(await reports.readText(`${prefix}/${latest.path}report.json`)) as Report;
  }

  it("audits every member of a .tar.gz object like a local archive; a corrupt archive and a traversal member are input errors", async () => {
    // Act
    const r = await tollgate([
      "audit",
      ...["--bundle", "examples/policies", "--fail-on", "never", "--format", "json"],
      ...["--out", "s3://reports/archives"],
      PREFIX,
    ]);
    const l = await tollgate([
      "audit",
      ...["--bundle", "examples/policies", "--fail-on", "never", "--format", "json"],
      ...["--out", join(local, "reports")],
      join(local, "snap.tar.gz"),
    ]);
    // Assess
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(l.code).toBe(0);
    const report = await latestReport("archives");
    const snapUrl = `${PREFIX}snap.tar.gz`;
    expect(report.objects.map((o) => ({ file: o.location.file, entry: o.location.entry, outcome: o.outcome }))).toEqual(
      [
        { file: `${PREFIX}broken.tgz`, entry: undefined, outcome: "error" },
        { file: `${PREFIX}plain.yaml`, entry: undefined, outcome: "valid" },
        { file: snapUrl, entry: "snap/widget-valid.yaml", outcome: "valid" },
        { file: snapUrl, entry: "snap/widget-too-many-replicas.yaml", outcome: "invalid" },
        { file: snapUrl, entry: "snap/values.yaml", outcome: "not-kubernetes" },
        { file: snapUrl, entry: "../escape.yaml", outcome: "error" },
      ],
    );
    const inputErrors = report.findings.filter((f) => f.severity === "input-error");
    expect(inputErrors.map((f) => ({ location: f.location, message: f.message }))).toEqual([
      {
        location: { file: `${PREFIX}broken.tgz` },
        message: expect.stringMatching(/^not a readable tar archive: bad header checksum/),
      },
      {
        location: { file: snapUrl, entry: "../escape.yaml" },
        message: 'member name "../escape.yaml" climbs out of the archive (..)',
      },
    ]);
    expect(report.summary).toMatchObject({
      documents: 6,
      valid: 2,
      invalid: 1,
      skippedNotKubernetes: 1,
      inputErrors: 2,
    });
    expect(report.summary.findings).toMatchObject({ violation: 1, "input-error": 2 });

    // The same archive read from a local file gives the same findings, with the path in place of the s3:// URL.
    const localReport = JSON.parse(
      readFileSync(
        join(local, "reports", readdirSync(join(local, "reports")).find((f) => /^\d{8}T/.test(f))!, "report.json"),
        "utf8",
      ),
    ) as Report;
    const comparable = (f: Report["findings"][number], file: string) => ({
      ...f,
      id: undefined,
      firstSeen: undefined,
      location: { ...f.location, file: f.location.file === file ? "<archive>" : f.location.file },
    });
    expect(report.findings.filter((f) => f.location.file === snapUrl).map((f) => comparable(f, snapUrl))).toEqual(
      localReport.findings.map((f) => comparable(f, join(local, "snap.tar.gz"))),
    );
    expect(localReport.findings.length).toBeGreaterThanOrEqual(2);
  });

  it("reads an s3:// URL naming one archive object as that archive, units named s3://bucket/key!member", async () => {
    const source = await openSource(`${PREFIX}snap.tar.gz`, DEFAULT_SOURCE_OPTIONS, { s3: s3.options });
    try {
      const names: string[] = [];
      for await (const unit of source.units()) names.push(unit.name);
      expect(names).toEqual([
        `${PREFIX}snap.tar.gz!snap/widget-valid.yaml`,
        `${PREFIX}snap.tar.gz!snap/widget-too-many-replicas.yaml`,
        `${PREFIX}snap.tar.gz!snap/values.yaml`,
        `${PREFIX}snap.tar.gz!../escape.yaml`,
      ]);
    } finally {
      await source.close?.();
    }
  });

  it("an archive object over maxArchiveBytes is an input error of that object, and the run goes on", async () => {
    // Prepare: a bound the snapshot exceeds and the corrupt archive (compressed) does not.
    expect(broken.length).toBeLessThan(snap.length);
    const seen = s3.requests.length;
    const source = await openSource(
      PREFIX,
      { ...DEFAULT_SOURCE_OPTIONS, maxArchiveBytes: snap.length - 1 },
      { s3: s3.options },
    );
    try {
      // Act
      const docs = [];
      for await (const unit of source.units()) docs.push(...(await unit.read()));
      // Assess
      expect(
        docs.map((d) => ({ file: d.location.file, kind: d.kind, error: d.kind === "error" ? d.error : undefined })),
      ).toEqual([
        // The corrupt archive is small compressed but 2048 bytes as a tar stream: over the bound once uncompressed.
        {
          file: `${PREFIX}broken.tgz`,
          kind: "error",
          error: `archive uncompresses to more than ${snap.length - 1} bytes`,
        },
        { file: `${PREFIX}plain.yaml`, kind: "object", error: undefined },
        {
          file: `${PREFIX}snap.tar.gz`,
          kind: "error",
          error: `archive is ${snap.length} bytes, over the limit of ${snap.length - 1}`,
        },
      ]);
      // Never downloaded: the listed size was enough.
      expect(
        s3.requests
          .slice(seen)
          .some((q) => q.method === "GET" && q.url.startsWith("/inputs/archives/mixed/snap.tar.gz")),
      ).toBe(false);
    } finally {
      await source.close?.();
    }
  });

  it("an archive object gone after the listing is an input error of that object", async () => {
    const remove = s3.injectFault({
      method: "GET",
      path: /^\/inputs\/archives\/mixed\/snap\.tar\.gz/,
      status: 404,
      code: "NoSuchKey",
      message: "The specified key does not exist.",
    });
    const source = await openSource(PREFIX, DEFAULT_SOURCE_OPTIONS, { s3: s3.options });
    try {
      const docs = [];
      for await (const unit of source.units()) docs.push(...(await unit.read()));
      expect(docs.filter((d) => d.location.file === `${PREFIX}snap.tar.gz`)).toEqual([
        {
          kind: "error",
          location: { file: `${PREFIX}snap.tar.gz` },
          error: "object no longer exists (deleted after the listing)",
        },
      ]);
      expect(docs.map((d) => d.location.file)).toContain(`${PREFIX}plain.yaml`);
    } finally {
      remove();
      await source.close?.();
    }
  });
});
