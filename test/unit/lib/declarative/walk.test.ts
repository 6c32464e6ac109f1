/**
 * What declarative validation still reports for the items of a list whose `+k8s:maxItems` fails, as validation-gen's
 * generated code decides it (spec/declarative-validation-behaviour.md sections 1 and 6; code-generator
 * cmd/validation-gen emitCallsToValidators: every short-circuit validator of a list runs, then `return // do not
 * proceed` when one failed, before the other validators, the item/subfield cohorts and the element iteration).
 */
import { describe, expect, it } from "vitest";
import { brief, kind, loadApi, validate } from "./go-bundle.js";

const TYPES = `${kind("Thing", "Spec")}
type Port struct {
	// +k8s:required
	// +k8s:format=k8s-short-name
	Name string \`json:"name"\`
	// +k8s:optional
	// +k8s:maximum=5
	N int32 \`json:"n,omitempty"\`
}

// +k8s:listType=map
// +k8s:listMapKey=name
// +k8s:maxItems=2
type PortList []Port

// +k8s:maxItems=2
// +k8s:eachVal=+k8s:maximum=4
type CountList []int32

// +k8s:maxItems=2
type PortPtrList []*Port

type Plain struct {
	X string \`json:"x"\`
}

type Spec struct {
	// +k8s:optional
	// +k8s:listType=map
	// +k8s:listMapKey=name
	// +k8s:maxItems=2
	// +k8s:item(name: "x")=+k8s:subfield(n)=+k8s:minimum=3
	Ports []Port \`json:"ports,omitempty"\`

	// +k8s:optional
	// +k8s:listType=set
	// +k8s:maxItems=2
	// +k8s:eachVal=+k8s:minimum=1
	Counts []int32 \`json:"counts,omitempty"\`

	// +k8s:optional
	// +k8s:item(name: "x")=+k8s:subfield(n)=+k8s:minimum=3
	NamedPorts PortList \`json:"namedPorts,omitempty"\`

	// +k8s:optional
	// +k8s:eachVal=+k8s:minimum=1
	NamedCounts CountList \`json:"namedCounts,omitempty"\`

	// +k8s:optional
	// +k8s:maxItems=2
	Pointers []*Port \`json:"pointers,omitempty"\`

	// +k8s:optional
	NamedPointers PortPtrList \`json:"namedPointers,omitempty"\`

	Loose []*Plain \`json:"loose,omitempty"\`

	// +k8s:optional
	// +k8s:maxItems=2
	// +k8s:eachVal=+k8s:immutable
	Frozen []int32 \`json:"frozen,omitempty"\`
}
`;

const TOO_MANY = (field: string) => `FieldValueTooMany spec.${field} (maxItems): must have at most 2 items`;
const BAD_ITEMS = [{ name: "x", n: 1 }, { name: "Bad_Name" }, { name: "y", n: 9 }, { name: "y" }];

describe("the items of a list whose maxItems fails", () => {
  it.each([
    {
      name: "maxItems on the field stops the field: its item rules and the items' own rules do not run",
      spec: { ports: BAD_ITEMS },
      update: undefined,
      want: [TOO_MANY("ports")],
    },
    {
      name: "maxItems on the field stops the field: uniqueness and eachVal do not run",
      spec: { counts: [0, 0, 9] },
      update: undefined,
      want: [TOO_MANY("counts")],
    },
    {
      name: "maxItems on a named list type: the field's item rules still run, the items' own rules do not",
      spec: { namedPorts: BAD_ITEMS },
      update: undefined,
      want: [
        TOO_MANY("namedPorts"),
        "FieldValueInvalid spec.namedPorts[0].n (minimum): must be greater than or equal to 3",
      ],
    },
    {
      name: "maxItems on a named list type: the field's eachVal still runs, the type's does not",
      spec: { namedCounts: [0, 9, 3] },
      update: undefined,
      want: [
        TOO_MANY("namedCounts"),
        "FieldValueInvalid spec.namedCounts[0] (minimum): must be greater than or equal to 1",
      ],
    },
    {
      name: "nil entries of a list of pointers: the check is a short-circuit of the same list, so both are reported",
      spec: { pointers: [{ name: "a" }, null, { name: "Bad_Name" }] },
      update: undefined,
      want: [TOO_MANY("pointers"), "FieldValueRequired spec.pointers[1]: "],
    },
    {
      name: "nil entries of a named list of pointers: the field's check stops it before the type's maxItems",
      spec: { namedPointers: [{ name: "a" }, null, { name: "b" }] },
      update: undefined,
      want: ["FieldValueRequired spec.namedPointers[1]: "],
    },
    {
      name: "a named list of pointers without nil entries: the type's maxItems",
      spec: { namedPointers: [{ name: "a" }, { name: "b" }, { name: "Bad_Name" }] },
      update: undefined,
      want: [TOO_MANY("namedPointers")],
    },
    {
      name: "a list of pointers whose field validates nothing has no nil-entry check (validation-gen emits none)",
      spec: { loose: [null, { x: "" }] },
      update: undefined,
      want: [],
    },
    {
      name: "a short-circuit eachVal (immutable) is still reported for the items on UPDATE",
      spec: { frozen: [1, 2, 3] },
      update: { frozen: [1, 5] },
      want: [
        TOO_MANY("frozen"),
        "FieldValueInvalid spec.frozen[0] (immutable): field is immutable",
        "FieldValueInvalid spec.frozen[1] (immutable): field is immutable",
        "FieldValueInvalid spec.frozen[2] (immutable): field is immutable",
      ],
    },
  ])("$name", async ({ spec, update, want }) => {
    // Prepare
    const set = await loadApi(TYPES);
    expect(set.failures.filter((f) => f.family === "declarative")).toEqual([]);
    // Act
    const v = validate(set, "Thing", spec, update);
    // Assess
    expect(brief(v.errors)).toEqual([...want].sort());
  });
});
