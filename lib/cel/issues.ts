/**
 * Compile issues as cel-go reports them (cel-go common/errors.go and the checker's and parser's wording): each issue
 * at a line and column of the expression, printed as
 *
 *     ERROR: <input>:1:28: undeclared reference to 'isEven' (in container '')
 *      | object.spec.replicas.isEven()
 *      | ...........................^
 *
 * The engine words some errors differently and points at other places than cel-go's token positions (a call at its
 * `(`, a field selection at its `.`, a conditional at its `?`); this module translates the ones admission policies
 * show to their users (kube-apiserver returns the issues in its denial message). Issues it does not know keep the
 * engine's text at the engine's position.
 */

import { BINARY_FUNCTIONS } from "./cost/builtins.js";
import { splitTopLevel } from "./cost/type-names.js";
import { callOf, checkedTypeName, type SourceRange, type SyntaxNode } from "./engine.js";
import { OPTIONAL_LITERAL_FUNCTIONS } from "./pre-parse.js";
import { type MappedText, originalOffset } from "./source-map.js";

/** One issue: cel-go's text and the offset in the expression it points at, when known. */
export interface CompileIssue {
  readonly detail: string;
  readonly offset?: number;
}

/** An issue found on a text tollgate changed before parsing (source-map.ts), placed in the original text. */
export function placeIssue(issue: CompileIssue, source: MappedText): CompileIssue {
  return issue.offset === undefined ? issue : { ...issue, offset: originalOffset(source, issue.offset) };
}

/** ANTLR's expected set where an operand is expected (cel-go parser/gen/CEL.g4, `unary`). */
const OPERAND_EXPECTED =
  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

/** cel-go's names of types in messages: `list(string)`, `map(string, dyn)`, `null_type`. */
export function celGoTypeName(t: string): string {
  if (t === "null") return "null_type";
  if (t === "list") return "list(dyn)";
  if (t === "map") return "map(dyn, dyn)";
  const generic = /^(list|map|optional)<(.*)>$/.exec(t);
  if (generic === null) return t;
  const params = splitTopLevel(generic[2]!).map(celGoTypeName).join(", ");
  return generic[1] === "optional" ? `optional_type(${params})` : `${generic[1]}(${params})`;
}

/** The issue of a parse error. */
export function parseIssue(summary: string, range: SourceRange | undefined): CompileIssue {
  const offset = range?.start;
  if (summary === "Unexpected token: EOF") {
    return { detail: `Syntax error: mismatched input '<EOF>' expecting ${OPERAND_EXPECTED}`, ...at(offset) };
  }
  return { detail: summary, ...at(offset) };
}

function at(offset: number | undefined): { offset?: number } {
  return offset === undefined ? {} : { offset };
}

/** The offset of the first `ch` at or after `from` (cel-go's token position), else `from`. */
function nextChar(text: string, ch: string, from: number): number {
  const i = text.indexOf(ch, from);
  return i === -1 ? from : i;
}

/** The offset of the `.` before a selected field that starts at `fieldStart`. */
export function dotBefore(text: string, fieldStart: number): number {
  let i = fieldStart - 1;
  while (i > 0 && /\s/.test(text[i]!)) i--;
  return text[i] === "." ? i : fieldStart;
}

/** The `(` of a call node. */
function openParen(text: string, node: SyntaxNode): number {
  if (node.op === "rcall") return nextChar(text, "(", node.args[1].end);
  return nextChar(text, "(", node.start);
}

interface CheckError {
  code: string;
  summary: string;
  node?: SyntaxNode;
  range?: SourceRange;
}

/** The issues of a type-check error, in cel-go's words and at cel-go's positions. */
export function checkIssues(e: CheckError, text: string, functions: ReadonlySet<string>): CompileIssue[] {
  const node = e.node;
  const offset = e.range?.start;
  if (e.code === "no_such_key") {
    const key = /^No such key: (.*)$/.exec(e.summary);
    const field = key?.[1] ?? e.summary;
    return [
      { detail: `undefined field '${field}'`, ...at(offset === undefined ? undefined : dotBefore(text, offset)) },
    ];
  }
  if (e.code === "unknown_variable") {
    const name = /^Unknown variable: (.*)$/.exec(e.summary)?.[1] ?? e.summary;
    const issues: CompileIssue[] = [{ detail: `undeclared reference to '${name}' (in container '')`, ...at(offset) }];
    // `x.f()` with x undeclared: cel-go also reports the function when no library declares it.
    const call = node === undefined ? undefined : enclosingCall(node, text, name);
    if (call !== undefined && !functions.has(call.name)) {
      issues.push({ detail: `undeclared reference to '${call.name}' (in container '')`, offset: call.paren });
    }
    return issues;
  }
  if (e.code === "no_matching_overload" && (node?.op === "rcall" || node?.op === "call")) {
    const name = node.args[0];
    const optional = optionalEntryIssue(node, text);
    if (optional !== undefined) return [optional];
    if (!functions.has(name)) {
      return [{ detail: `undeclared reference to '${name}' (in container '')`, offset: openParen(text, node) }];
    }
    return [{ detail: callOverloadText(e.summary, name), offset: openParen(text, node) }];
  }
  if (e.code === "no_such_overload" && node !== undefined) {
    const issue = operatorOverloadIssue(e.summary, node, text);
    if (issue !== undefined) return [issue];
  }
  if ((e.code === "invalid_index_type" || e.code === "cannot_index_type") && node?.op === "[]") {
    const [operand, index] = node.args;
    const types = [checkedTypeName(operand), checkedTypeName(index)];
    if (types[0] !== undefined && types[1] !== undefined) {
      const applied = types.map((t) => celGoTypeName(t!)).join(", ");
      return [
        {
          detail: `found no matching overload for '_[_]' applied to '(${applied})'`,
          offset: nextChar(text, "[", operand.end),
        },
      ];
    }
  }
  const selected =
    node?.op === "." ? (checkedTypeName(node.args[0]) ?? /^Cannot index type '(.*)'$/.exec(e.summary)?.[1]) : undefined;
  if ((e.code === "cannot_index_type" || e.code === "invalid_index_type") && node?.op === "." && selected) {
    // cel-go's checker (typeDoesNotSupportFieldSelection), at the `.`
    return [
      {
        detail: `type '${celGoTypeName(selected)}' does not support field selection`,
        offset: dotBefore(text, node.end - node.args[1].length),
      },
    ];
  }
  if (e.code === "invalid_comprehension_range") {
    const t = /type '([^']*)'/.exec(e.summary)?.[1];
    if (t !== undefined) {
      const detail = `expression of type '${celGoTypeName(t)}' cannot be range of a comprehension (must be list, map, or dynamic)`;
      // cel-go places a field selection at its `.`
      const place = node?.op === "." && offset !== undefined ? dotBefore(text, offset) : offset;
      return [{ detail, ...at(place) }];
    }
  }
  const mismatch = /expected type '(.*)' but found '(.*)'$/.exec(e.summary);
  if (mismatch !== null && e.code.startsWith("heterogeneous_")) {
    // cel-go's checker (HomogeneousAggregateLiterals): typeMismatch
    // In a literal with optional entries the engine checks the values as optionals (pre-parse.ts).
    const inOptionalLiteral = (Object.values(OPTIONAL_LITERAL_FUNCTIONS) as string[]).includes(
      callOf(node)?.name ?? "",
    );
    const unwrap = (t: string) => (inOptionalLiteral ? (/^optional<(.*)>$/.exec(t)?.[1] ?? t) : t);
    const [expected, found] = [celGoTypeName(unwrap(mismatch[1]!)), celGoTypeName(unwrap(mismatch[2]!))];
    const value = inOptionalLiteral ? callOf(node)?.args[0] : node;
    const place = value === undefined ? offset : expressionOffset(value, text);
    return [{ detail: `expected type '${expected}' but found '${found}'`, ...at(place) }];
  }
  if (e.code === "incompatible_ternary_branches" && node?.op === "?:") {
    const types = /got '(.*)' and '(.*)'$/.exec(e.summary);
    if (types !== null) {
      // The checker prints argument types with FormatCheckedType: null is `null` there.
      const applied = ["bool", types[1]!, types[2]!].map((t) => (t === "null" ? "null" : celGoTypeName(t))).join(", ");
      return [
        {
          detail: `found no matching overload for '_?_:_' applied to '(${applied})'`,
          offset: nextChar(text, "?", node.args[0].end),
        },
      ];
    }
  }
  return [{ detail: e.summary, ...at(offset) }];
}

/**
 * A marked entry of a literal (`[?x]`, `{?k: x}`, rewritten as `__optElement(x)` / `__optEntry(x)`) whose value is
 * not an optional: cel-go's checker (checkCreateList, checkCreateMap) reports a type mismatch at the value.
 */
function optionalEntryIssue(node: SyntaxNode, text: string): CompileIssue | undefined {
  const call = callOf(node);
  const value = call?.args[0];
  const marked = call?.name === OPTIONAL_LITERAL_FUNCTIONS.element || call?.name === OPTIONAL_LITERAL_FUNCTIONS.entry;
  if (!marked || call?.target !== undefined || value === undefined) return undefined;
  const t = celGoTypeName(checkedTypeName(value) ?? "dyn");
  return { detail: `expected type 'optional_type(${t})' but found '${t}'`, offset: expressionOffset(value, text) };
}

/**
 * Where cel-go places an expression (its parser's position of the expression's id): a call at its `(`, a field
 * selection at its `.`, an index at its `[`, an operator at the operator, anything else where it starts.
 */
function expressionOffset(node: SyntaxNode, text: string): number {
  switch (node.op) {
    case "call":
    case "rcall":
      return openParen(text, node);
    case ".":
    case ".?":
      return dotBefore(text, node.end - node.args[1].length);
    case "[]":
    case "[?]":
      return nextChar(text, "[", node.args[0].end);
    case "?:":
      return nextChar(text, "?", node.args[0].end);
    default: {
      const fn = OPERATOR_FUNCTIONS[node.op];
      if (fn === undefined || node.op === "!_" || node.op === "-_" || !Array.isArray(node.args)) return node.start;
      const left = (node.args as unknown as readonly SyntaxNode[])[0]!;
      return nextChar(text, node.op, left.end);
    }
  }
}

/** cel-go's names of the operators (common/operators): the engine's operator to cel-go's function. */
const OPERATOR_FUNCTIONS: Readonly<Record<string, string>> = { ...BINARY_FUNCTIONS, "!_": "!_", "-_": "-_" };

/** The checker's text of a call no overload of which takes its arguments: `'f' applied to 'string.(int)'`. */
function callOverloadText(summary: string, name: string): string {
  const m = /^found no matching overload for '(.*)\((.*)\)'$/.exec(summary);
  if (m === null) return summary;
  const head = m[1]!;
  const receiver = head === name ? undefined : head.slice(0, head.length - name.length - 1);
  const args = m[2]!.trim() === "" ? "" : splitTopLevel(m[2]!).map(celGoTypeName).join(", ");
  const applied = receiver === undefined ? `(${args})` : `${celGoTypeName(receiver)}.(${args})`;
  return `found no matching overload for '${name}' applied to '${applied}'`;
}

/**
 * An operator no overload of which takes its operands (the engine's `no such overload: string > int`), as cel-go's
 * checker reports it: `found no matching overload for '_>_' applied to '(string, int)'`, at the operator.
 */
function operatorOverloadIssue(summary: string, node: SyntaxNode, text: string): CompileIssue | undefined {
  const fn = OPERATOR_FUNCTIONS[node.op];
  const rest = /^no such overload: (.*)$/.exec(summary)?.[1];
  if (fn === undefined || rest === undefined) return undefined;
  if (node.op === "!_" || node.op === "-_") {
    const operand = rest.slice(1);
    return {
      detail: `found no matching overload for '${fn}' applied to '(${celGoTypeName(operand)})'`,
      offset: node.start,
    };
  }
  const parts = rest.split(` ${node.op} `);
  if (parts.length !== 2 || !Array.isArray(node.args)) return undefined;
  const left = (node.args as unknown as readonly SyntaxNode[])[0]!;
  const applied = parts.map(celGoTypeName).join(", ");
  return {
    detail: `found no matching overload for '${fn}' applied to '(${applied})'`,
    offset: nextChar(text, node.op, left.end),
  };
}

/**
 * For an undeclared identifier used as a receiver (`base64.decode(...)`), the call: the engine stops at the
 * identifier, cel-go goes on to the function. Found from the text after the identifier: `.name(`.
 */
function enclosingCall(node: SyntaxNode, text: string, name: string): { name: string; paren: number } | undefined {
  if (node.op !== "id" || node.args !== name) return undefined;
  const m = /^\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(/.exec(text.slice(node.end));
  if (m === null) return undefined;
  return { name: m[1]!, paren: node.end + m[0].length - 1 };
}

/** cel-go's text of a list of issues (common.Errors.ToDisplayString). */
export function formatIssues(text: string, issues: readonly CompileIssue[]): string {
  // sorted by position, as ToDisplayString sorts them (stable; issues without a position first)
  const sorted = [...issues].sort((a, b) => (a.offset ?? -1) - (b.offset ?? -1));
  return sorted.map((i) => formatIssue(text, i)).join("\n");
}

function formatIssue(text: string, issue: CompileIssue): string {
  if (issue.offset === undefined) return `ERROR: <input>: ${issue.detail}`;
  const before = text.slice(0, issue.offset);
  const line = before.split("\n").length;
  const lineStart = before.lastIndexOf("\n") + 1;
  const lineEnd = text.indexOf("\n", issue.offset);
  const snippet = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd).replace(/\t/g, " ");
  // The column counts characters (runes); the marker line is one dot per character before it.
  const col = [...text.slice(lineStart, issue.offset)].length;
  return `ERROR: <input>:${line}:${col + 1}: ${issue.detail}\n | ${snippet}\n | ${".".repeat(col)}^`;
}
