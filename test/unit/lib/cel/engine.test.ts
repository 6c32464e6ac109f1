/**
 * Contract tests of the engine internals the adapter relies on (lib/cel/engine.ts). They gate engine upgrades:
 * if one fails after an upgrade, the adapter must be adapted before the upgrade lands.
 */
import { describe, expect, it } from "vitest";
import {
  ENGINE_HANDLER,
  newEnvironment,
  overrideHandlers,
  referencesIdentifier,
  renameMethodCalls,
} from "../../../../lib/cel/engine.js";
import { KUBERNETES_LIST_OPERATORS } from "../../../../lib/cel/equality.js";
import { installEvaluation } from "../../../../lib/cel/evaluation.js";
import { compileExpression, createCelEnvironment, evaluate } from "../../../../lib/cel/index.js";
import { CostLimitExceeded, evaluateMetered } from "../../../../lib/cel/metering.js";

/** Compiles and runs an expression in Kubernetes' base environment: its value, or the failure. */
function run(expr: string): { kind: "value"; value: unknown } | { kind: "error"; message: string } {
  const c = compileExpression(createCelEnvironment(), expr);
  if (c.kind === "failed") return { kind: "error", message: c.message };
  const r = evaluate(c.program, {}, Number.POSITIVE_INFINITY);
  if (r.kind === "value") return { kind: "value", value: r.value };
  return { kind: "error", message: r.kind === "error" ? r.message : "cost limit exceeded" };
}

describe("engine contract", () => {
  it("renaming a method call in the AST before the check routes it to another function", () => {
    // Prepare
    const env = newEnvironment();
    env.registerFunction("string.__shout(): string", (s: string) => `${s}!`);
    const program = env.parse("'a'.lowerAscii()");
    // Act
    renameMethodCalls(program.ast, { lowerAscii: "__shout" });
    // Assess
    expect(program.check().valid).toBe(true);
    expect(program({})).toBe("a!");
  });

  it("an own evaluate on || nodes replaces the engine's (cel-go: the left error wins)", () => {
    const env = newEnvironment();
    env.registerVariable("m", "map<string, int>");
    const program = env.parse("m['a'] > 0 || m['b'] > 0");
    expect(program.check().valid).toBe(true);
    installEvaluation(program.ast, new Map(), KUBERNETES_LIST_OPERATORS);
    expect(() => program({ m: new Map() })).toThrow(/a/);
    expect(program({ m: new Map([["b", 1n]]) })).toBe(true);
  });

  it("meters installed on nodes and a comprehension's loop condition charge each evaluation", () => {
    const env = newEnvironment();
    env.registerVariable("l", "list<int>");
    const program = env.parse("l.all(a, l.all(b, a + b >= -1))");
    expect(program.check().valid).toBe(true);
    const outer = program.ast;
    const inner = (outer.args as unknown as [string, unknown, [unknown, typeof outer]])[2][1];
    const predicate = (inner.args as unknown as [string, unknown, [unknown, typeof outer]])[2][1];
    const iteration = { condition: 2, step: 1, push: 0, increment: 0 };
    const meters = new Map([
      [outer, { before: 2, iteration }],
      [inner, { before: 2, iteration }],
      [predicate, { before: 4 }],
    ]);
    const { rootCost } = installEvaluation(outer, meters, KUBERNETES_LIST_OPERATORS);
    const l = Array.from({ length: 100 }, (_, i) => BigInt(i));
    // cel-go: 7 per inner iteration, 5 more per outer iteration, 2 for the outer range and result.
    expect(evaluateMetered(program, { l }, 1_000_000, rootCost)).toEqual({
      kind: "value",
      value: true,
      cost: 7 * 100 * 100 + 502,
    });
    expect(() => evaluateMetered(program, { l }, 10_000, rootCost)).toThrow(CostLimitExceeded);
  });

  it("the checker's handle of operator and call nodes can be replaced, the operands' evaluation staying the engine's", () => {
    const env = newEnvironment();
    env.registerVariable("n", "int");
    const program = env.parse("-n + size('ab') * 2");
    expect(program.check().valid).toBe(true);
    const seen: string[] = [];
    const record =
      (text: (args: readonly unknown[]) => string, result: unknown) =>
      (args: readonly unknown[]): unknown => {
        seen.push(text(args));
        return result;
      };
    overrideHandlers(program.ast, (node) => {
      if (node.op === "call") return record((a) => `size(${String(a[0])})`, 10n);
      if (node.op === "-_") return record((a) => `-${String(a[0])}`, ENGINE_HANDLER);
      if (node.op === "+") return record((a) => `${String(a[0])}+${String(a[1])}`, ENGINE_HANDLER);
      return undefined;
    });
    expect(program({ n: 1n })).toBe(19n);
    expect(seen).toEqual(["-1", "size(ab)", "-1+20"]);
  });

  it("an evaluation's errors carry no stack trace, and the stack trace limit is restored after it (also past its cost limit)", () => {
    const c = compileExpression(createCelEnvironment(), "[1, 2][5] == 1");
    if (c.kind === "failed") throw new Error(c.message);
    const limit = Error.stackTraceLimit;
    const r = evaluateMetered(c.program.engine, {}, 1_000_000, c.program.rootCost);
    expect(r.kind).toBe("error");
    const error = (r as { error: Error }).error;
    expect(error.message).toContain("index out of bounds");
    expect(error.stack?.split("\n").filter((l) => l.trimStart().startsWith("at ")) ?? []).toEqual([]);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(() => evaluateMetered(c.program.engine, {}, 0, 5)).toThrow(CostLimitExceeded);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error("after").stack).toContain(" at ");
  });

  it("AST nodes carry source positions and identifiers", () => {
    const env = newEnvironment();
    env.registerVariable("oldSelf", "int");
    const program = env.parse("1 + oldSelf");
    expect(referencesIdentifier(program.ast, "oldSelf")).toBe(true);
    expect(program.ast.start).toBe(0);
    expect(program.ast.end).toBe(11);
  });
});

describe("Kubernetes' base environment", () => {
  it.each([
    { expr: "'abc'.charAt(1)", want: "b" },
    { expr: "'STRAßE'.lowerAscii()", want: "straße" },
    { expr: "'\\u0085x '.trim()", want: "x" },
    { expr: "'abc'.matches('^[[:alpha:]]+$')", want: true },
    { expr: "'a1b22'.findAll('[0-9]+')", want: ["1", "22"] },
    { expr: "'a-b-c'.replace('-', '+', 1)", want: "a+b-c" },
    { expr: "[3, 1, 2].min()", want: 1n },
    { expr: "[1, 2, 3].sum()", want: 6n },
    { expr: "['a', 'c', 'b'].isSorted()", want: false },
    { expr: "sets.contains([1, 2, 3], [2, 3])", want: true },
    { expr: "sets.equivalent([1, 2], [2, 1, 1])", want: true },
    { expr: "[1, 2, 3, 4].slice(1, 3)", want: [2n, 3n] },
    { expr: "[[1], [2, 3]].flatten()", want: [1n, 2n, 3n] },
    { expr: "[3, 1, 2].sort()", want: [1n, 2n, 3n] },
    { expr: "[1, 1, 2].distinct()", want: [1n, 2n] },
    { expr: "lists.range(3)", want: [0n, 1n, 2n] },
    { expr: "'%s has %d items'.format(['cart', 3])", want: "cart has 3 items" },
    { expr: "strings.quote('a\\nb')", want: '"a\\nb"' },
    { expr: "semver('1.10.0').isGreaterThan(semver('1.9.0'))", want: true },
  ])("$expr", ({ expr, want }) => {
    expect(run(expr)).toEqual({ kind: "value", value: want });
  });

  it("reports min on an empty list with Kubernetes' text", () => {
    expect(run("[].min() == 1")).toMatchObject({ kind: "error" });
  });

  it.each([{ expr: "cel.bind(x, 1, x)" }, { expr: "b'a'.hex()" }])(
    "does not offer $expr (absent in Kubernetes 1.36)",
    async ({ expr }) => {
      const { loadBundle } = await import("../../../../lib/index.js");
      const crd = {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "things.x.dev" },
        spec: {
          group: "x.dev",
          scope: "Cluster",
          names: { kind: "Thing", plural: "things" },
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: { type: "object", "x-kubernetes-validations": [{ rule: `${expr} != null` }] },
              },
            },
          ],
        },
      };
      const set = await loadBundle([{ path: "t.json", content: JSON.stringify(crd) }]);
      expect(set.failures.some((f) => f.severity === "error" && f.message.includes("compilation failed"))).toBe(true);
    },
  );
});
