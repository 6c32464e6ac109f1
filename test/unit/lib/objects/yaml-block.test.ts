import { describe, expect, it } from "vitest";
import { parseDocuments } from "../../../../lib/objects/decode.js";
import { DEFAULT_PARSE_OPTIONS } from "../../../../lib/objects/limits.js";
import { readBlockYaml } from "../../../../lib/objects/yaml-block.js";
import { decodeYamlStreamFully } from "../../../../lib/objects/yaml-decode.js";

/** What the block reader gives for one document (undefined: it leaves the document to the full decoder). */
function read(text: string): Record<string, unknown> | undefined {
  return readBlockYaml(text, DEFAULT_PARSE_OPTIONS, (r) => (r.tag === "int" ? Number(r.value) : r.value));
}

/** parseDocuments (block reader first) must give exactly what the `yaml` package path gives. */
function expectSameAsFullDecoder(text: string): void {
  expect(parseDocuments(text)).toStrictEqual(decodeYamlStreamFully(text, DEFAULT_PARSE_OPTIONS));
}

describe("the block reader reads block-style YAML as the full decoder does", () => {
  it.each([
    {
      name: "controller-gen's CRD layout: indentless sequences, nested mappings, |- descriptions",
      text: `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    api-approved.kubernetes.io: https://github.com/kubernetes-sigs/gateway-api/pull/4530
  name: widgets.example.com
spec:
  names:
    categories:
    - gateway-api
    kind: Widget
  versions:
  - additionalPrinterColumns:
    - jsonPath: .spec.hostnames
      name: Hostnames
      type: string
    name: v1
    schema:
      openAPIV3Schema:
        description: |-
          Widget is a thing.
            indented line kept

          after a blank line
        properties:
          spec:
            x-kubernetes-validations:
            - message: must be set
              rule: has(self.a) || has(self.b) ||
                has(self.c)
            required:
            - a
            type: object
    served: true
`,
      want: {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: {
          annotations: { "api-approved.kubernetes.io": "https://github.com/kubernetes-sigs/gateway-api/pull/4530" },
          name: "widgets.example.com",
        },
        spec: {
          names: { categories: ["gateway-api"], kind: "Widget" },
          versions: [
            {
              additionalPrinterColumns: [{ jsonPath: ".spec.hostnames", name: "Hostnames", type: "string" }],
              name: "v1",
              schema: {
                openAPIV3Schema: {
                  description: "Widget is a thing.\n  indented line kept\n\nafter a blank line",
                  properties: {
                    spec: {
                      "x-kubernetes-validations": [
                        { message: "must be set", rule: "has(self.a) || has(self.b) || has(self.c)" },
                      ],
                      required: ["a"],
                      type: "object",
                    },
                  },
                },
              },
              served: true,
            },
          ],
        },
      },
    },
    {
      name: "YAML 1.1 scalars, quoted keys and values, comments, empty collections",
      text: `---  # the document marker
a: yes
b: 0o17
c: "quoted: \\"x\\" \\u00e9 \\x41"
'd e': 'it''s'
f: ~
g:
h: {}
i: []   # empty
j: 1_000
k: 2024-01-02
l: .5
"1": one
`,
      want: {
        a: true,
        b: 15,
        c: 'quoted: "x" é A',
        "d e": "it's",
        f: null,
        g: null,
        h: {},
        i: [],
        j: 1000,
        k: "2024-01-02",
        l: 0.5,
        "1": "one",
      },
    },
    {
      name: "folded plain and quoted scalars over lines, block scalars with every chomping",
      text: `plain: one
  two

  three
dq: "a  
  b \\
  c"
sq: 'x

  y'
keep: |+
  k

clip: >
  folded
  text

  para
strip: |2-
    two more
  base
lead: |2-


    after two blank lines
leadauto: |
 
  after a blank line
seq:
- - nested
  - seq
- key: v
  other: w
-
  late: 1
`,
      want: {
        plain: "one two\nthree",
        dq: "a b c",
        sq: "x\ny",
        keep: "k\n\n",
        clip: "folded text\npara\n",
        strip: "  two more\nbase",
        lead: "\n\n  after two blank lines",
        leadauto: "\nafter a blank line\n",
        seq: [["nested", "seq"], { key: "v", other: "w" }, { late: 1 }],
      },
    },
  ])("$name", ({ text, want }) => {
    const fast = read(text);
    expect(fast).toEqual(want);
    expectSameAsFullDecoder(text);
  });
});

describe("the block reader leaves everything else to the full decoder", () => {
  it.each([
    { name: "anchors and aliases", text: "a: &x 1\nb: *x\n" },
    { name: "tags", text: "a: !!str 1\n" },
    { name: "flow collections with content", text: "a: [1, 2]\n" },
    { name: "a flow mapping", text: "a: {b: 1}\n" },
    { name: "tabs", text: "a:\tb\n" },
    { name: "carriage returns", text: "a: b\r\nc: d\r\n" },
    { name: "explicit keys", text: "? a\n: b\n" },
    { name: "merge keys", text: "base: {}\nx:\n  <<: {}\n" },
    { name: "duplicate keys (an error)", text: "a: 1\na: 2\n" },
    { name: "a mapping where a value is", text: "a: b: c\n" },
    { name: "bad indentation (an error)", text: "a: 1\n  b: 2\n" },
    { name: "a sequence at the root", text: "- a\n" },
    { name: "a scalar at the root", text: "just text\n" },
    { name: "a second document", text: "a: 1\n---\nb: 2\n" },
    { name: "an end marker", text: "a: 1\n...\n" },
    { name: "a directive", text: "%YAML 1.1\n---\na: 1\n" },
    { name: "an unclosed quote", text: 'a: "b\n' },
    { name: "a block scalar with no content", text: "a: |\nb: 1\n" },
    { name: "a folded block scalar after blank lines", text: "a: >\n\n  b\n  c\nd: 1\n" },
    { name: "a block scalar's leading blank line deeper than its content", text: "a: |\n    \n  b\n" },
    { name: "a block scalar of blank lines only", text: "a: |\n\n\n" },
    { name: "an unknown escape", text: 'a: "\\q"\n' },
    { name: "an escaped surrogate", text: 'a: "\\ud800"\n' },
    { name: "text after a quoted scalar", text: 'a: "b" c\n' },
    { name: "a value on the line after its key", text: "a:\n  text\n" },
    { name: "an entry-looking continuation line", text: "a: b\n  - c\n" },
  ])("$name", ({ text }) => {
    expect(read(text)).toBeUndefined();
    expectSameAsFullDecoder(text);
  });

  it("a number JSON cannot carry: the full decoder's error", () => {
    const text = "a: .inf\n";
    expect(parseDocuments(text)[0]?.error).toMatch(/not representable in JSON/);
    expectSameAsFullDecoder(text);
  });

  it("nesting near the bound", () => {
    let text = "";
    for (let i = 0; i < 70; i++) text += `${"  ".repeat(i)}k:\n`;
    text += `${"  ".repeat(70)}v: 1\n`;
    expect(read(text)).toBeUndefined();
    expectSameAsFullDecoder(text);
    expect(parseDocuments(text, { maxDepth: 20 })[0]?.error).toMatch(/nesting is deeper than the limit of 20/);
  });

  it("more values than the node limit", () => {
    const text = "a: 1\nb: 2\nc: 3\n";
    expect(readBlockYaml(text, { ...DEFAULT_PARSE_OPTIONS, maxNodes: 3 }, (r) => r.value)).toBeUndefined();
    expect(parseDocuments(text, { maxNodes: 3 })[0]?.error).toMatch(/more than 3 values/);
  });
});
