/** The line of each `kind: List` item, found in the text. */
import { describe, expect, it } from "vitest";
import { decodeText } from "../../../../audit/sources/decode.js";
import { listItemLines } from "../../../../audit/sources/list-lines.js";

const OPTIONS = { nonKubernetes: "error", maxJsonBytes: 1 << 20 } as const;

describe("listItemLines", () => {
  it("YAML: each '- ' entry of the top-level items, after a document separator and comments", () => {
    const text = [
      "kind: ConfigMap", // 1
      "---", // 2
      "apiVersion: v1", // 3
      "kind: List", // 4
      "items:", // 5
      "# the first", // 6
      "- apiVersion: v1", // 7
      "  kind: ConfigMap", // 8
      "  data:", // 9
      "    x: |", // 10
      "      - not an item", // 11
      "- apiVersion: v1", // 12
      "  kind: Secret", // 13
      "metadata: {}", // 14
      "---", // 15
      "- not this document", // 16
    ].join("\n");
    expect(listItemLines(text, 3, 2)).toEqual([7, 12]);
    // A count that does not match what the text shows: undefined (the items keep the List's line).
    expect(listItemLines(text, 3, 3)).toBeUndefined();
  });

  it("YAML: indented entries, and a flow sequence that cannot be told apart", () => {
    expect(listItemLines("kind: List\nitems:\n  - a: 1\n    b:\n    - x\n  - a: 2\n", 1, 2)).toEqual([3, 6]);
    expect(listItemLines("kind: List\nitems: [{a: 1}, {a: 2}]\n", 1, 2)).toBeUndefined();
  });

  it("JSON: each element of the top-level items array, strings with brackets and escapes skipped", () => {
    const text = `{
  "kind": "List",
  "metadata": {"items": ["not these"]},
  "items": [
    {"kind": "A", "s": "[{\\"items\\": 1}]"},
    {
      "kind": "B"
    }, {"kind": "C"}
  ]
}`;
    expect(listItemLines(text, 1, 3)).toEqual([5, 6, 8]);
    expect(listItemLines('{"kind":"List","items":[]}', 1, 0)).toEqual([]);
  });
});

describe("decodeText", () => {
  it("puts each List item at its own line; error texts keep the List's line", () => {
    const text =
      "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n- kind: Pod\n";
    const docs = decodeText(text, { file: "f.yaml" }, OPTIONS);
    expect(docs.map((d) => [d.kind, d.location.line, d.location.item])).toEqual([
      ["object", 4, 0],
      ["error", 7, 1],
    ]);
    expect(docs[1]).toMatchObject({ error: "document 0 (line 1): item 1: Object 'apiVersion' is missing" });
  });

  it("items of a nested List follow the top-level ones at the List's line", () => {
    const text = JSON.stringify(
      {
        apiVersion: "v1",
        kind: "List",
        items: [
          { apiVersion: "v1", kind: "List", items: [{ apiVersion: "v1", kind: "Pod", metadata: { name: "n" } }] },
          { apiVersion: "v1", kind: "Pod", metadata: { name: "t" } },
        ],
      },
      null,
      2,
    );
    const docs = decodeText(text, { file: "f.json" }, OPTIONS);
    expect(docs.map((d) => [d.kind === "object" ? d.object.metadata : undefined, d.location.line])).toEqual([
      [{ name: "t" }, 18],
      [{ name: "n" }, 1],
    ]);
  });
});
