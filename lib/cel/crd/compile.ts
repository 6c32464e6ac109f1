/**
 * Compiles every `x-kubernetes-validations` rule of a CRD version once, at bundle load: one environment per version
 * with the schema's types, `self`/`oldSelf` declared per rule node, each rule and messageExpression compiled
 * (../program.ts), and per-rule facts computed (uses oldSelf, optionalOldSelf, the message fallback, the cause type
 * from `reason`, the normalised `fieldPath`, the estimated cost). Problems are compile issues with the API server's
 * messages (CRD-creation checks, spec/k8s-cel-semantics.md §4 "Compile-time checks of rules").
 */
import type { FieldErrorType } from "../../field/error.js";
import { formatValue } from "../../field/message.js";
import { appendAll } from "../../objects/append.js";
import type { CompileIssue, SchemaNode, ValidationRule } from "../../schema/structural.js";
import { type Cardinality, childCardinality, ROOT_CARDINALITY, ruleCost } from "../cost/cardinality.js";
import { messageExpressionCostIssue, ruleCostIssue, SchemaCostTotal } from "../cost/limits.js";
import { type Decl, schemaSizes } from "../cost/schema-sizes.js";
import { referencesIdentifier, type SyntaxNode } from "../engine.js";
import { type CelEnvironment, createCelEnvironment, type VariableDeclarations } from "../environment.js";
import type { EvaluationMode } from "../evaluation.js";
import { formatIssues } from "../issues.js";
import { type CelProgram, checkExpression, compileExpression } from "../program.js";
import { type CelType, CelTypeRegistry } from "../schema-types.js";
import { checkerGaps, type ObjectFields, objectFieldsOf } from "./checker-gaps.js";
import { normaliseFieldPath } from "./field-path.js";

export interface CompiledRule {
  source: ValidationRule;
  program: CelProgram;
  usesOldSelf: boolean;
  optionalOldSelf: boolean;
  /** The trimmed `message`, or `failed rule: <rule>`. */
  staticMessage: string;
  /** `ruleErrorString`: the trimmed message when set, else the trimmed rule text. */
  ruleErrorString: string;
  messageProgram?: CelProgram;
  reasonType: FieldErrorType;
  /** The normalised fieldPath appended to the node's path as one element (`spec.a.b` style), if any. */
  fieldPath?: string;
  /** The rule's estimated cost (max, before the cardinality), as the API server estimates it. */
  estimatedCost: number;
  /** The messageExpression's estimated cost (max), if it has one that compiled. */
  messageEstimatedCost?: number;
}

export interface NodeRules {
  selfType: CelType;
  rules: CompiledRule[];
}

export interface CelVersionProgram {
  /**
   * The compiled rules of a schema node that has rules (and a CEL type); undefined for other nodes. A lazy program
   * compiles a node's rules the first time they are asked for.
   */
  rulesOf(node: SchemaNode): NodeRules | undefined;
  /** The nodes whose rules are compiled: every node with rules, or, for a lazy program, those asked for so far. */
  nodes: Map<SchemaNode, NodeRules>;
  /** Nodes at or above a node with rules (the walk skips every other subtree). */
  relevant: Set<SchemaNode>;
  /** The children of each relevant node that are relevant themselves (what the walk visits). */
  children: Map<SchemaNode, RelevantChildren>;
  ruleCount: number;
}

/** A relevant node's relevant children. */
export interface RelevantChildren {
  /** Properties, as [name, schema]. */
  readonly properties: readonly (readonly [string, SchemaNode])[];
  readonly additionalProperties: SchemaNode | null;
  readonly items: SchemaNode | null;
}

/** The relevant children of every relevant node. */
function relevantChildren(relevant: ReadonlySet<SchemaNode>): Map<SchemaNode, RelevantChildren> {
  const out = new Map<SchemaNode, RelevantChildren>();
  const pick = (n: SchemaNode | null) => (n !== null && relevant.has(n) ? n : null);
  for (const n of relevant) {
    out.set(n, {
      properties: n.properties === null ? [] : [...n.properties].filter(([, sub]) => relevant.has(sub)),
      additionalProperties: pick(n.additionalProperties),
      items: pick(n.items),
    });
  }
  return out;
}

const REASONS: Record<string, FieldErrorType> = {
  FieldValueInvalid: "FieldValueInvalid",
  FieldValueForbidden: "FieldValueForbidden",
  FieldValueRequired: "FieldValueRequired",
  FieldValueDuplicate: "FieldValueDuplicate",
};

let versionCounter = 0;

/** A schema node that carries rules. */
interface RuleNode {
  node: SchemaNode;
  isRoot: boolean;
  cardinality: Cardinality;
  /**
   * The highest list above the node whose items old and new objects cannot correlate (every list but
   * `x-kubernetes-list-type: map`): its schema path. Rules there may not use oldSelf.
   */
  uncorrelatableWithin?: string;
}

/** Step 1: the nodes with rules (with their cardinality) and the nodes at or above them. */
function collectRuleNodes(root: SchemaNode): { withRules: RuleNode[]; relevant: Set<SchemaNode> } {
  const relevant = new Set<SchemaNode>();
  const withRules: RuleNode[] = [];
  const seen = new Set<SchemaNode>();
  const collect = (n: SchemaNode, isRoot: boolean, cardinality: Cardinality, within?: string): boolean => {
    if (seen.has(n)) return relevant.has(n);
    seen.add(n);
    let has = n.validations.length > 0;
    if (has)
      withRules.push(
        within === undefined
          ? { node: n, isRoot, cardinality }
          : { node: n, isRoot, cardinality, uncorrelatableWithin: within },
      );
    const cc = childCardinality(n, cardinality);
    if (n.properties !== null) for (const p of n.properties.values()) if (collect(p, false, cc, within)) has = true;
    if (n.additionalProperties !== null && collect(n.additionalProperties, false, cc, within)) has = true;
    // apiextensions validation: only the items of map lists correlate (an unset list type is atomic)
    const itemsWithin = within ?? (n.listType === "map" ? undefined : n.schemaPath);
    if (n.items !== null && collect(n.items, false, cc, itemsWithin)) has = true;
    if (has) relevant.add(n);
    return has;
  };
  collect(root, true, ROOT_CARDINALITY);
  return { withRules, relevant };
}

/** The rule's fields as the API server prints them in compile errors (Go's JSON of the ValidationRule). */
function ruleJson(r: ValidationRule): string {
  const o: Record<string, unknown> = {
    Rule: r.rule,
    Message: r.message ?? "",
    MessageExpression: r.messageExpression ?? "",
  };
  if (r.reason !== undefined) o.Reason = r.reason;
  o.FieldPath = r.fieldPath ?? "";
  o.OptionalOldSelf = r.optionalOldSelf ?? null;
  return JSON.stringify(o, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
}

/** Where one node's rules compile: its environments (per optionalOldSelf), cost facts and issue sink. */
interface NodeContext {
  node: SchemaNode;
  resourceRoot: boolean;
  cardinality: Cardinality;
  /** The environment with `self` and `oldSelf` (optional<T> when `optional`); undefined when self has no CEL type. */
  environment(optional: boolean): CelEnvironment | undefined;
  costTotal: SchemaCostTotal;
  issues: CompileIssue[];
  uncorrelatableWithin: string | undefined;
  /** The fields of the schema's object types, for the checks the engine's type check lacks (checker-gaps.ts). */
  objectFields: ObjectFields;
  /** How the compiled expressions evaluate (CompileOptions.evaluation). */
  evaluation: EvaluationMode | undefined;
  /** Only check the rules (report their issues), without making their programs (checkExpression). */
  checkOnly: boolean;
}

/**
 * Step 3: the environments of every node's rules, made together (they share the version's engine environment):
 * for each node with a CEL type, one with `self` and `oldSelf`, and one with `oldSelf` optional if a rule asks.
 */
function nodeEnvironments(
  versionEnv: CelEnvironment,
  nodes: readonly { node: SchemaNode; selfType: CelType | null; sizes: Decl | null }[],
): Map<SchemaNode, (optional: boolean) => CelEnvironment | undefined> {
  const wanted: { node: SchemaNode; optional: boolean; declarations: VariableDeclarations }[] = [];
  for (const { node, selfType, sizes } of nodes) {
    if (selfType === null) continue;
    for (const optional of [false, true]) {
      if (optional && !node.validations.some((r) => r.optionalOldSelf === true)) continue;
      const oldSelf = optional ? `optional<${selfType.name}>` : selfType.name;
      wanted.push({ node, optional, declarations: { variables: { self: selfType.name, oldSelf }, sizes } });
    }
  }
  const made = versionEnv.extendEach(wanted.map((w) => w.declarations));
  const byNode = new Map<SchemaNode, CelEnvironment[]>();
  wanted.forEach((w, i) => {
    const envs = byNode.get(w.node) ?? [];
    envs[w.optional ? 1 : 0] = made[i]!;
    byNode.set(w.node, envs);
  });
  const out = new Map<SchemaNode, (optional: boolean) => CelEnvironment | undefined>();
  for (const { node } of nodes) out.set(node, (optional) => byNode.get(node)?.[optional ? 1 : 0]);
  return out;
}

/** Step 4a: the checks of a rule's fields; its reason's cause type and normalised fieldPath, or undefined. */
function checkRuleFields(
  rule: ValidationRule,
  node: SchemaNode,
  fail: (field: string, message: string) => void,
): { reasonType: FieldErrorType; fieldPath: string | undefined } | undefined {
  if (rule.rule.trim() === "") {
    fail("rule", "Required value: rule is not specified");
    return undefined;
  }
  if (rule.rule.includes("\n") && (rule.message === undefined || rule.message.trim() === "")) {
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
      `Unsupported value: ${formatValue(rule.reason)}: supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
    );
    return undefined;
  }
  let fieldPath: string | undefined;
  if (rule.fieldPath !== undefined && rule.fieldPath !== "") {
    fieldPath = normaliseFieldPath(rule.fieldPath, node);
    if (fieldPath === undefined) {
      fail("fieldPath", `Invalid value: ${formatValue(rule.fieldPath)}: must be a valid path`);
      return undefined;
    }
  }
  return { reasonType, fieldPath };
}

/**
 * Step 4c: compiles a rule's messageExpression into `compiled` (issues for what does not compile); checks it only
 * when the node's rules are only checked (`compiled` undefined).
 */
function compileMessageExpression(
  rule: ValidationRule,
  env: CelEnvironment,
  compiled: CompiledRule | undefined,
  at: string,
  ctx: NodeContext,
  fail: (field: string, message: string) => void,
): void {
  const text = rule.messageExpression;
  if (text === undefined) return;
  if (text.trim() === "") {
    fail("messageExpression", "Required value: messageExpression must be non-empty if specified");
    return;
  }
  const options = { expectedType: "string", evaluation: ctx.evaluation };
  const r = ctx.checkOnly ? checkExpression(env, text, options) : compileExpression(env, text, options);
  if (r.kind === "failed") {
    fail(
      "messageExpression",
      r.reason === "type"
        ? `Invalid value: ${ruleJson(rule)}: messageExpression must evaluate to a string`
        : `Invalid value: ${ruleJson(rule)}: messageExpression compilation failed: ${formatIssues(text, r.issues)}`,
    );
    return;
  }
  const messageCostIssue = messageExpressionCostIssue(r.cost.max);
  if (messageCostIssue !== undefined) fail("messageExpression", messageCostIssue);
  ctx.costTotal.observe(`${at}.messageExpression`, r.cost.max);
  if (compiled === undefined || r.kind !== "compiled") return;
  compiled.messageProgram = r.program;
  compiled.messageEstimatedCost = r.cost.max;
}

/** Step 4: compiles one rule of a node (index `i`); undefined when it does not compile, or is only checked. */
function compileRule(rule: ValidationRule, i: number, ctx: NodeContext): CompiledRule | undefined {
  const { node } = ctx;
  const at = `${node.schemaPath === "" ? "" : `${node.schemaPath}.`}x-kubernetes-validations[${i}]`;
  const fail = (field: string, message: string) =>
    ctx.issues.push({ path: `${at}.${field}`, message, severity: "error" });
  const fields = checkRuleFields(rule, node, fail);
  if (fields === undefined) return undefined;
  const env = ctx.environment(rule.optionalOldSelf === true);
  if (env === undefined) {
    fail("rule", `Invalid value: ${ruleJson(rule)}: compilation failed: the schema of this node has no CEL type`);
    return undefined;
  }
  const checks = (syntax: SyntaxNode, text: string) => checkerGaps(syntax, text, ctx.objectFields);
  const options = { expectedType: "bool", checks, evaluation: ctx.evaluation };
  const r = ctx.checkOnly ? checkExpression(env, rule.rule, options) : compileExpression(env, rule.rule, options);
  if (r.kind === "failed") {
    fail(
      "rule",
      r.reason === "type"
        ? `Invalid value: ${ruleJson(rule)}: cel expression must evaluate to a bool`
        : `Invalid value: ${ruleJson(rule)}: compilation failed: ${formatIssues(rule.rule, r.issues)}`,
    );
    return undefined;
  }
  const cost = ruleCost(r.cost.max, node, ctx.cardinality, ctx.resourceRoot);
  const costIssue = ruleCostIssue(cost);
  if (costIssue !== undefined) fail("rule", costIssue);
  ctx.costTotal.observe(`${at}.rule`, cost);
  const usesOldSelf = referencesIdentifier(r.kind === "compiled" ? r.program.syntax : r.syntax, "oldSelf");
  if (usesOldSelf && ctx.uncorrelatableWithin !== undefined) {
    ctx.issues.push({
      path: `${at}.rule`,
      message: `Invalid value: ${formatValue(rule.rule)}: oldSelf cannot be used on the uncorrelatable portion of the schema within `,
      severity: "error",
      messagePath: ctx.uncorrelatableWithin,
    });
  }
  if (rule.optionalOldSelf === true && !usesOldSelf) {
    fail("optionalOldSelf", "Invalid value: true: may not be set if oldSelf is not used in rule");
    return undefined;
  }
  if (r.kind !== "compiled") {
    compileMessageExpression(rule, env, undefined, at, ctx, fail);
    return undefined;
  }
  const trimmedMessage = rule.message?.trim();
  const hasMessage = trimmedMessage !== undefined && trimmedMessage !== "";
  const compiled: CompiledRule = {
    source: rule,
    program: r.program,
    usesOldSelf,
    optionalOldSelf: rule.optionalOldSelf === true,
    staticMessage: hasMessage ? trimmedMessage : `failed rule: ${rule.rule.trim()}`,
    ruleErrorString: hasMessage ? trimmedMessage : rule.rule.trim(),
    reasonType: fields.reasonType,
    estimatedCost: r.cost.max,
  };
  if (fields.fieldPath !== undefined) compiled.fieldPath = fields.fieldPath;
  compileMessageExpression(rule, env, compiled, at, ctx, fail);
  return compiled;
}

/** How a version's rules compile: all at once (reporting every issue), or each node's on first use. */
export interface CelRulesCompileOptions {
  /**
   * Compile each node's rules when `rulesOf` first asks for them, and report no issues: for bundle artifacts, whose
   * build compiled every rule and recorded its issues. Default false.
   */
  readonly lazy?: boolean;
  /**
   * Check every rule now, reporting every issue as compiling them does, but make each node's programs when `rulesOf`
   * first asks for them (a load that validates few kinds of a large bundle makes few programs). Default false:
   * every program now. No effect on a lazy compile.
   */
  readonly programsOnFirstUse?: boolean;
  /** How the expressions evaluate (CompileOptions.evaluation; tests compare the modes). Default: the default. */
  readonly evaluation?: EvaluationMode;
}

/** What the nodes of one version share: its types, environment and cost total (made on first need). */
interface VersionScope {
  types: Map<SchemaNode, CelType | null>;
  versionEnv: CelEnvironment;
  objectFields: ObjectFields;
  costTotal: SchemaCostTotal;
}

function versionScope(withRules: readonly RuleNode[]): VersionScope {
  // Step 2: the version's types, declared in one environment.
  const registry = new CelTypeRegistry(`k8s.v${versionCounter++}.`);
  const types = new Map<SchemaNode, CelType | null>();
  for (const { node, isRoot } of withRules) types.set(node, registry.typeOf(node, isRoot));
  const versionEnv = createCelEnvironment({ objectTypes: registry.objectTypes });
  const objectFields = objectFieldsOf(registry.objectTypes);
  return { types, versionEnv, objectFields, costTotal: new SchemaCostTotal() };
}

/** Steps 3 and 4 for some of the version's rule nodes: their rules compiled into `nodes` (or only checked). */
function compileNodes(
  scope: VersionScope,
  ruleNodes: readonly RuleNode[],
  nodes: Map<SchemaNode, NodeRules>,
  issues: CompileIssue[],
  evaluation: EvaluationMode | undefined,
  checkOnly = false,
): void {
  const { types, versionEnv, objectFields, costTotal } = scope;
  const environments = nodeEnvironments(
    versionEnv,
    ruleNodes.map(({ node, isRoot }) => ({
      node,
      selfType: types.get(node) ?? null,
      sizes: schemaSizes(node, isRoot || node.embeddedResource),
    })),
  );
  for (const { node, isRoot, cardinality, uncorrelatableWithin } of ruleNodes) {
    const selfType = types.get(node) ?? null;
    const ctx: NodeContext = {
      objectFields,
      node,
      resourceRoot: isRoot || node.embeddedResource,
      cardinality,
      environment: environments.get(node)!,
      costTotal,
      issues,
      uncorrelatableWithin,
      evaluation,
      checkOnly,
    };
    const compiled: CompiledRule[] = [];
    node.validations.forEach((rule, i) => {
      const c = compileRule(rule, i, ctx);
      if (c !== undefined) compiled.push(c);
    });
    if (selfType !== null && !checkOnly) nodes.set(node, { selfType, rules: compiled });
  }
}

/** Compiles the rules of one CRD version schema. Issue paths are relative to openAPIV3Schema. */
export function compileCelRules(
  root: SchemaNode,
  issues: CompileIssue[],
  options: CelRulesCompileOptions = {},
): CelVersionProgram {
  const nodes = new Map<SchemaNode, NodeRules>();
  const { withRules, relevant } = collectRuleNodes(root);
  if (withRules.length === 0) {
    return { rulesOf: () => undefined, nodes, relevant, children: new Map(), ruleCount: 0 };
  }
  let ruleCount = 0;
  for (const { node } of withRules) ruleCount += node.validations.length;
  const children = relevantChildren(relevant);
  let scope: VersionScope | undefined;
  if (options.lazy !== true) {
    scope = versionScope(withRules);
    const checkOnly = options.programsOnFirstUse === true;
    compileNodes(scope, withRules, nodes, issues, options.evaluation, checkOnly);
    appendAll(issues, scope.costTotal.issues());
    if (!checkOnly) return { rulesOf: (node) => nodes.get(node), nodes, relevant, children, ruleCount };
  }
  // A node's rules compile when first asked for, with issues nobody reads (reported by the checks above, or by an
  // artifact's build).
  const pending = new Map(withRules.map((r) => [r.node, r]));
  const rulesOf = (node: SchemaNode): NodeRules | undefined => {
    const ruleNode = pending.get(node);
    if (ruleNode !== undefined) {
      pending.delete(node);
      scope ??= versionScope(withRules);
      compileNodes(scope, [ruleNode], nodes, [], options.evaluation);
    }
    return nodes.get(node);
  };
  return { rulesOf, nodes, relevant, children, ruleCount };
}
