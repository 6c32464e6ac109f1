import { beforeAll, describe, expect, it } from "vitest";
import {
  type GoFile,
  goIntLiteral,
  goStringLiteral,
  loadGoParser,
  readGoFile,
} from "../../../../lib/declarative/go-source.js";

const SOURCE = `// +k8s:validation-gen=TypeMeta
// +groupName=x.example.com

// Package v1 is documented here.
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"example.com/x/common/v1"
	. "example.com/x/dot"
)

// +k8s:isSubresource="/scale"

// Scale is the scale subresource.
// +k8s:maxItems=2
type Scale []string

type (
	// +k8s:enum
	Mode string

	// Alias doc.
	Alias = Mode
)

type List[T any] struct{ Items []T }

/*
 +k8s:minimum=1
*/
type Count int32

type S struct {
	*Embedded \`json:",inline"\`
	metav1.TypeMeta \`json:",inline"\`
	// +k8s:required
	A, B int32 \`json:"a"\` // +k8s:notADocComment
	// +k8s:optional

	// +k8s:maxLength=3
	C string
}

const (
	// +k8s:enumExclude
	X Mode = "x"
	Y
	Z = Mode("z")
	N int32 = -0x10
	U = "untyped"
)

func (s *S) Method() {}
`;

describe("readGoFile (tree-sitter-go)", () => {
  let file: GoFile;
  beforeAll(async () => {
    file = readGoFile(await loadGoParser(), "v1/types.go", SOURCE);
  });

  it("reads the package clause and every + line above it", () => {
    expect(file.packageName).toBe("v1");
    expect(file.packageTags.map((t) => [t.text, t.line])).toEqual([
      ["+k8s:validation-gen=TypeMeta", 1],
      ["+groupName=x.example.com", 2],
    ]);
    expect(file.syntaxErrors).toEqual([]);
  });

  it("reads imports with their local names", () => {
    expect(file.imports.map((i) => [i.name, i.path])).toEqual([
      ["metav1", "k8s.io/apimachinery/pkg/apis/meta/v1"],
      [undefined, "example.com/x/common/v1"],
      [".", "example.com/x/dot"],
    ]);
  });

  it.each([
    { name: "Scale", alias: false, generic: false, doc: ["+k8s:maxItems=2"], before: ['+k8s:isSubresource="/scale"'] },
    { name: "Mode", alias: false, generic: false, doc: ["+k8s:enum"], before: [] },
    { name: "Alias", alias: true, generic: false, doc: [], before: [] },
    { name: "List", alias: false, generic: true, doc: [], before: [] },
    { name: "Count", alias: false, generic: false, doc: ["+k8s:minimum=1"], before: [] },
  ])("type $name: doc comments, the block before, alias, generic", ({ name, alias, generic, doc, before }) => {
    const t = file.types.find((x) => x.name === name);
    expect(t).toBeDefined();
    expect({
      alias: t!.alias,
      generic: t!.generic,
      doc: t!.doc.map((d) => d.text),
      before: t!.docBefore.map((d) => d.text),
    }).toEqual({
      alias,
      generic,
      doc,
      before,
    });
  });

  it("reads struct fields: embedded (with pointer), several names, tags, doc comments only directly above", () => {
    const s = file.types.find((x) => x.name === "S")!;
    expect(s.type.kind).toBe("struct");
    const fields = s.type.kind === "struct" ? s.type.fields : [];
    expect(
      fields.map((f) => ({
        names: f.names,
        embedded: f.embedded,
        type: f.type.kind,
        tag: f.tag,
        doc: f.doc.map((d) => d.text),
      })),
    ).toEqual([
      { names: [], embedded: true, type: "pointer", tag: 'json:",inline"', doc: [] },
      { names: [], embedded: true, type: "qualified", tag: 'json:",inline"', doc: [] },
      { names: ["A", "B"], embedded: false, type: "name", tag: 'json:"a"', doc: ["+k8s:required"] },
      { names: ["C"], embedded: false, type: "name", tag: undefined, doc: ["+k8s:maxLength=3"] },
    ]);
  });

  it("reads constants, repeating the previous type and value, and typed conversions", () => {
    expect(
      file.consts.map((c) => [
        c.name,
        c.type?.kind === "name" ? c.type.name : c.type?.kind,
        c.value,
        c.doc.map((d) => d.text),
      ]),
    ).toEqual([
      ["X", "Mode", { kind: "string", value: "x" }, ["+k8s:enumExclude"]],
      ["Y", "Mode", { kind: "string", value: "x" }, []],
      ["Z", "Mode", { kind: "string", value: "z" }, []],
      ["N", "int32", { kind: "int", value: -16n }, []],
      ["U", undefined, { kind: "string", value: "untyped" }, []],
    ]);
  });

  it("reports syntax errors with a line near them", async () => {
    const bad = readGoFile(await loadGoParser(), "bad.go", 'package v1\n\ntype S struct {\n\tA int `json:"a"\n}\n');
    expect(bad.syntaxErrors.length).toBeGreaterThan(0);
    // tree-sitter places the error node where its recovery starts: the struct (line 3) or the bad field (line 4).
    expect([3, 4]).toContain(bad.syntaxErrors[0]!.line);
  });
});

describe("Go literals", () => {
  it.each([
    { text: '"a\\tb\\"c"', want: 'a\tb"c' },
    { text: "`raw\\n`", want: "raw\\n" },
    { text: '"\\u00e9\\x41\\101"', want: "éAA" },
    { text: '"bad\\q"', want: undefined },
  ])("string $text", ({ text, want }) => {
    expect(goStringLiteral(text)).toBe(want);
  });

  it.each([
    { text: "42", want: 42n },
    { text: "0x1F", want: 31n },
    { text: "0o17", want: 15n },
    { text: "017", want: 15n },
    { text: "0b101", want: 5n },
    { text: "1_000", want: 1000n },
    { text: "1.5", want: undefined },
  ])("int $text", ({ text, want }) => {
    expect(goIntLiteral(text)).toBe(want);
  });
});
