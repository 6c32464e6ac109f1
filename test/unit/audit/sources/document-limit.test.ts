/**
 * The per-document limit as decodeText applies it to a text read whole: a YAML document, a JSON text that is not a
 * List, each item of a JSON List, and each value of a stream of several JSON values is one document; a JSON List as
 * a whole is bounded only by the file's limit. (test/e2e/document-limit.test.ts holds every input path to the same.)
 */
import { describe, expect, it } from "vitest";
import { decodeText } from "../../../../audit/sources/decode.js";

const LIMIT = 200;
const OPTIONS = { nonKubernetes: "error", maxJsonBytes: 1 << 20, maxDocumentBytes: LIMIT } as const;
const TOO_LARGE = `over the limit of ${LIMIT} bytes per document (raise it with --max-document-bytes or TOLLGATE_MAX_DOCUMENT_BYTES)`;

/** A ConfigMap as one JSON value of exactly `bytes` bytes. */
function cm(name: string, bytes: number): string {
  const make = (pad: string) =>
    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"k":"${pad}"}}`;
  return make("x".repeat(bytes - make("").length));
}

function outcomes(text: string): string[] {
  return decodeText(text, { file: "f" }, OPTIONS).map((d) => (d.kind === "error" ? d.error : d.kind));
}

describe("the per-document limit of a text read whole", () => {
  it("a JSON text that is not a List: the text, at the limit or one byte over", () => {
    expect(outcomes(cm("a", LIMIT))).toEqual(["object"]);
    expect(outcomes(cm("a", LIMIT + 1))).toEqual([`document 0 (line 1): ${TOO_LARGE}`]);
  });

  it("a JSON List: each item by its own text, the List itself bounded only by the file's limit", () => {
    const list = `{"apiVersion":"v1","kind":"List","items":[\n  ${cm("a", LIMIT)},\n  ${cm("b", LIMIT + 1)} ,\n${cm("c", 90)}]}`;
    expect(outcomes(list)).toEqual(["object", `document 0 (line 1): item 1: ${TOO_LARGE}`, "object"]);
  });

  it("a stream of several JSON values: each value by its own text", () => {
    const stream = `${cm("a", LIMIT)}\n${cm("b", 150)}\n${cm("c", LIMIT + 1)}\n${cm("d", 100)}\n`;
    expect(outcomes(stream)).toEqual(["object", "object", `document 2 (line 3): ${TOO_LARGE}`, "object"]);
  });

  it("YAML: each document, a List document as a whole", () => {
    const doc = (name: string, bytes: number) => {
      const make = (pad: string) =>
        `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {k: y${pad}}\n`;
      return make("x".repeat(bytes - make("").length));
    };
    expect(outcomes(doc("a", LIMIT) + doc("b", LIMIT + 1) + doc("c", 80))).toEqual([
      "object",
      `document 1 (line 7): ${TOO_LARGE}`,
      "object",
    ]);
  });
});
