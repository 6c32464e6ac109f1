/**
 * What cel-go's checker refuses and the engine's type check lets through, for CRD rules (whose types all come from
 * the schema):
 *
 * - presence tests on undeclared fields: `has(self.spec.nope)` (and `has(self.nope.x)`) fail with
 *   `undefined field 'nope'` when the operand is an object type without that field, as every object of a
 *   structural schema is in Kubernetes. Object types are the schema's (`CelTypeRegistry.objectTypes`, see
 *   objectFieldsOf); maps
 *   (`additionalProperties`) take any key;
 * - a map indexed by a key of another type (`self.labels[1]`): cel-go's `_[_]` takes `map(K, V), K`, so
 *   `found no matching overload for '_[_]' applied to '(map(string, string), int)'`.
 */

import { splitTopLevel } from "../cost/type-names.js";
import { callOf, checkedTypeName, type SyntaxNode, syntaxChildren } from "../engine.js";
import type { CelObjectType } from "../environment.js";
import { type CompileIssue, celGoTypeName, dotBefore } from "../issues.js";

/** The declared fields of each object type, by type name. */
export type ObjectFields = ReadonlyMap<string, Readonly<Record<string, string>>>;
type Fields = ObjectFields;

/** The fields of the given object types, for checkerGaps (made once per set of types, not per expression). */
export function objectFieldsOf(objectTypes: readonly CelObjectType[]): ObjectFields {
  return new Map(objectTypes.map((t) => [t.name, t.fields]));
}

/** The type of a select chain's node: the checker's, else its parent object type's field; null for a missing field. */
function chainType(n: SyntaxNode, fields: Fields, found: { missing?: SyntaxNode }): string | undefined {
  const checked = checkedTypeName(n);
  if (checked !== undefined) return checked;
  if (n.op !== ".") return undefined;
  const parent = chainType(n.args[0], fields, found);
  if (parent === undefined || found.missing !== undefined) return undefined;
  const declared = fields.get(parent);
  if (declared === undefined) return undefined;
  const t = Object.hasOwn(declared, n.args[1]) ? declared[n.args[1]] : undefined;
  if (t === undefined) found.missing = n;
  return t;
}

/** Where cel-go points at a selected field (its `.`), when the node's text is the source's. */
function fieldOffset(
  text: string,
  n: Extract<SyntaxNode, { args: readonly [SyntaxNode, string] }>,
): number | undefined {
  const field = n.args[1];
  const fieldStart = n.end - field.length;
  if (text.slice(fieldStart, n.end) !== field) return undefined;
  const dot = dotBefore(text, fieldStart);
  return text[dot] === "." ? dot : undefined;
}

/** A map index whose key type is not the map's (both known and not dyn), as cel-go's checker reports it. */
function mapIndexMismatch(n: SyntaxNode, text: string): CompileIssue | undefined {
  if (n.op !== "[]" && n.op !== "[?]") return undefined;
  const [operand, index] = n.args;
  const mapType = checkedTypeName(operand);
  const keyType = checkedTypeName(index);
  const m = mapType === undefined ? null : /^map<(.*)>$/.exec(mapType);
  if (m === null || keyType === undefined || keyType === "dyn") return undefined;
  const [k] = splitTopLevel(m[1]!);
  if (k === undefined || k === "dyn" || k === keyType) return undefined;
  const fn = n.op === "[]" ? "_[_]" : "_[?_]";
  const applied = `${celGoTypeName(mapType!)}, ${celGoTypeName(keyType)}`;
  const bracket = text.indexOf("[", operand.end);
  const at = bracket === -1 ? {} : { offset: bracket };
  return { detail: `found no matching overload for '${fn}' applied to '(${applied})'`, ...at };
}

/** Every expression cel-go's checker would refuse and the engine let through (see above), in source order. */
export function checkerGaps(syntax: SyntaxNode, text: string, fields: ObjectFields): CompileIssue[] {
  const issues: CompileIssue[] = [];
  const visit = (n: SyntaxNode): void => {
    const issue = gapAt(n, text, fields);
    if (issue !== undefined) issues.push(issue);
    for (const c of syntaxChildren(n)) visit(c);
  };
  visit(syntax);
  return issues;
}

/** What cel-go's checker refuses at one node, if anything. */
function gapAt(n: SyntaxNode, text: string, fields: Fields): CompileIssue | undefined {
  const mismatch = mapIndexMismatch(n, text);
  if (mismatch !== undefined) return mismatch;
  const call = callOf(n);
  if (call === undefined || call.target !== undefined) return undefined;
  const [operand, name] = call.args;
  if (call.name === "has" && call.args.length === 1 && operand?.op === ".") {
    const found: { missing?: SyntaxNode } = {};
    chainType(operand, fields, found);
    const m = found.missing;
    if (m !== undefined && m.op === ".") {
      const offset = fieldOffset(text, m);
      return { detail: `undefined field '${m.args[1]}'`, ...(offset === undefined ? {} : { offset }) };
    }
  }
  // has() on an operand that is not a select chain, rewritten to __has(operand, 'field') (../rewrite.ts)
  if (call.name === "__has" && operand !== undefined && name?.op === "value" && typeof name.args === "string") {
    const t = checkedTypeName(operand);
    const declared = t === undefined ? undefined : fields.get(t);
    if (declared !== undefined && !Object.hasOwn(declared, name.args)) {
      return { detail: `undefined field '${name.args}'` };
    }
  }
  return undefined;
}
