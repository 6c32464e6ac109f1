/**
 * The `fieldPath` of an `x-kubernetes-validations` rule (apiextensions validation.go `ValidFieldPath`): a path
 * relative to the rule's node, in JSONPath-like steps (`.name` or `['key']`), that must resolve in the schema.
 */
import type { SchemaNode } from "../../schema/structural.js";

/**
 * Parses a fieldPath relative to a node; returns the normalised text (`spec.a.b`, map keys as `[key]`) or undefined
 * when it does not resolve.
 */
export function normaliseFieldPath(fieldPath: string, node: SchemaNode): string | undefined {
  let s = fieldPath.trim();
  let cur: SchemaNode | null = node;
  let out = "";
  if (s.length === 0) return undefined;
  while (s.length > 0) {
    if (cur === null) return undefined;
    let name: string;
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
  }
  return out;
}
