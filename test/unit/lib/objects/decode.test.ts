import { describe, expect, it } from "vitest";
import { type DecodedDocument, parseDocuments } from "../../../../lib/objects/decode.js";

/** The decoded value of key `v` in a one-line YAML document `v: <text>`. */
function yamlValue(text: string): unknown {
  const [doc] = parseDocuments(`v: ${text}\n`);
  if (doc === undefined || doc.error !== undefined) throw new Error(doc?.error ?? "no document");
  return (doc.object as Record<string, unknown>).v;
}

function only(text: string): DecodedDocument {
  const docs = parseDocuments(text);
  expect(docs).toHaveLength(1);
  return docs[0] as DecodedDocument;
}

const MIB = 1024 * 1024;

describe("YAML scalars resolve as kubectl (go-yaml v2 via sigs.k8s.io/yaml)", () => {
  it.each([
    // booleans: every spelling go-yaml v2 accepts, and only those
    ...["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"].map((text) => ({ text, want: true })),
    ...["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"].map((text) => ({
      text,
      want: false,
    })),
    { text: "yEs", want: "yEs" },
    { text: "oN", want: "oN" },
    { text: '"yes"', want: "yes" },
    { text: "'no'", want: "no" },
    // null
    ...["~", "null", "Null", "NULL", ""].map((text) => ({ text, want: null })),
    { text: "nULL", want: "nULL" },
    { text: "''", want: "" },
    // integers: decimal, hex, octal (0o and leading 0), binary, signs, underscores
    { text: "42", want: 42 },
    { text: "-42", want: -42 },
    { text: "+42", want: 42 },
    { text: "0", want: 0 },
    { text: "0x1F", want: 31 },
    { text: "0X1f", want: 31 },
    { text: "-0x1F", want: -31 },
    { text: "0o17", want: 15 },
    { text: "017", want: 15 },
    { text: "0b101", want: 5 },
    { text: "-0b101", want: -5 },
    { text: "1_000", want: 1000 },
    { text: "0x_1F", want: 31 },
    { text: "08", want: 8 }, // not octal; go-yaml falls back to a float
    { text: "0x", want: "0x" },
    { text: "0xG", want: "0xG" },
    { text: "_1", want: "_1" },
    { text: "12:30", want: "12:30" }, // no sexagesimal numbers
    { text: "1.2.3", want: "1.2.3" },
    { text: "+", want: "+" },
    { text: "'42'", want: "42" },
    { text: "|\n  42", want: "42\n" },
    // floats; integral ones become integers (kubectl prints float64 1.0 as 1)
    { text: "1.5", want: 1.5 },
    { text: "-1.5e-3", want: -0.0015 },
    { text: "1.0", want: 1 },
    { text: "-2.0", want: -2 },
    { text: "1.", want: 1 },
    { text: ".5", want: 0.5 },
    { text: "+.5", want: 0.5 },
    { text: "1e3", want: 1000 },
    { text: "1_000.5", want: 1000.5 },
    { text: "0.1", want: 0.1 },
    { text: "1e18", want: 1000000000000000000n },
    { text: "1e20", want: 1e20 },
    { text: "1e400", want: "1e400" }, // strconv.ParseFloat overflows: go-yaml keeps the text
    { text: ".e5", want: ".e5" },
    // lossless integers
    { text: "9007199254740991", want: 9007199254740991 },
    { text: "9007199254740993", want: 9007199254740993n },
    { text: "9223372036854775807", want: 9223372036854775807n },
    { text: "-9223372036854775808", want: -9223372036854775808n },
    { text: "0x7FFFFFFFFFFFFFFF", want: 9223372036854775807n },
    { text: "12345678901234567890", want: Number(12345678901234567890n) },
    { text: "123456789012345678901234567890", want: 1.2345678901234568e29 },
    { text: "0x10000000000000000", want: 2 ** 64 },
    // timestamps stay strings
    { text: "2001-12-14", want: "2001-12-14" },
    { text: "2001-12-14t21:59:43.10-05:00", want: "2001-12-14t21:59:43.10-05:00" },
    { text: "2001-12-14 21:59:43.10", want: "2001-12-14 21:59:43.10" },
    { text: "2024-13-45", want: "2024-13-45" },
    // explicit tags
    { text: "!!str 12", want: "12" },
    { text: "!!str yes", want: "yes" },
    { text: '!!int "12"', want: 12 },
    { text: "!!float 1", want: 1 },
    { text: "!!float 1.5", want: 1.5 },
    { text: "!!bool on", want: true },
    { text: "!!null ''", want: null },
    { text: "!!timestamp 2001-12-14", want: "2001-12-14" },
    { text: "!custom 12", want: "12" },
    { text: "! 12", want: "12" },
    { text: "!<tag:yaml.org,2002:int> 0x10", want: 16 },
    { text: "!!binary aGVsbG8=", want: "aGVsbG8=" },
    { text: "!!binary |\n  aGVs\n  bG8=", want: "aGVsbG8=" },
    // other strings
    { text: "<<", want: "<<" },
    { text: "hello world", want: "hello world" },
    { text: '"a\\tb"', want: "a\tb" },
  ])("$text → $want", ({ text, want }) => {
    expect(yamlValue(text)).toEqual(want);
  });

  it.each([
    { text: "!!int abc", error: "line 1: cannot decode !!str `abc` as a !!int" },
    { text: "!!int 1.5", error: "cannot decode !!float `1.5` as a !!int" },
    { text: "!!bool 1", error: "cannot decode !!int `1` as a !!bool" },
    { text: "!!null x", error: "cannot decode !!str `x` as a !!null" },
    { text: "!!timestamp 2001-13-01", error: "cannot decode !!str `2001-13-01` as a !!timestamp" },
    { text: "!!binary not*base64", error: "!!binary value contains invalid base64 data" },
    { text: ".inf", error: '.inf is not representable in JSON (kubectl fails with "json: unsupported value: +Inf")' },
    { text: "-.Inf", error: "json: unsupported value: -Inf" },
    { text: ".nan", error: "json: unsupported value: NaN" },
  ])("$text is an error", ({ text, error }) => {
    const doc = only(`v: ${text}\n`);
    expect(doc.object).toBeUndefined();
    expect(doc.error).toContain(error);
  });
});

describe("YAML mapping keys become strings as sigs.k8s.io/yaml writes them", () => {
  it.each([
    { text: "1: a", key: "1" },
    { text: "-7: a", key: "-7" },
    { text: "0x10: a", key: "16" },
    { text: "true: a", key: "true" },
    { text: "yes: a", key: "true" },
    { text: "n: a", key: "false" },
    { text: "1.5: a", key: "1.5" },
    { text: "1.0: a", key: "1" },
    { text: "100000.0: a", key: "100000" },
    { text: "1e7: a", key: "1e+07" },
    { text: "0.0001: a", key: "0.0001" },
    { text: "0.00001: a", key: "1e-05" },
    { text: "0.1: a", key: "0.1" },
    { text: ".inf: a", key: ".inf" },
    { text: "-.inf: a", key: "-.inf" },
    { text: ".nan: a", key: ".nan" },
    { text: "9223372036854775807: a", key: "9223372036854775807" },
    { text: "2001-12-14: a", key: "2001-12-14" },
    { text: '"1": a', key: "1" },
    { text: "'yes': a", key: "yes" },
    { text: "<<x: a", key: "<<x" },
    { text: '"<<": a', key: "<<" },
    { text: "__proto__: a", key: "__proto__" },
  ])("$text → key $key", ({ text, key }) => {
    const { object } = only(`${text}\n`);
    expect(Object.keys(object as object)).toEqual([key]);
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
  });

  it.each([
    { text: "~: a", error: "line 1: unsupported map key null" },
    { text: "? [1, 2]\n: a", error: "line 1: invalid map key: a sequence" },
    { text: "? {k: v}\n: a", error: "line 1: invalid map key: a mapping" },
    { text: "12345678901234567890: a", error: "unsupported map key 12345678901234567890 (above int64)" },
  ])("$text is an error", ({ text, error }) => {
    expect(only(`${text}\n`).error).toContain(error);
  });

  it.each([
    { name: "same key", text: "a: 1\nb: 2\na: 3\n", error: 'line 3: mapping key "a" already defined at line 1' },
    {
      name: "same key after conversion",
      text: "x: 0\ntrue: 1\ny: 2\n",
      error: 'line 3: mapping key "true" already defined at line 2',
    },
    { name: "int and string", text: '1: a\n"1": b\n', error: 'line 2: mapping key "1" already defined at line 1' },
    { name: "nested", text: "a:\n  b: 1\n  b: 2\n", error: 'line 3: mapping key "b" already defined at line 2' },
    { name: "flow", text: "a: {b: 1, b: 2}\n", error: 'line 1: mapping key "b" already defined at line 1' },
  ])("duplicate keys are an error: $name", ({ text, error }) => {
    const doc = only(text);
    expect(doc.object).toBeUndefined();
    expect(doc.error).toBe(`document 0 (line 1): ${error}`);
  });
});

describe("YAML anchors, aliases and merge keys", () => {
  it.each([
    {
      name: "merge one mapping; explicit keys win",
      text: "base: &b {x: 1, z: 2}\nobj:\n  <<: *b\n  z: 3\n",
      obj: { x: 1, z: 3 },
    },
    {
      name: "explicit key before the merge still wins",
      text: "base: &b {x: 1, z: 2}\nobj:\n  z: 3\n  <<: *b\n",
      obj: { x: 1, z: 3 },
    },
    {
      name: "merge a sequence; earlier mappings win",
      text: "a: &a {k: a, only_a: 1}\nb: &b {k: b, only_b: 2}\nobj:\n  <<: [*a, *b]\n",
      obj: { k: "a", only_a: 1, only_b: 2 },
    },
    { name: "merge an inline mapping", text: "obj:\n  <<: {k: 1}\n  j: 2\n", obj: { k: 1, j: 2 } },
    { name: "merge tagged !!merge", text: "b: &b {k: 1}\nobj:\n  !!merge <<: *b\n", obj: { k: 1 } },
    { name: "nested merges", text: "a: &a {x: 1}\nb: &b {<<: *a, w: 2}\nobj: {<<: *b}\n", obj: { x: 1, w: 2 } },
  ])("$name", ({ text, obj }) => {
    const { object } = only(text);
    expect((object as Record<string, unknown>).obj).toEqual(obj);
  });

  it("expands an alias into a copy", () => {
    // Act
    const object = only("a: &x {k: [1, 2]}\nb: *x\n").object as Record<string, { k: number[] }>;

    // Assess
    expect(object.b).toEqual({ k: [1, 2] });
    expect(object.b).not.toBe(object.a);
    expect(object.b?.k).not.toBe(object.a?.k);
  });

  it("resolves an alias to the anchor defined before it, even when the name is reused later", () => {
    const object = only("a: &x 1\nb: &y [*x]\nc: &x 2\nd: *y\ne: *x\n").object;
    expect(object).toEqual({ a: 1, b: [1], c: 2, d: [1], e: 2 });
  });

  it.each([
    { name: "unknown anchor", text: "a: *nope\n", error: "line 1: unknown anchor 'nope' referenced" },
    { name: "recursive anchor", text: "a: &x\n  b: *x\n", error: "line 2: anchor 'x' value contains itself" },
    { name: "merge of a scalar", text: "obj:\n  <<: 1\n", error: "line 2: map merge requires map or sequence of maps" },
    {
      name: "merge of a sequence with a scalar",
      text: "a: &a {k: 1}\nobj:\n  <<: [*a, 2]\n",
      error: "map merge requires map or sequence of maps",
    },
  ])("$name is an error", ({ text, error }) => {
    expect(only(text).error).toContain(error);
  });

  it("stops an alias bomb (billion laughs) quickly", () => {
    // Prepare
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let level = 1; level < 9; level++) {
      const previous = String.fromCharCode(96 + level);
      const name = String.fromCharCode(97 + level);
      lines.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(", ")}]`);
    }

    // Act
    const doc = only(`${lines.join("\n")}\n`);

    // Assess
    expect(doc.error).toMatch(/^document 0 \(line 1\): line \d+: document contains excessive aliasing$/);
  });

  it("refuses an alias whose copy would pass maxNodes, before copying it", () => {
    const list = Array.from({ length: 30 }, (_, i) => i).join(", ");
    const [doc] = parseDocuments(`a: &a [${list}]\nb: *a\n`, { maxNodes: 50 });
    expect(doc?.error).toBe("document 0 (line 1): line 2: alias *a expands past the limit of 50 values");
  });
});

describe("documents in a stream", () => {
  it("returns each non-empty document with its index and starting line", () => {
    // Prepare
    const text = [
      "# leading comment", // 1
      "---", // 2
      "a: 1", // 3
      "--- # a comment", // 4
      "", // 5
      "b: 2", // 6
      "---", // 7  (empty: skipped, still counted)
      "---", // 8
      "~", // 9  (null: skipped)
      "---", // 10
      "# only a comment", // 11
      "--- {c: 3}", // 12
      "...", // 13
      "---", // 14
      "d: 4", // 15
    ].join("\n");

    // Act
    const docs = parseDocuments(text);

    // Assess
    expect(docs).toEqual([
      { object: { a: 1 }, document: 0, line: 3 },
      { object: { b: 2 }, document: 1, line: 6 },
      { object: { c: 3 }, document: 5, line: 12 },
      { object: { d: 4 }, document: 6, line: 15 },
    ]);
  });

  it("keeps decoding after a bad document in the middle", () => {
    // Prepare
    const text = [
      "a: 1",
      "---",
      "- not",
      "- a mapping",
      "---",
      "b: [1, 2",
      "---",
      "c:\n\td: 1",
      "---",
      "e: 5",
      "",
    ].join("\n");

    // Act
    const docs = parseDocuments(text);

    // Assess
    expect(docs.map(({ document, line }) => ({ document, line }))).toEqual([
      { document: 0, line: 1 },
      { document: 1, line: 3 },
      { document: 2, line: 6 },
      { document: 3, line: 8 },
      { document: 4, line: 11 },
    ]);
    expect(docs[0]?.object).toEqual({ a: 1 });
    expect(docs[1]?.error).toBe("document 1 (line 3): expected a Kubernetes object (a mapping), got a sequence");
    expect(docs[2]?.error).toMatch(/^document 2 \(line 6\): line 6, column \d+: Flow sequence/);
    expect(docs[3]?.error).toBe("document 3 (line 8): line 9, column 1: Tabs are not allowed as indentation");
    expect(docs[4]?.object).toEqual({ e: 5 });
  });

  it("an unterminated quote does not swallow the next document", () => {
    const docs = parseDocuments("a: 'open\n---\nb: 2\n");
    expect(docs[0]?.error).toContain("document 0 (line 1): ");
    expect(docs[1]).toEqual({ object: { b: 2 }, document: 1, line: 3 });
  });

  it("refuses an oversized document before parsing it and decodes the others", () => {
    // Prepare
    const big = `data: ${"x".repeat(9 * MIB)}`;

    // Act
    const docs = parseDocuments(`a: 1\n---\n${big}\n---\nc: 3\n`);

    // Assess
    expect(docs[0]).toEqual({ object: { a: 1 }, document: 0, line: 1 });
    expect(docs[1]).toEqual({
      error: `document 1 (line 3): over the limit of ${8 * MIB} bytes per document`,
      document: 1,
      line: 3,
    });
    expect(docs[2]).toEqual({ object: { c: 3 }, document: 2, line: 5 });
  });

  it("counts bytes of UTF-8, not characters", () => {
    const text = `a: ${"é".repeat(60)}\n`; // 64 characters, 124 bytes
    expect(parseDocuments(text, { maxBytes: 100 })[0]?.error).toBe(
      "document 0 (line 1): over the limit of 100 bytes per document",
    );
    expect(parseDocuments(text, { maxBytes: 124 })[0]?.object).toEqual({ a: "é".repeat(60) });
  });

  it.each([
    { name: "empty text", text: "" },
    { name: "whitespace", text: "  \n\n\t\n" },
    { name: "comments", text: "# a\n# b\n" },
    { name: "markers only", text: "---\n---\n...\n" },
    { name: "null documents", text: "null\n---\n~\n--- !!null\n" },
  ])("skips empty documents: $name", ({ text }) => {
    expect(parseDocuments(text)).toEqual([]);
  });

  it.each([
    { name: "a sequence", text: "- a\n", got: "a sequence" },
    { name: "a string", text: "hello\n", got: "a string" },
    { name: "a number", text: "42\n", got: "a number" },
    { name: "a boolean", text: "yes\n", got: "a boolean" },
    { name: "a JSON array", text: '[{"a": 1}]', got: "a sequence" },
  ])("a document that is $name is an error", ({ text, got }) => {
    expect(only(text)).toEqual({
      error: `document 0 (line 1): expected a Kubernetes object (a mapping), got ${got}`,
      document: 0,
      line: 1,
    });
  });

  it("reads the YAML 1.1 directive and a byte order mark", () => {
    expect(parseDocuments("\ufeff%YAML 1.1\n---\na: yes\n")).toEqual([{ object: { a: true }, document: 0, line: 3 }]);
  });
});

describe("bounds", () => {
  function nestedBlock(depth: number): string {
    return `${Array.from({ length: depth }, (_, i) => `${"  ".repeat(i)}k:`).join("\n")} 1\n`;
  }
  function nestedJson(depth: number): string {
    return `${'{"k":'.repeat(depth)}1${"}".repeat(depth)}`;
  }

  it.each([
    { name: "YAML block mappings", text: nestedBlock(128) },
    { name: "YAML flow sequences", text: `a: ${"[".repeat(127)}${"]".repeat(127)}\n` },
    { name: "JSON", text: nestedJson(128) },
  ])("accepts nesting of exactly maxDepth (128): $name", ({ text }) => {
    expect(only(text).error).toBeUndefined();
  });

  it.each([
    { name: "YAML block mappings", text: nestedBlock(130), error: "line 129: nesting is deeper than the limit of 128" },
    { name: "YAML flow", text: `a: ${"[".repeat(129)}${"]".repeat(129)}\n`, error: "line 1: nesting is deeper" },
    { name: "YAML compact sequences", text: `a:\n${"- ".repeat(130)}x\n`, error: "line 2: nesting is deeper" },
    { name: "JSON", text: nestedJson(130), error: "line 1, column 641: nesting is deeper than the limit of 128" },
    {
      name: "JSON over the scan length",
      text: `${"[".repeat(70_000)}${"]".repeat(70_000)}`,
      error: "line 1, column 129: nesting is deeper",
    },
    { name: "JSON, unterminated", text: "[".repeat(20_000), error: "line 1, column 129: nesting is deeper" },
  ])("refuses nesting deeper than maxDepth: $name", ({ text, error }) => {
    expect(only(text).error).toContain(error);
  });

  it.each([
    { name: "YAML, 2 MB of [", text: `a: ${"[".repeat(2 * MIB)}` },
    { name: "YAML, 2 MB of - ", text: `${"- ".repeat(MIB)}x` },
    { name: "JSON, 8 MB of [", text: "[".repeat(8 * MIB - 1) },
  ])("refuses absurd nesting: $name", ({ text }) => {
    // How long this takes is held by the hostile/yaml-nesting and hostile/json-nesting bench cases.
    expect(only(text).error).toContain("nesting is deeper");
  });

  it.each([
    { name: "YAML", text: "a: [1, 2, 3]\nb: {c: 4}\n", nodes: 7 },
    { name: "JSON", text: '{"a": [1, 2, 3], "b": {"c": 4}}', nodes: 7 },
    { name: "JSON with a __proto__ member", text: '{"__proto__": {"a": [1, 2]}, "b": {"c": 4}}', nodes: 7 },
  ])("counts values against maxNodes: $name", ({ text, nodes }) => {
    expect(parseDocuments(text, { maxNodes: nodes })[0]?.error).toBeUndefined();
    expect(parseDocuments(text, { maxNodes: nodes - 1 })[0]?.error).toContain(
      `more than ${nodes - 1} values (the node limit)`,
    );
  });

  it.each([
    {
      name: "maxDepth",
      options: { maxDepth: 2 },
      text: "a: {b: {c: 1}}\n",
      error: "nesting is deeper than the limit of 2",
    },
    { name: "maxBytes", options: { maxBytes: 5 }, text: '{"a": 1}', error: "over the limit of 5 bytes per document" },
  ])("honours $name", ({ options, text, error }) => {
    expect(parseDocuments(text, options)[0]?.error).toContain(error);
  });

  it("refuses a 9 MiB JSON document before parsing it", () => {
    const text = `{"a": "${"x".repeat(9 * MIB)}"}`;
    expect(only(text).error).toBe(`document 0 (line 1): over the limit of ${8 * MIB} bytes per document`);
  });
});

describe("JSON", () => {
  it.each([
    { name: "int64 max", text: '{"n": 9223372036854775807}', want: 9223372036854775807n },
    { name: "int64 min", text: '{"n": -9223372036854775808}', want: -9223372036854775808n },
    { name: "2^53 + 1", text: '{"n": 9007199254740993}', want: 9007199254740993n },
    { name: "max safe", text: '{"n": 9007199254740991}', want: 9007199254740991 },
    { name: "beyond int64", text: '{"n": 12345678901234567890}', want: Number(12345678901234567890n) },
    { name: "big float literal", text: '{"n": 1e300}', want: 1e300 },
    { name: "integral float literal", text: '{"n": 1.0}', want: 1 },
    { name: "exponent", text: '{"n": 15e-1}', want: 1.5 },
    { name: "nested big int", text: '{"a": [{"b": [9223372036854775807]}]}', want: undefined },
  ])("numbers: $name", ({ text, want }) => {
    const object = only(text).object as Record<string, unknown>;
    if (want === undefined) expect(object).toEqual({ a: [{ b: [9223372036854775807n] }] });
    else expect(object.n).toEqual(want);
  });

  it.each([
    { name: "escapes", value: { s: 'a"b\\c/\b\f\n\r\t é \u2028 😀 \ud800' } },
    { name: "unicode escapes", value: { s: "\u0001\u001f\u00e9" } },
    { name: "nesting and literals", value: { a: [true, false, null, [], {}, [[1.5, -2e-7]]], b: { c: { d: "" } } } },
    { name: "__proto__ key", value: JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') },
  ])("the lossless parser agrees with JSON.parse: $name", ({ value }) => {
    // Prepare: the big integer sends the text down the lossless path.
    const text = JSON.stringify({ ...value, big: 0 }).replace('"big":0', '"big":9223372036854775807');

    // Act
    const object = only(text).object as Record<string, unknown>;

    // Assess
    const { big, ...rest } = object;
    expect(big).toBe(9223372036854775807n);
    expect(rest).toEqual(value);
    expect(Object.hasOwn(object, "__proto__")).toBe(Object.hasOwn(value, "__proto__"));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("decodes a large JSON text with brackets and quotes inside strings", () => {
    const value = {
      kind: "ConfigMap",
      data: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, `[{"\\\\${"]".repeat(i % 7)}`])),
    };
    expect(only(JSON.stringify(value)).object).toEqual(value);
  });

  it.each([
    { name: "truncated", text: '{"a": 1,', error: "line 1, column 9: unexpected end of JSON input" },
    { name: "missing colon", text: '{"a" 1}', error: "line 1, column 6: invalid character '1' after object key" },
    {
      name: "missing comma",
      text: '{"a": 1 "b": 2}',
      error: "line 1, column 9: invalid character '\"' after object key:value pair",
    },
    {
      name: "bad escape",
      text: '{"a": "\\x"}',
      error: "line 1, column 9: invalid character 'x' in string escape code",
    },
    {
      name: "out of range",
      text: '{"a": 1e400}',
      error: "line 1, column 7: number 1e400 is out of range for a float64",
    },
  ])("syntax errors name the line and column: $name", ({ text, error }) => {
    const doc = only(text);
    expect(doc.object).toBeUndefined();
    expect(doc.error).toContain(error);
    expect(doc.error).toMatch(/^document 0 \(line \d+\): /);
  });
});

describe("a text starting with { is read as kubectl 1.36 reads it (apimachinery YAMLOrJSONDecoder)", () => {
  const objects = (text: string) => parseDocuments(text).map((d) => d.error ?? d.object);
  const places = (text: string) => parseDocuments(text).map((d) => [d.document, d.line]);

  it.each([
    { name: "missing value", text: '{"a": 1,\n "b": }', want: [{ a: 1, b: null }] },
    { name: "unquoted key", text: "{a: 1}", want: [{ a: 1 }] },
    { name: "trailing comma", text: '{"a": [1,]}', want: [{ a: [1] }] },
    { name: "bare word", text: '{"a": tru}', want: [{ a: "tru" }] },
    { name: "octal number", text: '{"a": 01}', want: [{ a: 1 }] },
    { name: "number ending in a dot", text: '{"a": 1.}', want: [{ a: 1 }] },
    { name: "line break in a string", text: '{"a": "\n"}', want: [{ a: " " }] },
    { name: "leading white space", text: '\n\n  {"a": }', want: [{ a: null }] },
  ])("invalid JSON that is valid YAML is YAML: $name", ({ text, want }) => {
    expect(objects(text)).toEqual(want);
  });

  it.each([
    {
      name: "back to back",
      text: '{"a": 1}{"b": 2}',
      want: [{ a: 1 }, { b: 2 }],
      at: [
        [0, 1],
        [1, 1],
      ],
    },
    {
      name: "one per line",
      text: '{"a": 1}\n{"b": 2}\n',
      want: [{ a: 1 }, { b: 2 }],
      at: [
        [0, 1],
        [1, 2],
      ],
    },
    {
      name: "JSON documents separated by ---",
      text: '{"a": 1}\n---\n{"b": 2}\n---\n{"c": 3}\n',
      want: [{ a: 1 }, { b: 2 }, { c: 3 }],
      at: [
        [0, 1],
        [1, 3],
        [2, 5],
      ],
    },
    {
      name: "JSON, then YAML",
      text: '{\n  "a": 1\n}\n---\nb: 2\n---\n{c: 3}\n',
      want: [{ a: 1 }, { b: 2 }, { c: 3 }],
      at: [
        [0, 1],
        [1, 5],
        [2, 7],
      ],
    },
    {
      name: "YAML, then JSON",
      text: '{a: 1}\n---\n{"b": 2}',
      want: [{ a: 1 }, { b: 2 }],
      at: [
        [0, 1],
        [1, 3],
      ],
    },
    {
      name: "null is an empty document",
      text: '{"a": 1} null {"b": 2}',
      want: [{ a: 1 }, { b: 2 }],
      at: [
        [0, 1],
        [2, 1],
      ],
    },
  ])("several documents: $name", ({ text, want, at }) => {
    expect(objects(text)).toEqual(want);
    expect(places(text)).toEqual(at);
  });

  it("a stream of two JSON values stays JSON: a later syntax error ends it", () => {
    expect(objects('{"a": 1}\n{"b": 2}\n---\n{c: 3}\n')).toEqual([
      { a: 1 },
      { b: 2 },
      "document 2 (line 3): line 3, column 2: invalid character '-' in numeric literal",
    ]);
  });

  it("when the first YAML document after the switch fails too, the JSON error is reported", () => {
    expect(objects('{"a": 1}\n---\n{"b": ]}\n---\nc: 3\n')).toEqual([
      { a: 1 },
      "document 1 (line 2): line 2, column 2: invalid character '-' in numeric literal",
      { c: 3 },
    ]);
  });

  it("gives up, as kubectl does, when fewer than four bytes follow the last JSON value", () => {
    expect(objects('{"a": 1}\n#')).toEqual([
      { a: 1 },
      "document 1 (line 2): line 2, column 1: invalid character '#' looking for beginning of value",
    ]);
    expect(objects('{"a": 1}\n# a comment\n')).toEqual([{ a: 1 }]);
  });

  it("a value that is not a mapping is an error, and the stream goes on", () => {
    expect(objects('{"a": 1}\n[1]\n{"b": 2}')).toEqual([
      { a: 1 },
      "document 1 (line 2): expected a Kubernetes object (a mapping), got a sequence",
      { b: 2 },
    ]);
  });

  it("bounds each JSON value, not the whole stream", () => {
    const text = '{"a": "xxxxxxxx"}{"b": 1}';
    expect(parseDocuments(text, { maxBytes: 16 }).map((d) => d.error ?? d.object)).toEqual([
      "document 0 (line 1): over the limit of 16 bytes per document",
      { b: 1 },
    ]);
  });

  it.each([
    {
      name: "a sequence",
      text: "[1, 2]",
      error: "document 0 (line 1): expected a Kubernetes object (a mapping), got a sequence",
    },
    {
      name: "a sequence, then YAML",
      text: "[1]\n---\na: 1\n",
      error: "document 0 (line 1): expected a Kubernetes object (a mapping), got a sequence",
    },
  ])("a text starting with [ is YAML: $name", ({ text, error }) => {
    expect(parseDocuments(text)[0]?.error).toBe(error);
  });

  it("a { after 4096 bytes of white space is not sniffed: the text is YAML", () => {
    expect(objects(`${" ".repeat(4095)}{"a": 1}{"b": 2}`)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(objects(`${" ".repeat(4096)}{"a": 1}{"b": 2}`)[0]).toMatch(/^document 0 \(line 1\): /);
  });
});

describe("YAML flow collections: plain scalars end as go-yaml v2 ends them", () => {
  it.each([
    { name: "IPv6 address ending in ::", text: "[1.2.3.4, 001:db8::]", want: ["1.2.3.4", "001:db8::"] },
    { name: ": before a comma", text: "[a:, b]", want: ["a:", "b"] },
    { name: ": before a closing brace", text: "{a:}", want: { "a:": null } },
    { name: "value ending in :", text: "{a: b:}", want: { a: "b:" } },
    { name: ": inside", text: "[a:b, c::d]", want: ["a:b", "c::d"] },
    { name: ": before a blank is a value indicator", text: "[a: , b]", want: [{ a: null }, "b"] },
    { name: ": before a line break", text: "[a:\n  ]", want: [{ a: null }] },
    { name: "quoted key", text: '["a":]', want: [{ a: null }] },
    { name: "? starting a scalar is a key", text: "[?a]", want: [{ a: null }] },
    { name: "? in block context stays", text: "a?b:c", want: "a?b:c" },
  ])("$name: $text", ({ text, want }) => {
    expect(yamlValue(text)).toEqual(want);
  });

  it.each([
    { name: "in a sequence", text: "v: [a?b]\n", error: "line 1: did not find expected ',' or ']'" },
    { name: "in a mapping", text: "v: {url: http://x?y=1}\n", error: "line 1: did not find expected ',' or '}'" },
  ])("? after scalar text in a flow collection is an error: $name", ({ text, error }) => {
    expect(only(text).error).toBe(`document 0 (line 1): ${error}`);
  });
});

describe("never throws", () => {
  it.each([
    "\u0000",
    "{",
    "[",
    "]]]",
    "}",
    "- - -",
    "? ? ?",
    "&a",
    "*a",
    "!!",
    "%YAML 1.1",
    "%FOO\n---\na: 1",
    "a: !!binary",
    "a: &a\nb: *a",
    ": :",
    "'",
    '"\\',
    "a: |\n  x\n b",
    "\t",
    "a:\n  - b\n  c: d",
    "{a: 1}",
    '{"a": "\\ud800"}',
    "---\n---\n---",
    "a: b: c",
  ])("%j", (text) => {
    expect(() => parseDocuments(text)).not.toThrow();
    for (const doc of parseDocuments(text)) {
      expect(typeof doc.document).toBe("number");
      expect(doc.line).toBeGreaterThanOrEqual(1);
      expect(doc.object === undefined).toBe(doc.error !== undefined);
    }
  });
});
