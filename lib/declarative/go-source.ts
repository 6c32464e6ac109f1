/**
 * Reads Go source files with tree-sitter (the WebAssembly build of tree-sitter-go, so no native binary is needed)
 * into the small model declarative validation needs: the package clause and the comments above it, imports, type
 * declarations with their doc comments and struct fields (with their struct tags), and constant declarations.
 * Functions, methods and variables are skipped; generic types are recorded so that unrelated generic code never
 * breaks a package.
 *
 * Doc comments follow go/ast (and gengo, which validation-gen uses): the comment lines directly above a declaration
 * without a blank line in between. gengo also reads the comment block before that one (separated by one blank line)
 * for a few tags; it is kept as `docBefore`. Only lines starting with `+` matter here, so only those are kept.
 */

import { createRequire } from "node:module";
import type { Language, Node, Parser } from "web-tree-sitter";
import { appendAll } from "../objects/append.js";

/** One `// +...` comment line: the text after `//` and leading blanks, and its 1-based line number. */
export interface TagLine {
  text: string;
  line: number;
}

/** A Go type expression as written (before resolution). */
export type TypeExpr =
  | { kind: "name"; name: string; line: number }
  | { kind: "qualified"; pkg: string; name: string; line: number }
  | { kind: "pointer"; elem: TypeExpr }
  | { kind: "slice"; elem: TypeExpr }
  | { kind: "array"; elem: TypeExpr }
  | { kind: "map"; key: TypeExpr; value: TypeExpr }
  | { kind: "struct"; fields: FieldDecl[]; line: number }
  | { kind: "interface" }
  | { kind: "generic"; base: TypeExpr; line: number }
  | { kind: "other"; what: string; line: number };

/** A struct field as declared. Embedded fields have no names. */
export interface FieldDecl {
  /** Empty for an embedded field; several for `A, B int`. */
  names: string[];
  type: TypeExpr;
  embedded: boolean;
  /** The raw struct tag (the contents of the backquoted or quoted literal), if any. */
  tag: string | undefined;
  doc: TagLine[];
  line: number;
}

export interface TypeDecl {
  name: string;
  /** `type B = A`. */
  alias: boolean;
  /** Declared with type parameters (`type List[T any] ...`). */
  generic: boolean;
  type: TypeExpr;
  doc: TagLine[];
  /** The comment block before the doc comment, separated from it by one blank line. */
  docBefore: TagLine[];
  file: string;
  line: number;
}

export type ConstValue =
  | { kind: "string"; value: string }
  | { kind: "int"; value: bigint }
  | { kind: "bool"; value: boolean }
  | { kind: "ident"; name: string }
  | { kind: "other" };

export interface ConstDecl {
  name: string;
  type: TypeExpr | undefined;
  value: ConstValue | undefined;
  doc: TagLine[];
  file: string;
  line: number;
}

export interface ImportDecl {
  /** The local name: an explicit name, "." for a dot import, "_" for a blank import, undefined otherwise. */
  name: string | undefined;
  path: string;
  line: number;
}

export interface SyntaxProblem {
  line: number;
  message: string;
}

export interface GoFile {
  path: string;
  packageName: string | undefined;
  /** Every `+` comment line above the package clause (doc.go carries `+groupName=` there). */
  packageTags: TagLine[];
  imports: ImportDecl[];
  types: TypeDecl[];
  consts: ConstDecl[];
  /** Syntax errors found by the parser (the first few). */
  syntaxErrors: SyntaxProblem[];
}

interface GoParser {
  parser: Parser;
  language: Language;
}

let goParser: Promise<GoParser> | undefined;

/**
 * Initialises web-tree-sitter and loads the Go grammar once per process (the WebAssembly modules are immutable and
 * shared; each bundle load still parses its own files).
 */
export function loadGoParser(): Promise<GoParser> {
  if (goParser === undefined) {
    goParser = (async () => {
      const ts = await import("web-tree-sitter");
      await ts.Parser.init();
      const require = createRequire(import.meta.url);
      const language = await ts.Language.load(require.resolve("tree-sitter-go/tree-sitter-go.wasm"));
      const parser = new ts.Parser();
      parser.setLanguage(language);
      return { parser, language };
    })();
    goParser.catch(() => {
      goParser = undefined;
    });
  }
  return goParser;
}

const MAX_SYNTAX_PROBLEMS = 5;

/** Parses one Go file. Never throws for bad Go: syntax errors are returned in `syntaxErrors`. */
export function readGoFile(p: GoParser, path: string, content: string): GoFile {
  const tree = p.parser.parse(content);
  const out: GoFile = {
    path,
    packageName: undefined,
    packageTags: [],
    imports: [],
    types: [],
    consts: [],
    syntaxErrors: [],
  };
  if (tree === null) {
    out.syntaxErrors.push({ line: 1, message: "the Go parser gave up on this file" });
    return out;
  }
  try {
    const root = tree.rootNode;
    if (root.hasError) collectSyntaxErrors(root, out.syntaxErrors);
    const top = nonNull(root.children);
    let seenPackage = false;
    for (let i = 0; i < top.length; i++) {
      const n = top[i]!;
      switch (n.type) {
        case "comment":
          if (!seenPackage) appendAll(out.packageTags, tagLinesOf(n));
          break;
        case "package_clause": {
          seenPackage = true;
          const id = n.namedChildren.find((c) => c?.type === "package_identifier");
          out.packageName = id?.text;
          break;
        }
        case "import_declaration":
          readImports(n, out.imports);
          break;
        case "type_declaration":
          readTypeDeclaration(n, top, i, path, out.types);
          break;
        case "const_declaration":
          readConstDeclaration(n, top, i, path, out.consts);
          break;
        default:
          break;
      }
    }
  } finally {
    tree.delete();
  }
  return out;
}

function nonNull(list: (Node | null)[]): Node[] {
  return list.filter((n): n is Node => n !== null);
}

function line(n: Node): number {
  return n.startPosition.row + 1;
}

function collectSyntaxErrors(n: Node, out: SyntaxProblem[]): void {
  if (out.length >= MAX_SYNTAX_PROBLEMS) return;
  if (n.isError) {
    const text = n.text.split("\n")[0]!.slice(0, 60);
    out.push({ line: line(n), message: `syntax error near ${JSON.stringify(text)}` });
    return;
  }
  if (n.isMissing) {
    out.push({ line: line(n), message: `syntax error: missing ${n.type}` });
    return;
  }
  if (!n.hasError) return;
  for (const c of nonNull(n.children)) collectSyntaxErrors(c, out);
}

/** The `+` lines of one comment node (a `//` line or a `/* *\/` block). */
function tagLinesOf(n: Node): TagLine[] {
  const text = n.text;
  const first = line(n);
  if (text.startsWith("//")) {
    const t = text.slice(2).trimStart();
    return t.startsWith("+") ? [{ text: t.trimEnd(), line: first }] : [];
  }
  const body = text.replace(/^\/\*/, "").replace(/\*\/$/, "");
  const out: TagLine[] = [];
  body.split("\n").forEach((l, i) => {
    const t = l
      .trim()
      .replace(/^\*\s?/, "")
      .trimStart();
    if (t.startsWith("+")) out.push({ text: t.trimEnd(), line: first + i });
  });
  return out;
}

/**
 * The doc comment of `siblings[index]`: the comments directly above it (no blank line in between, no other node),
 * and the comment block before that one when exactly one blank line separates them.
 */
function docComments(siblings: Node[], index: number): { doc: TagLine[]; before: TagLine[] } {
  const target = siblings[index]!;
  const block: Node[] = [];
  let expectEnd = target.startPosition.row - 1;
  let j = index - 1;
  for (; j >= 0; j--) {
    const s = siblings[j]!;
    if (s.type !== "comment" || s.endPosition.row !== expectEnd) break;
    // A trailing comment on the line of a previous declaration is not part of this doc comment.
    if (j > 0 && siblings[j - 1]!.endPosition.row === s.startPosition.row) break;
    block.unshift(s);
    expectEnd = s.startPosition.row - 1;
  }
  const before: Node[] = [];
  if (block.length > 0) {
    expectEnd = block[0]!.startPosition.row - 2;
    for (; j >= 0; j--) {
      const s = siblings[j]!;
      if (s.type !== "comment" || s.endPosition.row !== expectEnd) break;
      if (j > 0 && siblings[j - 1]!.endPosition.row === s.startPosition.row) break;
      before.unshift(s);
      expectEnd = s.startPosition.row - 1;
    }
  }
  return { doc: block.flatMap(tagLinesOf), before: before.flatMap(tagLinesOf) };
}

function readImports(n: Node, out: ImportDecl[]): void {
  for (const spec of n.descendantsOfType("import_spec")) {
    if (spec === null) continue;
    const pathNode = spec.childForFieldName("path");
    if (pathNode === null) continue;
    const nameNode = spec.childForFieldName("name");
    const name =
      nameNode === null
        ? undefined
        : nameNode.type === "dot"
          ? "."
          : nameNode.type === "blank_identifier"
            ? "_"
            : nameNode.text;
    out.push({ name, path: goStringLiteral(pathNode.text) ?? pathNode.text, line: line(spec) });
  }
}

function readTypeDeclaration(decl: Node, top: Node[], index: number, file: string, out: TypeDecl[]): void {
  const children = nonNull(decl.children);
  const specs = children.filter((c) => c.type === "type_spec" || c.type === "type_alias");
  const grouped = children.some((c) => c.type === "(");
  const outer = docComments(top, index);
  for (const spec of specs) {
    const docs = grouped ? docComments(children, children.indexOf(spec)) : outer;
    const nameNode = spec.childForFieldName("name");
    const typeNode = spec.childForFieldName("type");
    if (nameNode === null || typeNode === null) continue;
    out.push({
      name: nameNode.text,
      alias: spec.type === "type_alias",
      generic: spec.childForFieldName("type_parameters") !== null,
      type: readTypeExpr(typeNode),
      doc: docs.doc,
      docBefore: docs.before,
      file,
      line: line(spec),
    });
  }
}

function readConstDeclaration(decl: Node, top: Node[], index: number, file: string, out: ConstDecl[]): void {
  const children = nonNull(decl.children);
  const grouped = children.some((c) => c.type === "(");
  const outer = docComments(top, index);
  // Implicit repetition: a spec without type and value repeats the previous spec's type and expression.
  let lastType: TypeExpr | undefined;
  let lastValues: ConstValue[] = [];
  for (const spec of children) {
    if (spec.type !== "const_spec") continue;
    const docs = grouped ? docComments(children, children.indexOf(spec)) : outer;
    const names = spec.childrenForFieldName("name").filter((n): n is Node => n !== null);
    const typeNode = spec.childForFieldName("type");
    const valueNode = spec.childForFieldName("value");
    let type: TypeExpr | undefined;
    let values: ConstValue[];
    if (typeNode === null && valueNode === null) {
      type = lastType;
      values = lastValues;
    } else {
      const exprs = valueNode === null ? [] : nonNull(valueNode.namedChildren);
      // `const X = T("x")` is a typed constant of type T.
      type = typeNode === null ? conversionType(exprs[0]) : readTypeExpr(typeNode);
      values = exprs.map(readConstValue);
      lastType = type;
      lastValues = values;
    }
    names.forEach((nameNode, i) => {
      out.push({ name: nameNode.text, type, value: values[i], doc: docs.doc, file, line: line(spec) });
    });
  }
}

/** The type of a conversion expression `T(x)` or `pkg.T(x)`, if that is what `n` is. */
function conversionType(n: Node | undefined): TypeExpr | undefined {
  if (n === undefined || n.type !== "call_expression") return undefined;
  const fn = n.childForFieldName("function");
  if (fn === null) return undefined;
  if (fn.type === "identifier") return { kind: "name", name: fn.text, line: line(fn) };
  if (fn.type === "selector_expression") {
    const operand = fn.childForFieldName("operand");
    const field = fn.childForFieldName("field");
    if (operand?.type === "identifier" && field !== null)
      return { kind: "qualified", pkg: operand.text, name: field.text, line: line(fn) };
  }
  return undefined;
}

function readConstValue(n: Node): ConstValue {
  switch (n.type) {
    case "interpreted_string_literal":
    case "raw_string_literal": {
      const s = goStringLiteral(n.text);
      return s === undefined ? { kind: "other" } : { kind: "string", value: s };
    }
    case "int_literal": {
      const v = goIntLiteral(n.text);
      return v === undefined ? { kind: "other" } : { kind: "int", value: v };
    }
    case "true":
    case "false":
      return { kind: "bool", value: n.type === "true" };
    case "identifier":
      return { kind: "ident", name: n.text };
    case "unary_expression": {
      const operand = n.childForFieldName("operand");
      const op = n.childForFieldName("operator")?.text;
      if (operand !== null && (op === "-" || op === "+")) {
        const v = readConstValue(operand);
        if (v.kind === "int") return { kind: "int", value: op === "-" ? -v.value : v.value };
      }
      return { kind: "other" };
    }
    case "parenthesized_expression": {
      const inner = n.namedChildren[0];
      return inner ? readConstValue(inner) : { kind: "other" };
    }
    case "call_expression": {
      // A conversion such as MyEnum("x").
      const args = n.childForFieldName("arguments");
      const list = args === null ? [] : nonNull(args.namedChildren);
      return list.length === 1 ? readConstValue(list[0]!) : { kind: "other" };
    }
    default:
      return { kind: "other" };
  }
}

function readTypeExpr(n: Node): TypeExpr {
  switch (n.type) {
    case "type_identifier":
      return { kind: "name", name: n.text, line: line(n) };
    case "qualified_type": {
      const pkg = n.childForFieldName("package")?.text ?? "";
      const name = n.childForFieldName("name")?.text ?? "";
      return { kind: "qualified", pkg, name, line: line(n) };
    }
    case "pointer_type": {
      const inner = n.namedChildren[0];
      return inner ? { kind: "pointer", elem: readTypeExpr(inner) } : { kind: "other", what: "pointer", line: line(n) };
    }
    case "slice_type": {
      const elem = n.childForFieldName("element");
      return elem ? { kind: "slice", elem: readTypeExpr(elem) } : { kind: "other", what: "slice", line: line(n) };
    }
    case "array_type": {
      const elem = n.childForFieldName("element");
      return elem ? { kind: "array", elem: readTypeExpr(elem) } : { kind: "other", what: "array", line: line(n) };
    }
    case "map_type": {
      const key = n.childForFieldName("key");
      const value = n.childForFieldName("value");
      return key && value
        ? { kind: "map", key: readTypeExpr(key), value: readTypeExpr(value) }
        : { kind: "other", what: "map", line: line(n) };
    }
    case "struct_type": {
      const list = n.namedChildren.find((c) => c?.type === "field_declaration_list");
      return { kind: "struct", fields: list ? readFields(list) : [], line: line(n) };
    }
    case "interface_type":
      return { kind: "interface" };
    case "generic_type": {
      const base = n.childForFieldName("type");
      return { kind: "generic", base: base ? readTypeExpr(base) : { kind: "interface" }, line: line(n) };
    }
    case "parenthesized_type": {
      const inner = n.namedChildren[0];
      return inner ? readTypeExpr(inner) : { kind: "other", what: "type", line: line(n) };
    }
    case "function_type":
      return { kind: "other", what: "func", line: line(n) };
    case "channel_type":
      return { kind: "other", what: "chan", line: line(n) };
    default:
      return { kind: "other", what: n.type, line: line(n) };
  }
}

function readFields(list: Node): FieldDecl[] {
  const children = nonNull(list.children);
  const out: FieldDecl[] = [];
  children.forEach((c, i) => {
    if (c.type !== "field_declaration") return;
    const names = c.childrenForFieldName("name").filter((n): n is Node => n !== null);
    const typeNode = c.childForFieldName("type");
    if (typeNode === null) return;
    const tagNode = c.childForFieldName("tag");
    const embedded = names.length === 0;
    let type = readTypeExpr(typeNode);
    // An embedded `*T` puts the star before the type node instead of wrapping it.
    if (embedded && type.kind !== "pointer" && nonNull(c.children).some((k) => k.type === "*")) {
      type = { kind: "pointer", elem: type };
    }
    out.push({
      names: names.map((n) => n.text),
      type,
      embedded,
      tag: tagNode === null ? undefined : goStringLiteral(tagNode.text),
      doc: docComments(children, i).doc,
      line: line(c),
    });
  });
  return out;
}

/** The value of a Go string literal ("..." with escapes, or `raw`); undefined when malformed. */
export function goStringLiteral(text: string): string | undefined {
  if (text.length >= 2 && text.startsWith("`") && text.endsWith("`")) return text.slice(1, -1).replace(/\r/g, "");
  if (text.length < 2 || !text.startsWith('"') || !text.endsWith('"')) return undefined;
  const body = text.slice(1, -1);
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const next = body[++i];
    switch (next) {
      case "n":
        out += "\n";
        break;
      case "t":
        out += "\t";
        break;
      case "r":
        out += "\r";
        break;
      case "a":
        out += "\x07";
        break;
      case "b":
        out += "\b";
        break;
      case "f":
        out += "\f";
        break;
      case "v":
        out += "\v";
        break;
      case "\\":
      case '"':
      case "'":
        out += next;
        break;
      case "x":
      case "u":
      case "U": {
        const len = next === "x" ? 2 : next === "u" ? 4 : 8;
        const hex = body.slice(i + 1, i + 1 + len);
        if (hex.length !== len || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
        const cp = Number.parseInt(hex, 16);
        out += next === "x" ? String.fromCharCode(cp) : String.fromCodePoint(cp);
        i += len;
        break;
      }
      default: {
        if (next !== undefined && next >= "0" && next <= "7") {
          const oct = body.slice(i, i + 3);
          if (!/^[0-7]{3}$/.test(oct)) return undefined;
          out += String.fromCharCode(Number.parseInt(oct, 8));
          i += 2;
          break;
        }
        return undefined;
      }
    }
  }
  return out;
}

/** A Go integer literal (decimal, 0x, 0o, 0b, legacy octal, underscores); undefined when malformed. */
export function goIntLiteral(text: string): bigint | undefined {
  const t = text.replace(/_/g, "");
  try {
    if (/^0[xX][0-9a-fA-F]+$/.test(t) || /^0[bB][01]+$/.test(t)) return BigInt(t);
    if (/^0[oO][0-7]+$/.test(t)) return BigInt(`0o${t.slice(2)}`);
    if (/^0[0-7]+$/.test(t)) return BigInt(`0o${t.slice(1)}`);
    if (/^(0|[1-9][0-9]*)$/.test(t)) return BigInt(t);
  } catch {
    return undefined;
  }
  return undefined;
}
