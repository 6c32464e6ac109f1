import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { type BundleOptions, type FieldError, loadBundle, type PolicySet } from "../../../../lib/index.js";

const MEMORY_RULE = {
  name: "minimal-required-memory",
  path: "jsonpath::.spec.domain.memory.guest",
  rule: "integer",
  message: "This VM requires more memory.",
  min: 1610612736,
};
const VIRTIO_RULE = {
  name: "virtio",
  path: "jsonpath::.spec.domain.devices.disks[*].disk.bus",
  valid: "jsonpath::.spec.domain.devices.disks[*].disk.bus",
  rule: "enum",
  message: "virtio is faster",
  values: ["virtio"],
  justWarning: true,
};

function template(opts: {
  name?: string;
  namespace?: string;
  templateRules?: unknown;
  vmRules?: unknown;
}): Record<string, unknown> {
  const metadata: Record<string, unknown> = { name: opts.name ?? "t" };
  if (opts.namespace !== undefined) metadata.namespace = opts.namespace;
  if (opts.templateRules !== undefined) {
    metadata.annotations = {
      validations: typeof opts.templateRules === "string" ? opts.templateRules : JSON.stringify(opts.templateRules),
    };
  }
  const vmMeta: Record<string, unknown> = { name: "from-template" };
  if (opts.vmRules !== undefined) vmMeta.annotations = { "vm.kubevirt.io/validations": JSON.stringify(opts.vmRules) };
  return {
    apiVersion: "template.openshift.io/v1",
    kind: "Template",
    metadata,
    objects: [{ apiVersion: "kubevirt.io/v1", kind: "VirtualMachine", metadata: vmMeta, spec: {} }],
  };
}

function vm(opts: {
  guest?: string;
  disks?: unknown[];
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  metadata?: Record<string, unknown>;
}): Record<string, unknown> {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: { name: "vm", namespace: "vms", labels: opts.labels, annotations: opts.annotations, ...opts.metadata },
    spec: {
      template: {
        spec: { domain: { memory: { guest: opts.guest ?? "2Gi" }, devices: { disks: opts.disks ?? [] } } },
      },
    },
  };
}

const LINK = { "vm.kubevirt.io/template": "t", "vm.kubevirt.io/template.namespace": "openshift" };
const OWN = (rules: unknown) => ({ "vm.kubevirt.io/validations": JSON.stringify(rules) });

async function bundle(docs: Record<string, unknown>[], options?: BundleOptions): Promise<PolicySet> {
  return loadBundle(
    docs.map((d, i) => ({ path: `doc${i}.yaml`, content: stringify(d) })),
    options,
  );
}

/** `field: message [severity, policy, rule, evaluationError]`. */
function show(errors: FieldError[]): string[] {
  return errors.map(
    (e) =>
      `${e.field}: ${e.message} [${e.severity} ${e.source.kind} ${e.source.policy} ${e.source.rule ?? "-"}${e.evaluationError ? " eval" : ""}]`,
  );
}

describe("KubeVirt family: VirtualMachines", () => {
  it("rejects a value that breaks a rule with a Kubernetes field error", async () => {
    // Prepare
    const set = await bundle([]);
    // Act
    const v = set.validate({ operation: "CREATE", object: vm({ guest: "1Gi", annotations: OWN([MEMORY_RULE]) }) });
    // Assess
    expect(v.allowed).toBe(false);
    expect(v.covered).toBe(true);
    expect(v.errors).toEqual([
      {
        type: "FieldValueInvalid",
        field: "spec.template.spec.domain.memory.guest",
        detail: "This VM requires more memory.",
        message: 'Invalid value: "1Gi": This VM requires more memory.',
        badValue: "1Gi",
        severity: "error",
        source: { kind: "kubevirt", policy: "vm-annotation", rule: "minimal-required-memory" },
      },
    ]);
  });

  it("returns justWarning failures as warnings, never as causes", async () => {
    const set = await bundle([]);
    const disks = [{ name: "root", disk: { bus: "sata" } }];
    const v = set.validate({
      operation: "CREATE",
      object: vm({ guest: "1Gi", disks, annotations: OWN([MEMORY_RULE, VIRTIO_RULE]) }),
    });
    expect(show(v.errors)).toEqual([
      'spec.template.spec.domain.memory.guest: Invalid value: "1Gi": This VM requires more memory. [error kubevirt vm-annotation minimal-required-memory]',
    ]);
    expect(show(v.warnings)).toEqual([
      'spec.template.spec.domain.devices.disks[0].disk.bus: Invalid value: "sata": virtio is faster [warning kubevirt vm-annotation virtio]',
    ]);
    expect(v.warningTexts).toEqual([
      'spec.template.spec.domain.devices.disks[0].disk.bus: Invalid value: "sata": virtio is faster',
    ]);
  });

  it.each([
    { what: "a VM without rules or link", object: vm({}), allowed: true, errors: [], warnings: [] },
    {
      what: "skip-validations (any value)",
      object: vm({ guest: "1Gi", annotations: { ...OWN([MEMORY_RULE]), "vm.kubevirt.io/skip-validations": "false" } }),
      allowed: true,
      errors: [],
      warnings: [],
    },
    {
      what: "a VM being deleted",
      object: vm({
        guest: "1Gi",
        annotations: OWN([MEMORY_RULE]),
        metadata: { deletionTimestamp: "2025-01-01T00:00:00Z" },
      }),
      allowed: true,
      errors: [],
      warnings: [],
    },
    {
      what: "an own annotation that does not parse",
      object: vm({ annotations: { "vm.kubevirt.io/validations": "[{]" } }),
      allowed: false,
      errors: [
        "metadata.annotations[vm.kubevirt.io/validations]: Invalid value: cannot parse annotation vm.kubevirt.io/validations: not valid JSON: invalid character ']' looking for beginning of object key string [error kubevirt vm-annotation - eval]",
      ],
      warnings: [],
    },
    {
      what: "an unknown rule type",
      object: vm({ annotations: OWN([{ ...MEMORY_RULE, rule: "Integer" }]) }),
      allowed: true,
      errors: [],
      warnings: [
        'metadata.annotations[vm.kubevirt.io/validations]: Invalid value: rule "minimal-required-memory": unknown rule type "Integer": the rule is ignored (known types: integer, string, regex, enum) [warning kubevirt vm-annotation minimal-required-memory eval]',
      ],
    },
    {
      what: "a link to a template the bundle does not hold",
      object: vm({ labels: LINK }),
      allowed: true,
      errors: [],
      warnings: [
        'metadata.labels[vm.kubevirt.io/template]: Invalid value: "t": template openshift/t not found [warning kubevirt openshift/t -]',
      ],
    },
  ])("$what", async ({ object, allowed, errors, warnings }) => {
    const set = await bundle([]);
    const v = set.validate({ operation: "CREATE", object });
    expect({ allowed: v.allowed, errors: show(v.errors), warnings: show(v.warnings) }).toEqual({
      allowed,
      errors,
      warnings,
    });
  });

  it.each([
    {
      what: "DELETE",
      req: { operation: "DELETE" as const, object: vm({ guest: "1Gi", annotations: OWN([MEMORY_RULE]) }) },
    },
    {
      what: "the status subresource",
      req: {
        operation: "UPDATE" as const,
        subresource: "status",
        object: vm({ guest: "1Gi", annotations: OWN([MEMORY_RULE]) }),
        oldObject: vm({}),
      },
    },
  ])("does not evaluate $what, and says nothing checked it", async ({ req }) => {
    const set = await bundle([]);
    const v = set.validate(req);
    expect(v.allowed).toBe(true);
    // Nothing checked the request: reporting it as covered would be a false "valid".
    expect(v.covered).toBe(false);
  });

  it("lists VirtualMachine kinds only when a Template of the bundle has rules; a VM with no rules is not covered", async () => {
    const empty = await bundle([]);
    expect(empty.kinds.filter((k) => k.family === "kubevirt")).toEqual([]);
    const v = empty.validate({ operation: "CREATE", object: vm({}) });
    expect(v).toMatchObject({ allowed: true, covered: false });
  });

  it("covers kubevirt.io/v1 and v1alpha3 VirtualMachines and Templates, nothing else", async () => {
    const set = await bundle([]);
    expect(set.covers("kubevirt.io/v1", "VirtualMachine")).toBe(true);
    expect(set.covers("kubevirt.io/v1alpha3", "VirtualMachine")).toBe(true);
    expect(set.covers("template.openshift.io/v1", "Template")).toBe(true);
    expect(set.covers("kubevirt.io/v1", "VirtualMachineInstance")).toBe(false);
    const off = await bundle([], { families: { kubevirt: false } });
    expect(off.covers("kubevirt.io/v1", "VirtualMachine")).toBe(false);
  });
});

describe("KubeVirt family: rules without a name", () => {
  // The validator keys rules by name, the empty name included (ssp-operator validation/eval.go, uniqueNames): of
  // several rules without a name, the first is evaluated and every later one is the error "duplicate Rule Name".
  // Results name a rule by its name as the annotation gives it, so both carry the empty name.
  const cores = { rule: "integer", path: "jsonpath::.spec.domain.cpu.cores", message: "cores", min: 4 };
  const sockets = { rule: "integer", path: "jsonpath::.spec.domain.cpu.sockets", message: "sockets", min: 1 };

  it("the first is evaluated, later ones are duplicates of it", async () => {
    // Prepare
    const set = await bundle([]);
    const object = vm({ annotations: OWN([cores, sockets, { ...sockets, message: "again" }]) });
    (object.spec as { template: { spec: { domain: Record<string, unknown> } } }).template.spec.domain.cpu = {
      cores: 2,
      sockets: 2,
    };
    // Act
    const v = set.validate({ operation: "CREATE", object });
    // Assess
    expect(v.allowed).toBe(false);
    expect(show(v.errors)).toEqual([
      "spec.template.spec.domain.cpu.cores: Invalid value: 2: cores [error kubevirt vm-annotation ]",
      "metadata.annotations[vm.kubevirt.io/validations]: Invalid value: rule #1: duplicate rule name (rule #0 has it too) [error kubevirt vm-annotation  eval]",
      "metadata.annotations[vm.kubevirt.io/validations]: Invalid value: rule #2: duplicate rule name (rule #0 has it too) [error kubevirt vm-annotation  eval]",
    ]);
    expect(v.errors.map((e) => e.source.rule)).toEqual(["", "", ""]);
  });

  it("a template's nameless duplicates are lint errors whose rule is the empty name", async () => {
    const set = await bundle([template({ templateRules: [cores, sockets] })]);
    expect(set.failures.map((f) => [f.severity, f.rule, f.message])).toEqual([
      ["error", "", "Template openshift/t: rule #1: duplicate rule name (rule #0 has it too)"],
    ]);
  });
});

describe("KubeVirt family: rules from the linked template", () => {
  it.each([
    {
      what: "template-level validations, linked by labels",
      templates: [template({ namespace: "openshift", templateRules: [MEMORY_RULE] })],
      object: vm({ guest: "1Gi", labels: LINK }),
      want: ["spec.template.spec.domain.memory.guest minimal-required-memory openshift/t"],
    },
    {
      what: "the template's VirtualMachine object when there are no template-level validations (improvement 6)",
      templates: [template({ vmRules: [MEMORY_RULE] })],
      object: vm({ guest: "1Gi", labels: LINK }),
      want: ["spec.template.spec.domain.memory.guest minimal-required-memory openshift/t"],
    },
    {
      what: "template-level validations, even none, win over the VirtualMachine object's",
      templates: [template({ templateRules: [], vmRules: [MEMORY_RULE] })],
      object: vm({ guest: "1Gi", labels: LINK }),
      want: [],
    },
    {
      what: "linked by annotations with the old namespace key",
      templates: [template({ namespace: "ns1", templateRules: [MEMORY_RULE] })],
      object: vm({
        guest: "1Gi",
        annotations: { "vm.kubevirt.io/template": "t", "vm.kubevirt.io/template-namespace": "ns1" },
      }),
      want: ["spec.template.spec.domain.memory.guest minimal-required-memory ns1/t"],
    },
    {
      what: "no namespace default: a name alone links nothing",
      templates: [template({ templateRules: [MEMORY_RULE] })],
      object: vm({ guest: "1Gi", labels: { "vm.kubevirt.io/template": "t" } }),
      want: [],
    },
    {
      what: "labels and annotations are never mixed",
      templates: [template({ templateRules: [MEMORY_RULE] })],
      object: vm({
        guest: "1Gi",
        labels: { "vm.kubevirt.io/template": "t" },
        annotations: { "vm.kubevirt.io/template.namespace": "openshift" },
      }),
      want: [],
    },
    {
      what: "the VM's own rules replace the template's",
      templates: [template({ templateRules: [MEMORY_RULE] })],
      object: vm({ guest: "1Gi", labels: LINK, annotations: OWN([]) }),
      want: [],
    },
  ])("$what", async ({ templates, object, want }) => {
    const set = await bundle(templates);
    const v = set.validate({ operation: "CREATE", object });
    expect(v.errors.map((e) => `${e.field} ${e.source.rule} ${e.source.policy}`)).toEqual(want);
  });

  it("substitutes template parameters with a value in the rules of objects[]", async () => {
    const t = template({});
    const param = ["$", "{MIN_MEMORY}"].join("");
    const text = JSON.stringify([{ ...MEMORY_RULE, min: 0 }]).replace('"min":0', `"min":${param}`);
    (t.objects as { metadata: { annotations: Record<string, string> } }[])[0]!.metadata.annotations = {
      "vm.kubevirt.io/validations": text,
    };
    t.parameters = [
      { name: "MIN_MEMORY", value: "1610612736" },
      { name: "NAME", generate: "expression" },
    ];
    const set = await bundle([t]);
    expect(set.failures).toEqual([]);
    const v = set.validate({ operation: "CREATE", object: vm({ guest: "1Gi", labels: LINK }) });
    expect(v.errors.map((e) => e.field)).toEqual(["spec.template.spec.domain.memory.guest"]);
  });

  it.each([
    {
      what: "rules that do not parse, failure policy Fail",
      failurePolicy: "Fail" as const,
      templates: [template({ templateRules: "[1," })],
      want: {
        allowed: false,
        errors: [
          "metadata.labels[vm.kubevirt.io/template]: Invalid value: template openshift/t: cannot parse metadata.annotations[validations]: not valid JSON: unexpected end of JSON input [error kubevirt openshift/t - eval]",
        ],
        warnings: [],
      },
    },
    {
      what: "rules that do not parse, failure policy Ignore",
      failurePolicy: "Ignore" as const,
      templates: [template({ templateRules: "[1," })],
      want: {
        allowed: true,
        errors: [],
        warnings: [
          "metadata.labels[vm.kubevirt.io/template]: Invalid value: template openshift/t: cannot parse metadata.annotations[validations]: not valid JSON: unexpected end of JSON input [warning kubevirt openshift/t - eval]",
        ],
      },
    },
    {
      what: "a rule of the template that cannot be used, failure policy Ignore; the others still apply",
      failurePolicy: "Ignore" as const,
      templates: [template({ templateRules: [MEMORY_RULE, { ...MEMORY_RULE, min: 1 }] })],
      want: {
        allowed: false,
        errors: [
          'spec.template.spec.domain.memory.guest: Invalid value: "1Gi": This VM requires more memory. [error kubevirt openshift/t minimal-required-memory]',
        ],
        warnings: [
          'metadata.labels[vm.kubevirt.io/template]: Invalid value: template openshift/t: rule "minimal-required-memory": duplicate rule name (rule #0 has it too) [warning kubevirt openshift/t minimal-required-memory eval]',
        ],
      },
    },
    {
      what: "a problem of this VM stays an error with Ignore",
      failurePolicy: "Ignore" as const,
      templates: [
        template({
          templateRules: [{ ...MEMORY_RULE, path: "jsonpath::.spec.domain.resources.requests.memory" }],
        }),
      ],
      want: {
        allowed: false,
        errors: [
          'metadata.labels[vm.kubevirt.io/template]: Invalid value: template openshift/t: rule "minimal-required-memory": invalid JSONPath: path .spec.domain.resources.requests.memory cannot be resolved (memory is not found) [error kubevirt openshift/t minimal-required-memory eval]',
        ],
        warnings: [],
      },
    },
    {
      what: "a template defined twice",
      failurePolicy: "Fail" as const,
      templates: [template({ templateRules: [MEMORY_RULE] }), template({ templateRules: [] })],
      want: {
        allowed: false,
        errors: [
          "metadata.labels[vm.kubevirt.io/template]: Invalid value: template openshift/t is defined more than once in the bundle; its rules cannot be used [error kubevirt openshift/t - eval]",
        ],
        warnings: [],
      },
    },
  ])("$what", async ({ failurePolicy, templates, want }) => {
    const set = await bundle(templates, { failurePolicy });
    const v = set.validate({ operation: "CREATE", object: vm({ guest: "1Gi", labels: LINK }) });
    expect({ allowed: v.allowed, errors: show(v.errors), warnings: show(v.warnings) }).toEqual(want);
  });
});

describe("KubeVirt family: template lint", () => {
  const broken = template({
    name: "broken",
    namespace: "vms",
    templateRules: [
      { name: "a", rule: "range", path: "jsonpath::.spec.domain.cpu.cores", message: "m" },
      { name: "b", rule: "enum", path: "jsonpath::.spec.devices.disks[*].type", message: "m", values: ["x"] },
      { name: "c", rule: "regex", path: "jsonpath::.spec.domain.machine.type", message: "m", regex: "(?<=q)35" },
      { name: "c", rule: "integer", path: "jsonpath::.spec.domain.cpu.cores", message: "m", min: 1 },
      {
        name: "d",
        rule: "integer",
        path: "jsonpath::.spec.domain.cpu.cores",
        valid: "jsonpath::.spec.nothing",
        min: 1,
      },
    ],
    vmRules: "not an array",
  });

  it("reports a bundle's template problems as PolicyFailures naming the template", async () => {
    const set = await bundle([broken]);
    expect(
      set.failures.map((f) => `${f.severity} ${f.path} ${f.rule ?? "-"} ${f.kinds?.join(",")}: ${f.message}`),
    ).toEqual([
      'warning metadata.annotations[validations] a template.openshift.io/v1/Template:vms/broken: Template vms/broken: rule "a": unknown rule type "range": the rule is ignored (known types: integer, string, regex, enum)',
      'error metadata.annotations[validations] b template.openshift.io/v1/Template:vms/broken: Template vms/broken: rule "b": "path" .spec.devices.disks[*].type cannot resolve against a VirtualMachine: devices is not a field of v1.VirtualMachineInstanceSpec',
      'error metadata.annotations[validations] c template.openshift.io/v1/Template:vms/broken: Template vms/broken: rule "c": "regex" "(?<=q)35" does not compile: error parsing regexp: invalid named capture: `(?<=q)35`',
      'error metadata.annotations[validations] c template.openshift.io/v1/Template:vms/broken: Template vms/broken: rule "c": duplicate rule name (rule #2 has it too)',
      'error metadata.annotations[validations] d template.openshift.io/v1/Template:vms/broken: Template vms/broken: rule "d": missing required key "message"',
      'warning metadata.annotations[validations] d template.openshift.io/v1/Template:vms/broken: Template vms/broken: rule "d": "valid" .spec.nothing cannot resolve against a VirtualMachine (nothing is not a field of v1.VirtualMachineInstanceSpec): the rule never applies',
      "error objects[0].metadata.annotations[vm.kubevirt.io/validations] - template.openshift.io/v1/Template:vms/broken: Template vms/broken: cannot parse the rules: must be a JSON array of rules, not string",
    ]);
    // The failures name the template, so other VMs are not affected.
    expect(set.validate({ operation: "CREATE", object: vm({}) }).allowed).toBe(true);
  });

  it("reports a validated Template's problems as field errors", async () => {
    const set = await bundle([]);
    const v = set.validate({ operation: "CREATE", object: broken });
    expect(v.allowed).toBe(false);
    expect(show(v.errors)[0]).toBe(
      'metadata.annotations[validations]: Invalid value: rule "b": "path" .spec.devices.disks[*].type cannot resolve against a VirtualMachine: devices is not a field of v1.VirtualMachineInstanceSpec [error kubevirt vms/broken b eval]',
    );
    expect(show(v.warnings)[0]).toBe(
      'metadata.annotations[validations]: Invalid value: rule "a": unknown rule type "range": the rule is ignored (known types: integer, string, regex, enum) [warning kubevirt vms/broken a eval]',
    );
    const clean = set.validate({ operation: "CREATE", object: template({ vmRules: [MEMORY_RULE] }) });
    expect({ allowed: clean.allowed, covered: clean.covered, errors: clean.errors }).toEqual({
      allowed: true,
      covered: true,
      errors: [],
    });
  });

  it("lints VirtualMachines of the bundle and documents of a List", async () => {
    const set = await bundle([
      {
        apiVersion: "v1",
        kind: "List",
        items: [vm({ annotations: OWN([{ ...MEMORY_RULE, message: "" }]) })],
      },
    ]);
    expect(set.failures.map((f) => `${f.severity} ${f.path} ${f.kinds?.join(",")}: ${f.message}`)).toEqual([
      'error items[0].metadata.annotations[vm.kubevirt.io/validations] kubevirt.io/v1/VirtualMachine:vms/vm: VirtualMachine vms/vm: rule "minimal-required-memory": missing required key "message"',
    ]);
  });
});
