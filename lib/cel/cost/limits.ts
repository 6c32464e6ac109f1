/**
 * The estimated cost limits of CRD validation rules (apiextensions `StaticEstimatedCostLimit`,
 * `StaticEstimatedCRDCostLimit`) and the API server's messages when an expression or a schema exceeds them.
 */

import { formatFloatFixed } from "../../go/strconv.js";
import type { CompileIssue } from "../../schema/structural.js";
import { addU } from "./range.js";

/** apiextensions `StaticEstimatedCostLimit`: the per-expression estimated cost limit (× cardinality for rules). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** apiextensions `StaticEstimatedCRDCostLimit`: the estimated cost limit of all expressions of one schema. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

/** The exceed factor of getCostErrorMessage: `more than 100x`, `%.1fx` from 1.5, `%fx` below. */
export function formatCostFactor(cost: number, limit: number): string {
  const f = cost / limit;
  if (f > 100) return "more than 100x";
  if (f < 1.5) return `${formatFloatFixed(f, 6)}x`;
  return `${formatFloatFixed(f, 1)}x`;
}

/** apiextensions getCostErrorMessage. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  return `${costName} exceeds budget by factor of ${formatCostFactor(cost, limit)} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** The compile issue text of a rule over the per-expression limit, or undefined when within it. */
export function ruleCostIssue(cost: number): string | undefined {
  if (cost <= STATIC_ESTIMATED_COST_LIMIT) return undefined;
  return `Forbidden: ${costErrorMessage("estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT)}`;
}

/** The compile issue text of a messageExpression over the per-expression limit, or undefined when within it. */
export function messageExpressionCostIssue(cost: number): string | undefined {
  if (cost <= STATIC_ESTIMATED_COST_LIMIT) return undefined;
  return `Forbidden: ${costErrorMessage("estimated messageExpression cost", cost, STATIC_ESTIMATED_COST_LIMIT)}`;
}

/**
 * The estimated cost total of one CRD version schema (apiextensions TotalCost): every rule's cost (× cardinality)
 * and every messageExpression's cost, with the four most expensive expressions of at least 1% of the limit.
 */
export class SchemaCostTotal {
  total = 0;
  private readonly mostExpensive: { path: string; cost: number }[] = [];

  /** Adds one expression's cost; `path` is the issue path of its `rule` or `messageExpression`. */
  observe(path: string, cost: number): void {
    this.total = addU(this.total, cost);
    if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
    this.mostExpensive.push({ path, cost });
    this.mostExpensive.sort((a, b) => b.cost - a.cost);
    if (this.mostExpensive.length > 4) this.mostExpensive.length = 4;
  }

  /** The issues when the total exceeds STATIC_ESTIMATED_CRD_COST_LIMIT (paths relative to openAPIV3Schema). */
  issues(): CompileIssue[] {
    if (this.total <= STATIC_ESTIMATED_CRD_COST_LIMIT) return [];
    const out: CompileIssue[] = this.mostExpensive.map((e) => ({
      path: e.path,
      message: "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
      severity: "error",
    }));
    out.push({
      path: "",
      message: `Forbidden: ${costErrorMessage(
        "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
        this.total,
        STATIC_ESTIMATED_CRD_COST_LIMIT,
      )}`,
      severity: "error",
    });
    return out;
  }
}
