import { describe, expect, it } from "vitest";
import { loadBundle, type PolicySet } from "../../../../lib/index.js";
import { widget, widgetBundle } from "../../../helpers/widget-crd.js";

function causes(set: PolicySet, spec: Record<string, unknown>, oldSpec?: Record<string, unknown>) {
  const v = set.validate(
    oldSpec === undefined
      ? { operation: "CREATE", object: widget(spec) }
      : { operation: "UPDATE", object: widget(spec), oldObject: widget(oldSpec) },
  );
  return { errors: v.errors.map((e) => `${e.type} ${e.field}: ${e.message}`), warnings: v.warningTexts };
}

const props = {
  replicas: { type: "integer" },
  min: { type: "integer" },
  name: { type: "string", maxLength: 64 },
  tags: { type: "array", items: { type: "string", maxLength: 16 }, maxItems: 8 },
  "app-name": { type: "string", maxLength: 16 },
  port: { "x-kubernetes-int-or-string": true },
  size: { type: "string", maxLength: 32 },
  addr: { type: "string", maxLength: 64 },
  inner: { type: "object", properties: { a: { type: "integer" } } },
};

describe("CEL rules on a CRD", () => {
  it.each([
    {
      name: "a failing rule uses its message and omits the value of an object",
      rules: [{ rule: "self.replicas >= self.min", message: "replicas below min" }],
      spec: { replicas: 1, min: 2 },
      want: ["FieldValueInvalid spec: Invalid value: replicas below min"],
    },
    {
      name: "without a message the rule text is shown",
      rules: [{ rule: "self.replicas >= self.min" }],
      spec: { replicas: 1, min: 2 },
      want: ["FieldValueInvalid spec: Invalid value: failed rule: self.replicas >= self.min"],
    },
    {
      name: "messageExpression is used when it yields a one-line string",
      rules: [
        { rule: "self.replicas >= self.min", message: "static", messageExpression: "'need %d'.format([self.min])" },
      ],
      spec: { replicas: 1, min: 2 },
      want: ["FieldValueInvalid spec: Invalid value: need 2"],
    },
    {
      name: "messageExpression falls back to the message when it is blank",
      rules: [{ rule: "self.replicas >= self.min", message: "static", messageExpression: "'  '" }],
      spec: { replicas: 1, min: 2 },
      want: ["FieldValueInvalid spec: Invalid value: static"],
    },
    {
      name: "reason and fieldPath pick the cause type and field",
      rules: [
        { rule: "has(self.name)", message: "name is required", reason: "FieldValueRequired", fieldPath: ".name" },
      ],
      spec: { replicas: 1 },
      want: ["FieldValueRequired spec.name: Required value: name is required"],
    },
    {
      name: "a runtime error names the schema type and the rule",
      rules: [{ rule: "self.name == 'x'", message: "name must be x" }],
      spec: { replicas: 1 },
      want: ['FieldValueInvalid spec: Invalid value: "object": no such key: name evaluating rule: name must be x'],
    },
    {
      name: "escaped property names",
      rules: [{ rule: "self.app__dash__name.startsWith('a')", message: "app-name must start with a" }],
      spec: { "app-name": "bad" },
      want: ["FieldValueInvalid spec: Invalid value: app-name must start with a"],
    },
    {
      name: "has() on an indexed operand",
      rules: [{ rule: "!has(self.tags) || size(self.tags) == 0 || self.tags[0] != ''", message: "first tag empty" }],
      spec: { tags: [""] },
      want: ["FieldValueInvalid spec: Invalid value: first tag empty"],
    },
    {
      name: "matches runs on RE2 (no catastrophic backtracking)",
      rules: [{ rule: "!self.name.matches('^(a+)+$')", message: "no" }],
      spec: { name: `${"a".repeat(40)}b` },
      want: [],
    },
    {
      name: "int-or-string is dyn: a type mismatch is 'no such overload'",
      rules: [{ rule: "self.port > 0", message: "port must be positive" }],
      spec: { port: "http" },
      want: [
        "FieldValueInvalid spec: Invalid value: \"object\": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: port must be positive",
      ],
    },
    {
      name: "the left error wins when both sides of || fail",
      rules: [{ rule: "self.name == 'a' || self.size == 'b'", message: "m" }],
      spec: { replicas: 1 },
      want: ['FieldValueInvalid spec: Invalid value: "object": no such key: name evaluating rule: m'],
    },
    {
      name: "two-variable comprehension over a list (index and value)",
      rules: [{ rule: "self.tags.all(i, t, i == 0 || t != self.tags[0])", message: "tags must not repeat the first" }],
      spec: { tags: ["a", "b", "a"] },
      want: ["FieldValueInvalid spec: Invalid value: tags must not repeat the first"],
    },
    {
      name: "quantity library",
      rules: [{ rule: "quantity(self.size).isLessThan(quantity('1Gi'))", message: "too big" }],
      spec: { size: "1.5Gi" },
      want: ["FieldValueInvalid spec: Invalid value: too big"],
    },
    {
      name: "ip library",
      rules: [{ rule: "isIP(self.addr) && ip(self.addr).family() == 6", message: "must be an IPv6 address" }],
      spec: { addr: "10.0.0.1" },
      want: ["FieldValueInvalid spec: Invalid value: must be an IPv6 address"],
    },
    {
      name: "optional.ofNonZeroValue of an object with a field set has a value",
      rules: [{ rule: "!optional.ofNonZeroValue(self.inner).hasValue()", message: "inner must be empty" }],
      spec: { inner: { a: 1 } },
      want: ["FieldValueInvalid spec: Invalid value: inner must be empty"],
    },
    {
      name: "optional.ofNonZeroValue of an empty object is none",
      rules: [{ rule: "optional.ofNonZeroValue(self.inner).hasValue()", message: "inner must not be empty" }],
      spec: { inner: {} },
      want: ["FieldValueInvalid spec: Invalid value: inner must not be empty"],
    },
  ])("$name", async ({ rules, spec, want }) => {
    // Prepare
    const set = await widgetBundle(props, rules);
    expect(set.failures.filter((f) => f.severity === "error")).toEqual([]);
    // Act
    const got = causes(set, spec);
    // Assess
    expect(got.errors).toEqual(want);
  });

  it("evaluates transition rules only on UPDATE with an old value", async () => {
    const set = await widgetBundle(props, [
      { rule: "self.replicas >= oldSelf.replicas", message: "may not scale down" },
    ]);
    expect(causes(set, { replicas: 1 }).errors).toEqual([]);
    expect(causes(set, { replicas: 1 }, { replicas: 2 }).errors).toEqual([
      "FieldValueInvalid spec: Invalid value: may not scale down",
    ]);
  });

  it("binds oldSelf as an optional with optionalOldSelf", async () => {
    const set = await widgetBundle(props, [
      {
        rule: "!oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas",
        message: "may not scale down",
        optionalOldSelf: true,
      },
      {
        rule: "oldSelf.hasValue() || self.replicas == 1",
        message: "must start with one replica",
        optionalOldSelf: true,
      },
    ]);
    expect(causes(set, { replicas: 3 }).errors).toEqual([
      "FieldValueInvalid spec: Invalid value: must start with one replica",
    ]);
    expect(causes(set, { replicas: 1 }, { replicas: 2 }).errors).toEqual([
      "FieldValueInvalid spec: Invalid value: may not scale down",
    ]);
  });

  it("ratchets a failing rule on an unchanged value into a warning", async () => {
    const set = await widgetBundle(
      {
        spec: {
          type: "object",
          properties: {
            inner: {
              type: "object",
              properties: props,
              "x-kubernetes-validations": [{ rule: "self.replicas < 10", message: "too many" }],
            },
            other: { type: "string" },
          },
        },
      },
      [],
    );
    const old = { spec: { inner: { replicas: 20 }, other: "a" } };
    const v = set.validate({
      operation: "UPDATE",
      object: widget({ spec: { inner: { replicas: 20 }, other: "b" } }),
      oldObject: widget(old),
    });
    expect(v.allowed).toBe(true);
    expect(v.warningTexts).toEqual(["spec.spec.inner: Invalid value: too many"]);
    const changed = set.validate({
      operation: "UPDATE",
      object: widget({ spec: { inner: { replicas: 21 }, other: "a" } }),
      oldObject: widget(old),
    });
    expect(changed.errors.map((e) => e.message)).toEqual(["Invalid value: too many"]);
  });

  it("stops at the per-call cost limit with Kubernetes' message", async () => {
    const set = await widgetBundle({ items: { type: "array", maxItems: 1100, items: { type: "integer" } } }, [
      { rule: "self.items.all(a, self.items.all(b, a + b >= -1))", message: "pairs" },
    ]);
    const items = Array.from({ length: 600 }, (_, i) => i);
    const got = causes(set, { items }).errors;
    expect(got).toEqual([
      "FieldValueInvalid spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: pairs",
    ]);
  });

  it("compares set and map lists by Kubernetes list-type semantics", async () => {
    const set = await widgetBundle(
      {
        tags: { type: "array", items: { type: "string", maxLength: 8 }, maxItems: 8, "x-kubernetes-list-type": "set" },
        ports: {
          type: "array",
          maxItems: 8,
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: {
            type: "object",
            required: ["name"],
            properties: { name: { type: "string", maxLength: 8 }, port: { type: "integer" } },
          },
        },
      },
      [
        { rule: "self.tags == oldSelf.tags", message: "tags are immutable" },
        { rule: "self.ports == oldSelf.ports", message: "ports are immutable" },
        { rule: "self.tags == ['b', 'a']", message: "set equality ignores order" },
        { rule: "!(['b', 'a'] == self.tags)", message: "a literal on the left compares in order" },
        { rule: "self.tags + ['c', 'a'] == ['a', 'b', 'c']", message: "set union keeps the left order" },
      ],
    );
    const spec = {
      tags: ["a", "b"],
      ports: [
        { name: "http", port: 80 },
        { name: "dns", port: 53 },
      ],
    };
    const old = {
      tags: ["b", "a"],
      ports: [
        { name: "dns", port: 53 },
        { name: "http", port: 80 },
      ],
    };
    expect(causes(set, spec, old).errors).toEqual([]);
    const changed = {
      tags: ["a", "b"],
      ports: [
        { name: "http", port: 8080 },
        { name: "dns", port: 53 },
      ],
    };
    expect(causes(set, changed, old).errors).toEqual(["FieldValueInvalid spec: Invalid value: ports are immutable"]);
  });

  it("rejects a rule whose estimated cost exceeds the budget, with Kubernetes' message", async () => {
    const rule = { rule: "self.items.all(a, self.items.all(b, a + b >= -1))", message: "pairs" };
    const expensive = await widgetBundle({ items: { type: "array", maxItems: 1200, items: { type: "integer" } } }, [
      rule,
    ]);
    expect(expensive.failures.map((f) => `${f.path}: ${f.message}`)).toEqual([
      "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 1.008720x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
    ]);
    const affordable = await widgetBundle({ items: { type: "array", maxItems: 1100, items: { type: "integer" } } }, [
      rule,
    ]);
    expect(affordable.failures).toEqual([]);
  });

  it("converts date-time and duration fields as the API server does (nanoseconds, strfmt durations)", async () => {
    const set = await widgetBundle(
      {
        start: { type: "string", format: "date-time" },
        end: { type: "string", format: "date-time" },
        grace: { type: "string", format: "duration" },
      },
      [
        { rule: "self.end > self.start", message: "end before start" },
        { rule: "self.grace == duration('72h')", message: "grace is not three days" },
        { rule: "string(self.start).endsWith('+01:00')", message: "start lost its zone" },
      ],
    );
    expect(set.failures).toEqual([]);
    const spec = {
      start: "2020-01-01T00:00:00.000001+01:00",
      end: "2020-01-01T00:00:00.000002+01:00",
      grace: "3 days",
    };
    expect(causes(set, spec).errors).toEqual([]);
    expect(causes(set, { ...spec, end: spec.start, grace: "3d 1h" }).errors).toEqual([
      "FieldValueInvalid spec: Invalid value: end before start",
      "FieldValueInvalid spec: Invalid value: grace is not three days",
    ]);
  });

  it("takes optional entries of list and map literals ([?x], {?k: v}), as cel-go with Kubernetes' optional types", async () => {
    const set = await widgetBundle(props, [
      { rule: "[?self.?name, ?self.?size].size() <= 1", message: "name or size, not both" },
      { rule: "{?'n': self.?name}.all(k, self.replicas > 0)", message: "replicas needed with a name" },
    ]);
    expect(causes(set, { name: "a", replicas: 1 }).errors).toEqual([]);
    expect(causes(set, { replicas: 0 }).errors).toEqual([]);
    expect(causes(set, { name: "a", size: "b", replicas: 0 }).errors).toEqual([
      "FieldValueInvalid spec: Invalid value: name or size, not both",
      "FieldValueInvalid spec: Invalid value: replicas needed with a name",
    ]);
    const refused = await widgetBundle(props, [{ rule: "[?self.name].size() == 1" }]);
    expect(refused.failures.map((f) => f.message.replace(/^.*compilation failed: /s, ""))).toEqual([
      "ERROR: <input>:1:7: expected type 'optional_type(string)' but found 'string'\n | [?self.name].size() == 1\n | ......^",
    ]);
  });

  it("words runtime errors as cel-go does", async () => {
    const set = await widgetBundle(props, [{ rule: "int(self.name) > 0", message: "name must be a number" }]);
    expect(causes(set, { name: "abc" }).errors).toEqual([
      `FieldValueInvalid spec: Invalid value: "object": type conversion error from 'string' to 'int' evaluating rule: name must be a number`,
    ]);
  });

  it("reports rules that do not compile as policy failures", async () => {
    const set = await widgetBundle(props, [{ rule: "self.nope > 1" }, { rule: "self.replicas" }, { rule: "1 +" }]);
    const messages = set.failures.filter((f) => f.severity === "error").map((f) => f.message);
    expect(messages).toHaveLength(3);
    expect(messages[0]).toContain("undefined field 'nope'");
    expect(messages[1]).toContain("cel expression must evaluate to a bool");
    expect(messages[2]).toContain("compilation failed");
    expect(set.failures[0]?.path).toBe(
      "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
    );
  });
});

describe("compile-time checks as kube-apiserver 1.36 makes them at CRD creation", () => {
  const errors = (set: PolicySet) =>
    set.failures.filter((f) => f.severity === "error").map((f) => `${f.path}: ${f.message}`);
  const at = "spec.validation.openAPIV3Schema.properties[spec]";

  it("prints compile errors as cel-go does: position, caret, and the checker's overload wording", async () => {
    const set = await widgetBundle(props, [
      { rule: "self.name > 1" },
      { rule: "self.nope == 1" },
      { rule: "!self.replicas" },
    ]);
    expect(errors(set)).toEqual([
      `${at}.x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.name > 1","Message":"","MessageExpression":"","FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:11: found no matching overload for '_>_' applied to '(string, int)'\n | self.name > 1\n | ..........^`,
      `${at}.x-kubernetes-validations[1].rule: Invalid value: {"Rule":"self.nope == 1","Message":"","MessageExpression":"","FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^`,
      `${at}.x-kubernetes-validations[2].rule: Invalid value: {"Rule":"!self.replicas","Message":"","MessageExpression":"","FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:1: found no matching overload for '!_' applied to '(int)'\n | !self.replicas\n | ^`,
    ]);
  });

  it("prints every compile error of a rule, one after the other as cel-go's Issues.String() joins them", async () => {
    const rule = "self.name > 1 && self.nope == 1";
    const set = await widgetBundle(props, [{ rule }]);
    expect(errors(set)).toEqual([
      `${at}.x-kubernetes-validations[0].rule: Invalid value: {"Rule":"${rule}","Message":"","MessageExpression":"","FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:11: found no matching overload for '_>_' applied to '(string, int)'\n | ${rule}\n | ..........^\nERROR: <input>:1:22: undefined field 'nope'\n | ${rule}\n | .....................^`,
    ]);
  });

  it("reports has() of undeclared fields with the rule's other compile errors, as cel-go's checker does", async () => {
    const rule = "has(self.nope) && self.name > 1 && has(self.gone)";
    const set = await widgetBundle(props, [{ rule }]);
    expect(errors(set).map((e) => e.replace(/^.*compilation failed: /s, ""))).toEqual([
      [
        `ERROR: <input>:1:9: undefined field 'nope'\n | ${rule}\n | ........^`,
        `ERROR: <input>:1:29: found no matching overload for '_>_' applied to '(string, int)'\n | ${rule}\n | ............................^`,
        `ERROR: <input>:1:44: undefined field 'gone'\n | ${rule}\n | ...........................................^`,
      ].join("\n"),
    ]);
  });

  it("words calls without a matching overload and literals of mixed types as cel-go's checker", async () => {
    const set = await widgetBundle(props, [
      { rule: "self.name.startsWith(1)" },
      { rule: "[1, 'a'].size() == 2" },
      { rule: "self.name.all(c, c == 'a')" },
    ]);
    const [first, second, third] = errors(set);
    expect(third).toContain(
      "ERROR: <input>:1:5: expression of type 'string' cannot be range of a comprehension (must be list, map, or dynamic)",
    );
    expect(first).toContain(
      "ERROR: <input>:1:21: found no matching overload for 'startsWith' applied to 'string.(int)'",
    );
    expect(second).toContain("ERROR: <input>:1:5: expected type 'int' but found 'string'");
  });

  it("refuses what the API server's environment does not declare", async () => {
    const set = await widgetBundle(
      {
        ...props,
        free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        untyped: { "x-kubernetes-preserve-unknown-fields": true },
        tags: { type: "array", maxItems: 4, items: { type: "string", maxLength: 8 } },
      },
      [
        { rule: "self.free.anything == 1" },
        { rule: "has(self.untyped)" },
        { rule: "self.tags.includes('a')" },
        { rule: "oldSelf.hasValue()" },
      ],
    );
    const got = errors(set);
    expect(got).toHaveLength(4);
    expect(got[0]).toContain("ERROR: <input>:1:10: undefined field 'anything'");
    // cel-go's checker refuses a presence test on a field the object type lacks; the engine's has() does not check
    expect(got[1]).toContain("ERROR: <input>:1:9: undefined field 'untyped'");
    // lists v1's includes() arrives with compatibility version 1.37; a 1.36 server compiles new rules at 1.35
    expect(got[2]).toContain("ERROR: <input>:1:19: undeclared reference to 'includes' (in container '')");
    // without optionalOldSelf, oldSelf has the type of self, not optional
    expect(got[3]).toContain("found no matching overload for 'hasValue' applied to");
  });

  it("refuses indexing a map with a key of another type, and words index errors as cel-go's checker", async () => {
    const set = await widgetBundle(
      {
        ...props,
        labels: { type: "object", maxProperties: 4, additionalProperties: { type: "string", maxLength: 8 } },
        tags: { type: "array", maxItems: 4, items: { type: "string", maxLength: 8 } },
      },
      [{ rule: "self.labels[1] == 'a'" }, { rule: "self.tags['x'] == 'a'" }, { rule: "self.labels['a'] == 'b'" }],
    );
    expect(errors(set).map((e) => e.replace(/^.*compilation failed: /s, ""))).toEqual([
      "ERROR: <input>:1:12: found no matching overload for '_[_]' applied to '(map(string, string), int)'\n | self.labels[1] == 'a'\n | ...........^",
      "ERROR: <input>:1:10: found no matching overload for '_[_]' applied to '(list(string), string)'\n | self.tags['x'] == 'a'\n | .........^",
    ]);
  });

  it("shows only apiVersion, kind, metadata.name and metadata.generateName at the resource root", async () => {
    const crd = (rule: string) => ({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "roots.demo.tollgate.dev" },
      spec: {
        group: "demo.tollgate.dev",
        scope: "Namespaced",
        names: { kind: "Root", plural: "roots" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: "object", "x-kubernetes-validations": [{ rule }] } },
          },
        ],
      },
    });
    const load = async (rule: string) =>
      errors(await loadBundle([{ path: "c.json", content: JSON.stringify(crd(rule)) }]));
    expect(
      await load("self.metadata.name != '' && self.metadata.generateName == '' && self.kind != self.apiVersion"),
    ).toEqual([]);
    expect((await load("self.metadata.namespace == 'x'"))[0]).toContain("undefined field 'namespace'");
    expect((await load("has(self.metadata.labels)"))[0]).toContain("ERROR: <input>:1:18: undefined field 'labels'");
    expect((await load("has(self.spec)"))[0]).toContain("undefined field 'spec'");
  });

  it("refuses oldSelf below the items of lists that are not map lists, naming the list", async () => {
    const item = {
      type: "object",
      properties: { k: { type: "string", maxLength: 8 } },
      required: ["k"],
      "x-kubernetes-validations": [{ rule: "self.k == oldSelf.k" }],
    };
    const set = await widgetBundle(
      {
        atomic: { type: "array", maxItems: 4, items: item },
        set: {
          type: "array",
          maxItems: 4,
          "x-kubernetes-list-type": "set",
          items: { type: "string", maxLength: 8, "x-kubernetes-validations": [{ rule: "self == oldSelf" }] },
        },
        keyed: {
          type: "array",
          maxItems: 4,
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["k"],
          items: item,
        },
        byName: {
          type: "object",
          maxProperties: 4,
          additionalProperties: {
            type: "string",
            maxLength: 8,
            "x-kubernetes-validations": [{ rule: "self == oldSelf" }],
          },
        },
      },
      [],
    );
    expect(errors(set)).toEqual([
      `${at}.properties[atomic].items.x-kubernetes-validations[0].rule: Invalid value: "self.k == oldSelf.k": oldSelf cannot be used on the uncorrelatable portion of the schema within ${at}.properties[atomic]`,
      `${at}.properties[set].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${at}.properties[set]`,
    ]);
  });

  it("shows an embedded resource's own metadata fields only when it declares kind, apiVersion, name and generateName", async () => {
    const embedded = (metadata: Record<string, unknown>, typed: boolean) => ({
      t: {
        type: "object",
        "x-kubernetes-embedded-resource": true,
        properties: {
          ...(typed ? { kind: { type: "string" }, apiVersion: { type: "string" } } : {}),
          metadata: { type: "object", properties: metadata },
        },
      },
    });
    const labels = {
      labels: { type: "object", maxProperties: 4, additionalProperties: { type: "string", maxLength: 8 } },
    };
    const full = { name: { type: "string" }, generateName: { type: "string" }, ...labels };
    const rule = { rule: "!has(self.t.metadata.labels) || self.t.metadata.labels.all(k, k != '')" };
    expect(errors(await widgetBundle(embedded(full, true), [rule]))).toEqual([]);
    expect(errors(await widgetBundle(embedded(labels, true), [rule]))[0]).toContain("undefined field 'labels'");
    expect(errors(await widgetBundle(embedded(full, false), [rule]))[0]).toContain("undefined field 'labels'");
  });
});

describe("has() on a field of an optional", () => {
  it("is true when the optional holds an object with the field, as in cel-go (no false valid)", async () => {
    const set = await widgetBundle({ opt: { type: "object", properties: { a: { type: "string", maxLength: 8 } } } }, [
      { rule: "!has(self.?opt.a) || self.opt.a == 'ok'", message: "opt.a must be ok" },
    ]);
    expect(causes(set, { opt: { a: "bad" } }).errors).toEqual([
      "FieldValueInvalid spec: Invalid value: opt.a must be ok",
    ]);
    expect(causes(set, { opt: { a: "ok" } }).errors).toEqual([]);
    expect(causes(set, {}).errors).toEqual([]);
  });
});
