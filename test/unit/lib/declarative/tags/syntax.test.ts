import { describe, expect, it } from "vitest";
import { parseTag, type Tag } from "../../../../../lib/declarative/tags/syntax.js";

/** A tag as plain data: name, arguments and value, with a nested tag flattened to its text. */
function shape(t: Tag): unknown {
  return {
    name: t.name,
    args: t.args.map((a) => [a.name ?? "", a.value.kind, String(a.value.value)]),
    value:
      t.value === undefined
        ? undefined
        : t.value.kind === "tag"
          ? `tag ${t.value.tag.text}`
          : `${t.value.kind} ${String(t.value.value)}`,
  };
}

describe("parseTag (validation-gen comment tag syntax)", () => {
  it.each([
    { line: "+k8s:required", want: { name: "k8s:required", args: [], value: undefined } },
    { line: "+k8s:minimum=1", want: { name: "k8s:minimum", args: [], value: "int 1" } },
    { line: "+k8s:minimum=-5", want: { name: "k8s:minimum", args: [], value: "int -5" } },
    { line: "+k8s:neq=true", want: { name: "k8s:neq", args: [], value: "bool true" } },
    { line: '+k8s:neq="disabled"', want: { name: "k8s:neq", args: [], value: "string disabled" } },
    { line: "+k8s:format=k8s-short-name", want: { name: "k8s:format", args: [], value: "string k8s-short-name" } },
    {
      line: "+k8s:maximum=1000000000 # HighestUserDefinablePriority",
      want: { name: "k8s:maximum", args: [], value: "int 1000000000" },
    },
    { line: '+k8s:neq="a # b"', want: { name: "k8s:neq", args: [], value: "string a # b" } },
    { line: "+k8s:minimum=007", want: { name: "k8s:minimum", args: [], value: "string 007" } },
    {
      line: '+k8s:alpha(since: "1.37")=+k8s:format=k8s-short-name',
      want: { name: "k8s:alpha", args: [["since", "string", "1.37"]], value: "tag +k8s:format=k8s-short-name" },
    },
    {
      line: "+k8s:ifMode(ObjectStore)=+k8s:required",
      want: { name: "k8s:ifMode", args: [["", "string", "ObjectStore"]], value: "tag +k8s:required" },
    },
    {
      line: '+k8s:item(type: "Approved", priority: 10, enabled: true)=+k8s:zeroOrOneOfMember',
      want: {
        name: "k8s:item",
        args: [
          ["type", "string", "Approved"],
          ["priority", "int", "10"],
          ["enabled", "bool", "true"],
        ],
        value: "tag +k8s:zeroOrOneOfMember",
      },
    },
    {
      line: '+k8s:item(name: "main")=+k8s:subfield(capacity)=+k8s:minimum=10',
      want: {
        name: "k8s:item",
        args: [["name", "string", "main"]],
        value: "tag +k8s:subfield(capacity)=+k8s:minimum=10",
      },
    },
    {
      line: "+k8s:validation-gen=TypesWithField=TypeMeta",
      want: { name: "k8s:validation-gen", args: [], value: "string TypesWithField=TypeMeta" },
    },
    {
      line: '+k8s:supportsSubresource="/status"',
      want: { name: "k8s:supportsSubresource", args: [], value: "string /status" },
    },
    { line: "+k8s:listType=map", want: { name: "k8s:listType", args: [], value: "string map" } },
    { line: '+k8s:neq=`raw "q"`', want: { name: "k8s:neq", args: [], value: 'string raw "q"' } },
    { line: "+k8s:unionMember()", want: { name: "k8s:unionMember", args: [], value: undefined } },
  ])("$line", ({ line, want }) => {
    expect(shape(parseTag(line))).toEqual(want);
  });

  it.each([
    { line: "+k8s:item(a: 1, 2)=+k8s:required", message: "positional and named arguments cannot be mixed" },
    { line: '+k8s:neq="unterminated', message: "unterminated string" },
    { line: "+k8s:ifEnabled(Foo=+k8s:required", message: "unexpected" },
    { line: "+", message: "missing tag name" },
    { line: "+k8s:minimum=", message: "" },
  ])("rejects $line", ({ line, message }) => {
    if (message === "") {
      // An empty payload is an empty bare string; the compiler rejects it where a value is needed.
      expect(parseTag(line).value).toEqual({ kind: "string", value: "", quoted: false });
      return;
    }
    expect(() => parseTag(line)).toThrow(message);
  });

  it("keeps the text of the tag and of its payload", () => {
    const t = parseTag('+k8s:beta(since: "1.37")=+k8s:maxItems=4 # comment');
    expect(t.text).toBe('+k8s:beta(since: "1.37")=+k8s:maxItems=4');
    expect(t.value?.kind === "tag" ? t.value.tag.text : "").toBe("+k8s:maxItems=4");
  });
});
