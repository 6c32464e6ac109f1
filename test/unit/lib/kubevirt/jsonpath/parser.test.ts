import { describe, expect, it } from "vitest";
import {
  type JpNode,
  JsonPathSyntaxError,
  parseJsonPath,
  unquoteExtend,
} from "../../../../../lib/kubevirt/jsonpath/parser.js";

/** A compact text of a parsed template, to compare shapes. */
function shape(node: JpNode): string {
  switch (node.type) {
    case "list":
      return `(${node.nodes.map(shape).join(" ")})`;
    case "text":
      return `text:${JSON.stringify(node.text)}`;
    case "field":
      return `.${node.name}`;
    case "array":
      return `[${node.params.map((p) => (p.known ? String(p.value) : "_") + (p.derived ? "d" : "")).join(":")}]`;
    case "filter":
      return `?(${shape(node.left)} ${node.operator} ${shape(node.right)})`;
    case "int":
    case "float":
    case "bool":
      return `${node.type}:${node.value}`;
    case "wildcard":
      return "*";
    case "recursive":
      return "..";
    case "union":
      return `union(${node.nodes.map(shape).join(",")})`;
    case "identifier":
      return `id:${node.name}`;
  }
}

function parsed(template: string): string {
  return shape(parseJsonPath(template));
}

function syntaxError(template: string): string {
  try {
    parseJsonPath(template);
    return "parsed";
  } catch (e) {
    if (e instanceof JsonPathSyntaxError) return e.message;
    throw e;
  }
}

describe("parseJsonPath: client-go's grammar", () => {
  it.each([
    { template: "{.spec.template.spec.domain.cpu.cores}", want: "((.spec .template .spec .domain .cpu .cores))" },
    { template: "{.a[*].b}", want: "((.a [_:_:_] .b))" },
    { template: "{.a[0]}", want: "((.a [0:1d:_]))" },
    { template: "{.a[-1]}", want: "((.a [-1:0d:_]))" },
    { template: "{.a[1:3]}", want: "((.a [1:3:_]))" },
    { template: "{.a[::2]}", want: "((.a [_:_:2]))" },
    { template: "{.a[0,2]}", want: "((.a union(([0:1d:_]),([2:3d:_]))))" },
    { template: "{.a[ 0 , 2 ]}", want: "((.a union(([0:1d:_]),([2:3d:_]))))" },
    // a quoted key is parsed as a field path, so its dots split it (a kubectl quirk the validator inherits)
    { template: "{.labels['app']}", want: "((.labels .app))" },
    { template: "{.labels['vm.kubevirt.io/os']}", want: "((.labels .vm .kubevirt .io/os))" },
    { template: "{.labels.vm\\.kubevirt\\.io/os}", want: "((.labels .vm.kubevirt.io/os))" },
    { template: '{.a[?(@.name=="root")].b}', want: '((.a ?((.name) == (text:"root")) .b))' },
    { template: "{.a[?(@.port>80)]}", want: "((.a ?((.port) > (int:80))))" },
    { template: "{.a[?(@.x)]}", want: "((.a ?((.x) exists ())))" },
    { template: "{..bus}", want: "((.. .bus))" },
    { template: "{.a..b}", want: "((.a .. .b))" },
    { template: "{.a.*}", want: "((.a *))" },
    { template: "{$.a}", want: "((.a))" },
    { template: "{.a}{.b}", want: "((.a) (.b))" },
    { template: "x{.a}y", want: '(text:"x" (.a) text:"y")' },
    { template: "{.a 'lit'}", want: '((.a text:"lit"))' },
    { template: "{1.5}", want: "((float:1.5))" },
    { template: "{true}", want: "((bool:true))" },
    { template: "{range .a}", want: "((id:range .a))" },
    { template: "{.a.}", want: "((.a .))" },
  ])("$template", ({ template, want }) => {
    expect(parsed(template)).toBe(want);
  });

  it.each([
    { template: "{.a[*.disk}", error: "unterminated array" },
    { template: "{.a[x]}", error: "invalid array index x" },
    { template: "{.a[1:x]}", error: "invalid array index 1:x" },
    { template: "{.a[-]}", error: "array index - is not a number" },
    { template: "{.a", error: "unclosed action" },
    { template: "{.a\n}", error: "unclosed action" },
    { template: "{.a[?(@.x==1}", error: "unterminated filter" },
    { template: "{.a[?(@.x==1)}", error: "unclosed array expect ]" },
    { template: "{.a 'x}", error: "unterminated quoted string" },
    { template: "{....a}", error: "invalid multiple recursive descent" },
    { template: "{..*}", error: "unrecognized character in action: U+002A '*'" },
    { template: "{.a#}", error: "parsed" },
    { template: "{#}", error: "unrecognized character in action: U+0023 '#'" },
    { template: "{1.2.3}", error: "cannot parse number 1.2.3" },
    { template: `{.a${"[0,1]".repeat(1)}${"x".repeat(5000)}}`, error: "longer than 4096" },
  ])("$template fails: $error", ({ template, error }) => {
    expect(syntaxError(template)).toContain(error);
  });

  it("bounds the number of parts", () => {
    expect(syntaxError(`{.a[${"0,".repeat(1900)}0]}`)).toContain("more than 2000 parts");
  });
});

describe("unquoteExtend", () => {
  it.each([
    { quoted: `"abc"`, want: "abc" },
    { quoted: `'abc'`, want: "abc" },
    { quoted: `"a\\"b"`, want: 'a"b' },
    { quoted: `'a\\'b'`, want: "a'b" },
    { quoted: `"a\\nb"`, want: "a\nb" },
    { quoted: `"\\u00e9"`, want: "é" },
    { quoted: `"\\x41"`, want: "A" },
    { quoted: `"\\101"`, want: "A" },
    { quoted: `"a\\'b"`, want: undefined },
    { quoted: `"a"b"`, want: undefined },
    { quoted: `"abc'`, want: undefined },
    { quoted: `"\\q"`, want: undefined },
  ])("$quoted", ({ quoted, want }) => {
    expect(unquoteExtend(quoted)).toBe(want);
  });
});
