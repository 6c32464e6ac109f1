/**
 * Tag semantics the corpus does not exercise, each from spec/declarative-validation-behaviour.md (upstream
 * master's generated code): update rules without a correlated old value, struct-wide rules, test fixtures,
 * 1.36 spellings, wrappers around groups, and short-circuit details.
 */
import { describe, expect, it } from "vitest";
import { brief, kind, loadApi, validate } from "./go-bundle.js";

const TYPES = `${kind("Thing", "Spec")}
type Spec struct {
	// +k8s:optional
	// +k8s:listType=map
	// +k8s:listMapKey=name
	Items []Item \`json:"items"\`

	// +k8s:optional
	Box *Box \`json:"box"\`

	// +k8s:optional
	// +k8s:dependentForbidden("legacy")
	Modern *string \`json:"modern"\`
	// +k8s:optional
	Legacy *string \`json:"legacy"\`

	// +k8s:optional
	// +k8s:monotonic
	Generation int64 \`json:"generation"\`

	// +k8s:optional
	// +k8s:listType=map
	// +k8s:listMapKey=type
	// +k8s:item(type: "A")=+k8s:unionMember
	// +k8s:item(type: "B")=+k8s:unionMember
	Choice []Typed \`json:"choice"\`

	Mode ModeSpec \`json:"mode"\`

	// +k8s:optional
	// +k8s:ifEnabled(Strict)=+k8s:subfield(name)=+k8s:maxLength=2
	Ref *Ref \`json:"ref"\`

	// +k8s:optional
	// +k8s:beta=+k8s:listType=set
	Tags []string \`json:"tags"\`

	// +k8s:optional
	// +default=0
	// +k8s:minimum=1
	Weight int32 \`json:"weight"\`

	Hidden Hidden \`json:"hidden"\`

	// +k8s:optional
	// +k8s:update=NoAddItem
	Labels map[string]string \`json:"labels"\`

	// +k8s:validateFalse(flags: "NonError,ShortCircuit")="stop"
	// +k8s:maxLength=1
	Quiet string \`json:"quiet"\`

	// +k8s:optional
	Loose *Box \`json:"loose"\`
}

type Item struct {
	// +k8s:required
	Name string \`json:"name"\`
	// +k8s:update=NoModify
	Size int32 \`json:"size"\`
	// +k8s:optional
	// +k8s:update=NoSet
	Note *string \`json:"note"\`
}

type Box struct {
	// +k8s:immutable
	Color string \`json:"color"\`
	// +k8s:immutable
	Lid *string \`json:"lid"\`
}

type Typed struct {
	Type string \`json:"type"\`
}

type ModeSpec struct {
	// +k8s:discriminator
	Kind string \`json:"kind"\`
	// +k8s:optional
	// +k8s:member("Small")=+k8s:maximum=10
	Size int32 \`json:"size"\`
}

type Ref struct {
	// +k8s:optional
	Name string \`json:"name"\`
}

// +k8s:opaqueType
type Hidden struct {
	// +k8s:required
	Secret string \`json:"secret"\`
}
`;

interface SemanticsCase {
  name: string;
  spec: unknown;
  old?: unknown;
  gates?: Record<string, boolean>;
  errors: string[];
  shadowed?: string[];
}

describe("tag semantics beyond the corpus", () => {
  it.each<SemanticsCase>([
    {
      name: "a value-kind update rule is silent in a new list-map item; a pointer NoSet is not",
      spec: {
        items: [
          { name: "a", size: 1 },
          { name: "b", size: 2, note: "n" },
        ],
      },
      old: { items: [{ name: "a", size: 1 }] },
      errors: ["FieldValueInvalid spec.items[1].note (update): field cannot be set once created"],
    },
    {
      name: "NoModify fires for a correlated item whose value changed",
      spec: { items: [{ name: "a", size: 2 }] },
      old: { items: [{ name: "a", size: 1 }] },
      errors: ["FieldValueInvalid spec.items[0].size (update): field cannot be modified once set"],
    },
    {
      name: "immutable in a newly set pointer struct fires for values, not for nil pointers",
      spec: { box: { color: "red" } },
      old: {},
      errors: ["FieldValueInvalid spec.box.color (immutable): field is immutable"],
    },
    {
      name: "update rules never apply on CREATE",
      spec: { items: [{ name: "b", size: 2, note: "n" }], box: { color: "red", lid: "x" } },
      errors: [],
    },
    {
      name: "dependentForbidden",
      spec: { modern: "x", legacy: "y" },
      errors: ["FieldValueForbidden spec.legacy (dependentForbidden): may not be set when modern is set"],
    },
    {
      name: "monotonic: may not decrease on UPDATE",
      spec: { generation: 3 },
      old: { generation: 4 },
      errors: ["FieldValueInvalid spec.generation (monotonic): may not be decreased from 4"],
    },
    {
      name: "a union of list items: none set",
      spec: { choice: [{ type: "C" }] },
      errors: [
        'FieldValueInvalid spec.choice (union): must specify one of: `choice[{"type": "A"}]`, `choice[{"type": "B"}]`',
      ],
    },
    {
      name: "a union of list items: both set",
      spec: { choice: [{ type: "A" }, { type: "B" }] },
      errors: [
        'FieldValueInvalid spec.choice (union): must specify exactly one of: `choice[{"type": "A"}]`, `choice[{"type": "B"}]`',
      ],
    },
    {
      name: "1.36 spelling: +k8s:discriminator / +k8s:member (rule for the mode)",
      spec: { mode: { kind: "Small", size: 11 } },
      errors: ["FieldValueInvalid spec.mode.size (maximum): must be less than or equal to 10"],
    },
    {
      name: "1.36 spelling: a member without a rule for the mode is forbidden",
      spec: { mode: { kind: "Large", size: 11 } },
      errors: ["FieldValueForbidden spec.mode.size: "],
    },
    {
      name: "ifEnabled around a subfield group: off",
      spec: { ref: { name: "long" } },
      errors: [],
    },
    {
      name: "ifEnabled around a subfield group: on",
      spec: { ref: { name: "long" } },
      gates: { Strict: true },
      errors: ["FieldValueTooLong spec.ref.name (maxLength): may not be more than 2 characters"],
    },
    {
      name: "beta=+k8s:listType=set makes the duplicates beta",
      spec: { tags: ["a", "a"] },
      gates: { DeclarativeValidationBeta: false },
      errors: [],
      shadowed: ["FieldValueDuplicate spec.tags[1]: "],
    },
    {
      name: "optional with a zero +default on a value kind does nothing: minimum still runs on 0",
      spec: { weight: 0 },
      errors: ["FieldValueInvalid spec.weight (minimum): must be greater than or equal to 1"],
    },
    {
      name: "opaqueType on a type declaration: its fields are not validated",
      spec: { weight: 1 },
      errors: [],
    },
    {
      name: "NoAddItem on a map: each new key at map[key]",
      spec: { weight: 1, labels: { a: "1", b: "2" } },
      old: { weight: 1, labels: { a: "1" } },
      errors: ["FieldValueForbidden spec.labels[b] (update): item may not be added"],
    },
    {
      name: "a non-error short-circuit stops the field silently",
      spec: { weight: 1, quiet: "long" },
      errors: [],
    },
    {
      name: "a nil pointer to a struct with rules and no requiredness is not descended",
      spec: { weight: 1, loose: null },
      errors: [],
    },
  ])("$name", async ({ spec, old, gates, errors, shadowed }) => {
    // Prepare
    const set = await loadApi(TYPES, { gates: gates ?? {} });
    // Act
    const v = validate(
      set,
      "Thing",
      { weight: 1, ...(spec as object) },
      old === undefined ? undefined : { weight: 1, ...(old as object) },
    );
    // Assess
    expect(set.failures.filter((f) => f.family === "declarative" && f.severity === "error")).toEqual([]);
    expect(brief(v.errors)).toEqual(errors);
    expect(brief(v.shadowed)).toEqual(shadowed ?? []);
  });
});

describe("unions on the root type", () => {
  it("reports at the nil path", async () => {
    const set = await loadApi(
      `type Thing struct {\n\tTypeMeta \`json:",inline"\`\n\t// +k8s:optional\n\t// +k8s:unionMember\n\tA *string \`json:"a"\`\n\t// +k8s:optional\n\t// +k8s:unionMember\n\tB *string \`json:"b"\`\n}\n`,
    );
    const v = set.validate({ operation: "CREATE", object: { apiVersion: "t.example.com/v1", kind: "Thing" } });
    expect(brief(v.errors)).toEqual(["FieldValueInvalid <nil> (union): must specify one of: `a`, `b`"]);
    expect(v.errors[0]?.message).toBe('Invalid value: "": must specify one of: `a`, `b`');
  });
});
