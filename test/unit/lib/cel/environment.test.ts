/**
 * lib/cel's public API in an environment of the caller's own (no CRD schema): declared variables and object types,
 * a chosen set of libraries, compile failures in cel-go's wording, evaluation with a cost limit.
 */
import { describe, expect, it } from "vitest";
import {
  type CelLibrary,
  compileExpression,
  createCelEnvironment,
  type EngineRegistrar,
  evaluate,
  formatIssues,
  KUBERNETES_LIBRARIES,
  Optional,
  usesVariable,
} from "../../../../lib/cel/index.js";

const REQUEST = { name: "example.Request", fields: { name: "string", replicas: "int", user: "example.User" } };
const USER = { name: "example.User", fields: { name: "string", groups: "list<string>" } };

/** An environment shaped like an admission policy's: typed request, dyn params, a few plain variables. */
function policyEnvironment() {
  return createCelEnvironment({
    // USER is declared after REQUEST, which names it: the environment orders them.
    objectTypes: [REQUEST, USER],
    variables: { request: REQUEST.name, params: "dyn", limit: "int", labels: "map<string, string>" },
  });
}

const request = { name: "web-1", replicas: 3n, user: { name: "alice", groups: ["dev", "ops"] } };

/** Compiles (expecting success) and evaluates with a generous cost limit. */
function run(env: ReturnType<typeof policyEnvironment>, expr: string, activation: Record<string, unknown>) {
  const c = compileExpression(env, expr);
  if (c.kind === "failed") throw new Error(`${expr}: ${c.message}`);
  return evaluate(c.program, activation, 1_000_000);
}

describe("createCelEnvironment: declared variables and object types", () => {
  it.each([
    { expr: "request.name.startsWith('web')", want: true },
    { expr: "request.replicas > limit", want: true },
    { expr: "request.user.groups.exists(g, g == 'ops')", want: true },
    { expr: "labels['app'] + '/' + request.user.name", want: "web/alice" },
    { expr: "params.prefix", want: "we" },
    { expr: "quantity('1Gi').isGreaterThan(quantity('1Mi'))", want: true },
  ])("$expr", ({ expr, want }) => {
    // Act
    const r = run(policyEnvironment(), expr, {
      request,
      limit: 2n,
      labels: new Map([["app", "web"]]),
      params: new Map([["prefix", "we"]]),
    });
    // Assess
    expect(r).toMatchObject({ kind: "value", value: want });
  });

  it("accepts plain objects and Maps for maps and dyn values", () => {
    const env = policyEnvironment();
    expect(run(env, "params.a.b", { params: { a: { b: 1n } } })).toMatchObject({ value: 1n });
    expect(run(env, "params.a.b", { params: new Map([["a", new Map([["b", 2n]])]]) })).toMatchObject({ value: 2n });
  });

  it("reports the output type and a static cost estimate", () => {
    const c = compileExpression(policyEnvironment(), "request.replicas + limit");
    expect(c).toMatchObject({ kind: "compiled", outputType: "int", cost: { min: 4, max: 4 } });
  });

  it("estimates unknown sizes as the worst case (no schema declares them)", () => {
    const c = compileExpression(policyEnvironment(), "request.user.groups.all(g, g != '')");
    expect(c.kind === "compiled" && c.cost.max).toBe(2 ** 64);
  });

  it("extends an environment with more variables, keeping the parent's", () => {
    // Prepare
    const parent = policyEnvironment();
    const child = parent.extend({ variables: { oldRequest: REQUEST.name } });
    // Act
    const inChild = compileExpression(child, "request.name == oldRequest.name");
    const inParent = compileExpression(parent, "request.name == oldRequest.name");
    // Assess
    expect(inChild.kind).toBe("compiled");
    expect([...child.variables.keys()]).toEqual(["request", "params", "limit", "labels", "oldRequest"]);
    expect(inParent).toEqual({
      kind: "failed",
      reason: "compile",
      message: "ERROR: <input>: undeclared reference to 'oldRequest' (in container '')",
      issues: [{ detail: "undeclared reference to 'oldRequest' (in container '')", offset: 16 }],
    });
  });

  describe("extendEach: children sharing the parent's engine compile and run as extend's do", () => {
    const declarations: { variables: Record<string, string> }[] = [
      { variables: { self: USER.name, oldSelf: USER.name } },
      { variables: { self: "list<string>", oldSelf: "optional<list<string>>" } },
    ];
    const user = { name: "bob", groups: ["dev"] };
    it.each([
      {
        at: 0,
        expr: "self.name == oldSelf.name && self.groups.exists(g, g == 'dev')",
        vars: { self: user, oldSelf: user },
      },
      // a macro rebinding the variable: its own iteration variable inside, the outer one outside
      { at: 1, expr: "self.all(self, self != '') && size(self) == 1", vars: { self: ["dev"] } },
      { at: 1, expr: "oldSelf.orValue([]).size() == 0", vars: { self: ["dev"], oldSelf: Optional.none() } },
      // failures are worded from the same declarations
      { at: 0, expr: "self.nope == ''", vars: {} },
      { at: 0, expr: "self.name + 1", vars: {} },
      { at: 1, expr: "self == request", vars: {} },
      { at: 1, expr: "self[0]", vars: {}, options: { expectedType: "bool" } },
      { at: 0, expr: "self.name", vars: { self: user }, options: { typeCheck: false } },
    ])("$expr", ({ at, expr, vars, options }) => {
      // Prepare
      const parent = policyEnvironment();
      const shared = parent.extendEach(declarations)[at]!;
      const own = policyEnvironment().extend(declarations[at]!);
      // Act
      const got = compileExpression(shared, expr, options);
      const want = compileExpression(own, expr, options);
      // Assess
      expect(shared.engine).toBe(parent.engine);
      expect(got.kind === "compiled" ? { ...got, program: undefined } : got).toEqual(
        want.kind === "compiled" ? { ...want, program: undefined } : want,
      );
      if (got.kind === "compiled" && want.kind === "compiled" && Object.keys(vars).length > 0) {
        expect(evaluate(got.program, vars, 1_000_000)).toEqual(evaluate(want.program, vars, 1_000_000));
      }
    });

    it.each<{ variables: Record<string, string> }>([
      { variables: { request: "string" } },
      { variables: { x: "example.Nope" } },
    ])("refuses what extend refuses: $variables", (declaration) => {
      expect(() => policyEnvironment().extend(declaration)).toThrow();
      expect(() => policyEnvironment().extendEach([declaration])).toThrow();
    });
  });

  it("compiles == on an object type only when it declares equality", () => {
    const point = { name: "example.Point", fields: { x: "int", y: "int" } };
    const withEquals = createCelEnvironment({
      objectTypes: [{ ...point, equals: (a, b) => JSON.stringify(a) === JSON.stringify(b) }],
      variables: { p: point.name },
    });
    const without = createCelEnvironment({ objectTypes: [point], variables: { p: point.name } });
    expect(compileExpression(withEquals, "p == p").kind).toBe("compiled");
    expect(compileExpression(without, "p == p")).toMatchObject({ kind: "failed", reason: "compile" });
  });

  it("refuses object types whose fields refer to each other without a value class", () => {
    const a = { name: "example.A", fields: { b: "example.B" } };
    const b = { name: "example.B", fields: { a: "example.A" } };
    expect(() => createCelEnvironment({ objectTypes: [a, b] })).toThrow(/refers to itself/);
  });
});

describe("compileExpression: failures in cel-go's wording", () => {
  it.each([
    // An admission policy's auditAnnotations have no `authorizer`.
    {
      expr: "authorizer.group('apps')",
      message: "ERROR: <input>: undeclared reference to 'authorizer' (in container '')",
      // cel-go goes on to the function, which no library of this environment declares.
      issues: [
        { detail: "undeclared reference to 'authorizer' (in container '')", offset: 0 },
        { detail: "undeclared reference to 'group' (in container '')", offset: 16 },
      ],
    },
    {
      expr: "request.nope == 1",
      message: "ERROR: <input>: undefined field 'nope'",
      issues: [{ detail: "undefined field 'nope'", offset: 7 }],
    },
    {
      expr: "cel.bind(x, 1, x)",
      message: "ERROR: <input>: undeclared reference to 'cel' (in container '')",
      issues: [{ detail: "undeclared reference to 'cel' (in container '')" }],
    },
    {
      expr: "b'a'.hex()",
      message: "ERROR: <input>: found no matching overload for 'hex'",
      issues: [{ detail: "found no matching overload for 'hex'" }],
    },
    {
      expr: "request.name.matches('(')",
      message: "ERROR: <input>: invalid matches argument",
      issues: [{ detail: "invalid matches argument" }],
    },
    {
      expr: "request.name.find('(')",
      message: "ERROR: <input>: error parsing regexp: missing closing ): `(`",
      issues: [{ detail: "error parsing regexp: missing closing ): `(`" }],
    },
  ])("$expr", ({ expr, message, issues }) => {
    expect(compileExpression(policyEnvironment(), expr)).toEqual({
      kind: "failed",
      reason: "compile",
      message,
      issues,
    });
  });

  it.each([
    {
      expr: "request.replicas.isEven()",
      text: "ERROR: <input>:1:24: undeclared reference to 'isEven' (in container '')\n | request.replicas.isEven()\n | .......................^",
    },
    {
      expr: "request.replicas <= ",
      text: "ERROR: <input>:1:21: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | request.replicas <= \n | ....................^",
    },
    {
      expr: "limit > 1 ? 'x' : null",
      text: "ERROR: <input>:1:11: found no matching overload for '_?_:_' applied to '(bool, string, null)'\n | limit > 1 ? 'x' : null\n | ..........^",
    },
    {
      expr: "request.name ==\n  request.nope",
      text: "ERROR: <input>:2:10: undefined field 'nope'\n |   request.nope\n | .........^",
    },
    // every error the checker finds, in the order of their positions (cel-go Errors.ToDisplayString)
    {
      expr: "request.name > 1 && request.nope == limit.size()",
      text: [
        "ERROR: <input>:1:14: found no matching overload for '_>_' applied to '(string, int)'\n | request.name > 1 && request.nope == limit.size()\n | .............^",
        "ERROR: <input>:1:28: undefined field 'nope'\n | request.name > 1 && request.nope == limit.size()\n | ...........................^",
        "ERROR: <input>:1:47: found no matching overload for 'size' applied to 'int.()'\n | request.name > 1 && request.nope == limit.size()\n | ..............................................^",
      ].join("\n"),
    },
    {
      expr: "[1, 'a'] == [true, 2] || limit.x",
      text: [
        "ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a'] == [true, 2] || limit.x\n | ....^",
        "ERROR: <input>:1:20: expected type 'bool' but found 'int'\n | [1, 'a'] == [true, 2] || limit.x\n | ...................^",
        "ERROR: <input>:1:31: type 'int' does not support field selection\n | [1, 'a'] == [true, 2] || limit.x\n | ..............................^",
      ].join("\n"),
    },
    // names nobody declares are reported wherever they are; errors built on a failed expression are not
    {
      expr: "nope.f(1) + other",
      text: [
        "ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope.f(1) + other\n | ^",
        "ERROR: <input>:1:7: undeclared reference to 'f' (in container '')\n | nope.f(1) + other\n | ......^",
        "ERROR: <input>:1:13: undeclared reference to 'other' (in container '')\n | nope.f(1) + other\n | ............^",
      ].join("\n"),
    },
    {
      expr: "[?limit, ?labels.a] == 1",
      text: [
        "ERROR: <input>:1:3: expected type 'optional_type(int)' but found 'int'\n | [?limit, ?labels.a] == 1\n | ..^",
        "ERROR: <input>:1:17: expected type 'optional_type(string)' but found 'string'\n | [?limit, ?labels.a] == 1\n | ................^",
      ].join("\n"),
    },
  ])("formats the issues of $expr as cel-go prints them", ({ expr, text }) => {
    const r = compileExpression(policyEnvironment(), expr);
    expect(r.kind === "failed" && r.reason === "compile" && formatIssues(expr, r.issues)).toBe(text);
  });

  it("reports a parse error by its first line", () => {
    const r = compileExpression(policyEnvironment(), "request.name ==");
    expect(r).toMatchObject({ kind: "failed", reason: "compile" });
    expect(r.kind === "failed" && r.message.startsWith("ERROR: <input>: ")).toBe(true);
    expect(r.kind === "failed" && r.message.includes("\n")).toBe(false);
  });

  it("checks the expected output type", () => {
    const env = policyEnvironment();
    expect(compileExpression(env, "request.replicas", { expectedType: "bool" })).toEqual({
      kind: "failed",
      reason: "type",
      message: "must evaluate to bool",
      outputType: "int",
    });
    expect(compileExpression(env, "request.replicas", { expectedType: "int" }).kind).toBe("compiled");
  });
});

describe("libraries", () => {
  /** A stand-in for an admission policy's authorizer library: a type, a constant-free function and a cost. */
  class Decision {
    constructor(readonly allowed: boolean) {}
  }
  const DECISION_LIBRARY: CelLibrary = {
    name: "decision",
    register(env: EngineRegistrar) {
      env.registerType("example.Decision", { ctor: Decision, fields: {} });
      env.registerFunction("decide(string): example.Decision", (verb: string) => new Decision(verb === "get"));
      env.registerFunction("example.Decision.allowed(): bool", (d: Decision) => d.allowed);
    },
    callCosts: { decide: () => ({ cost: { min: 7, max: 7 } }) },
  };

  it("plugs in a library of the caller's own, with its cost estimate", () => {
    const env = createCelEnvironment({ libraries: [...KUBERNETES_LIBRARIES, DECISION_LIBRARY] });
    const c = compileExpression(env, "decide('get').allowed()", { expectedType: "bool" });
    expect(c).toMatchObject({ kind: "compiled", cost: { min: 8, max: 8 } });
    if (c.kind === "compiled") expect(evaluate(c.program, {}, 100)).toMatchObject({ kind: "value", value: true });
  });

  it("leaves out the libraries not chosen", () => {
    const bare = createCelEnvironment({ libraries: [], variables: { s: "string" } });
    expect(compileExpression(bare, "quantity('1Gi')")).toMatchObject({ kind: "failed", reason: "compile" });
    expect(compileExpression(bare, "s.charAt(0)")).toMatchObject({ kind: "failed", reason: "compile" });
    // `matches` is cel-go's standard function: Go's RE2 semantics in every environment (POSIX classes).
    const c = compileExpression(bare, "s.matches('^[[:alpha:]]+$')");
    if (c.kind !== "compiled") throw new Error(c.message);
    expect(evaluate(c.program, { s: "abc" }, 100)).toMatchObject({ kind: "value", value: true });
  });
});

describe("evaluate", () => {
  it("returns the value and the cost spent", () => {
    const r = run(policyEnvironment(), "request.user.groups.all(g, g != '')", { request });
    expect(r).toEqual({ kind: "value", value: true, cost: expect.any(Number) });
    expect(r.kind === "value" && r.cost).toBeGreaterThan(0);
  });

  it.each([
    // the cost spent until the error: cel-go still charges the operator whose operand failed
    { expr: "labels['nope'] == 'x'", message: "no such key: nope", noSuchOverload: false, cost: 3 },
    { expr: "limit / 0 == 1", message: "division by zero", noSuchOverload: false, cost: 3 },
    { expr: "params.a + 1 == 2", message: "no such overload", noSuchOverload: true, cost: 4 },
  ])("words a runtime error as cel-go does: $expr", ({ expr, message, noSuchOverload, cost }) => {
    const r = run(policyEnvironment(), expr, { labels: new Map(), limit: 1n, params: new Map([["a", "s"]]) });
    expect(r).toEqual({ kind: "error", message, noSuchOverload, cost });
  });

  it("stops at the cost limit", () => {
    const c = compileExpression(
      policyEnvironment(),
      "request.user.groups.all(a, request.user.groups.all(b, a != b || a == b))",
    );
    if (c.kind !== "compiled") throw new Error(c.message);
    const groups = Array.from({ length: 100 }, (_, i) => `g${i}`);
    const activation = { request: { ...request, user: { name: "a", groups } } };
    // stopped at the first charge past the limit, with the cost spent then (the API server charges it)
    const stopped = evaluate(c.program, activation, 1_000);
    expect(stopped.kind).toBe("cost-limit-exceeded");
    expect(stopped.cost).toBeGreaterThan(1_000);
    expect(stopped.cost).toBeLessThan(1_020);
    expect(evaluate(c.program, activation, 1_000_000)).toMatchObject({ kind: "value", value: true });
  });

  it("tells which variables an expression uses", () => {
    const c = compileExpression(policyEnvironment(), "request.name != '' || limit > 0");
    if (c.kind !== "compiled") throw new Error(c.message);
    expect(usesVariable(c.program, "limit")).toBe(true);
    expect(usesVariable(c.program, "params")).toBe(false);
  });
});
