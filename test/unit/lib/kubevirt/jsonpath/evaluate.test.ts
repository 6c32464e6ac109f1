import { describe, expect, it } from "vitest";
import {
  compareValues,
  findResults,
  JsonPathEvalError,
  referenceRoot,
  type Val,
  vmRoot,
} from "../../../../../lib/kubevirt/jsonpath/evaluate.js";
import { parseJsonPath } from "../../../../../lib/kubevirt/jsonpath/parser.js";
import { staticPathProblem } from "../../../../../lib/kubevirt/jsonpath/static-check.js";
import { jsonValue } from "../../../../../lib/kubevirt/values.js";

function vm(domain: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: { name: "vm", labels: { tier: "gold" } },
    spec: {
      template: { metadata: { labels: { tier: "bronze", "vm.kubevirt.io/os": "rhel9" } }, spec: { domain, ...extra } },
    },
  };
}

function show(vals: Val[]): string[] {
  return vals.map((v) => `${v.path?.toString() ?? "<literal>"}=${v.nil ? "<nil>" : JSON.stringify(jsonValue(v))}`);
}

/** The values of `.spec.template<expr>` on `obj`, or client-go's error. */
function run(obj: Record<string, unknown> | "reference", expr: string): string[] | string {
  const template = parseJsonPath(`{.spec.template${expr}}`);
  try {
    return show(findResults(template, obj === "reference" ? referenceRoot() : vmRoot(obj)));
  } catch (e) {
    if (e instanceof JsonPathEvalError) return e.message;
    throw e;
  }
}

const disks = [
  { name: "root", disk: { bus: "virtio" } },
  { name: "cd", cdrom: { bus: "sata" } },
  { name: "data", disk: { bus: "scsi" } },
];

describe("findResults: client-go over the typed VirtualMachine", () => {
  it.each([
    // found fields
    {
      what: "a present value",
      obj: vm({ cpu: { cores: 2 } }),
      expr: ".spec.domain.cpu.cores",
      want: ["spec.template.spec.domain.cpu.cores=2"],
    },
    {
      what: "a field the type defines but the JSON omits: its zero value",
      obj: vm({ cpu: { sockets: 2 } }),
      expr: ".spec.domain.cpu.cores",
      want: ["spec.template.spec.domain.cpu.cores=0"],
    },
    {
      what: "an absent pointer struct is found, as nil",
      obj: vm({}),
      expr: ".spec.domain.cpu",
      want: ["spec.template.spec.domain.cpu=<nil>"],
    },
    {
      what: "a step through a nil pointer: not found",
      obj: vm({}),
      expr: ".spec.domain.cpu.cores",
      want: "cores is not found",
    },
    {
      what: "an absent value struct is its zero value, so its fields are found",
      obj: vm({}),
      expr: ".spec.domain.devices.autoattachPodInterface",
      want: ["spec.template.spec.domain.devices.autoattachPodInterface=false"],
    },
    {
      what: "a field the type does not define",
      obj: vm({ cpu: { cores: 2, foo: 1 } }),
      expr: ".spec.domain.cpu.foo",
      want: "foo is not found",
    },
    {
      what: "a Go field name (FieldByName)",
      obj: vm({ cpu: { cores: 2 } }),
      expr: ".spec.domain.CPU.Cores",
      want: ["spec.template.spec.domain.cpu.cores=2"],
    },
    // maps
    {
      what: "a map key",
      obj: vm({ resources: { requests: { memory: "1Gi" } } }),
      expr: ".spec.domain.resources.requests.memory",
      want: ['spec.template.spec.domain.resources.requests[memory]="1Gi"'],
    },
    {
      what: "a missing map key",
      obj: vm({ resources: { requests: {} } }),
      expr: ".spec.domain.resources.requests.memory",
      want: "memory is not found",
    },
    {
      what: "paths are rooted at spec.template: .metadata is the VMI template's",
      obj: vm({}),
      expr: ".metadata.labels.tier",
      want: ['spec.template.metadata.labels[tier]="bronze"'],
    },
    {
      what: "a quoted key with dots splits at the dots",
      obj: vm({}),
      expr: ".metadata.labels['vm.kubevirt.io/os']",
      want: "vm is not found",
    },
    {
      what: "escaped dots keep the key whole",
      obj: vm({}),
      expr: ".metadata.labels.vm\\.kubevirt\\.io/os",
      want: ['spec.template.metadata.labels[vm.kubevirt.io/os]="rhel9"'],
    },
    // lists
    {
      what: "[*] drops elements whose next step is absent",
      obj: vm({ devices: { disks } }),
      expr: ".spec.domain.devices.disks[*].disk.bus",
      want: [
        'spec.template.spec.domain.devices.disks[0].disk.bus="virtio"',
        'spec.template.spec.domain.devices.disks[2].disk.bus="scsi"',
      ],
    },
    {
      what: "[*] where every element is dropped (disk is found, as a nil pointer; bus is not)",
      obj: vm({ devices: { disks: [{ name: "cd", cdrom: {} }] } }),
      expr: ".spec.domain.devices.disks[*].disk.bus",
      want: "bus is not found",
    },
    {
      what: "[*] over an empty list: no values, no error",
      obj: vm({ devices: { disks: [] } }),
      expr: ".spec.domain.devices.disks[*].disk.bus",
      want: [],
    },
    {
      what: "[*] over an absent list: no values, no error",
      obj: vm({}),
      expr: ".spec.domain.devices.disks[*].disk.bus",
      want: [],
    },
    {
      what: "an index",
      obj: vm({ devices: { disks } }),
      expr: ".spec.domain.devices.disks[2].name",
      want: ['spec.template.spec.domain.devices.disks[2].name="data"'],
    },
    {
      what: "a negative index",
      obj: vm({ devices: { disks } }),
      expr: ".spec.domain.devices.disks[-1].name",
      want: ['spec.template.spec.domain.devices.disks[2].name="data"'],
    },
    {
      what: "an index out of range",
      obj: vm({ devices: { disks } }),
      expr: ".spec.domain.devices.disks[3].name",
      want: "array index out of bounds: index 3, length 3",
    },
    {
      what: "a slice with a step",
      obj: vm({ devices: { disks } }),
      expr: ".spec.domain.devices.disks[0:3:2].name",
      want: [
        'spec.template.spec.domain.devices.disks[0].name="root"',
        'spec.template.spec.domain.devices.disks[2].name="data"',
      ],
    },
    {
      what: "a union",
      obj: vm({ devices: { disks } }),
      expr: ".spec.domain.devices.disks[0,1].name",
      want: [
        'spec.template.spec.domain.devices.disks[0].name="root"',
        'spec.template.spec.domain.devices.disks[1].name="cd"',
      ],
    },
    {
      what: "an index on something that is not a list",
      obj: vm({ cpu: { cores: 2 } }),
      expr: ".spec.domain.cpu[0]",
      want: "v1.CPU is not array or slice",
    },
    // filters
    {
      what: "a filter with ==",
      obj: vm({ devices: { disks } }),
      expr: '.spec.domain.devices.disks[?(@.name=="data")].disk.bus',
      want: ['spec.template.spec.domain.devices.disks[2].disk.bus="scsi"'],
    },
    {
      what: "an exists filter",
      obj: vm({ devices: { disks } }),
      expr: ".spec.domain.devices.disks[?(@.cdrom)].name",
      want: [
        // every Disk has a cdrom field (a nil pointer counts as found)
        'spec.template.spec.domain.devices.disks[0].name="root"',
        'spec.template.spec.domain.devices.disks[1].name="cd"',
        'spec.template.spec.domain.devices.disks[2].name="data"',
      ],
    },
    {
      what: "a filter comparing a string with a number",
      obj: vm({ devices: { disks } }),
      expr: ".spec.domain.devices.disks[?(@.name==1)].name",
      want: "incompatible types for comparison",
    },
    // recursive descent and wildcards
    {
      what: "recursive descent collects disk and CD-ROM buses alike",
      obj: vm({ devices: { disks } }),
      expr: "..bus",
      want: [
        'spec.template.spec.domain.devices.disks[0].disk.bus="virtio"',
        'spec.template.spec.domain.devices.disks[1].cdrom.bus="sata"',
        'spec.template.spec.domain.devices.disks[2].disk.bus="scsi"',
      ],
    },
    {
      what: "a wildcard over a map",
      obj: vm({ resources: { requests: { memory: "1Gi", cpu: "2" } } }),
      expr: ".spec.domain.resources.requests.*",
      want: [
        'spec.template.spec.domain.resources.requests[cpu]="2"',
        'spec.template.spec.domain.resources.requests[memory]="1Gi"',
      ],
    },
    // outside actions
    {
      what: "text between actions is a value of its own; a second action starts at the VM",
      obj: vm({ cpu: { cores: 2 } }),
      expr: ".spec.domain.cpu.cores}x{.spec.running",
      want: ["spec.template.spec.domain.cpu.cores=2", '<literal>="x"', "spec.running=false"],
    },
    {
      what: "an identifier",
      obj: vm({}),
      expr: ".spec range",
      want: "{range} is not supported by tollgate in template validations",
    },
  ])("$what: $expr", ({ obj, expr, want }) => {
    expect(run(obj, expr)).toEqual(want);
  });
});

describe("the reference VM", () => {
  it.each([
    { expr: ".spec.domain.cpu.cores", want: ["spec.template.spec.domain.cpu.cores=0"] },
    { expr: ".spec.domain.memory.guest", want: ["spec.template.spec.domain.memory.guest=0"] },
    { expr: ".spec.domain.machine.type", want: ['spec.template.spec.domain.machine.type=""'] },
    {
      expr: ".spec.domain.devices.disks[3].disk.bus",
      want: ['spec.template.spec.domain.devices.disks[3].disk.bus=""'],
    },
    {
      expr: ".spec.domain.devices.disks[63].cdrom.tray",
      want: ['spec.template.spec.domain.devices.disks[63].cdrom.tray="closed"'],
    },
    { expr: ".spec.domain.devices.disks[64].name", want: "array index out of bounds: index 64, length 64" },
    {
      expr: ".spec.domain.devices.interfaces[0].ports[15].port",
      want: ["spec.template.spec.domain.devices.interfaces[0].ports[15].port=0"],
    },
    { expr: ".spec.domain.resources.requests.memory", want: "memory is not found" },
    { expr: ".spec.hostname", want: ['spec.template.spec.hostname=""'] },
    { expr: ".spec.volumes[0].name", want: "array index out of bounds: index 0, length 0" },
  ])("$expr", ({ expr, want }) => {
    expect(run("reference", expr)).toEqual(want);
  });

  it("has 64 disks", () => {
    expect(run("reference", ".spec.domain.devices.disks[*].disk.bus")).toHaveLength(64);
  });
});

describe("compareValues: text/template comparisons", () => {
  const lit = (json: unknown, literal: "string" | "int" | "float" | "bool"): Val => ({
    type: {
      kind: "scalar",
      scalar:
        literal === "string" ? "string" : literal === "bool" ? "boolean" : literal === "int" ? "integer" : "number",
    },
    nil: false,
    json,
    alloc: false,
    reference: false,
    path: null,
    literal,
  });
  it.each([
    { op: "==", a: lit("a", "string"), b: lit("a", "string"), want: true },
    { op: "!=", a: lit("a", "string"), b: lit("b", "string"), want: true },
    { op: "<", a: lit(1, "int"), b: lit(2, "int"), want: true },
    { op: ">=", a: lit(2, "int"), b: lit(2, "int"), want: true },
    { op: ">", a: lit(2, "int"), b: lit(2, "int"), want: false },
    { op: "<=", a: lit(1.5, "float"), b: lit(2.5, "float"), want: true },
    { op: "==", a: lit(1, "int"), b: lit(1.5, "float"), want: "incompatible types for comparison" },
    { op: "<", a: lit(true, "bool"), b: lit(false, "bool"), want: "invalid type for comparison" },
    { op: "=~", a: lit("a", "string"), b: lit("a", "string"), want: "unrecognized filter operator =~" },
  ])("$op", ({ op, a, b, want }) => {
    expect(compareValues(op, a, b)).toBe(want);
  });
});

describe("staticPathProblem: paths no VirtualMachine has", () => {
  it.each([
    { expr: ".spec.domain.cpu.cores", want: undefined },
    { expr: ".spec.domain.devices.disks[*].disk.bus", want: undefined },
    { expr: ".spec.domain.resources.requests.memory", want: undefined },
    { expr: ".metadata.labels.anything", want: undefined },
    { expr: "..bus", want: undefined },
    { expr: ".spec.devices.disks[*].type", want: "devices is not a field of v1.VirtualMachineInstanceSpec" },
    { expr: ".spec.domain.devices.disks[*].type", want: "type is not a field of v1.Disk" },
    { expr: "spec.domain.cpu.cores", want: "templatespec is not a field of v1.VirtualMachineSpec" },
    { expr: ".spec.domain.cpu[0]", want: "v1.CPU is not a list" },
    // free-form values (RawExtension...) below spec.template may hold any key
    { expr: "..nosuchfield", want: undefined },
    { expr: ".spec range", want: "{range} is not supported in template validations" },
  ])("$expr", ({ expr, want }) => {
    expect(staticPathProblem(parseJsonPath(`{.spec.template${expr}}`))).toEqual(want);
  });
});
