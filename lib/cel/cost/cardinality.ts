/**
 * Cardinality (apiextensions `CELSchemaContext.MaxCardinality`): how often a rule's node can occur in one object,
 * by which its estimated cost is multiplied: the product of the `maxItems`/`maxProperties` of the lists and maps
 * above the node, or, when one of them is unbounded, 3 MiB / (the node's minimal serialized size + 1).
 */
import type { SchemaNode } from "../../schema/structural.js";
import { mulU } from "./range.js";
import { declOf, MAX_REQUEST_SIZE, zeroIfNegative } from "./schema-sizes.js";

/** How often a node's data can occur in one object: a number, or null when an enclosing list or map is unbounded. */
export type Cardinality = number | null;

/** The cardinality of the schema root. */
export const ROOT_CARDINALITY: Cardinality = 1;

/** apiextensions multiplyWithOverflowGuard. */
function multiplyWithOverflowGuard(base: number, cardinality: number): number {
  if (base === 0) return 0;
  return mulU(base, cardinality);
}

/** apiextensions extractMaxElements: the factor by which a node multiplies the cardinality of its children. */
function maxElementsFactor(node: SchemaNode): number | null {
  switch (node.type) {
    case "object":
      if (node.additionalProperties !== null || node.additionalPropertiesFalse) {
        const m = node.vv?.maxProperties;
        return m === undefined ? null : zeroIfNegative(m);
      }
      return 1;
    case "array": {
      const m = node.vv?.maxItems;
      return m === undefined ? null : zeroIfNegative(m);
    }
    default:
      return 1;
  }
}

/** The cardinality of the children (properties, items, additionalProperties) of `parent`. */
export function childCardinality(parent: SchemaNode, parentCardinality: Cardinality): Cardinality {
  if (parentCardinality === null) return null;
  const f = maxElementsFactor(parent);
  if (f === null) return null;
  return multiplyWithOverflowGuard(parentCardinality, f);
}

/**
 * The cardinality of a node from its ancestors (the schema root first, the node's parent last; [] for the root):
 * the product of their maxItems/maxProperties, or null when one of the lists or maps is unbounded.
 */
export function maxCardinality(ancestors: readonly SchemaNode[]): Cardinality {
  let c: Cardinality = ROOT_CARDINALITY;
  for (const a of ancestors) c = childCardinality(a, c);
  return c;
}

/** The cardinality assumed under an unbounded list or map: minimal serializations of the node in 3 MiB. */
export function unboundedCardinality(node: SchemaNode, isResourceRoot: boolean): number {
  const minSize = declOf(node, isResourceRoot)?.minSize ?? 0;
  return Math.floor(MAX_REQUEST_SIZE / (minSize + 1));
}

/**
 * A rule's cost as checked against STATIC_ESTIMATED_COST_LIMIT and added to the schema total: its estimated max
 * cost times its cardinality (apiextensions getExpressionCost).
 */
export function ruleCost(maxCost: number, node: SchemaNode, cardinality: Cardinality, isResourceRoot: boolean): number {
  return multiplyWithOverflowGuard(maxCost, cardinality ?? unboundedCardinality(node, isResourceRoot));
}
