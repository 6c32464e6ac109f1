/**
 * Evaluates the compiled CEL rules of a CRD version on one object (apiextensions-apiserver
 * pkg/apiserver/schema/cel/validation.go): every non-null value a rule's schema node applies to, rules in
 * declaration order then children; transition rules only with a correlated old value (or always with
 * optionalOldSelf); failures rendered with message/messageExpression/reason/fieldPath; runtime errors with the
 * schema type; failures of rules without oldSelf on unchanged values ratcheted into warnings.
 * See spec/k8s-cel-semantics.md §4–§5 and §8.
 */
import {
  type ErrorContext,
  type FieldError,
  type FieldErrorType,
  invalid,
  OMIT_VALUE,
  withType,
} from "../../field/error.js";
import { childOf, indexOf, keyOf, type Path } from "../../field/path.js";
import { goQuote } from "../../go/strconv.js";
import { correlatedEqual, deepEqualJson } from "../../schema/equality.js";
import type { SchemaNode } from "../../schema/structural.js";
import { Optional } from "../engine.js";
import { evaluate } from "../program.js";
import type { CelVersionProgram, CompiledRule, NodeRules } from "./compile.js";

const NO_OLD: unique symbol = Symbol("no-old");
type Old = unknown | typeof NO_OLD;

const MAX_MESSAGE_EXPRESSION_BYTES = 5120;

/** Runtime cost limits (apiserver pkg/apis/cel/config.go): per evaluation, and per object. */
export const PER_CALL_LIMIT = 1_000_000;
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;

interface Budget {
  remaining: number;
  stopped: boolean;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export interface CelOutcome {
  errors: FieldError[];
  warnings: FieldError[];
}

/**
 * The walk over one CRD version's schema: each node at or above a node with rules, its rules and the children to
 * visit, linked directly (made once per program).
 */
interface WalkNode {
  readonly schema: SchemaNode;
  /** The node's rules, when it has any (known from the node's first visit on: see `pending`). */
  rules: NodeRules | undefined;
  /**
   * The program to ask for the node's rules on its first visit, when the node has rules (a lazy program compiles
   * them then, CelVersionProgram.rulesOf); undefined once asked.
   */
  pending: CelVersionProgram | undefined;
  readonly properties: readonly (readonly [string, WalkNode])[];
  readonly additionalProperties: WalkNode | null;
  readonly items: WalkNode | null;
}

/** The walk of each program from the root it was last evaluated on (a program is always evaluated on one). */
const walks = new WeakMap<CelVersionProgram, { root: SchemaNode; walk: WalkNode | undefined }>();

/** The program last walked, its root and walk: consecutive objects are often of one kind. */
let last: { program: CelVersionProgram; root: SchemaNode; walk: WalkNode | undefined } | undefined;

function walkNodeOf(program: CelVersionProgram, root: SchemaNode): WalkNode | undefined {
  if (last !== undefined && last.program === program && last.root === root) return last.walk;
  let w = walks.get(program);
  if (w === undefined || w.root !== root) {
    w = { root, walk: buildWalk(program, root) };
    walks.set(program, w);
  }
  last = { program, root, walk: w.walk };
  return w.walk;
}

function buildWalk(program: CelVersionProgram, schema: SchemaNode): WalkNode | undefined {
  const children = program.children.get(schema);
  if (children === undefined) return undefined;
  const child = (n: SchemaNode | null) => (n === null ? null : (buildWalk(program, n) ?? null));
  const properties: (readonly [string, WalkNode])[] = [];
  for (const [name, sub] of children.properties) {
    const w = buildWalk(program, sub);
    if (w !== undefined) properties.push([name, w]);
  }
  return {
    schema,
    rules: undefined,
    pending: schema.validations.length > 0 ? program : undefined,
    properties,
    additionalProperties: child(children.additionalProperties),
    items: child(children.items),
  };
}

/** Evaluates every rule of `program` on `object` (with `oldObject` on UPDATE). */
export function evaluateCelRules(
  program: CelVersionProgram,
  root: SchemaNode,
  object: Record<string, unknown>,
  oldObject: Record<string, unknown> | undefined,
  ctx: ErrorContext,
): CelOutcome {
  const out: CelOutcome = { errors: [], warnings: [] };
  if (program.ruleCount === 0) return out;
  const w = walkNodeOf(program, root);
  if (w === undefined) return out;
  const budget: Budget = { remaining: RUNTIME_CEL_COST_BUDGET, stopped: false };
  // No stack traces for the errors the evaluations make (see evaluateMetered), set once for all the object's rules.
  const stackLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    walk(w, object, oldObject === undefined ? NO_OLD : oldObject, null, false, ctx, out, budget);
  } finally {
    Error.stackTraceLimit = stackLimit;
  }
  return out;
}

function correlateListMapItem(node: SchemaNode, item: unknown, oldList: unknown): Old {
  if (!Array.isArray(oldList) || !isRecord(item)) return NO_OLD;
  const keys = node.listMapKeys ?? [];
  for (const o of oldList) {
    if (!isRecord(o)) continue;
    if (keys.every((k) => deepEqualJson(item[k], o[k]))) return o;
  }
  return NO_OLD;
}

function walk(
  w: WalkNode,
  value: unknown,
  old: Old,
  path: Path | null,
  ancestorUnchanged: boolean,
  ctx: ErrorContext,
  out: CelOutcome,
  budget: Budget,
): void {
  if (budget.stopped || value === null || value === undefined) return;
  const node = w.schema;
  const correlated = old !== NO_OLD && old !== null && old !== undefined;
  const unchanged = correlated ? correlatedEqual(node, value, old) : ancestorUnchanged;
  if (w.pending !== undefined) {
    const rules = w.pending.rulesOf(node);
    w.rules = rules !== undefined && rules.rules.length > 0 ? rules : undefined;
    w.pending = undefined;
  }
  if (w.rules !== undefined) {
    evaluateNode(w.rules, value, correlated ? old : NO_OLD, path, unchanged, ctx, out, budget);
  }
  if (Array.isArray(value)) {
    const items = w.items;
    if (items === null) return;
    const isMapList = node.listType === "map";
    for (let i = 0; i < value.length; i++) {
      const itemOld: Old = correlated && isMapList ? correlateListMapItem(node, value[i], old) : NO_OLD;
      // Items that cannot be correlated ratchet with the nearest correlatable ancestor (this list).
      walk(items, value[i], itemOld, indexOf(path, i), unchanged, ctx, out, budget);
    }
    return;
  }
  if (!isRecord(value)) return;
  const oldObj = correlated && isRecord(old) ? old : null;
  for (const [name, sub] of w.properties) {
    if (!Object.hasOwn(value, name)) continue;
    const childOld: Old = oldObj !== null && Object.hasOwn(oldObj, name) ? oldObj[name] : NO_OLD;
    walk(sub, value[name], childOld, childOf(path, name), unchanged, ctx, out, budget);
  }
  const ap = w.additionalProperties;
  if (ap !== null) {
    for (const k of Object.keys(value)) {
      if (node.properties?.has(k) === true) continue;
      const childOld: Old = oldObj !== null && Object.hasOwn(oldObj, k) ? oldObj[k] : NO_OLD;
      walk(ap, value[k], childOld, keyOf(path, k), unchanged, ctx, out, budget);
    }
  }
}

function evaluateNode(
  rules: NodeRules,
  value: unknown,
  old: Old,
  path: Path | null,
  unchanged: boolean,
  ctx: ErrorContext,
  out: CelOutcome,
  budget: Budget,
): void {
  const self = rules.selfType.convert(value);
  let oldSelf: unknown;
  const hasOld = old !== NO_OLD;
  if (hasOld) oldSelf = rules.selfType.convert(old);
  // Rules without oldSelf share one activation (evaluation does not change it).
  let selfOnly: Record<string, unknown> | undefined;
  for (const rule of rules.rules) {
    if (rule.usesOldSelf && !rule.optionalOldSelf && !hasOld) continue;
    let activation: Record<string, unknown>;
    if (rule.usesOldSelf) {
      activation = {
        self,
        oldSelf: rule.optionalOldSelf ? (hasOld ? Optional.of(oldSelf) : Optional.none()) : oldSelf,
      };
    } else activation = selfOnly ??= { self };
    if (budget.stopped) return;
    const r = evaluate(rule.program, activation, PER_CALL_LIMIT);
    // The API server charges the cost first (also of an evaluation that failed or was cancelled at the per-call
    // limit, with what it had spent), then looks at the outcome.
    if (r.cost > budget.remaining) {
      out.errors.push(costError(rules, rule, path, ctx, "budget"));
      budget.stopped = true;
      return;
    }
    budget.remaining -= r.cost;
    if (r.kind === "cost-limit-exceeded") {
      out.errors.push(costError(rules, rule, path, ctx, "call"));
      budget.stopped = true;
      return;
    }
    if (r.kind === "error") {
      out.errors.push(runtimeError(r, rule, rules, path, ctx));
      continue;
    }
    const result = r.value;
    if (result === true) continue;
    const isScalar = !isRecord(value) && !Array.isArray(value);
    const err = failure(rule, activation, hasOld ? oldSelf : undefined, value, isScalar, path, ctx, budget);
    if (typeof err === "string") {
      out.errors.push(costError(rules, rule, path, ctx, err));
      budget.stopped = true;
      return;
    }
    if (!rule.usesOldSelf && unchanged) {
      const w = { ...err, severity: "warning" as const };
      out.warnings.push(w);
    } else {
      out.errors.push(err);
    }
  }
}

function fieldText(path: Path | null, fieldPath: string | undefined): string | null {
  const base = path === null ? null : path.toString();
  if (fieldPath === undefined) return base;
  if (base === null) return fieldPath;
  return fieldPath.startsWith("[") ? `${base}${fieldPath}` : `${base}.${fieldPath}`;
}

function failure(
  rule: CompiledRule,
  activation: Record<string, unknown>,
  oldSelf: unknown,
  value: unknown,
  isScalar: boolean,
  path: Path | null,
  ctx: ErrorContext,
  budget: Budget,
): FieldError | "messageBudget" | "messageCall" {
  let detail = rule.staticMessage;
  if (rule.messageProgram !== undefined) {
    const msgActivation: Record<string, unknown> = { self: activation.self };
    // Quirk: an optionalOldSelf rule's messageExpression is evaluated with the plain binding.
    if (rule.optionalOldSelf) {
      if (oldSelf !== undefined) msgActivation.oldSelf = oldSelf;
    } else if (activation.oldSelf !== undefined) msgActivation.oldSelf = activation.oldSelf;
    const r = evaluate(rule.messageProgram, msgActivation, PER_CALL_LIMIT);
    // Over the budget (also when cancelled at the per-call limit with more than the budget spent) or cancelled:
    // evaluation stops. Any other error falls back to the static message, as the API server does (it only logs
    // the error), and its cost is charged.
    if (r.cost > budget.remaining) return "messageBudget";
    if (r.kind === "cost-limit-exceeded") return "messageCall";
    budget.remaining -= r.cost;
    if (r.kind === "value") {
      const m = r.value;
      if (typeof m === "string") {
        const t = m.trim();
        if (t !== "" && !t.includes("\n") && Buffer.byteLength(t) <= MAX_MESSAGE_EXPRESSION_BYTES) detail = t;
      }
    }
  }
  const field = fieldText(path, rule.fieldPath);
  const shown = isScalar ? value : OMIT_VALUE;
  const c: ErrorContext = { ...ctx, source: { ...ctx.source, rule: rule.source.rule }, origin: "cel" };
  const type: FieldErrorType = rule.reasonType;
  if (type === "FieldValueDuplicate") return withType(type, field, shown, "", c);
  return withType(type, field, shown, detail, c);
}

function runtimeError(
  e: { message: string; noSuchOverload: boolean },
  rule: CompiledRule,
  rules: NodeRules,
  path: Path | null,
  ctx: ErrorContext,
): FieldError {
  const { message: text, noSuchOverload } = e;
  const c: ErrorContext = { ...ctx, source: { ...ctx.source, rule: rule.source.rule }, origin: "cel" };
  const detail = noSuchOverload
    ? `'${text}': call arguments did not match a supported operator, function or macro signature for rule: ${rule.ruleErrorString}`
    : `${text} evaluating rule: ${rule.ruleErrorString}`;
  const err = invalid(path, rules.selfType.schemaTypeName, detail, c);
  err.evaluationError = true;
  return err;
}

/** The API server's texts when a rule or its messageExpression runs past the per-call limit or the budget. */
const COST_ERROR_TEXTS: Readonly<
  Record<"call" | "budget" | "messageBudget" | "messageCall", (r: CompiledRule) => string>
> = {
  call: (r) =>
    `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${r.ruleErrorString}`,
  budget: () => "validation failed due to running out of cost budget, no further validation rules will be run",
  messageBudget: () =>
    "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run",
  messageCall: (r) =>
    `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${goQuote(r.source.messageExpression ?? "")}`,
};

function costError(
  rules: NodeRules,
  rule: CompiledRule,
  path: Path | null,
  ctx: ErrorContext,
  kind: "call" | "budget" | "messageBudget" | "messageCall",
): FieldError {
  const c: ErrorContext = { ...ctx, source: { ...ctx.source, rule: rule.source.rule }, origin: "cel" };
  const detail = COST_ERROR_TEXTS[kind](rule);
  const err = invalid(path, rules.selfType.schemaTypeName, detail, c);
  err.evaluationError = true;
  return err;
}
