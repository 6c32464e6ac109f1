/**
 * Compiles every `x-kubernetes-validations` rule of a CRD version once, at bundle load: one engine environment
 * per version with the schema's types, `self`/`oldSelf` declared per rule node, the rule parsed and type-checked,
 * and per-rule facts computed (uses oldSelf, optionalOldSelf, the message fallback, the cause type from `reason`,
 * the normalised `fieldPath`). Problems are compile issues with the API server's messages (CRD-creation checks,
 * spec/k8s-cel-semantics.md §4 "Compile-time checks of rules").
 */
import type { FieldErrorType } from "../field/error.js";
import type { CompileIssue, SchemaNode, ValidationRule } from "../schema/structural.js";
import {
  type Cardinality,
  childCardinality,
  estimateCost,
  messageExpressionCostIssue,
  ROOT_CARDINALITY,
  ruleCost,
  ruleCostIssue,
  SchemaCostTotal,
} from "./cost.js";
import {
  type ASTNode,
  applyCelGoLogicalOperators,
  applyListOperators,
  type Environment,
  type ParseResult,
  referencesIdentifier,
  renameMethodCalls,
} from "./engine.js";
import { KUBERNETES_LIST_OPERATORS } from "./equality.js";
import { checkLiteralPattern, kubernetesBaseEnvironment, METHOD_RENAMES } from "./library.js";
import { type CelType, CelTypeRegistry } from "./types.js";

export interface CompiledRule {
  source: ValidationRule;
  program: ParseResult;
  usesOldSelf: boolean;
  optionalOldSelf: boolean;
  /** The trimmed `message`, or `failed rule: <rule>`. */
  staticMessage: string;
  /** `ruleErrorString`: the trimmed message when set, else the trimmed rule text. */
  ruleErrorString: string;
  messageProgram?: ParseResult;
  reasonType: FieldErrorType;
  /** The normalised fieldPath appended to the node's path as one element (`spec.a.b` style), if any. */
  fieldPath?: string;
}

export interface NodeRules {
  selfType: CelType;
  rules: CompiledRule[];
}

export interface CelVersionProgram {
  /** The compiled rules of each schema node that has rules. */
  nodes: Map<SchemaNode, NodeRules>;
  /** Nodes at or above a node with rules (the walk skips every other subtree). */
  relevant: Set<SchemaNode>;
  ruleCount: number;
}

const REASONS: Record<string, FieldErrorType> = {
  FieldValueInvalid: "FieldValueInvalid",
  FieldValueForbidden: "FieldValueForbidden",
  FieldValueRequired: "FieldValueRequired",
  FieldValueDuplicate: "FieldValueDuplicate",
};

/** Functions the engine offers that Kubernetes 1.36 does not: they must not compile. */
const UNAVAILABLE_METHODS = new Set(["json", "hex", "base64", "at", "bind"]);

let versionCounter = 0;

function findUnavailable(node: ASTNode): string | undefined {
  if (node.op === "rcall") {
    const [name, target] = node.args as unknown as [string, ASTNode];
    if (name === "bind" && target.op === "id" && target.args === "cel")
      return "undeclared reference to 'cel' (in container '')";
    if (UNAVAILABLE_METHODS.has(name) && name !== "bind") return `found no matching overload for '${name}'`;
  }
  for (const c of childrenOf(node)) {
    const r = findUnavailable(c);
    if (r !== undefined) return r;
  }
  return undefined;
}

function childrenOf(node: ASTNode): ASTNode[] {
  const a = node.args as unknown;
  if (node.op === "value" || node.op === "id") return [];
  const out: ASTNode[] = [];
  const visit = (x: unknown) => {
    if (Array.isArray(x)) x.forEach(visit);
    else if (typeof x === "object" && x !== null && "op" in x) out.push(x as ASTNode);
  };
  visit(a);
  return out;
}

function isSelectChain(n: ASTNode): boolean {
  if (n.op === "id") return true;
  if (n.op === ".") return isSelectChain((n.args as unknown as [ASTNode, string])[0]);
  return false;
}

/**
 * Source rewrites before the type check, where the engine's language differs from cel-go's: the engine's `has()`
 * only accepts identifier/select chains, while cel-go accepts any operand (`has(self.items[0].name)`): such calls
 * become `__has(<operand>, '<field>')`; and `format()` list literals may mix types (see below).
 */
export function rewriteSource(text: string, ast: ASTNode): string | undefined {
  let changed = false;
  const sorted = (n: ASTNode) => childrenOf(n).sort((a, b) => a.start - b.start);
  const copy = (n: ASTNode): string => {
    let out = "";
    let pos = n.start;
    for (const c of sorted(n)) {
      if (c.start < pos) return text.slice(n.start, n.end); // unexpected overlap: keep the source as is
      out += text.slice(pos, c.start) + render(c);
      pos = c.end;
    }
    return out + text.slice(pos, n.end);
  };
  const render = (n: ASTNode): string => {
    if (n.op === "call") {
      const [name, args] = n.args as unknown as [string, ASTNode[]];
      const arg = args[0];
      if (name === "has" && args.length === 1 && arg !== undefined && arg.op === "." && !isSelectChain(arg)) {
        const [target, field] = arg.args as unknown as [ASTNode, string];
        changed = true;
        return `__has(${render(target)}, '${field}')`;
      }
    }
    if (n.op === "rcall") {
      const [name, target, args] = n.args as unknown as [string, ASTNode, ASTNode[]];
      // `'%s: %d'.format([s, i])` is exempt from the homogeneous-literal check in Kubernetes: the list literal's
      // elements are wrapped in dyn() so the engine types it list<dyn>.
      const arg = args[0];
      if (name === "format" && args.length === 1 && arg !== undefined && arg.op === "list") {
        changed = true;
        const items = (arg.args as unknown as ASTNode[]).map((e) => `dyn(${render(e)})`);
        return `${render(target)}.format([${items.join(", ")}])`;
      }
      const two = twoVariableComprehension(name, args, render);
      if (two !== undefined) {
        changed = true;
        return two(render(target));
      }
    }
    return copy(n);
  };
  const out = text.slice(0, ast.start) + render(ast) + text.slice(ast.end);
  return changed ? out : undefined;
}

const TWO_VARIABLE_MACROS = new Set([
  "all",
  "exists",
  "existsOne",
  "exists_one",
  "transformList",
  "transformMap",
  "transformMapEntry",
]);

/**
 * Two-variable comprehensions (Kubernetes 1.32+, cel-go ext.TwoVarComprehensions), which the engine lacks:
 * `x.all(k, v, p)` becomes a one-variable comprehension over `__entries(x)` (index/key and value pairs) with `k` and
 * `v` bound by the engine's `cel.bind` (user rules may not call cel.bind: that is checked on the original AST).
 * The two variables are typed dyn.
 */
function twoVariableComprehension(
  name: string,
  args: ASTNode[],
  render: (n: ASTNode) => string,
): ((target: string) => string) | undefined {
  if (!TWO_VARIABLE_MACROS.has(name) || args.length < 3 || args.length > 4) return undefined;
  const [k, v] = args;
  if (k?.op !== "id" || v?.op !== "id") return undefined;
  const kn = k.args as unknown as string;
  const vn = v.args as unknown as string;
  const bind = (e: ASTNode) => `cel.bind(${kn}, __e[0], cel.bind(${vn}, __e[1], ${render(e)}))`;
  const last = args[args.length - 1]!;
  const filter = args.length === 4 ? args[2]! : undefined;
  switch (name) {
    case "all":
    case "exists":
      return args.length === 3 ? (t) => `__entries(${t}).${name}(__e, ${bind(last)})` : undefined;
    case "existsOne":
    case "exists_one":
      return args.length === 3 ? (t) => `__entries(${t}).exists_one(__e, ${bind(last)})` : undefined;
    case "transformList":
      return filter === undefined
        ? (t) => `__entries(${t}).map(__e, ${bind(last)})`
        : (t) => `__entries(${t}).filter(__e, ${bind(filter)}).map(__e, ${bind(last)})`;
    case "transformMap":
      return filter === undefined
        ? (t) => `__fromEntries(__entries(${t}).map(__e, [__e[0], dyn(${bind(last)})]))`
        : (t) => `__fromEntries(__entries(${t}).filter(__e, ${bind(filter)}).map(__e, [__e[0], dyn(${bind(last)})]))`;
    case "transformMapEntry":
      return args.length === 3 ? (t) => `__mergeMaps(__entries(${t}).map(__e, ${bind(last)}))` : undefined;
    default:
      return undefined;
  }
}

/** Literal patterns of `matches` / `find` / `findAll` must compile at rule-compile time. */
function findBadLiteralPattern(node: ASTNode): string | undefined {
  if (node.op === "rcall") {
    const [name, , args] = node.args as unknown as [string, ASTNode, ASTNode[]];
    const first = args[0];
    if (
      (name === "matches" || name === "find" || name === "findAll") &&
      first?.op === "value" &&
      typeof first.args === "string"
    ) {
      const err = checkLiteralPattern(first.args);
      if (err !== undefined)
        return name === "matches"
          ? "invalid matches argument"
          : `error parsing regexp: ${err.replace(/^error parsing regexp: /, "")}`;
    }
  }
  for (const c of childrenOf(node)) {
    const r = findBadLiteralPattern(c);
    if (r !== undefined) return r;
  }
  return undefined;
}

function ruleJson(r: ValidationRule): string {
  const o: Record<string, unknown> = {
    Rule: r.rule,
    Message: r.message ?? "",
    MessageExpression: r.messageExpression ?? "",
  };
  if (r.reason !== undefined) o.Reason = r.reason;
  o.FieldPath = r.fieldPath ?? "";
  o.OptionalOldSelf = r.optionalOldSelf ?? null;
  return JSON.stringify(o);
}

/** Parses a fieldPath relative to a node; returns the normalised text or undefined when it does not resolve. */
export function normaliseFieldPath(fieldPath: string, node: SchemaNode): string | undefined {
  let s = fieldPath.trim();
  let cur: SchemaNode | null = node;
  let out = "";
  if (s.length === 0) return undefined;
  while (s.length > 0) {
    if (cur === null) return undefined;
    let name: string;
    let isKey = false;
    if (s.startsWith(".")) {
      const m = /^\.([a-zA-Z_][a-zA-Z0-9_-]*)/.exec(s);
      if (m === null) return undefined;
      name = m[1]!;
      s = s.slice(m[0].length);
    } else if (s.startsWith("['")) {
      const end = s.indexOf("']");
      if (end === -1) return undefined;
      name = s.slice(2, end);
      s = s.slice(end + 2);
      isKey = true;
    } else {
      return undefined;
    }
    const prop: SchemaNode | undefined = cur.properties?.get(name);
    if (prop !== undefined) {
      out += out === "" ? name : `.${name}`;
      cur = prop;
    } else if (cur.additionalProperties !== null) {
      out += `[${name}]`;
      cur = cur.additionalProperties;
    } else {
      return undefined;
    }
    void isKey;
  }
  return out;
}

/** Compiles the rules of one CRD version schema. Issue paths are relative to openAPIV3Schema. */
export function compileCelRules(root: SchemaNode, issues: CompileIssue[]): CelVersionProgram {
  const nodes = new Map<SchemaNode, NodeRules>();
  const relevant = new Set<SchemaNode>();
  const withRules: { node: SchemaNode; isRoot: boolean; cardinality: Cardinality }[] = [];
  const seen = new Set<SchemaNode>();
  const collect = (n: SchemaNode, isRoot: boolean, cardinality: Cardinality): boolean => {
    if (seen.has(n)) return relevant.has(n);
    seen.add(n);
    let has = n.validations.length > 0;
    if (has) withRules.push({ node: n, isRoot, cardinality });
    const cc = childCardinality(n, cardinality);
    if (n.properties !== null) for (const p of n.properties.values()) if (collect(p, false, cc)) has = true;
    if (n.additionalProperties !== null && collect(n.additionalProperties, false, cc)) has = true;
    if (n.items !== null && collect(n.items, false, cc)) has = true;
    if (has) relevant.add(n);
    return has;
  };
  collect(root, true, ROOT_CARDINALITY);
  if (withRules.length === 0) return { nodes, relevant, ruleCount: 0 };

  const env = kubernetesBaseEnvironment().clone();
  const registry = new CelTypeRegistry(env, `k8s.v${versionCounter++}.`);
  const types = new Map<SchemaNode, CelType | null>();
  for (const { node, isRoot } of withRules) types.set(node, registry.typeOf(node, isRoot));

  let ruleCount = 0;
  const costTotal = new SchemaCostTotal();
  for (const { node, isRoot, cardinality } of withRules) {
    const resourceRoot = isRoot || node.embeddedResource;
    const selfType = types.get(node) ?? null;
    const compiled: CompiledRule[] = [];
    const envs = new Map<boolean, Environment>();
    const envFor = (optional: boolean): Environment | undefined => {
      if (selfType === null) return undefined;
      let e = envs.get(optional);
      if (e === undefined) {
        e = env.clone();
        e.registerVariable("self", selfType.name);
        e.registerVariable("oldSelf", optional ? `optional<${selfType.name}>` : selfType.name);
        envs.set(optional, e);
      }
      return e;
    };
    node.validations.forEach((rule, i) => {
      ruleCount++;
      const at = `${node.schemaPath === "" ? "" : `${node.schemaPath}.`}x-kubernetes-validations[${i}]`;
      const fail = (suffix: string, message: string) =>
        issues.push({ path: `${at}.${suffix}`, message, severity: "error" });
      const text = rule.rule;
      if (text.trim() === "") {
        fail("rule", "Required value: rule is not specified");
        return;
      }
      if (text.includes("\n") && (rule.message === undefined || rule.message.trim() === "")) {
        fail("message", "Required value: message must be specified if rule contains line breaks");
      }
      if (rule.message !== undefined && rule.message.trim() === "" && rule.messageExpression === undefined) {
        fail("message", "Invalid value: must be non-empty if specified");
      }
      if (rule.message?.includes("\n")) fail("message", "Invalid value: must not contain line breaks");
      const reasonType = rule.reason === undefined ? "FieldValueInvalid" : REASONS[rule.reason];
      if (reasonType === undefined) {
        fail(
          "reason",
          `Unsupported value: ${JSON.stringify(rule.reason)}: supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
        );
        return;
      }
      let fieldPath: string | undefined;
      if (rule.fieldPath !== undefined && rule.fieldPath !== "") {
        fieldPath = normaliseFieldPath(rule.fieldPath, node);
        if (fieldPath === undefined) {
          fail("fieldPath", `Invalid value: ${JSON.stringify(rule.fieldPath)}: must be a valid path`);
          return;
        }
      }
      const e = envFor(rule.optionalOldSelf === true);
      if (e === undefined) {
        fail("rule", `Invalid value: ${ruleJson(rule)}: compilation failed: the schema of this node has no CEL type`);
        return;
      }
      let program: ParseResult;
      try {
        program = e.parse(text);
        const unavailable = findUnavailable(program.ast);
        if (unavailable !== undefined) {
          fail("rule", `Invalid value: ${ruleJson(rule)}: compilation failed: ERROR: <input>: ${unavailable}`);
          return;
        }
        const rewritten = rewriteSource(text, program.ast);
        if (rewritten !== undefined) program = e.parse(rewritten);
      } catch (err) {
        fail(
          "rule",
          `Invalid value: ${ruleJson(rule)}: compilation failed: ERROR: <input>: ${(err as Error).message.split("\n")[0]}`,
        );
        return;
      }
      const badPattern = findBadLiteralPattern(program.ast);
      if (badPattern !== undefined) {
        fail("rule", `Invalid value: ${ruleJson(rule)}: compilation failed: ERROR: <input>: ${badPattern}`);
        return;
      }
      renameMethodCalls(program.ast, METHOD_RENAMES);
      const check = program.check();
      if (!check.valid) {
        fail(
          "rule",
          `Invalid value: ${ruleJson(rule)}: compilation failed: ERROR: <input>: ${celCompileText(check.error)}`,
        );
        return;
      }
      if (check.type !== "bool") {
        fail("rule", `Invalid value: ${ruleJson(rule)}: cel expression must evaluate to a bool`);
        return;
      }
      const cost = ruleCost(
        estimateCost(program.ast, node, { isResourceRoot: resourceRoot }).max,
        node,
        cardinality,
        resourceRoot,
      );
      const costIssue = ruleCostIssue(cost);
      if (costIssue !== undefined) fail("rule", costIssue);
      costTotal.observe(`${at}.rule`, cost);
      applyCelGoLogicalOperators(program.ast);
      applyListOperators(program.ast, KUBERNETES_LIST_OPERATORS);
      const usesOldSelf = referencesIdentifier(program.ast, "oldSelf");
      if (rule.optionalOldSelf === true && !usesOldSelf) {
        fail("optionalOldSelf", "Invalid value: true: may not be set if oldSelf is not used in rule");
        return;
      }
      const trimmedMessage = rule.message?.trim();
      const c: CompiledRule = {
        source: rule,
        program,
        usesOldSelf,
        optionalOldSelf: rule.optionalOldSelf === true,
        staticMessage:
          trimmedMessage !== undefined && trimmedMessage !== "" ? trimmedMessage : `failed rule: ${text.trim()}`,
        ruleErrorString: trimmedMessage !== undefined && trimmedMessage !== "" ? trimmedMessage : text.trim(),
        reasonType,
      };
      if (fieldPath !== undefined) c.fieldPath = fieldPath;
      if (rule.messageExpression !== undefined) {
        if (rule.messageExpression.trim() === "") {
          fail("messageExpression", "Required value: messageExpression must be non-empty if specified");
        } else {
          try {
            let mp = e.parse(rule.messageExpression);
            const rewrittenMessage = rewriteSource(rule.messageExpression, mp.ast);
            if (rewrittenMessage !== undefined) mp = e.parse(rewrittenMessage);
            renameMethodCalls(mp.ast, METHOD_RENAMES);
            const mc = mp.check();
            if (!mc.valid) {
              fail(
                "messageExpression",
                `Invalid value: ${ruleJson(rule)}: messageExpression compilation failed: ERROR: <input>: ${celCompileText(mc.error)}`,
              );
            } else if (mc.type !== "string") {
              fail(
                "messageExpression",
                `Invalid value: ${ruleJson(rule)}: messageExpression must evaluate to a string`,
              );
            } else {
              const messageCost = estimateCost(mp.ast, node, { isResourceRoot: resourceRoot }).max;
              const messageCostIssue = messageExpressionCostIssue(messageCost);
              if (messageCostIssue !== undefined) fail("messageExpression", messageCostIssue);
              costTotal.observe(`${at}.messageExpression`, messageCost);
              applyCelGoLogicalOperators(mp.ast);
              c.messageProgram = mp;
            }
          } catch (err) {
            fail(
              "messageExpression",
              `Invalid value: ${ruleJson(rule)}: messageExpression compilation failed: ERROR: <input>: ${(err as Error).message.split("\n")[0]}`,
            );
          }
        }
      }
      compiled.push(c);
    });
    if (selfType !== null) nodes.set(node, { selfType, rules: compiled });
  }
  issues.push(...costTotal.issues());
  return { nodes, relevant, ruleCount };
}

/** Maps engine check errors to cel-go's wording where they differ. */
function celCompileText(err: unknown): string {
  const e = err as { code?: string; summary?: string; message?: string } | undefined;
  const summary = e?.summary ?? e?.message?.split("\n")[0] ?? "unknown error";
  const key = /^No such key: (.*)$/.exec(summary);
  if (key !== null) return `undefined field '${key[1]}'`;
  const unknownVar = /^Unknown variable: (.*)$/.exec(summary);
  if (unknownVar !== null) return `undeclared reference to '${unknownVar[1]}' (in container '')`;
  return summary;
}
