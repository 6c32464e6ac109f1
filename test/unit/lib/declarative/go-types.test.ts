/**
 * Type resolution on tricky Go (spec/declarative-validation-behaviour.md sections 2 and 9), observed through the
 * errors a validation reports: embedding, JSON names, aliases and definitions, packages of the bundle, recursion,
 * generics in unrelated code, types from outside the bundle.
 */
import { describe, expect, it } from "vitest";
import { brief, failureTexts, kind, loadApi, validate } from "./go-bundle.js";

interface ResolveCase {
  name: string;
  types: string;
  extra?: Record<string, string>;
  header?: string;
  spec: unknown;
  want: string[];
}

const COMMON_MOD = "module example.com/t\n\ngo 1.22\n";

describe("type resolution", () => {
  it.each<ResolveCase>([
    {
      name: "inline embedded struct: fields at the parent's path",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\tCommon \`json:",inline"\`\n}\ntype Common struct {\n\t// +k8s:required\n\tOwner string \`json:"owner"\`\n}\n`,
      spec: {},
      want: ["FieldValueRequired spec.owner: "],
    },
    {
      name: "untagged embedded struct is inline too; an embedded pointer as well",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\tCommon\n\t*Extra\n}\ntype Common struct {\n\t// +k8s:maximum=3\n\tA int32 \`json:"a"\`\n}\ntype Extra struct {\n\t// +k8s:maximum=3\n\tB int32 \`json:"b"\`\n}\n`,
      spec: { a: 4, b: 5 },
      want: [
        "FieldValueInvalid spec.a (maximum): must be less than or equal to 3",
        "FieldValueInvalid spec.b (maximum): must be less than or equal to 3",
      ],
    },
    {
      name: "embedded struct with a JSON name is an ordinary field",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\tExtra \`json:"extra"\`\n}\ntype Extra struct {\n\t// +k8s:minimum=1\n\tBurst int32 \`json:"burst"\`\n}\n`,
      spec: { extra: { burst: 0 } },
      want: ["FieldValueInvalid spec.extra.burst (minimum): must be greater than or equal to 1"],
    },
    {
      name: "an inline field of the root type is reported under the embedded type's name",
      types: `type Thing struct {\n\tTypeMeta \`json:",inline"\`\n\tRootEmb \`json:",inline"\`\n}\ntype RootEmb struct {\n\t// +k8s:required\n\tEmb string \`json:"emb"\`\n}\n`,
      spec: {},
      want: ["FieldValueRequired RootEmb.emb: "],
    },
    {
      name: 'a json:"-" field is never decoded: its rules run at the parent\'s path',
      types: `${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:required\n\tInternal string \`json:"-"\`\n}\n`,
      spec: { Internal: "x", "-": "y" },
      want: ["FieldValueRequired spec: "],
    },
    {
      name: "no json tag: the Go field name, case-sensitive",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:maxLength=2\n\tLabel string\n}\n`,
      spec: { Label: "abc", label: "abcdef" },
      want: ["FieldValueTooLong spec.Label (maxLength): may not be more than 2 characters"],
    },
    {
      name: "unexported fields are ignored",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:required\n\thidden string \`json:"hidden"\`\n}\n`,
      spec: {},
      want: [],
    },
    {
      name: "a true alias is the same type (tags on the alias line are ignored)",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:optional\n\tB *Alias \`json:"b"\`\n}\n// +k8s:maxLength=1\ntype Alias = Endpoint\ntype Endpoint struct {\n\t// +k8s:format=k8s-long-name\n\tHost string \`json:"host"\`\n}\n`,
      spec: { b: { host: "Bad_Host" } },
      want: [
        "FieldValueInvalid spec.b.host (format=k8s-long-name): a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    },
    {
      name: "a definition of a struct keeps the field tags, not the type-level tags",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\tP Primary \`json:"p"\`\n}\ntype Primary Endpoint\n// +k8s:validateFalse="type-level"\ntype Endpoint struct {\n\t// +k8s:required\n\tHost string \`json:"host"\`\n}\n`,
      spec: { p: {} },
      want: ["FieldValueRequired spec.p.host: "],
    },
    {
      name: "a definition of a definition loses the original's tags (no enum, no format)",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\tC Release \`json:"c"\`\n\tH Host2 \`json:"h"\`\n}\n// +k8s:enum\ntype Channel string\nconst ChannelStable Channel = "Stable"\ntype Release Channel\n// +k8s:format=k8s-short-name\ntype Host string\ntype Host2 Host\n`,
      spec: { c: "Anything", h: "Not A Name" },
      want: [],
    },
    {
      name: "recursive types through slices",
      types: `${kind("Thing", "Node")}type Node struct {\n\t// +k8s:maxLength=3\n\tName string \`json:"name"\`\n\tChildren []Node \`json:"children"\`\n}\n`,
      spec: { name: "a", children: [{ name: "b", children: [{ name: "long" }] }] },
      want: ["FieldValueTooLong spec.children[0].children[0].name (maxLength): may not be more than 3 characters"],
    },
    {
      name: "generic types and functions in unrelated code do not get in the way",
      types: `type List[T any] struct {\n\tItems []T \`json:"items"\`\n}\nfunc Map[T, U any](xs []T, f func(T) U) []U { return nil }\nfunc (l *List[T]) Len() int { return len(l.Items) }\nvar _ = Map[int, int]\n${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:minimum=1\n\tN int32 \`json:"n"\`\n}\n`,
      spec: { n: 0 },
      want: ["FieldValueInvalid spec.n (minimum): must be greater than or equal to 1"],
    },
    {
      name: "a package of the bundle imported through the go.mod module path",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\tName common.Short \`json:"name"\`\n\t// +k8s:optional\n\tRef *common.Ref \`json:"ref"\`\n}\n`,
      header: 'import common "example.com/t/common/v1"\n',
      extra: {
        "common/v1/types.go":
          'package v1\n\n// +k8s:format=k8s-short-name\ntype Short string\n\ntype Ref struct {\n\t// +k8s:required\n\tName string `json:"name"`\n}\n',
      },
      spec: { name: "Bad_Name", ref: {} },
      want: [
        "FieldValueInvalid spec.name (format=k8s-short-name): a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        "FieldValueRequired spec.ref.name: ",
      ],
    },
    {
      name: "an import without a name uses the package's own name",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\tP shared.Percent \`json:"p"\`\n}\n`,
      header: 'import "example.com/t/lib/shared"\n',
      extra: { "lib/shared/p.go": "package shared\n\n// +k8s:maximum=100\ntype Percent int32\n" },
      spec: { p: 101 },
      want: ["FieldValueInvalid spec.p (maximum): must be less than or equal to 100"],
    },
    {
      name: "a dot import",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\tP Percent \`json:"p"\`\n}\n`,
      header: 'import . "example.com/t/lib/shared"\n',
      extra: { "lib/shared/p.go": "package shared\n\n// +k8s:maximum=100\ntype Percent int32\n" },
      spec: { p: 101 },
      want: ["FieldValueInvalid spec.p (maximum): must be less than or equal to 100"],
    },
    {
      name: "enum constants declared in another package count",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\tMode shared.Mode \`json:"mode"\`\n}\nconst ModeExtra shared.Mode = "Extra"\n`,
      header: 'import "example.com/t/lib/shared"\n',
      extra: {
        "lib/shared/m.go":
          'package shared\n\n// +k8s:enum\ntype Mode string\n\nconst (\n\tModeA Mode = "A"\n\tModeB = Mode("B")\n)\n',
      },
      spec: { mode: "C" },
      want: ['FieldValueNotSupported spec.mode: supported values: "A", "B", "Extra"'],
    },
  ])("$name", async ({ types, extra, header, spec, want }) => {
    // Prepare
    const set = await loadApi(types, { extra: extra ?? {}, header: header ?? "" });
    // Act
    const v = validate(set, "Thing", spec);
    // Assess
    expect(failureTexts(set.failures).filter((f) => f.startsWith("error"))).toEqual([]);
    expect(brief(v.errors)).toEqual(want);
  });

  it("resolves imports by folder suffix when the bundle has no go.mod", async () => {
    // Prepare
    const { loadBundle } = await import("#lib");
    const set = await loadBundle([
      { path: "api/v1/doc.go", content: "// +groupName=t.example.com\npackage v1\n" },
      {
        path: "api/v1/types.go",
        content: `package v1\n\nimport c "github.com/acme/apis/common/v1"\n\ntype Thing struct {\n\tc.TypeMeta \`json:",inline"\`\n\tSpec c.Short \`json:"spec"\`\n}\n`,
      },
      {
        path: "common/v1/types.go",
        content:
          'package v1\n\ntype TypeMeta struct {\n\tKind string `json:"kind"`\n}\n\n// +k8s:maxLength=2\ntype Short string\n',
      },
    ]);
    // Act
    const v = validate(set, "Thing", "abc");
    // Assess
    expect(brief(v.errors)).toEqual(["FieldValueTooLong spec (maxLength): may not be more than 2 characters"]);
    expect(COMMON_MOD).toContain("example.com/t");
  });

  it.each([
    {
      name: "a field of an outside type without +k8s:opaqueType gets a lint warning",
      field: 'Port ext.Port `json:"port"`',
      warnings: 1,
    },
    {
      name: "+k8s:opaqueType says it is intended",
      field: '// +k8s:opaqueType\n\tPort ext.Port `json:"port"`',
      warnings: 0,
    },
    {
      name: "types of k8s.io/apimachinery are opaque without a warning",
      field: 'Port intstr.IntOrString `json:"port"`',
      warnings: 0,
    },
  ])("$name", async ({ field, warnings }) => {
    // Prepare
    const set = await loadApi(`${kind("Thing", "Spec")}type Spec struct {\n\t${field}\n}\n`, {
      header: 'import (\n\t"example.org/ext"\n\t"k8s.io/apimachinery/pkg/util/intstr"\n)\n',
    });
    // Act
    const v = validate(set, "Thing", { port: { any: ["json"] } });
    // Assess
    expect(v.errors).toEqual([]);
    const texts = failureTexts(set.failures);
    expect(texts.filter((t) => t.includes("outside the bundle"))).toHaveLength(warnings);
  });

  it("covers kinds that embed metav1.TypeMeta from k8s.io/apimachinery", async () => {
    const { loadBundle } = await import("#lib");
    const set = await loadBundle([
      { path: "api/v1/doc.go", content: "// +groupName=t.example.com\npackage v1\n" },
      {
        path: "api/v1/types.go",
        content:
          'package v1\n\nimport metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"\n\ntype Thing struct {\n\tmetav1.TypeMeta `json:",inline"`\n\tmetav1.ObjectMeta `json:"metadata,omitempty"`\n\t// +k8s:optional\n\t// +k8s:minimum=1\n\tSize int32 `json:"size"`\n}\n',
      },
    ]);
    expect(failureTexts(set.failures)).toEqual([]);
    expect(set.kinds.map((k) => `${k.group}/${k.version}/${k.kind}`)).toContain("t.example.com/v1/Thing");
  });
});
