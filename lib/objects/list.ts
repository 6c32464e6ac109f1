/**
 * `kind: List` unwrapping, as kubectl's resource builder does it (FlattenListVisitor over
 * unstructured lists).
 */
import { isMapping } from "./mapping.js";

/**
 * The items of a list object: a mapping whose `kind` ends in "List" (`List`, `DeploymentList`, …)
 * and whose `items` is an array. Returns undefined for anything else, so the caller treats the
 * value as a single object.
 *
 * - Lists nested in the items are flattened in kubectl's order: the queue is breadth first, so
 *   `List[a, List[b, c], d]` gives `a, d, b, c`.
 * - An item that is a mapping with neither `kind` nor `apiVersion` takes them from a typed list
 *   (`kind: DeploymentList, apiVersion: apps/v1` → `Deployment`, `apps/v1`), as apimachinery's
 *   unstructured list decoding does; the item is copied, never changed. Items of a plain `List`
 *   are left as they are.
 * - Other items (not mappings) are returned as they are, for the caller to report.
 *
 * Unlike kubectl, which treats any object with an `items` field as a list, the kind must end in
 * "List", so an object that merely has an `items` field is not unwrapped.
 */
export function unwrapList(obj: unknown): unknown[] | undefined {
  if (!isList(obj)) return undefined;
  const items: unknown[] = [];
  const queue: unknown[] = [obj];
  for (let i = 0; i < queue.length; i++) {
    const current = queue[i];
    if (!isList(current)) {
      items.push(current);
      continue;
    }
    for (const item of current.items) queue.push(withListKind(item, current));
  }
  return items;
}

interface ListObject extends Record<string, unknown> {
  kind: string;
  items: unknown[];
}

function isList(value: unknown): value is ListObject {
  return (
    isMapping(value) && typeof value.kind === "string" && value.kind.endsWith("List") && Array.isArray(value.items)
  );
}

function withListKind(item: unknown, list: ListObject): unknown {
  if (!isMapping(item) || item.kind !== undefined || item.apiVersion !== undefined) return item;
  const kind = list.kind.slice(0, -"List".length);
  if (kind === "" || typeof list.apiVersion !== "string") return item;
  return { apiVersion: list.apiVersion, kind, ...item };
}
