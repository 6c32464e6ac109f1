import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type DecodeOptions, decodeText } from "../../../../audit/sources/decode.js";
import { STREAM_MIN_BYTES } from "../../../../audit/sources/file.js";
import { DEFAULT_SOURCE_OPTIONS, openSource, type SourceDoc } from "../../../../audit/sources/index.js";
import { streamJsonList } from "../../../../audit/sources/stream-json.js";
import { streamYaml } from "../../../../audit/sources/stream-yaml.js";

const root = mkdtempSync(join(tmpdir(), "tollgate-stream-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let files = 0;
function write(content: string | Buffer, ext = "yaml"): string {
  const path = join(root, `f${files++}.${ext}`);
  writeFileSync(path, content);
  return path;
}

async function collect(docs: AsyncIterable<SourceDoc>): Promise<SourceDoc[]> {
  const out: SourceDoc[] = [];
  for await (const d of docs) out.push(d);
  return out;
}

const OPTIONS: DecodeOptions = { nonKubernetes: "error", maxJsonBytes: DEFAULT_SOURCE_OPTIONS.maxFileBytes };

/** What read() gives: decodeText over the whole text. */
function whole(path: string, text: string, options = OPTIONS): SourceDoc[] {
  return decodeText(text, { file: path }, options);
}

/** streamYaml gives decodeText's docs, with several read buffer sizes (so markers fall across chunks). */
async function expectYamlSame(
  text: string,
  options = OPTIONS,
  buffers = [1, 2, 3, 5, 7, 64, 1 << 20],
): Promise<SourceDoc[]> {
  const path = write(text);
  const expected = whole(path, text, options);
  for (const readBuffer of buffers) {
    expect(await collect(streamYaml(path, { file: path }, { ...options, readBuffer })), `buffer ${readBuffer}`).toEqual(
      expected,
    );
  }
  return expected;
}

async function streamJson(path: string, text: string, readBuffer = 1 << 20, options = OPTIONS): Promise<SourceDoc[]> {
  return collect(
    streamJsonList(
      path,
      { file: path },
      { ...options, readBuffer, size: Buffer.byteLength(text), maxJsonParseBytes: 1 },
    ),
  );
}

async function expectJsonSame(text: string, options = OPTIONS): Promise<SourceDoc[]> {
  const path = write(text, "json");
  const expected = whole(path, text, options);
  for (const readBuffer of [1, 2, 3, 7, 64, 1 << 20]) {
    expect(await streamJson(path, text, readBuffer, options), `buffer ${readBuffer}`).toEqual(expected);
  }
  return expected;
}

const CM = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

describe("streamed YAML gives what read() gives", () => {
  const cases: Record<string, string> = {
    "multi-document with empty documents and comments": `${CM("a")}---\n# only a comment\n---\n---\n${CM("b")}---\n\n`,
    "a kind: List after another document, its items at their lines": `${CM("a")}---\napiVersion: v1\nkind: List\nitems:\n- ${CM("b").replace(/\n(?=.)/g, "\n  ")}- ${CM("c").replace(/\n(?=.)/g, "\n  ")}---\n${CM("d")}`,
    "leading marker and trailing document end": `---\n${CM("a")}...\n---\n${CM("b")}...\n`,
    "document end markers inside a piece": `${CM("a")}...\n${CM("b")}...\n# c\n---\n${CM("c")}`,
    "directives before the first document": `%YAML 1.1\n---\n${CM("a")}---\n${CM("b")}`,
    "a directive after a document end": `${CM("a")}...\n%YAML 1.1\n---\n${CM("b")}`,
    "only comments before the first marker": `# header\n\n# more\n---\n${CM("a")}---\n${CM("b")}`,
    "only comments in the first two pieces": `# a\n---\n# b\n---\n${CM("c")}`,
    "block scalars holding indented markers": `${CM("a")}data:\n  x: |\n    ---\n    ...\n    --- y\n---\n${CM("b")}`,
    "marker-like lines that are not markers": `${CM("a")}data:\n  x: "---"\n---a: 1\n---\n${CM("b")}`,
    "marker with content on the same line": `--- ${JSON.stringify({ apiVersion: "v1", kind: "A" })}\n--- # c\n${CM("b")}`,
    "CRLF line endings": `${CM("a")}---\r\n# c\r\n---\r\n${CM("b")}`.replace(/\n/g, "\r\n").replace(/\r\r/g, "\r"),
    "a byte order mark": `\uFEFF${CM("a")}---\n${CM("b")}`,
    "a byte order mark before a marker": `\uFEFF---\n${CM("a")}---\n${CM("b")}`,
    "a syntax error in one document": `${CM("a")}---\nspec: {broken\n---\n${CM("b")}---\na: b: c\n---\n${CM("c")}`,
    "duplicate keys (lines in the message)": `${CM("a")}---\n\n\n${CM("b")}metadata:\n  name: x\n---\n${CM("c")}`,
    "unclosed bracket at the end without newline": `${CM("a")}---\n${CM("b")}---\nspec: [1, 2`,
    "not objects": `- a\n---\nfoo\n---\n42\n---\nnull\n---\nfoo: bar\n---\n${CM("a")}`,
    "no trailing newline": `${CM("a")}---\n${CM("b")}`.trimEnd(),
    "empty file": "",
    "only a marker": "---",
    "only markers": "---\n---\n---\n",
    "markers with tabs and spaces": `---\t\n${CM("a")}--- \n${CM("b")}---\t# x\n${CM("c")}`,
    "anchors and aliases": `${CM("a")}data: &d\n  x: "1"\nother: *d\n---\n${CM("b")}bad: *nope\n`,
    "big integers": `${CM("a")}data:\n  n: 123456789012345678901\n---\n${CM("b")}`,
    "unicode text": `${CM("ä")}data:\n  x: "日本語 🎉"\n---\n${CM("ö")}`,
  };
  for (const [name, text] of Object.entries(cases)) {
    it(name, async () => {
      await expectYamlSame(text);
    });
  }

  it("counts documents after a syntax error and after empty documents (document and line fixed up)", async () => {
    const docs = await expectYamlSame(`---\n---\n# x\n---\nspec: {broken\n---\n${CM("a")}`);
    expect(docs.map((d) => [d.kind, d.location.document, d.location.line])).toEqual([
      ["error", 2, 5],
      ["object", 3, 7],
    ]);
    expect(docs[0]).toMatchObject({ error: expect.stringMatching(/^document 2 \(line 5\): line \d+, column \d+: /) });
  });

  it("skips non-Kubernetes mappings in folder trees as read() does", async () => {
    await expectYamlSame(`foo: bar\n---\n${CM("a")}`, { ...OPTIONS, nonKubernetes: "skip" });
  });

  it("a document over the bound is one input error and the stream goes on", async () => {
    const big = `data:\n${"  k: vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\n".repeat(110_000)}`;
    const text = `${CM("a")}---\n# lead\n${big}---\n${CM("b")}`;
    const docs = await expectYamlSame(text, OPTIONS, [4093, 1 << 16]);
    expect(docs.map((d) => d.kind)).toEqual(["object", "error", "object"]);
    expect(docs[1]).toMatchObject({
      error:
        "document 1 (line 7): over the limit of 8388608 bytes per document " +
        "(raise it with --max-document-bytes or TOLLGATE_MAX_DOCUMENT_BYTES)",
    });
  }, 60_000);

  it("agrees with read() on random mixes of tricky lines", async () => {
    const lines = [
      "---",
      "--- ",
      "---\t",
      "--- a: 1",
      "...",
      "... # end",
      "%YAML 1.1",
      "%TAG ! tag:x,2000:",
      "# comment",
      "",
      "  ",
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata:",
      "  name: x",
      "data: |",
      "  ---",
      "  ...",
      "a: [1,",
      "----",
      "-- x",
      "- item",
      "\r",
      "b: 2\r",
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 150; round++) {
      const n = 1 + Math.floor(random() * 14);
      const picked = Array.from({ length: n }, () => lines[Math.floor(random() * lines.length)]);
      const text = picked.join("\n") + (random() < 0.5 ? "\n" : "");
      const path = write(text);
      const expected = whole(path, text);
      for (const readBuffer of [1, 4, 1 << 20]) {
        expect(
          await collect(streamYaml(path, { file: path }, { ...OPTIONS, readBuffer })),
          JSON.stringify(text),
        ).toEqual(expected);
      }
    }
  });
});

describe("streamed JSON List gives what read() gives", () => {
  const item = (name: string, extra: object = {}) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name },
    ...extra,
  });

  it('a List with nested arrays, objects and strings holding brackets, braces, quotes and "items"', async () => {
    const text = JSON.stringify(
      {
        apiVersion: "v1",
        items: [
          item("a", { data: { x: "[{]}", y: 'he said "items": [1]', z: "\\", w: '\\"' } }),
          item("b", { data: { nested: [[1, [2, { a: [] }]], {}] } }),
          item("c", { data: { 'items"': "]}" } }),
        ],
        kind: "List",
        metadata: { resourceVersion: "" },
      },
      null,
      2,
    );
    const docs = await expectJsonSame(text);
    // Each item at the line of its opening brace (JSON.stringify puts the items' braces at four spaces).
    const itemLines = text.split("\n").flatMap((l, i) => (l === "    {" ? [i + 1] : []));
    expect(itemLines).toHaveLength(3);
    expect(docs.map((d) => d.location)).toEqual(
      [0, 1, 2].map((i) => expect.objectContaining({ document: 0, line: itemLines[i], item: i })),
    );
  });

  it("kind before items, compact, with leading blank lines and a BOM", async () => {
    await expectJsonSame(
      `\uFEFF\n\n  {"kind":"List","apiVersion":"v1","items":[${JSON.stringify(item("a"))},${JSON.stringify(item("b"))}]}\n`,
    );
  });

  it("an item that is not JSON but is YAML is read as YAML, as kubectl reads the whole text after its JSON error", async () => {
    const docs = await expectJsonSame(
      `{"kind":"List","apiVersion":"v1","items":[${JSON.stringify(item("a"))},\n{"apiVersion":"v1","kind":"B",metadata: {name: b}}]}`,
    );
    expect(docs.map((d) => d.kind)).toEqual(["object", "object"]);
  });

  it("typed lists give their kind to items without one; other items keep theirs", async () => {
    await expectJsonSame(
      JSON.stringify({
        items: [{ metadata: { name: "a" } }, item("b"), { kind: "X", metadata: {} }],
        kind: "DeploymentList",
        apiVersion: "apps/v1",
      }),
    );
  });

  it("nested Lists are flattened breadth first", async () => {
    const inner = {
      kind: "List",
      apiVersion: "v1",
      items: [item("b"), { kind: "ConfigMapList", apiVersion: "v1", items: [{ metadata: { name: "c" } }] }],
    };
    const docs = await expectJsonSame(
      JSON.stringify({ kind: "List", apiVersion: "v1", items: [item("a"), inner, item("d")] }),
    );
    expect(docs.map((d) => (d.kind === "object" ? (d.object.metadata as { name: string }).name : d.kind))).toEqual([
      "a",
      "d",
      "b",
      "c",
    ]);
  });

  it("items that are not objects, objects without kind, big integers, an empty List, duplicate keys", async () => {
    await expectJsonSame(
      `{"apiVersion":"v1","kind":"List","items":[1, "s", null, [1], {"metadata":{}}, {"apiVersion":"v1","kind":"A","spec":{"n":123456789012345678901234}}]}`,
    );
    await expectJsonSame(`{"apiVersion":"v1","kind":"List","items":[]}`);
    await expectJsonSame(`{"apiVersion":"v1","kind":"Pod","items":[{"kind":"A"}],"kind":"List"}`);
  });

  it("a large JSON that is not a List is one input error", async () => {
    for (const text of [
      JSON.stringify(item("a")),
      JSON.stringify([item("a")]),
      `{"kind":"ConfigMapList","items":{}}`,
      `{"items":[${JSON.stringify(item("a"))}]}`,
    ]) {
      const path = write(text, "json");
      const docs = await streamJson(path, text, 3);
      expect(docs).toEqual([
        {
          kind: "error",
          location: { file: path, document: 0, line: 1 },
          error: `document 0 (line 1): document is ${Buffer.byteLength(text)} bytes, over the limit of 1 for JSON parsed whole, and is not a List whose items can be streamed`,
        },
      ]);
    }
  });

  it("kind after items that is not a List: one error, no items", async () => {
    const text = `{"items":[${JSON.stringify(item("a"))}],"kind":"ConfigMap"}`;
    const docs = await streamJson(write(text, "json"), text);
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({ kind: "error", error: expect.stringContaining("is not a List") });
  });

  it("malformed structure is one input error before any item", async () => {
    for (const [text, message] of [
      [`{"kind":"List","items":[{"a":1}}`, "line 1, column 32: invalid character '}' after array element"],
      [`{"kind":"List","items":[{"a":1}]`, "line 1: unexpected end of JSON input"],
      [`{"kind":"List" "items":[]}`, "line 1, column 16: invalid character '\"' after object key:value pair"],
      [`{"kind":"List","items":[]} x`, "is not a List whose items can be streamed: more follows the List"],
      [`{"kind":"List","metadata":{"a" 1},"items":[]}`, 'the value of "metadata": '],
    ] as const) {
      const docs = await streamJson(write(text, "json"), text, 2);
      expect(docs).toHaveLength(1);
      expect(docs[0]).toMatchObject({ kind: "error", error: expect.stringContaining(message) });
    }
  });

  it("a bad item is an input error of that item, with its place in the file; the others are read", async () => {
    const text = `{"kind":"List","apiVersion":"v1","items":[\n${JSON.stringify(item("a"))},\n  {"apiVersion":"v1","kind":"A" "x":1},\n${JSON.stringify(item("c"))}]}`;
    const path = write(text, "json");
    const docs = await streamJson(path, text, 5);
    expect(docs.map((d) => d.kind)).toEqual(["object", "error", "object"]);
    expect(docs[1]).toEqual({
      kind: "error",
      location: { file: path, document: 0, line: 1, item: 1 },
      error: "document 0 (line 1): item 1: line 3, column 33: invalid character '\"' after object key:value pair",
    });
  });
});

describe("file units", () => {
  it("stream() gives what read() gives for a YAML file above the streaming threshold", async () => {
    const docs = Array.from({ length: Math.ceil(STREAM_MIN_BYTES / 60) }, (_, i) => CM(`cm-${i}`)).join("---\n");
    const path = write(`# big\n${docs}---\nbroken: [\n`);
    const [unit] = await collect2((await openSource(path, DEFAULT_SOURCE_OPTIONS)).units());
    const streamed = await collect(unit!.stream!());
    expect(streamed).toEqual(await unit!.read());
    expect(streamed.length).toBeGreaterThan(4000);
  });

  it("stream() gives the items of a YAML kind: List above the streaming threshold, as read() does", async () => {
    const n = Math.ceil(STREAM_MIN_BYTES / 40);
    const items = Array.from({ length: n }, (_, i) => `- ${CM(`cm-${i}`).replace(/\n(?=.)/g, "\n  ")}`).join("");
    const path = write(`apiVersion: v1\nkind: List\nitems:\n${items}`);
    const [unit] = await collect2((await openSource(path, DEFAULT_SOURCE_OPTIONS)).units());
    const streamed = await collect(unit!.stream!());
    expect(streamed).toEqual(await unit!.read());
    expect(streamed).toHaveLength(n);
    // Each item at its own line: four lines an item, after the List's three.
    expect(streamed.slice(0, 3).map((d) => [d.kind, d.location.item, d.location.line])).toEqual([
      ["object", 0, 4],
      ["object", 1, 8],
      ["object", 2, 12],
    ]);
  });

  it("stream() streams a JSON List over maxJsonParseBytes and parses a smaller one whole", async () => {
    const items = Array.from({ length: 5000 }, (_, i) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `cm-${i}` },
    }));
    const path = write(JSON.stringify({ apiVersion: "v1", items, kind: "List", metadata: {} }), "json");
    for (const maxJsonParseBytes of [100, DEFAULT_SOURCE_OPTIONS.maxJsonParseBytes]) {
      const [unit] = await collect2((await openSource(path, { ...DEFAULT_SOURCE_OPTIONS, maxJsonParseBytes })).units());
      expect(await collect(unit!.stream!())).toEqual(await unit!.read());
    }
  });

  it("holds one document at a time: a ~60 MB YAML file streams with a small heap", async () => {
    const path = join(root, "huge.yaml");
    const out = createWriteStream(path);
    const doc = `${CM("x")}data:\n${Array.from({ length: 20 }, (_, i) => `  key${i}: "${"v".repeat(80)}"\n`).join("")}---\n`;
    const perChunk = Math.floor((1 << 20) / doc.length);
    const chunk = doc.repeat(perChunk);
    let written = 0;
    let expected = 0;
    while (written < 60 * 1024 * 1024) {
      if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
      written += chunk.length;
      expected += perChunk;
    }
    await new Promise<void>((r) => out.end(() => r()));
    const [unit] = await collect2((await openSource(path, DEFAULT_SOURCE_OPTIONS)).units());
    let count = 0;
    let peak = 0;
    for await (const d of unit!.stream!()) {
      if (d.kind === "object") count++;
      if (count % 2000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    expect(count).toBe(expected);
    expect(peak).toBeLessThan(100 * 1024 * 1024);
  }, 120_000);
});

async function collect2<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of items) out.push(x);
  return out;
}
