/**
 * Bad input never crashes the family and stays bounded in time: malformed annotations, odd JSONPaths, pathological
 * regexes, VMs with values of the wrong types. A seeded generator mixes pieces of each.
 */
import { describe, expect, it } from "vitest";
import { loadBundle, type PolicySet } from "../../../../lib/index.js";
import { seededRandom } from "../../../helpers/random.js";

const PATHS = [
  "jsonpath::.spec.domain.cpu.cores",
  "jsonpath::.spec.domain.memory.guest",
  "jsonpath::.spec.domain.devices.disks[*].disk.bus",
  "jsonpath::.spec.domain.devices.disks[-1:].name",
  "jsonpath::.spec.domain.devices.disks[0:0].name",
  "jsonpath::.spec.domain.devices.disks[::0].name",
  "jsonpath::.spec.domain.devices.disks[9].name",
  'jsonpath::.spec.domain.devices.disks[?(@.name=="a")].disk.bus',
  "jsonpath::.spec.domain.devices.disks[?(@.bootOrder>1)].name",
  "jsonpath::.spec.domain.devices.disks[?(@.disk)].disk.bus",
  "jsonpath::.spec.domain.devices.disks[?(@.name<1)].name",
  "jsonpath::.spec.domain.resources.requests.*",
  "jsonpath::.spec.domain.resources.requests.memory",
  "jsonpath::.metadata.labels.*",
  "jsonpath::.spec.domain.cpu",
  "jsonpath::.spec.domain.cpu.cores}{.spec",
  "jsonpath::.spec.domain.cpu.cores}text",
  "jsonpath::.spec range",
  "jsonpath::.spec end",
  "jsonpath::..bus",
  "jsonpath::.spec.domain..name",
  "jsonpath::$",
  "jsonpath::",
  "jsonpath::[*]",
  "jsonpath::.spec.hostname",
  "jsonpath::.spec.volumes[*].cloudInitNoCloud.userData",
  "jsonpath::.spec.domain.devices.interfaces[*].ports[*].port",
  "jsonpath::.spec.domain.devices.disks[*",
  "jsonpath::{",
  "jsonpath::.a[?(",
  ".spec.domain.cpu.cores",
  "jsonpath::.spec.domain.devices.disks[0,1,2,3].disk.bus",
  "jsonpath::.spec.domain.devices.disks['a.b'].x",
  "jsonpath::.spec.domain.cpu.cores 'lit' 3 1.5 true",
];
const TYPES = ["integer", "string", "regex", "enum", "", "range", "Integer", null, 5];
const ARGS = [1, -1, 0, 2.5, 1e308, "2Gi", "4", true, null, [], {}, ...PATHS.slice(0, 12)];
const REGEXES = [
  "(a*)*b",
  "a{1001}",
  "(?i)^virtio$",
  "[",
  "\\pL+",
  "(?P<n>x)",
  "^(?!a)",
  "",
  `${"(a|b)*".repeat(200)}c`,
];
const GUESTS = ["1Gi", "1.5Gi", "2G", "abc", 3, -1, 1.5, null, {}, [], true, "1e400", "99999999999999999999Ei", ""];
const DISKS = [
  { name: "a", disk: { bus: "virtio" } },
  { name: "b", cdrom: { bus: "sata" } },
  { name: "c", lun: {} },
  { name: 5, disk: "x" },
  null,
  "disk",
  { name: "d", disk: { bus: 7 }, bootOrder: 2 },
];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

/** JSONPaths client-go parses (the others fail the whole annotation). */
const GOOD_PATHS = PATHS.filter((p) => p.startsWith("jsonpath::") && !/\[\*$|\{$|\[\?\($/.test(p));
const GOOD_ARGS = [1, -1, 0, 2.5, 4096, ...GOOD_PATHS.slice(0, 14)];

/** A rule the annotation parser accepts; it may still be unusable (types, names, regexes, paths). */
function wellFormedRule(r: () => number): unknown {
  const rule: Record<string, unknown> = {
    name: pick(r, ["a", "b", "c", "d", ""]),
    rule: pick(r, ["integer", "string", "regex", "enum", "integer", "enum", "range", ""]),
    message: pick(r, ["m", "m", "m", ""]),
    justWarning: r() < 0.3,
  };
  if (r() < 0.95) rule.path = pick(r, GOOD_PATHS);
  if (r() < 0.3) rule.valid = pick(r, GOOD_PATHS);
  for (const k of ["min", "max", "minLength", "maxLength"]) if (r() < 0.4) rule[k] = pick(r, GOOD_ARGS);
  if (r() < 0.5)
    rule.values = Array.from({ length: Math.floor(r() * 3) }, () =>
      pick(r, ["virtio", "4", "2Gi", ...GOOD_PATHS.slice(0, 8)]),
    );
  if (r() < 0.5) rule.regex = pick(r, REGEXES);
  return rule;
}

function randomRule(r: () => number): unknown {
  if (r() < 0.9) return wellFormedRule(r);
  if (r() < 0.2) return pick(r, [null, 1, "x", []]);
  const rule: Record<string, unknown> = {};
  const keys = [
    "name",
    "rule",
    "path",
    "message",
    "valid",
    "justWarning",
    "values",
    "min",
    "max",
    "minLength",
    "maxLength",
    "regex",
  ];
  for (const k of keys) {
    if (r() < 0.35) continue;
    switch (k) {
      case "name":
        rule.Name = pick(r, ["a", "b", "", 5]);
        break;
      case "rule":
        rule.rule = pick(r, TYPES);
        break;
      case "path":
      case "valid":
        rule[k] = pick(r, PATHS);
        break;
      case "message":
        rule.message = pick(r, ["m", "", null]);
        break;
      case "justWarning":
        rule.justWarning = pick(r, [true, false, "true"]);
        break;
      case "values":
        rule.values = Array.from({ length: Math.floor(r() * 3) }, () => pick(r, ["virtio", "4", ...PATHS.slice(0, 6)]));
        break;
      case "regex":
        rule.regex = pick(r, REGEXES);
        break;
      default:
        rule[k] = pick(r, ARGS);
    }
  }
  return rule;
}

function randomAnnotation(r: () => number): string {
  const rules = Array.from({ length: 1 + Math.floor(r() * 6) }, () => randomRule(r));
  const text = JSON.stringify(rules);
  if (r() < 0.1) return text.slice(0, Math.floor(r() * text.length));
  return text;
}

function randomVm(r: () => number, annotation: string): unknown {
  const domain: Record<string, unknown> = {};
  if (r() < 0.7) domain.cpu = pick(r, [{}, { cores: 2 }, { cores: "2" }, { sockets: 0, cores: 0 }, null, 3]);
  if (r() < 0.7) domain.memory = pick(r, [{}, { guest: pick(r, GUESTS) }]);
  if (r() < 0.7) domain.devices = { disks: Array.from({ length: Math.floor(r() * 4) }, () => pick(r, DISKS)) };
  if (r() < 0.3) domain.resources = { requests: { memory: pick(r, GUESTS) } };
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: { name: "vm", annotations: { "vm.kubevirt.io/validations": annotation }, labels: { tier: "x" } },
    spec: {
      template: pick(r, [
        { spec: { domain, hostname: pick(r, ["web", 5, null]), volumes: [{ cloudInitNoCloud: { userData: "pw" } }] } },
        null,
        "x",
        { spec: null },
      ]),
    },
  };
}

describe("bad input", () => {
  let set: PolicySet;

  it("never crashes or hangs on random annotations and VMs", async () => {
    // Prepare
    set = await loadBundle([]);
    const r = seededRandom(20250101);
    let rejected = 0;
    // Act
    for (let i = 0; i < 400; i++) {
      const v = set.validate({ operation: "CREATE", object: randomVm(r, randomAnnotation(r)) });
      // Assess
      const all = [...v.errors, ...v.warnings];
      expect(all.filter((e) => e.type === "InternalError" || e.detail.includes("internal error"))).toEqual([]);
      for (const e of all) expect(e.source.kind).toBe("kubevirt");
      if (!v.allowed) rejected++;
    }
    expect(rejected).toBeGreaterThan(100);
  });

  it.each([
    {
      what: "an annotation over 256 KiB",
      annotation: `[${`{"name": "${"x".repeat(1000)}"},`.repeat(300)}{}]`,
      error: "longer than 262144 bytes",
    },
    {
      what: "a deeply nested annotation",
      annotation: `${"[".repeat(5000)}${"]".repeat(5000)}`,
      error: "nested deeper than 64",
    },
    {
      what: "a regex with a huge repeat",
      annotation: JSON.stringify([{ name: "r", rule: "regex", message: "m", path: PATHS[0], regex: "a{1001}" }]),
      error: "invalid repeat count",
    },
    {
      what: "a JSONPath nested in brackets",
      annotation: JSON.stringify([{ name: "p", rule: "integer", message: "m", path: `jsonpath::${"[".repeat(3000)}` }]),
      error: "unterminated array",
    },
  ])("$what gets a clear error", async ({ annotation, error }) => {
    set ??= await loadBundle([]);
    const v = set.validate({
      operation: "CREATE",
      object: {
        apiVersion: "kubevirt.io/v1",
        kind: "VirtualMachine",
        metadata: { name: "vm", annotations: { "vm.kubevirt.io/validations": annotation } },
        spec: {},
      },
    });
    expect(v.allowed).toBe(false);
    expect(v.errors.map((e) => e.detail).join("\n")).toContain(error);
  });

  it("never copies cloud-init user data into results", async () => {
    set ??= await loadBundle([]);
    const annotation = JSON.stringify([
      {
        name: "u",
        rule: "string",
        message: "too long",
        path: "jsonpath::.spec.volumes[*].cloudInitNoCloud.userData",
        maxLength: 1,
      },
    ]);
    const v = set.validate({
      operation: "CREATE",
      object: {
        apiVersion: "kubevirt.io/v1",
        kind: "VirtualMachine",
        metadata: { name: "vm", annotations: { "vm.kubevirt.io/validations": annotation } },
        spec: { template: { spec: { volumes: [{ name: "c", cloudInitNoCloud: { userData: "password: hunter2" } }] } } },
      },
    });
    expect(v.errors.map((e) => `${e.field}: ${e.message}`)).toEqual([
      'spec.template.spec.volumes[0].cloudInitNoCloud.userData: Invalid value: "<redacted>": too long',
    ]);
    expect(v.errors[0]).not.toHaveProperty("badValue");
  });
});
