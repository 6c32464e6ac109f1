/**
 * compileCelRules: a lazy program (bundle artifacts) compiles each schema node's rules the first time evaluation
 * reaches the node, reports no issues (the artifact's build reported them), and judges objects as the eager
 * program does; a program whose rules are checked now and made on first use (bundle folders) reports every issue
 * an eager compile reports.
 */
import { describe, expect, it } from "vitest";
import { compileCelRules } from "../../../../../lib/cel/crd/compile.js";
import { evaluateCelRules } from "../../../../../lib/cel/crd/evaluate.js";
import { type CompileIssue, compileSchema, type SchemaNode } from "../../../../../lib/schema/structural.js";

const SCHEMA = {
  type: "object",
  "x-kubernetes-validations": [{ rule: "has(self.spec)", message: "spec is required" }],
  properties: {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    metadata: { type: "object" },
    spec: {
      type: "object",
      properties: {
        a: {
          type: "object",
          "x-kubernetes-validations": [{ rule: "self.n < 10", message: "a.n must be below 10" }],
          properties: { n: { type: "integer" } },
        },
        b: {
          type: "array",
          maxItems: 4,
          items: {
            type: "object",
            "x-kubernetes-validations": [{ rule: "self.name != ''", message: "name must not be empty" }],
            properties: { name: { type: "string", maxLength: 8 } },
          },
        },
      },
    },
  },
};

function schema(): SchemaNode {
  const issues: CompileIssue[] = [];
  const root = compileSchema(SCHEMA, issues);
  expect(issues).toEqual([]);
  return root;
}

const ctx = { source: { kind: "crd" as const, policy: "things.example.com" } };

function messages(errors: readonly { field: string | null; message: string }[]): string[] {
  return errors.map((e) => `${e.field}: ${e.message}`);
}

describe("compileCelRules", () => {
  it("a lazy program compiles a node's rules when evaluation first reaches the node", () => {
    // Prepare
    const root = schema();
    const program = compileCelRules(root, [], { lazy: true });
    const a = root.properties?.get("spec")?.properties?.get("a");
    const item = root.properties?.get("spec")?.properties?.get("b")?.items;

    // Act
    const before = program.nodes.size;
    const out = evaluateCelRules(program, root, { spec: { a: { n: 12 } } }, undefined, ctx);

    // Assess
    expect(before).toBe(0);
    expect(program.ruleCount).toBe(3);
    expect(messages(out.errors)).toEqual(["spec.a: Invalid value: a.n must be below 10"]);
    expect([...program.nodes.keys()]).toEqual([root, a]);
    expect(item).toBeDefined();
    expect(program.rulesOf(item!)?.rules.map((r) => r.source.rule)).toEqual(["self.name != ''"]);
    expect(program.nodes.size).toBe(3);
  });

  it("an eager program compiles every node at once", () => {
    const program = compileCelRules(schema(), []);
    expect(program.nodes.size).toBe(3);
  });

  it.each([
    { name: "valid", object: { spec: { a: { n: 1 }, b: [{ name: "x" }] } } },
    { name: "root rule", object: { kind: "Thing" } },
    { name: "nested failures", object: { spec: { a: { n: 99 }, b: [{ name: "" }, { name: "y" }, { name: "" }] } } },
  ])("lazy and eager programs judge alike: $name", ({ object }) => {
    // Prepare
    const root = schema();
    const eager = compileCelRules(root, []);
    const lazy = compileCelRules(root, [], { lazy: true });

    // Act
    const fromEager = evaluateCelRules(eager, root, object, undefined, ctx);
    const fromLazy = evaluateCelRules(lazy, root, object, undefined, ctx);

    // Assess
    expect(fromLazy).toEqual(fromEager);
  });

  it("checked now, made on first use: the eager compile's issues now, its verdicts later", () => {
    // Prepare: one rule that does not compile, one over the cost limit, one that uses oldSelf where it may not
    const issues: CompileIssue[] = [];
    const root = compileSchema(
      {
        type: "object",
        properties: {
          spec: {
            type: "object",
            "x-kubernetes-validations": [{ rule: "self.nope == 1" }, { rule: "self.n >= 0", message: "negative" }],
            properties: {
              n: { type: "integer" },
              names: {
                type: "array",
                items: {
                  type: "string",
                  "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "immutable" }],
                },
              },
              all: {
                type: "array",
                items: { type: "string" },
                "x-kubernetes-validations": [{ rule: "self.all(a, self.all(b, self.all(c, a + b + c != '')))" }],
              },
            },
          },
        },
      },
      issues,
    );
    const eagerIssues: CompileIssue[] = [];
    const checkedIssues: CompileIssue[] = [];
    const eager = compileCelRules(root, eagerIssues);

    // Act
    const checked = compileCelRules(root, checkedIssues, { programsOnFirstUse: true });
    const madeAtLoad = checked.nodes.size;
    const objects = [{ spec: { n: -1, names: ["a"], all: ["x"] } }, { spec: { n: 1 } }];

    // Assess
    expect(issues).toEqual([]);
    expect(eagerIssues.map((i) => i.message.split(":")[0])).toEqual([
      "Invalid value",
      "Forbidden",
      "Invalid value",
      "Forbidden",
      "Forbidden",
      "Forbidden",
      "Forbidden",
    ]);
    expect(checkedIssues).toEqual(eagerIssues);
    expect(madeAtLoad).toBe(0);
    for (const object of objects) {
      const fromChecked = evaluateCelRules(checked, root, object, object, ctx);
      expect(fromChecked).toEqual(evaluateCelRules(eager, root, object, object, ctx));
    }
    expect(messages(evaluateCelRules(checked, root, objects[0]!, undefined, ctx).errors)).toEqual([
      "spec: Invalid value: negative",
    ]);
  });

  it("a lazy program reports no issues; the eager one reports every rule that does not compile", () => {
    // Prepare
    const issues: CompileIssue[] = [];
    const root = compileSchema(
      {
        type: "object",
        properties: {
          spec: {
            type: "object",
            "x-kubernetes-validations": [{ rule: "self.nope == 1" }],
            properties: { n: { type: "integer" } },
          },
        },
      },
      issues,
    );
    const lazyIssues: CompileIssue[] = [];
    const eagerIssues: CompileIssue[] = [];

    // Act
    compileCelRules(root, lazyIssues, { lazy: true });
    compileCelRules(root, eagerIssues);

    // Assess
    expect(issues).toEqual([]);
    expect(lazyIssues).toEqual([]);
    expect(eagerIssues.map((i) => i.message)).toEqual([
      expect.stringContaining("compilation failed: ERROR: <input>:1:5: undefined field 'nope'"),
    ]);
  });
});
