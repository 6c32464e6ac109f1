/**
 * One per-document limit on every input path: a document one byte over the configured limit is refused with the
 * same text, naming the document, the limit and the setting that raises it, and a document exactly at the limit is
 * read, whether `tollgate validate` reads it (a file, standard input), `tollgate audit` reads it (read whole,
 * streamed as YAML or as a JSON List, a JSON text over --max-json-bytes, on worker threads), the scheduled Lambda
 * audit reads it (local folder and S3), or it sits in an archive; and `tollgate lint` refuses a policy document over
 * it with the same text. The limit is 270,000 bytes, above the 256 KiB up to which a file is always read whole, so
 * that a file holding one document at the limit is streamed.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuditLogger, createAuditHandler } from "../../functions/audit.js";
import { createS3Store } from "../../lib/storage/index.js";
import { type S3TestServer, startS3Server } from "../helpers/s3-server.js";
import { ROOT, runCommand } from "../helpers/spawn.js";
import { buildTar } from "../helpers/tar.js";

const LIMIT = 270_000;
const TOO_LARGE = `over the limit of ${LIMIT} bytes per document (raise it with --max-document-bytes or TOLLGATE_MAX_DOCUMENT_BYTES)`;
const BUNDLE = join(ROOT, "test/fixtures/bundles/gadgets");

/** `text` with `pad` grown (or shrunk) so that the whole is exactly `bytes` bytes of UTF-8. */
function sized(make: (pad: string) => string, bytes: number): string {
  const base = Buffer.byteLength(make(""), "utf8");
  const text = make("x".repeat(bytes - base));
  expect(Buffer.byteLength(text, "utf8")).toBe(bytes);
  return text;
}

/** A YAML document as a stream's piece: its `---` line and a ConfigMap, `bytes` bytes in all. */
function yamlDoc(name: string, bytes: number): string {
  return sized(
    (pad) => `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: y${pad}\n`,
    bytes,
  );
}

/** A ConfigMap as one JSON value of `bytes` bytes. */
function jsonObject(name: string, bytes: number): string {
  return sized(
    (pad) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"k":"y${pad}"}}`,
    bytes,
  );
}

function jsonList(items: readonly string[]): string {
  return `{"apiVersion": "v1", "kind": "List", "items": [\n${items.join(",\n")}\n]}\n`;
}

/**
 * The inputs, file name → text: each holds documents at the limit (`under*`) and one byte over it (`over*`); the
 * expected outcome of each document follows from its name.
 */
function inputs(): Record<string, string> {
  const small = (n: string) => yamlDoc(n, 200);
  return {
    // Over 256 KiB: streamed by the auditor, read whole by validate.
    "stream.yaml": [small("a"), yamlDoc("under-1", LIMIT), yamlDoc("over-1", LIMIT + 1), small("b")].join(""),
    // A JSON text that is not a List, read whole (at the limit) and over --max-json-bytes (one byte over).
    "object-under.json": `${jsonObject("under-2", LIMIT - 1)}\n`,
    "object-over.json": `${jsonObject("over-2", LIMIT)}\n`,
    // A JSON List: its items are the documents; the List itself is bounded by the file's limit only.
    "list.json": jsonList([
      jsonObject("c", 300),
      jsonObject("under-3", LIMIT),
      jsonObject("over-3", LIMIT + 1),
      jsonObject("d", 300),
    ]),
  };
}

/** Each document's outcome by `<file>[!<member>]#<document>[/<item>]`: `ok`, or the input error's text. */
type Outcomes = Record<string, string>;

interface Located {
  file: string;
  entry?: string;
  document?: number;
  item?: number;
}

function key(l: Located): string {
  const file = basename(l.file).replace(/\.tar\.gz$/, "");
  return `${file}${l.entry === undefined ? "" : `!${l.entry}`}#${l.document ?? 0}${l.item === undefined ? "" : `/${l.item}`}`;
}

const EXPECTED: Outcomes = {
  "stream.yaml#0": "ok",
  "stream.yaml#1": "ok",
  "stream.yaml#2": `document 2 (line 16): ${TOO_LARGE}`,
  "stream.yaml#3": "ok",
  "object-under.json#0": "ok",
  "object-over.json#0": `document 0 (line 1): ${TOO_LARGE}`,
  "list.json#0/0": "ok",
  "list.json#0/1": "ok",
  "list.json#0/2": `document 0 (line 1): item 2: ${TOO_LARGE}`,
  "list.json#0/3": "ok",
};

/** The expected outcomes of the same files as members of the archive `inputs.tar.gz`. */
function inArchive(outcomes: Outcomes): Outcomes {
  return Object.fromEntries(Object.entries(outcomes).map(([k, v]) => [`inputs!${k}`, v]));
}

interface ReportJson {
  objects: { location: Located; outcome: string }[];
  findings: { location: Located; severity: string; message: string }[];
}

function reportOutcomes(report: ReportJson): Outcomes {
  const out: Outcomes = {};
  for (const o of report.objects) out[key(o.location)] = o.outcome === "error" ? "error" : "ok";
  for (const f of report.findings) if (f.severity === "input-error") out[key(f.location)] = f.message;
  return out;
}

const work = mkdtempSync(join(tmpdir(), "tollgate-document-limit-"));
const folder = join(work, "inputs");
/** The same files as members of an archive (given beside the folder: a folder walk reads YAML and JSON files). */
const archive = join(work, "inputs.tar.gz");
afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(() => {
  mkdirSync(folder);
  const files = inputs();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  const tar = buildTar(Object.entries(files).map(([name, text]) => ({ name, content: text })));
  writeFileSync(archive, gzipSync(tar));
});

function tollgate(args: readonly string[], options: { stdin?: string; env?: Record<string, string> } = {}) {
  const env = {
    ...process.env,
    NO_COLOR: "1",
    TOLLGATE_BUNDLE: "",
    TOLLGATE_MAX_INPUT_BYTES: "",
    TOLLGATE_MAX_DOCUMENT_BYTES: "",
    TOLLGATE_MAX_JSON_BYTES: "",
    ...options.env,
  };
  return runCommand(process.execPath, ["audit/cli/bin.js", ...args], {
    env,
    ...(options.stdin !== undefined && { stdin: options.stdin }),
  });
}

interface ValidateEntry extends Located {
  outcome: string;
  status: { message: string };
}

function validateOutcomes(stdout: string): Outcomes {
  const out: Outcomes = {};
  for (const e of JSON.parse(stdout) as ValidateEntry[]) out[key(e)] = e.outcome === "error" ? e.status.message : "ok";
  return out;
}

const ALL: Outcomes = { ...EXPECTED, ...inArchive(EXPECTED) };

describe("one per-document limit", () => {
  it("tollgate validate reads the files whole and refuses the documents over the limit", async () => {
    const run = await tollgate([
      "validate",
      "-b",
      BUNDLE,
      "-o",
      "json",
      "--max-document-bytes",
      String(LIMIT),
      folder,
      archive,
    ]);
    expect(run.stderr).toBe("");
    expect(validateOutcomes(run.stdout)).toEqual(ALL);
  }, 60_000);

  it("tollgate validate reads standard input with the limit of TOLLGATE_MAX_DOCUMENT_BYTES", async () => {
    const text = inputs()["stream.yaml"]!;
    const run = await tollgate(["validate", "-b", BUNDLE, "-o", "json", "-"], {
      stdin: text,
      env: { TOLLGATE_MAX_DOCUMENT_BYTES: String(LIMIT) },
    });
    const got = validateOutcomes(run.stdout);
    const want = Object.fromEntries(
      Object.entries(EXPECTED)
        .filter(([k]) => k.startsWith("stream.yaml#"))
        .map(([k, v]) => [k.replace("stream.yaml", "<stdin>"), v]),
    );
    expect(got).toEqual(want);
  }, 60_000);

  it.each([
    ["streamed on the main thread", "0"],
    ["decoded on worker threads", "2"],
  ])(
    "tollgate audit, %s (YAML streamed, JSON over --max-json-bytes streamed)",
    async (_, workers) => {
      const out = join(work, `audit-${workers}`);
      const run = await tollgate([
        "audit",
        "-b",
        BUNDLE,
        "--out",
        out,
        "--format",
        "json",
        "--workers",
        workers,
        "--max-json-bytes",
        String(LIMIT),
        "--max-document-bytes",
        String(LIMIT),
        folder,
        archive,
      ]);
      expect(run.code).toBe(1);
      const [runFolder] = readdirSync(out).filter((n) => /^\d{8}T/.test(n));
      const report = JSON.parse(readFileSync(join(out, runFolder!, "report.json"), "utf8")) as ReportJson;
      expect(reportOutcomes(report)).toEqual(ALL);
    },
    120_000,
  );

  it("the scheduled audit (local folder: JSON read whole) takes TOLLGATE_MAX_DOCUMENT_BYTES", async () => {
    const out = join(work, "lambda");
    const handler = createAuditHandler({ env: { TOLLGATE_MAX_DOCUMENT_BYTES: String(LIMIT) }, logger: silent() });
    const summary = await handler({ sources: [folder, archive], bundle: BUNDLE, out });
    const report = JSON.parse(readFileSync(join(out, summary.runId, "report.json"), "utf8")) as ReportJson;
    expect(reportOutcomes(report)).toEqual(ALL);
  }, 120_000);

  it("tollgate lint refuses a policy document over the limit with the same text", async () => {
    const bundle = join(work, "bundle");
    mkdirSync(bundle);
    for (const name of readdirSync(BUNDLE)) writeFileSync(join(bundle, name), readFileSync(join(BUNDLE, name)));
    writeFileSync(join(bundle, "big.yaml"), yamlDoc("over-4", LIMIT + 1));
    writeFileSync(join(bundle, "fits.yaml"), yamlDoc("under-4", LIMIT));
    const run = await tollgate(["lint", "-b", bundle, "-o", "json", "--max-document-bytes", String(LIMIT)]);
    const failures = JSON.parse(run.stdout) as { file: string; message: string }[];
    expect(failures.filter((f) => /big|fits/.test(f.file))).toEqual([
      expect.objectContaining({ file: "big.yaml", message: `document 0 (line 2): ${TOO_LARGE}` }),
    ]);
  }, 60_000);
});

describe("one per-document limit, S3 sources of the scheduled audit", () => {
  let s3: S3TestServer;
  const saved: Record<string, string | undefined> = {};
  let env: Record<string, string>;

  beforeAll(async () => {
    s3 = await startS3Server({ buckets: ["exports"] });
    const store = await createS3Store({ ...s3.options, bucket: "exports" });
    for (const name of readdirSync(folder)) await store.write(`inputs/${name}`, readFileSync(join(folder, name)));
    await store.write("inputs.tar.gz", readFileSync(archive));
    for (const name of readdirSync(BUNDLE)) await store.write(`policies/${name}`, readFileSync(join(BUNDLE, name)));
    store.close();
    const { TOLLGATE_S3_ENDPOINT, ...aws } = s3.env;
    for (const [k, v] of Object.entries(aws)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    env = { TOLLGATE_S3_ENDPOINT: TOLLGATE_S3_ENDPOINT!, TOLLGATE_MAX_DOCUMENT_BYTES: String(LIMIT) };
  });
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await s3?.stop();
  });

  it("refuses the same documents with the same texts", async () => {
    const out = join(work, "lambda-s3");
    const handler = createAuditHandler({ env, logger: silent() });
    const summary = await handler({
      sources: ["s3://exports/inputs/", "s3://exports/inputs.tar.gz"],
      bundle: "s3://exports/policies/",
      out,
    });
    const report = JSON.parse(readFileSync(join(out, summary.runId, "report.json"), "utf8")) as ReportJson;
    expect(reportOutcomes(report)).toEqual(ALL);
  }, 120_000);
});

function silent(): AuditLogger {
  return { info: () => {}, error: () => {}, addContext: () => {} };
}
