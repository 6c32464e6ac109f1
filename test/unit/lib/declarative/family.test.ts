/**
 * The declarative family as loadBundle and PolicySet use it: bundle recognition, bad input as PolicyFailures
 * (file, line, tag), the failure policy for kinds whose types failed, lifecycle and feature gates, subresources,
 * decoding, and the FieldErrors it returns.
 */
import { describe, expect, it } from "vitest";
import { goModulePath } from "../../../../lib/declarative/packages.js";
import { EVERY_KIND } from "../../../../lib/policy/types.js";
import { apiFiles, brief, failureTexts, kind, loadApi, validate } from "./go-bundle.js";

interface BadCase {
  name: string;
  types: string;
  extra?: Record<string, string>;
  failures: string[];
  /** Whether objects of kind Thing are rejected because its policy failed. */
  thingFails: boolean;
}

const OTHER = `type Other struct {\n\tTypeMeta \`json:",inline"\`\n\t// +k8s:required\n\t// +k8s:minimum=1\n\tSize int32 \`json:"size"\`\n}\n`;

describe("bad input becomes PolicyFailures; the rest of the bundle keeps working", () => {
  it.each<BadCase>([
    {
      // A file that does not parse may declare any kind: every object is rejected (failurePolicy Fail), where the
      // package's kinds used to vanish and their objects pass as not covered.
      name: "a syntax error fails the package and every kind, naming file and line",
      types: `type Thing struct {\n\tTypeMeta \`json:",inline"\`\n\tSpec int32 \`json:"spec"\n}\n`,
      failures: [
        'error api/v1/types.go line 9: syntax error near "TypeMeta `json:\\",inline\\"`"',
        "error api/v1/types.go line 9: package api/v1 could not be read: its types are not used",
      ],
      thingFails: true,
    },
    {
      name: "an unknown tag is a warning and a no-op (validation-gen ignores it)",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:noSuchTag=3\n\tN int32 \`json:"n"\`\n}\n`,
      failures: [
        "warning api/v1/types.go line 13: +k8s:noSuchTag=3: unknown tag +k8s:noSuchTag: ignored (validation-gen ignores unknown tags)",
      ],
      thingFails: false,
    },
    {
      name: "an unknown tag as a payload is an error (validation-gen crashes on it)",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:eachVal=+k8s:noSuchTag\n\tL []string \`json:"l"\`\n}\n`,
      failures: ["error api/v1/types.go line 13: +k8s:noSuchTag: unknown tag +k8s:noSuchTag"],
      thingFails: true,
    },
    {
      name: "a tag on the wrong kind of field",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:minimum=1\n\tName string \`json:"name"\`\n\t// +k8s:maxItems=1\n\tN int32 \`json:"n"\`\n}\n`,
      failures: [
        "error api/v1/types.go line 13: +k8s:minimum=1: can only be used on integer types, not string",
        "error api/v1/types.go line 15: +k8s:maxItems=1: can only be used on lists, not int32",
      ],
      thingFails: true,
    },
    {
      name: "malformed tag arguments and values",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:maxLength=abc\n\tA string \`json:"a"\`\n\t// +k8s:neq="open\n\tB string \`json:"b"\`\n\t// +k8s:minimum=300\n\tC int8 \`json:"c"\`\n}\n`,
      failures: [
        "error api/v1/types.go line 13: +k8s:maxLength=abc: needs an integer value",
        "error api/v1/types.go line 15: malformed tag: unterminated string",
        "error api/v1/types.go line 17: +k8s:minimum=300: 300 does not fit the field's type int8",
      ],
      thingFails: true,
    },
    {
      name: "an unsupported format (k8s-ip is documented but not implemented upstream)",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:format=k8s-ip\n\tIP string \`json:"ip"\`\n}\n`,
      failures: ['error api/v1/types.go line 13: +k8s:format=k8s-ip: unsupported validation format "k8s-ip"'],
      thingFails: true,
    },
    {
      name: "a cyclic type definition",
      types: `type A B\ntype B A\n${kind("Thing", "A")}`,
      failures: ["error api/v1/types.go line 8: invalid recursive type A"],
      thingFails: true,
    },
    {
      name: "an undefined type",
      types: kind("Thing", "Missing"),
      failures: ["error api/v1/types.go line 10: field v1.Thing.Spec: undefined type Missing"],
      thingFails: true,
    },
    {
      name: "requiredness on a non-pointer struct field",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:required\n\tInner Inner \`json:"inner"\`\n}\ntype Inner struct {\n\tX int32 \`json:"x"\`\n}\n`,
      failures: [
        "error api/v1/types.go line 13: +k8s:required: cannot be used on a non-pointer struct field (v1.Spec.Inner)",
      ],
      thingFails: true,
    },
    {
      name: "listType=map without a key, and an item(...) naming no key field",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:listType=map\n\tA []Entry \`json:"a"\`\n\t// +k8s:listType=map\n\t// +k8s:listMapKey=name\n\t// +k8s:item(other: "x")=+k8s:immutable\n\tB []Entry \`json:"b"\`\n}\ntype Entry struct {\n\tName string \`json:"name"\`\n}\n`,
      failures: [
        "error api/v1/types.go line 14: list-map semantics need at least one +k8s:listMapKey",
        'error api/v1/types.go line 17: +k8s:item(other: "x")=+k8s:immutable: every key field must be given; name is missing',
        "warning api/v1/types.go line 14: field v1.Spec.A has validations but no +k8s:optional, +k8s:required or +k8s:forbidden (validation-gen lint)",
        "warning api/v1/types.go line 18: field v1.Spec.B has validations but no +k8s:optional, +k8s:required or +k8s:forbidden (validation-gen lint)",
      ],
      thingFails: true,
    },
    {
      name: "+k8s:validateError fails generation",
      types: `${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:validateError="boom"\n\tA string \`json:"a"\`\n}\n`,
      failures: ['error api/v1/types.go line 13: +k8s:validateError="boom": forced error: boom'],
      thingFails: true,
    },
  ])("$name", async ({ types, extra, failures, thingFails }) => {
    // Prepare
    const set = await loadApi(`${types}${OTHER}`, { extra: extra ?? {} });
    // Act
    const thing = validate(set, "Thing", {});
    const other = validate(set, "Other", undefined);
    // Assess
    expect(failureTexts(set.failures)).toEqual(failures);
    const failed = set.failures.filter(
      (f) => f.kinds?.includes("t.example.com/v1/Thing") || f.kinds?.includes(EVERY_KIND),
    );
    expect(failed.length > 0).toBe(thingFails);
    if (thingFails) {
      expect(thing.allowed).toBe(false);
      expect(thing.errors[0]?.type).toBe("InternalError");
    }
    // The other kind of the package still validates, unless a file of the bundle does not parse: then it is
    // rejected with the failure policy, as every kind is.
    const unparsed = failures.some((f) => f.includes("could not be read"));
    expect(other.covered).toBe(true);
    expect(brief(other.errors)).toEqual(
      unparsed
        ? [
            'InternalError kind: the policy for t.example.com/v1/Other may be in api/v1/types.go, which cannot be used: line 9: syntax error near "TypeMeta `json:\\",inline\\"`"',
          ]
        : ["FieldValueRequired size: "],
    );
  });
});

describe("bundle recognition", () => {
  it("reads the module path of a go.mod", () => {
    expect(goModulePath("// comment\nmodule example.com/t // trailing\n\ngo 1.22\n")).toBe("example.com/t");
    expect(goModulePath('module "example.com/quoted"\n')).toBe("example.com/quoted");
    expect(goModulePath("go 1.22\n")).toBeUndefined();
  });

  it("covers kinds: structs that embed TypeMeta in packages with +groupName; libraries are not kinds", async () => {
    const set = await loadApi(
      `${kind("Thing", "int32", "// +genclient:nonNamespaced\n")}type Policy struct {\n\tTypeMeta \`json:",inline"\`\n}\ntype NotAKind struct{}\n`,
      { extra: { "lib/x/x.go": "package x\n\ntype TypeMeta struct{}\n\ntype Lib struct {\n\tTypeMeta\n}\n" } },
    );
    expect(set.kinds.filter((k) => k.family === "declarative").map((k) => [k.kind, k.plural, k.scope])).toEqual([
      ["Thing", "things", "Cluster"],
      ["Policy", "policies", "Namespaced"],
    ]);
    expect(set.covers("t.example.com/v1", "Thing")).toBe(true);
    expect(set.covers("t.example.com/v2", "Thing")).toBe(false);
  });

  it("ignores _test.go files and files of another package in the folder", async () => {
    const set = await loadApi(kind("Thing", "int32"), {
      extra: {
        "api/v1/x_test.go": "package v1_test\n\nthis is not Go",
        "api/v1/tool.go": "package main\n\nfunc main() {}\n",
      },
    });
    expect(failureTexts(set.failures)).toEqual([
      "warning api/v1/tool.go -: declares package main, but the folder's package is v1: ignored",
    ]);
  });
});

describe("lifecycle, options and the verdict", () => {
  const types = `${kind("Thing", "Spec")}type Spec struct {
	// +k8s:optional
	// +k8s:beta=+k8s:maxLength=3
	Beta string \`json:"beta"\`
	// +k8s:optional
	// +k8s:alpha(since: "1.37")=+k8s:maxLength=3
	Alpha string \`json:"alpha"\`
	// +k8s:ifEnabled(Wide)=+k8s:maximum=100
	// +k8s:ifDisabled(Wide)=+k8s:maximum=10
	Size int32 \`json:"size"\`
	// +k8s:ifEnabled(Wide)=+k8s:maxItems=1
	List []string \`json:"list"\`
}
`;
  it.each<{ name: string; gates: Record<string, boolean>; spec: unknown; errors: string[]; shadowed: string[] }>([
    {
      name: "beta is enforced while DeclarativeValidationBeta is on (default); alpha is shadowed",
      gates: {},
      spec: { beta: "long", alpha: "long" },
      errors: ["FieldValueTooLong spec.beta (maxLength): may not be more than 3 characters"],
      shadowed: ["FieldValueTooLong spec.alpha (maxLength): may not be more than 3 characters"],
    },
    {
      name: "beta is shadowed while DeclarativeValidationBeta is off",
      gates: { DeclarativeValidationBeta: false },
      spec: { beta: "long" },
      errors: [],
      shadowed: ["FieldValueTooLong spec.beta (maxLength): may not be more than 3 characters"],
    },
    {
      name: "an option that is not set is off (ifDisabled rules run)",
      gates: {},
      spec: { size: 50 },
      errors: ["FieldValueInvalid spec.size (maximum): must be less than or equal to 10"],
      shadowed: [],
    },
    {
      name: "an option set true in featureGates is on (also around a list validator)",
      gates: { Wide: true },
      spec: { size: 50, list: ["a", "b"] },
      errors: ["FieldValueTooMany spec.list (maxItems): must have at most 1 item"],
      shadowed: [],
    },
  ])("$name", async ({ gates, spec, errors, shadowed }) => {
    const set = await loadApi(types, { gates });
    const v = validate(set, "Thing", spec);
    expect(brief(v.errors)).toEqual(errors);
    expect(brief(v.shadowed)).toEqual(shadowed);
    expect(v.shadowed.every((e) => e.severity === "shadow")).toBe(true);
    expect(v.allowed).toBe(errors.length === 0);
  });

  it("names the policy and the tag, with wrappers, and renders API-server messages", async () => {
    const set = await loadApi(types);
    const [e] = validate(set, "Thing", { beta: "long" }).errors;
    expect(e).toMatchObject({
      type: "FieldValueTooLong",
      field: "spec.beta",
      message: "Too long: may not be more than 3 characters",
      origin: "maxLength",
      source: { kind: "declarative", policy: "t.example.com/v1.Thing", rule: "+k8s:beta=+k8s:maxLength=3" },
    });
  });

  it("renders FieldValueTooShort and FieldValueTooFew as apimachinery does", async () => {
    const set = await loadApi(
      `${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:minLength=3\n\tName string \`json:"name"\`\n\t// +k8s:minItems=2\n\tL []string \`json:"l"\`\n}\n`,
    );
    const v = validate(set, "Thing", { name: "ab", l: ["x"] });
    expect(v.errors.map((e) => [e.type, e.field, e.message, e.badValue])).toEqual([
      ["FieldValueTooShort", "spec.name", "Too short: must be at least 3 characters", undefined],
      ["FieldValueTooFew", "spec.l", "Too few: 1: must have at least 2 items", 1],
    ]);
  });

  it("rejects what json.Unmarshal would, before validating", async () => {
    const set = await loadApi(
      `${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:minimum=1\n\tN int32 \`json:"n"\`\n\tS []string \`json:"s"\`\n\tB *bool \`json:"b"\`\n}\n`,
    );
    const v = validate(set, "Thing", { n: 2 ** 40, s: ["a", 3], b: "yes", unknown: { any: 1 } });
    expect(brief(v.errors)).toEqual([
      "FieldValueTypeInvalid spec.b: must be of type bool",
      "FieldValueTypeInvalid spec.n: must be of type integer (int32)",
      "FieldValueTypeInvalid spec.s[1]: must be of type string",
    ]);
  });

  it("does nothing on DELETE", async () => {
    const set = await loadApi(
      `${kind("Thing", "Spec")}type Spec struct {\n\t// +k8s:required\n\tN int32 \`json:"n"\`\n}\n`,
    );
    const v = validate(set, "Thing", {}, {}, { operation: "DELETE" });
    expect(v).toMatchObject({ allowed: true, covered: true, errors: [] });
  });
});

describe("subresources (+k8s:supportsSubresource, +k8s:isSubresource)", () => {
  const types = `${kind("Thing", "Spec", '// +k8s:supportsSubresource="/status"\n')}
// +k8s:isSubresource="/scale"

// ThingScale is the scale subresource: the tag above is in the comment block before the doc comment.
type ThingScale struct {
	TypeMeta \`json:",inline"\`
	// +k8s:maximum=5
	Replicas int32 \`json:"replicas"\`
}
type Spec struct {
	// +k8s:maximum=5
	N int32 \`json:"n"\`
}
`;
  it.each([
    { kind: "Thing", sub: undefined, errors: ["FieldValueInvalid spec.n (maximum): must be less than or equal to 5"] },
    { kind: "Thing", sub: "status", errors: ["FieldValueInvalid spec.n (maximum): must be less than or equal to 5"] },
    {
      kind: "Thing",
      sub: "/scale",
      errors: ["InternalError <nil>: no validation found for *v1.Thing, subresource: /scale"],
    },
    {
      kind: "ThingScale",
      sub: undefined,
      errors: ["InternalError <nil>: no validation found for *v1.ThingScale, subresource: /"],
    },
  ])("$kind $sub", async ({ kind: k, sub, errors }) => {
    const set = await loadApi(types);
    const extra = sub === undefined ? {} : { subresource: sub };
    expect(brief(validate(set, k, { n: 6 }, { n: 1 }, extra).errors)).toEqual(errors);
  });
});

describe("a bundle folder (test/fixtures/declarative/bundle: go.mod, doc.go, types.go)", () => {
  const root = new URL("../../../fixtures/declarative/", import.meta.url).pathname;
  it.each([
    { file: "robot-valid.yaml", errors: [], shadowed: [] },
    {
      file: "robot-invalid.yaml",
      errors: [
        "FieldValueInvalid spec.model (format=k8s-short-name): a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        'FieldValueNotSupported spec.mode: supported values: "Auto", "Manual"',
        "FieldValueRequired spec.arms: ",
      ],
      shadowed: ["FieldValueTooLong spec.nickname (maxLength): may not be more than 8 characters"],
    },
    {
      file: "robot-beta-tools.yaml",
      errors: ["FieldValueTooMany spec.tools (maxItems): must have at most 2 items"],
      shadowed: [],
    },
  ])("$file", async ({ file, errors, shadowed }) => {
    // Prepare
    const { loadBundle, parseDocuments } = await import("#lib");
    const { readFileSync } = await import("node:fs");
    const set = await loadBundle(`${root}bundle`);
    const [doc] = parseDocuments(readFileSync(`${root}objects/${file}`, "utf8"));
    // Act
    const v = set.validate({ operation: "CREATE", object: doc?.object });
    // Assess
    expect(failureTexts(set.failures)).toEqual([]);
    expect(brief(v.errors)).toEqual(errors);
    expect(brief(v.shadowed)).toEqual(shadowed);
  });
});

describe("package-level +k8s:supportsSubresource (doc.go)", () => {
  it("applies to every kind of the package", async () => {
    const { loadBundle } = await import("#lib");
    const files = apiFiles(kind("Thing", "int32"));
    files[1] = {
      path: "api/v1/doc.go",
      content: '// +k8s:supportsSubresource="/status"\n// +groupName=t.example.com\npackage v1\n',
    };
    const set = await loadBundle(files);
    expect(validate(set, "Thing", 1, 1, { subresource: "status" }).errors).toEqual([]);
    expect(brief(validate(set, "Thing", 1, 1, { subresource: "scale" }).errors)).toEqual([
      "InternalError <nil>: no validation found for *v1.Thing, subresource: /scale",
    ]);
  });
});
