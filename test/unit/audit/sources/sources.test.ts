import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_SOURCE_OPTIONS, openSource, type Source, type SourceDoc } from "../../../../audit/sources/index.js";
import { ConfigError } from "../../../../lib/index.js";
import { buildTar, paxPath } from "../../../helpers/tar.js";

const root = mkdtempSync(join(tmpdir(), "tollgate-sources-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, content: string | Buffer): string {
  const path = join(root, rel);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
  return path;
}

async function readAll(source: Source): Promise<SourceDoc[]> {
  const out: SourceDoc[] = [];
  for await (const unit of source.units()) out.push(...(await unit.read()));
  return out;
}

/** Docs without the temporary root, for readable expectations. */
function brief(docs: SourceDoc[]): unknown[] {
  return docs.map((d) => {
    const location = { ...d.location, file: d.location.file.replace(root, "<root>") };
    if (d.kind === "object") return { kind: d.kind, location, name: (d.object.metadata as { name: string }).name };
    if (d.kind === "error") return { kind: d.kind, location, error: d.error };
    return { kind: d.kind, location };
  });
}

const CM = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

describe("file source", () => {
  it("reads multi-document YAML with locations, and reports undecodable documents and non-objects", async () => {
    // Prepare
    const file = write(
      "multi.yaml",
      `${CM("a")}---\n# comment only\n---\n${CM("b")}---\nspec: {broken\n---\n- a list\n---\nfoo: bar\n`,
    );
    // Act
    const docs = await readAll(await openSource(file, DEFAULT_SOURCE_OPTIONS));
    // Assess
    expect(brief(docs)).toEqual([
      { kind: "object", location: { file: "<root>/multi.yaml", document: 0, line: 1 }, name: "a" },
      { kind: "object", location: { file: "<root>/multi.yaml", document: 2, line: 8 }, name: "b" },
      {
        kind: "error",
        location: { file: "<root>/multi.yaml", document: 3, line: 13 },
        error: expect.stringMatching(/^document 3 \(line 13\): /),
      },
      {
        kind: "error",
        location: { file: "<root>/multi.yaml", document: 4, line: 15 },
        error: expect.stringMatching(/^document 4 \(line 15\): expected a Kubernetes object/),
      },
      {
        kind: "error",
        location: { file: "<root>/multi.yaml", document: 5, line: 17 },
        error: "document 5 (line 17): Object 'Kind' is missing",
      },
    ]);
  });

  it("unwraps kind: List exports (JSON), one document per item, each at its own line", async () => {
    const list = {
      apiVersion: "v1",
      kind: "List",
      items: [
        JSON.parse(JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } })),
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "y" } },
      ],
    };
    const file = write("export.json", JSON.stringify(list, null, 1));
    const docs = await readAll(await openSource(file, DEFAULT_SOURCE_OPTIONS));
    expect(brief(docs)).toEqual([
      { kind: "object", location: { file: "<root>/export.json", document: 0, line: 5, item: 0 }, name: "x" },
      { kind: "object", location: { file: "<root>/export.json", document: 0, line: 12, item: 1 }, name: "y" },
    ]);
  });

  it("reports a file over the size bound as one input error", async () => {
    const file = write("big.yaml", CM("big"));
    const docs = await readAll(await openSource(file, { ...DEFAULT_SOURCE_OPTIONS, maxFileBytes: 10 }));
    expect(brief(docs)).toEqual([
      {
        kind: "error",
        location: { file: "<root>/big.yaml" },
        error: expect.stringMatching(/over the limit of 10 bytes per input file$/),
      },
    ]);
  });

  it.each([
    { name: "a missing path", spec: "no/such/file.yaml", message: /does not exist/ },
    { name: "a malformed S3 location", spec: "s3://Not_A_Bucket/prefix", message: /is not a bucket name/ },
  ])("refuses $name with a ConfigError", async ({ spec, message }) => {
    await expect(openSource(spec, DEFAULT_SOURCE_OPTIONS)).rejects.toThrow(message);
    await expect(openSource(spec, DEFAULT_SOURCE_OPTIONS)).rejects.toBeInstanceOf(ConfigError);
  });
});

describe("folder source", () => {
  it("reads *.yaml, *.yml, *.json in name order, skips .git and node_modules, counts non-Kubernetes documents", async () => {
    // Prepare
    const dir = join(root, "repo");
    write("repo/b/deploy.yml", CM("b"));
    write("repo/a.yaml", `${CM("a")}---\nreplicaCount: 3\n`);
    write("repo/c.json", '{"name": "package"}');
    write("repo/README.md", "# not read");
    write("repo/.git/config.yaml", CM("git"));
    write("repo/node_modules/x/y.yaml", CM("dep"));
    // Act
    const docs = await readAll(await openSource(dir, DEFAULT_SOURCE_OPTIONS));
    // Assess
    expect(brief(docs)).toEqual([
      { kind: "object", location: { file: "<root>/repo/a.yaml", document: 0, line: 1 }, name: "a" },
      { kind: "not-kubernetes", location: { file: "<root>/repo/a.yaml", document: 1, line: 6 } },
      { kind: "object", location: { file: "<root>/repo/b/deploy.yml", document: 0, line: 1 }, name: "b" },
      { kind: "not-kubernetes", location: { file: "<root>/repo/c.json", document: 0, line: 1 } },
    ]);
  });

  it("leaves out tollgate's own report folders: by their latest.json or index.json, and the run's --out", async () => {
    // Prepare: a checkout with the reports of earlier runs in it (`tollgate audit --out ci-reports .`).
    const dir = join(root, "checkout");
    const marker = (kind: string) => JSON.stringify({ apiVersion: "tollgate.dev/v1alpha1", kind, runId: "r" });
    write("checkout/app.yaml", CM("app"));
    write("checkout/ci-reports/latest.json", marker("AuditLatest"));
    write("checkout/ci-reports/20261122T021500Z/index.json", marker("AuditRunIndex"));
    write("checkout/ci-reports/20261122T021500Z/report.json", marker("AuditReport"));
    write("checkout/ci-reports/20261122T021500Z/policyreport.yaml", CM("in-a-report"));
    write("checkout/old-run/index.json", marker("AuditRunIndex"));
    write("checkout/old-run/policyreport.yaml", CM("in-an-old-run"));
    write("checkout/first-run/report.json", marker("AuditReport"));
    write(
      "checkout/loose/latest.json",
      '{"apiVersion": "tollgate.dev/v1alpha1", "kind": "Other", "metadata": {"name": "x"}}',
    );
    write("checkout/loose/index.json", '{"files": []}');
    // Act
    const docs = await readAll(
      await openSource(dir, { ...DEFAULT_SOURCE_OPTIONS, excludeFolders: [join(dir, "first-run")] }),
    );
    // Assess: only the files that are not tollgate's markers are read outside report folders.
    expect(brief(docs)).toEqual([
      { kind: "object", location: { file: "<root>/checkout/app.yaml", document: 0, line: 1 }, name: "app" },
      { kind: "not-kubernetes", location: { file: "<root>/checkout/loose/index.json", document: 0, line: 1 } },
      { kind: "object", location: { file: "<root>/checkout/loose/latest.json", document: 0, line: 1 }, name: "x" },
    ]);
  });
});

describe("folder source: the folder walk of lib/storage", () => {
  it("reads a folder mounted from a ConfigMap through its ..data links, and leaves hidden folders out", async () => {
    // Prepare: the kubelet's layout, and a hidden folder of the checkout kind.
    write("cm/..2026_11_22_02_15_00.1/a.yaml", CM("mounted-a"));
    write("cm/..2026_11_22_02_15_00.1/b.yaml", CM("mounted-b"));
    symlinkSync("..2026_11_22_02_15_00.1", join(root, "cm", "..data"));
    symlinkSync("..data/a.yaml", join(root, "cm", "a.yaml"));
    symlinkSync("..data/b.yaml", join(root, "cm", "b.yaml"));
    write("cm/.github/workflow.yaml", CM("ci"));
    // Act
    const docs = await readAll(await openSource(join(root, "cm"), DEFAULT_SOURCE_OPTIONS));
    // Assess
    expect(brief(docs)).toEqual([
      { kind: "object", location: { file: "<root>/cm/a.yaml", document: 0, line: 1 }, name: "mounted-a" },
      { kind: "object", location: { file: "<root>/cm/b.yaml", document: 0, line: 1 }, name: "mounted-b" },
    ]);
  });

  it("with nonKubernetes: error (tollgate validate), a document that is not an object is an input error", async () => {
    // Prepare
    write("strict/values.yaml", "replicaCount: 3\n");
    // Act
    const docs = await readAll(
      await openSource(join(root, "strict"), { ...DEFAULT_SOURCE_OPTIONS, nonKubernetes: "error" }),
    );
    // Assess
    expect(brief(docs)).toEqual([
      {
        kind: "error",
        location: { file: "<root>/strict/values.yaml", document: 0, line: 1 },
        error: "document 0 (line 1): Object 'Kind' is missing",
      },
    ]);
  });
});

describe("archive source", () => {
  const members = [
    { name: "pax_global_header", type: "g", content: "52 comment=0123456789abcdef0123456789abcdef01234567\n" },
    { name: "snap/", type: "5" },
    { name: "snap/app.yaml", content: CM("app") },
    { name: "snap/notes.txt", content: "not read" },
    { name: "ignored", type: "x", content: paxPath(`snap/${"long-".repeat(30)}name.yaml`) },
    { name: "placeholder", content: CM("long") },
    { name: "././@LongLink", type: "L", content: `snap/gnu-${"x".repeat(120)}.yaml\0` },
    { name: "short", content: CM("gnu") },
    { name: "../escape.yaml", content: CM("evil") },
    { name: "/etc/abs.yaml", content: CM("abs") },
    { name: "snap/link.yaml", type: "2" },
    { name: "snap/values.yaml", content: "image: nginx\n" },
  ];

  it.each([
    { name: ".tar", file: "snap.tar", data: () => buildTar(members) },
    { name: ".tar.gz", file: "snap.tar.gz", data: () => gzipSync(buildTar(members)) },
  ])("reads members of a $name archive and rejects path traversal and absolute names", async ({ file, data }) => {
    // Prepare
    const path = write(file, data());
    // Act
    const docs = await readAll(await openSource(path, DEFAULT_SOURCE_OPTIONS));
    // Assess
    const f = `<root>/${file}`;
    expect(brief(docs)).toEqual([
      { kind: "object", location: { file: f, entry: "snap/app.yaml", document: 0, line: 1 }, name: "app" },
      {
        kind: "object",
        location: { file: f, entry: `snap/${"long-".repeat(30)}name.yaml`, document: 0, line: 1 },
        name: "long",
      },
      {
        kind: "object",
        location: { file: f, entry: `snap/gnu-${"x".repeat(120)}.yaml`, document: 0, line: 1 },
        name: "gnu",
      },
      {
        kind: "error",
        location: { file: f, entry: "../escape.yaml" },
        error: 'member name "../escape.yaml" climbs out of the archive (..)',
      },
      {
        kind: "error",
        location: { file: f, entry: "/etc/abs.yaml" },
        error: 'absolute member name "/etc/abs.yaml" rejected',
      },
      { kind: "not-kubernetes", location: { file: f, entry: "snap/values.yaml", document: 0, line: 1 } },
    ]);
  });

  it.each([
    {
      name: "a bad checksum",
      data: () => buildTar([{ name: "a.yaml", content: CM("a"), badChecksum: true }]),
      error: /^not a readable tar archive: bad header checksum/,
    },
    {
      name: "a truncated member",
      data: () => buildTar([{ name: "a.yaml", content: CM("a") }]).subarray(0, 520),
      error: /^not a readable tar archive: member at offset 0 is truncated/,
    },
    {
      name: "a broken gzip stream",
      data: () => Buffer.from([0x1f, 0x8b, 1, 2, 3]),
      error: /^not a readable gzip stream/,
    },
    {
      name: "too many members",
      data: () =>
        buildTar([
          { name: "a.yaml", content: CM("a") },
          { name: "b.yaml", content: CM("b") },
        ]),
      error: /more than 1 members/,
      options: { maxArchiveEntries: 1 },
    },
    {
      name: "a gzip bomb",
      data: () => gzipSync(Buffer.alloc(4 * 1024 * 1024)),
      error: /^archive uncompresses to more than 1048576 bytes/,
      options: { maxArchiveBytes: 1024 * 1024 },
    },
  ])("reports $name as an input error of the archive", async ({ data, error, options }) => {
    const path = write("bad.tar.gz", data());
    const docs = await readAll(await openSource(path, { ...DEFAULT_SOURCE_OPTIONS, ...options }));
    const errors = docs.filter((d) => d.kind === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.kind === "error" && errors[0]!.error).toMatch(error);
  });
});
