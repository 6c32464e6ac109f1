import { describe, expect, it } from "vitest";
import { isParseFailure, parseRules } from "../../../../lib/kubevirt/annotation.js";
import { evaluateRules, withCpuDefaults } from "../../../../lib/kubevirt/rules.js";
import { jsonValue } from "../../../../lib/kubevirt/values.js";

function vm(domain: Record<string, unknown>, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: { name: "vm" },
    spec: { template: { spec: { domain, ...spec } } },
  };
}

/** Each rule's outcome as text: `name: satisfied`, `name: unsatisfied field=value ...`, `name: error <problem>`. */
function outcomes(annotation: unknown[], obj: Record<string, unknown>): string[] {
  const set = parseRules(JSON.stringify(annotation));
  if (isParseFailure(set)) throw new Error(set.error);
  return evaluateRules(set.rules, obj).map(({ rule, outcome }) => {
    switch (outcome.kind) {
      case "unsatisfied":
        return `${rule.name}: unsatisfied ${outcome.failures
          .map((f) => `${f.value.path?.toString()}=${JSON.stringify(jsonValue(f.value))}`)
          .join(" ")}`;
      case "error":
        return `${rule.name}: error ${outcome.problem}`;
      case "ignored":
        return `${rule.name}: ignored`;
      default:
        return `${rule.name}: ${outcome.kind}`;
    }
  });
}

const rule = (name: string, more: Record<string, unknown>) => ({ name, message: `${name} message`, ...more });
const CORES = "jsonpath::.spec.domain.cpu.cores";
const GUEST = "jsonpath::.spec.domain.memory.guest";
const BUS = "jsonpath::.spec.domain.devices.disks[*].disk.bus";

describe("evaluateRules: the validator's per-rule pipeline", () => {
  it.each([
    // CPU defaults
    {
      what: "a cpu block without cores reads cores as 1",
      rules: [rule("c", { rule: "integer", path: CORES, min: 2 })],
      vm: vm({ cpu: { sockets: 2 } }),
      want: ["c: unsatisfied spec.template.spec.domain.cpu.cores=1"],
    },
    {
      what: "without a cpu block cores come from the reference VM: 0",
      rules: [rule("c", { rule: "integer", path: CORES, min: 1 })],
      vm: vm({}),
      want: ["c: unsatisfied spec.template.spec.domain.cpu.cores=0"],
    },
    {
      what: "cores: 0 is defaulted to 1 too",
      rules: [rule("c", { rule: "integer", path: CORES, min: 1, max: 1 })],
      vm: vm({ cpu: { cores: 0 } }),
      want: ["c: satisfied"],
    },
    // valid
    {
      what: "valid on an absent map key skips",
      rules: [
        rule("r", {
          rule: "integer",
          path: "jsonpath::.spec.domain.resources.requests.memory",
          valid: "jsonpath::.spec.domain.resources.requests.memory",
          min: 1,
        }),
      ],
      vm: vm({}),
      want: ["r: skipped"],
    },
    {
      what: "valid on a pointer struct never skips (a nil pointer is a value)",
      rules: [rule("c", { rule: "integer", path: CORES, valid: "jsonpath::.spec.domain.cpu", min: 1 })],
      vm: vm({}),
      want: ["c: unsatisfied spec.template.spec.domain.cpu.cores=0"],
    },
    {
      what: "valid sees the CPU defaults",
      rules: [rule("c", { rule: "integer", path: CORES, valid: CORES, min: 2 })],
      vm: vm({ cpu: { sockets: 1 } }),
      want: ["c: unsatisfied spec.template.spec.domain.cpu.cores=1"],
    },
    // order of the checks
    {
      what: "a duplicate name is an error even when valid would skip it",
      rules: [
        rule("d", { rule: "integer", path: CORES, max: 8 }),
        rule("d", { rule: "integer", path: CORES, valid: "jsonpath::.spec.domain.resources.requests.memory" }),
      ],
      vm: vm({ cpu: { cores: 2 } }),
      want: ["d: satisfied", "d: error duplicate rule name (rule #0 has it too)"],
    },
    {
      what: "an unknown type is ignored, whatever else is wrong",
      rules: [{ name: "u", rule: "range", path: CORES }],
      vm: vm({}),
      want: ["u: ignored"],
    },
    {
      what: "a missing rule type is an error",
      rules: [{ name: "t", message: "m", path: CORES }],
      vm: vm({}),
      want: ['t: error missing required key "rule"'],
    },
    {
      what: "a missing message is an error before valid",
      rules: [{ name: "m", rule: "integer", path: CORES, valid: "jsonpath::.spec.nothing" }],
      vm: vm({}),
      want: ['m: error missing required key "message"'],
    },
    {
      what: "a missing path is an error (the real handler crashes)",
      rules: [rule("p", { rule: "integer", min: 1 })],
      vm: vm({}),
      want: ['p: error missing required key "path"'],
    },
    {
      what: "a missing path is not reached when valid skips",
      rules: [rule("p", { rule: "integer", valid: "jsonpath::.spec.domain.resources.requests.memory" })],
      vm: vm({}),
      want: ["p: skipped"],
    },
    {
      what: "a regex RE2 refuses is an error unless valid skips",
      rules: [
        rule("r1", { rule: "regex", path: BUS, regex: "^(?!sata)" }),
        rule("r2", { rule: "regex", path: BUS, valid: BUS, regex: "^(?!sata)" }),
      ],
      vm: vm({ devices: { disks: [] } }),
      want: [
        'r1: error "regex" "^(?!sata)" does not compile: error parsing regexp: invalid or unsupported Perl syntax: `(?!`',
        "r2: skipped",
      ],
    },
    // values
    {
      what: "no values at the path is an error",
      rules: [rule("b", { rule: "enum", path: BUS, values: ["virtio"] })],
      vm: vm({ devices: { disks: [] } }),
      want: ["b: error no values were found at .spec.domain.devices.disks[*].disk.bus"],
    },
    {
      what: "all CD-ROMs: 64 empty buses from the reference VM",
      rules: [rule("b", { rule: "enum", path: BUS, values: ["virtio"] })],
      vm: vm({ devices: { disks: [{ name: "cd", cdrom: {} }] } }),
      want: [
        expect.stringMatching(
          /^b: unsatisfied (spec\.template\.spec\.domain\.devices\.disks\[\d+\]\.disk\.bus="" ?){64}$/,
        ),
      ],
    },
    {
      what: "an absent map key is an error (invalid JSONPath), also for justWarning rules",
      rules: [
        rule("r", {
          rule: "integer",
          path: "jsonpath::.spec.domain.resources.requests.memory",
          min: 1,
          justWarning: true,
        }),
      ],
      vm: vm({}),
      want: [
        "r: error invalid JSONPath: path .spec.domain.resources.requests.memory cannot be resolved (memory is not found)",
      ],
    },
    {
      what: "a path no VirtualMachine has",
      rules: [rule("x", { rule: "enum", path: "jsonpath::.spec.devices.disks[*].type", values: ["virtio"] })],
      vm: vm({}),
      want: [
        "x: error invalid JSONPath: path .spec.devices.disks[*].type cannot resolve against a VirtualMachine (devices is not a field of v1.VirtualMachineInstanceSpec)",
      ],
    },
    // integer
    {
      what: "quantities are compared exactly: 1.5Gi equals 1536Mi",
      rules: [rule("g", { rule: "integer", path: GUEST, min: 1610612736, max: 1610612736 })],
      vm: vm({ memory: { guest: "1.5Gi" } }),
      want: ["g: satisfied"],
    },
    {
      what: "2G is below 2Gi",
      rules: [rule("g", { rule: "integer", path: GUEST, min: 2147483648 })],
      vm: vm({ memory: { guest: "2G" } }),
      want: ['g: unsatisfied spec.template.spec.domain.memory.guest="2G"'],
    },
    {
      what: "a memory block without guest (the real handler crashes)",
      rules: [rule("g", { rule: "integer", path: GUEST, min: 1 })],
      vm: vm({ memory: {} }),
      want: ["g: error the value of spec.template.spec.domain.memory.guest is not set"],
    },
    {
      what: "an invalid quantity",
      rules: [rule("g", { rule: "integer", path: GUEST, min: 1 })],
      vm: vm({ memory: { guest: "2GB" } }),
      want: [
        expect.stringContaining("g: error the value of spec.template.spec.domain.memory.guest is not a valid quantity"),
      ],
    },
    {
      what: "an integer rule on a string",
      rules: [rule("h", { rule: "integer", path: "jsonpath::.spec.hostname", min: 1 })],
      vm: vm({}, { hostname: "web" }),
      want: [
        "h: error mismatching type: the value of spec.template.spec.hostname is a string, not an integer or a quantity",
      ],
    },
    {
      what: "min above max always fails",
      rules: [rule("c", { rule: "integer", path: CORES, min: 4, max: 2 })],
      vm: vm({ cpu: { cores: 3 } }),
      want: ["c: unsatisfied spec.template.spec.domain.cpu.cores=3"],
    },
    {
      what: "no bounds: satisfied",
      rules: [rule("c", { rule: "integer", path: CORES })],
      vm: vm({ cpu: { cores: 3 } }),
      want: ["c: satisfied"],
    },
    {
      what: "every value of [*] must pass; each failing one is reported",
      rules: [
        rule("p", { rule: "integer", path: "jsonpath::.spec.domain.devices.interfaces[*].ports[*].port", max: 1024 }),
      ],
      vm: vm({
        devices: {
          interfaces: [
            { name: "a", ports: [{ port: 80 }, { port: 8080 }] },
            { name: "b", ports: [{ port: 9090 }] },
          ],
        },
      }),
      want: [
        "p: unsatisfied spec.template.spec.domain.devices.interfaces[0].ports[1].port=8080 spec.template.spec.domain.devices.interfaces[1].ports[0].port=9090",
      ],
    },
    // arguments
    {
      what: "a JSONPath bound",
      rules: [rule("t", { rule: "integer", path: "jsonpath::.spec.domain.cpu.threads", max: CORES })],
      vm: vm({ cpu: { cores: 2, threads: 4 } }),
      want: ["t: unsatisfied spec.template.spec.domain.cpu.threads=4"],
    },
    {
      what: "a JSONPath bound from the reference VM",
      rules: [
        rule("t", {
          rule: "integer",
          path: "jsonpath::.spec.domain.memory.guest",
          max: "jsonpath::.spec.domain.cpu.sockets",
        }),
      ],
      vm: vm({ memory: { guest: "1" } }),
      want: ['t: unsatisfied spec.template.spec.domain.memory.guest="1"'],
    },
    {
      what: "a quantity bound",
      rules: [rule("q", { rule: "integer", path: "jsonpath::.spec.domain.resources.requests.memory", max: GUEST })],
      vm: vm({ memory: { guest: "2Gi" }, resources: { requests: { memory: "2049Mi" } } }),
      want: ['q: unsatisfied spec.template.spec.domain.resources.requests[memory]="2049Mi"'],
    },
    {
      what: "a JSONPath argument with two values",
      rules: [rule("e", { rule: "enum", path: BUS, values: [BUS] })],
      vm: vm({
        devices: {
          disks: [
            { name: "a", disk: { bus: "virtio" } },
            { name: "b", disk: { bus: "virtio" } },
          ],
        },
      }),
      want: [`e: error "values[0]" (${BUS}): expected one value, found 2`],
    },
    {
      what: "a string-valued integer argument",
      rules: [rule("m", { rule: "integer", path: CORES, max: "jsonpath::.spec.domain.machine.type" })],
      vm: vm({ cpu: { cores: 1 }, machine: { type: "q35" } }),
      want: [
        `m: error "max" (jsonpath::.spec.domain.machine.type): mismatching type: the value of spec.template.spec.domain.machine.type is a string, not an integer or a quantity`,
      ],
    },
    // strings
    {
      what: "lengths count characters, not bytes",
      rules: [rule("s", { rule: "string", path: "jsonpath::.spec.hostname", maxLength: 3 })],
      vm: vm({}, { hostname: "wéb" }),
      want: ["s: satisfied"],
    },
    {
      what: "non-strings are rendered as their JSON text",
      rules: [
        rule("e", { rule: "enum", path: CORES, values: ["4"] }),
        rule("r", { rule: "regex", path: CORES, regex: "^[0-9]+$" }),
        rule("s", { rule: "string", path: CORES, minLength: 2 }),
      ],
      vm: vm({ cpu: { cores: 4 } }),
      want: ["e: satisfied", "r: satisfied", "s: unsatisfied spec.template.spec.domain.cpu.cores=4"],
    },
    {
      what: "an enum without values never passes",
      rules: [rule("e", { rule: "enum", path: "jsonpath::.spec.domain.machine.type" })],
      vm: vm({ machine: { type: "q35" } }),
      want: ['e: unsatisfied spec.template.spec.domain.machine.type="q35"'],
    },
    {
      what: "a regex is an unanchored search with Go syntax",
      rules: [rule("r", { rule: "regex", path: BUS, regex: "(?mi)^virtio|scsi$" })],
      vm: vm({
        devices: {
          disks: [
            { name: "a", disk: { bus: "VirtIO-x" } },
            { name: "b", disk: { bus: "megascsi" } },
            { name: "c", disk: { bus: "sata" } },
          ],
        },
      }),
      want: ['r: unsatisfied spec.template.spec.domain.devices.disks[2].disk.bus="sata"'],
    },
  ])("$what", ({ rules, vm: obj, want }) => {
    expect(outcomes(rules, obj)).toEqual(want);
  });

  it("bounds the work of an annotation as a whole", () => {
    // Prepare: every rule walks the whole reference VM (the path fails on the VM itself).
    const many = Array.from({ length: 60 }, (_, i) =>
      rule(`r${i}`, { rule: "string", path: "jsonpath::..nosuch", minLength: 1 }),
    );
    // Act
    const got = outcomes(many, vm({}));
    // Assess
    expect(got.at(-1)).toContain("evaluation budget exhausted");
  });
});

describe("withCpuDefaults", () => {
  it("does not change its input", () => {
    const input = vm({ cpu: { sockets: 2 } });
    const copy = structuredClone(input);
    const out = withCpuDefaults(input);
    expect(input).toEqual(copy);
    expect(out).toEqual(vm({ cpu: { sockets: 2, cores: 1, threads: 1 } }));
  });
});
