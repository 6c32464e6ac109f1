/**
 * Whether a JSONPath can ever resolve against the typed VirtualMachine, decided on the types alone (for template
 * lint): the walk of evaluate.ts over sets of Go types instead of values. A path that fails here fails on every VM
 * and on the reference VM ("invalid JSONPath"); a path that passes may still find nothing on a given VM (an index
 * out of range, an absent map key, a filter that matches nothing).
 */
import { appendAll } from "../../objects/append.js";
import { ANY_TYPE, lookupField, type TypeNode, typeText, virtualMachineType } from "../vm-types.js";
import type { JpNode, ListNode } from "./parser.js";

const STRING: TypeNode = { kind: "scalar", scalar: "string" };
const INTEGER: TypeNode = { kind: "scalar", scalar: "integer" };
const NUMBER: TypeNode = { kind: "scalar", scalar: "number" };
const BOOLEAN: TypeNode = { kind: "scalar", scalar: "boolean" };

/** Most types one check may visit (`..` over the whole VM visits a few hundred). */
const MAX_TYPES = 20_000;

class StaticError extends Error {}

function children(t: TypeNode): TypeNode[] {
  switch (t.kind) {
    case "struct":
      return t.fields.names.map((n) => t.fields.get(n)!.type);
    case "map":
      return [t.value];
    case "list":
      return [t.item];
    case "any":
      return [ANY_TYPE];
    case "scalar":
      return t.scalar === "string" ? [INTEGER] : [];
  }
}

function unique(ts: TypeNode[]): TypeNode[] {
  return [...new Set(ts)];
}

class Checker {
  private visited = 0;

  private tick(n: number): void {
    this.visited += n;
    if (this.visited > MAX_TYPES) throw new StaticError("the path is too complex to check");
  }

  list(input: TypeNode[], node: ListNode): TypeNode[] {
    let cur = input;
    for (const n of node.nodes) cur = unique(this.walk(cur, n));
    return cur;
  }

  walk(input: TypeNode[], node: JpNode): TypeNode[] {
    this.tick(input.length);
    switch (node.type) {
      case "list":
        return this.list(input, node);
      case "text":
        return [STRING];
      case "int":
        return input.length > 0 ? [INTEGER] : [];
      case "float":
        return input.length > 0 ? [NUMBER] : [];
      case "bool":
        return input.length > 0 ? [BOOLEAN] : [];
      case "field": {
        if (input.length === 0) return [];
        const out: TypeNode[] = [];
        for (const t of input) {
          if (t.kind === "struct") {
            const f = lookupField(t, node.name);
            if (f !== undefined) out.push(f.type);
          } else if (t.kind === "map") out.push(t.value);
          else if (t.kind === "any") out.push(ANY_TYPE);
        }
        if (out.length === 0) {
          throw new StaticError(`${node.name} is not a field of ${unique(input).map(typeText).join(" or ")}`);
        }
        return out;
      }
      case "array":
      case "filter": {
        const out: TypeNode[] = [];
        for (const t of input) {
          if (t.kind === "list") out.push(t.item);
          else if (t.kind === "any") out.push(ANY_TYPE);
          else throw new StaticError(`${typeText(t)} is not a list`);
        }
        return out;
      }
      case "wildcard":
        return input.flatMap(children);
      case "recursive": {
        const seen = new Set<TypeNode>();
        const queue = [...input];
        while (queue.length > 0) {
          const t = queue.shift()!;
          if (seen.has(t)) continue;
          const c = children(t);
          if (c.length === 0) continue;
          seen.add(t);
          this.tick(c.length);
          appendAll(queue, c);
        }
        return [...seen];
      }
      case "union":
        return node.nodes.flatMap((n) => this.list(input, n));
      case "identifier":
        throw new StaticError(
          node.name === "range" || node.name === "end"
            ? `{${node.name}} is not supported in template validations`
            : `unrecognized identifier ${node.name}`,
        );
    }
  }
}

/**
 * Why `template` (a parsed `{.spec.template…}`) can never resolve against a VirtualMachine, or undefined when it may.
 */
export function staticPathProblem(template: ListNode): string | undefined {
  const checker = new Checker();
  try {
    for (const node of template.nodes) checker.walk([virtualMachineType()], node);
    return undefined;
  } catch (e) {
    if (e instanceof StaticError) return e.message;
    throw e;
  }
}
