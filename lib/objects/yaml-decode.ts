/**
 * YAML input: a stream of `---` separated documents, decoded the way kubectl does
 * (sigs.k8s.io/yaml over go-yaml v2; scalars in yaml-scalar.ts), with bounds on every document.
 *
 * The `yaml` package does the parsing, with the failsafe schema so every scalar arrives as text
 * with its style and tag; resolution, merge keys, aliases, key conversion and the bounds are done
 * here while the node tree is turned into plain values.
 *
 * - The stream is split at `---` lines first, as kubectl's YAML reader does, so the size of each
 *   document is checked before it is parsed and a broken document cannot swallow the next one.
 * - The parser's stack is watched token by token: the `yaml` parser slows down with depth (a 2 MB
 *   line of `[` takes seconds) and its composer recurses, so a document nested much deeper than
 *   `maxDepth` is refused before it is composed.
 * - Aliases are expanded into copies (as Go's decoder does) and count towards `maxNodes`; an alias
 *   whose expansion would exceed the limit is refused before it is expanded, and go-yaml v2's
 *   "excessive aliasing" ratio rule is applied too.
 */
import {
  type Alias,
  Composer,
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  type Node,
  type Pair,
  type ParsedNode,
  Parser,
  type Scalar,
} from "yaml";
import { type DecodedDocument, DecodeFailure, failedDocument, notAnObject } from "./document.js";
import { floatValue, integerValue } from "./integer.js";
import { decodeJsonValue } from "./json-decode.js";
import { JsonSyntaxFailure } from "./json-parser.js";
import { documentTooLarge, isOverBytes, type ResolvedParseOptions } from "./limits.js";
import { defineEntry, isMapping } from "./mapping.js";
import { readBlockYaml } from "./yaml-block.js";
import { goYamlFlowScalars } from "./yaml-flow-scalars.js";
import { keyText, type ResolvedScalar, resolveScalar } from "./yaml-scalar.js";

const COMPOSE_OPTIONS = Object.freeze({
  version: "1.1",
  schema: "failsafe",
  uniqueKeys: false,
  logLevel: "silent",
} as const);

/** The parser's stack holds the document and a few tokens besides one per open collection. */
const PARSER_STACK_SLACK = 8;

const MERGE_TAG = "tag:yaml.org,2002:merge";

/**
 * Decodes a YAML stream; empty documents are counted but not returned. `at` places the text in a larger one: the
 * index of its first document and the line of its first character (default 0 and 1).
 */
export function decodeYamlStream(
  text: string,
  limits: ResolvedParseOptions,
  at: { document: number; line: number } = { document: 0, line: 1 },
): DecodedDocument[] {
  return decodeStream(text, limits, at, true);
}

/**
 * {@link decodeYamlStream} without the block reader: every document through the `yaml` package. The reference the
 * block reader is tested against.
 */
export function decodeYamlStreamFully(text: string, limits: ResolvedParseOptions): DecodedDocument[] {
  return decodeStream(text, limits, { document: 0, line: 1 }, false);
}

function decodeStream(
  text: string,
  limits: ResolvedParseOptions,
  at: { document: number; line: number },
  blocks: boolean,
): DecodedDocument[] {
  const out: DecodedDocument[] = [];
  let index = at.document;
  for (const chunk of splitStream(text, at.line)) index += decodeChunk(chunk, index, limits, out, blocks);
  return out;
}

interface Chunk {
  readonly text: string;
  /** 1-based line of the chunk's first character. */
  readonly line: number;
}

const DOCUMENT_MARKER = /(?:^|\n)---(?=[ \t\r\n]|$)/g;

/**
 * Splits at lines starting with `---` (followed by a space, a tab or the end of the line). A
 * marker ends any scalar in YAML, so this never splits a valid document. Text before the first
 * marker that holds only comments and directives belongs to the first document.
 */
function splitStream(text: string, firstLine: number): Chunk[] {
  const starts: number[] = [0];
  for (const match of text.matchAll(DOCUMENT_MARKER)) {
    const start = match[0].startsWith("\n") ? match.index + 1 : match.index;
    if (start > 0) starts.push(start);
  }
  if (starts.length > 1 && firstContentLine(text.slice(0, starts[1])) < 0) starts.splice(1, 1);
  const chunks: Chunk[] = [];
  let line = firstLine;
  for (let i = 0; i < starts.length; i++) {
    const chunkText = text.slice(starts[i], starts[i + 1]);
    chunks.push({ text: chunkText, line });
    // The next chunk's line (the last chunk has none: most files are one document).
    if (i + 1 < starts.length) line += countNewlines(chunkText);
  }
  return chunks;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

/**
 * 0-based index of the first line with content: not blank, not a comment, not a directive, not
 * a bare `---` or `...` marker. -1 when there is none.
 */
function firstContentLine(text: string): number {
  let lineIndex = 0;
  let start = 0;
  while (start <= text.length) {
    const end = text.indexOf("\n", start);
    let line = text.slice(start, end < 0 ? text.length : end);
    if (line.startsWith("---") || line.startsWith("...")) line = line.slice(3);
    const trimmed = line.trim();
    if (trimmed !== "" && !trimmed.startsWith("#") && !trimmed.startsWith("%")) return lineIndex;
    if (end < 0) return -1;
    start = end + 1;
    lineIndex++;
  }
  return -1;
}

/** Decodes one chunk (normally one document) into `out`; returns how many documents it held. */
function decodeChunk(
  chunk: Chunk,
  first: number,
  limits: ResolvedParseOptions,
  out: DecodedDocument[],
  blocks: boolean,
): number {
  const contentLine = firstContentLine(chunk.text);
  const startLine = chunk.line + Math.max(contentLine, 0);
  if (isOverBytes(chunk.text, limits.maxBytes)) {
    out.push(failedDocument(first, startLine, documentTooLarge(limits.maxBytes, limits.maxBytesSetting)));
    return 1;
  }
  const sequence = jsonSequence(chunk.text, chunk.line, contentLine, limits);
  if (sequence !== undefined) {
    out.push(failedDocument(first, startLine, sequence));
    return 1;
  }
  // Most documents are block-style YAML, which the block reader reads in one pass; it gives up on anything else.
  const block = blocks ? readBlockYaml(chunk.text, limits, blockScalarValue) : undefined;
  if (block !== undefined) {
    out.push({ object: block, document: first, line: startLine });
    return 1;
  }
  const lines = new LineCounter();
  // An error at the very end (an unclosed bracket) is reported on the last line, not the next chunk's.
  const last = Math.max(chunk.text.length - 1, 0);
  const position: Position = (offset) => {
    const { line, col } = lines.linePos(Math.min(offset, last));
    return { line: chunk.line - 1 + line, column: col };
  };
  const lineOf = (offset: number): number => position(offset).line;
  let index = first;
  let docLine = startLine;
  try {
    const composer = new Composer(COMPOSE_OPTIONS);
    for (const doc of composer.compose(guardedTokens(chunk.text, lines, limits.maxDepth))) {
      docLine = index === first ? startLine : lineOf(doc.contents?.range[0] ?? doc.range[0]);
      const decoded = decodeDocument(doc, index, docLine, position, limits);
      if (decoded !== undefined) out.push(decoded);
      index++;
      docLine = lineOf(doc.range[2]);
    }
  } catch (error) {
    // Thrown by the depth guard while a document was being composed (or by a fault in the yaml package).
    out.push(failedDocument(index, docLine, describeFailure(error, lineOf)));
    index++;
  }
  return index - first;
}

/**
 * A document that is a JSON array (a top-level `[` is YAML to kubectl, and a sequence is no object): its error,
 * found with the JSON decoder, which is much faster than the YAML parser on a large array. Undefined when the
 * document is anything else, or not valid JSON (the YAML parser then reads it).
 */
function jsonSequence(
  text: string,
  chunkLine: number,
  contentLine: number,
  limits: ResolvedParseOptions,
): string | undefined {
  if (contentLine < 0) return undefined;
  let start = 0;
  for (let i = 0; i < contentLine; i++) start = text.indexOf("\n", start) + 1;
  if (text.startsWith("---", start)) start += 3;
  while (text.charAt(start) === " " || text.charAt(start) === "\t") start++;
  if (text.charAt(start) !== "[") return undefined;
  try {
    return notAnObject(decodeJsonValue(text.slice(start), 0, limits));
  } catch (error) {
    if (error instanceof JsonSyntaxFailure || !(error instanceof DecodeFailure)) return undefined;
    if (error.offset === undefined) return error.message;
    const at = start + error.offset;
    const lineStart = text.lastIndexOf("\n", at - 1) + 1;
    return `line ${chunkLine + countNewlines(text.slice(0, at))}, column ${at - lineStart + 1}: ${error.message}`;
  }
}

/**
 * The parser's tokens from the lexer's, with go-yaml v2's plain scalars in flow collections (yaml-flow-scalars.ts),
 * refusing nesting deeper than the parser should ever see.
 */
function* guardedTokens(source: string, lines: LineCounter, maxDepth: number) {
  const parser = new Parser(lines.addNewLine);
  lines.addNewLine(0);
  const maxStack = maxDepth + PARSER_STACK_SLACK;
  for (const lexeme of goYamlFlowScalars(new Lexer().lex(source))) {
    yield* parser.next(lexeme);
    if (parser.stack.length > maxStack) {
      throw new DecodeFailure(`nesting is deeper than the limit of ${maxDepth}`, parser.offset);
    }
  }
  yield* parser.end();
}

function describeFailure(error: unknown, lineOf: (offset: number) => number): string {
  if (error instanceof DecodeFailure) {
    return error.offset === undefined ? error.message : `line ${lineOf(error.offset)}: ${error.message}`;
  }
  return `internal error while decoding: ${error instanceof Error ? error.message : String(error)}`;
}

/** Line and column (1-based, in the whole stream) of an offset in the chunk. */
type Position = (offset: number) => { line: number; column: number };

function decodeDocument(
  doc: Document.Parsed,
  index: number,
  line: number,
  position: Position,
  limits: ResolvedParseOptions,
): DecodedDocument | undefined {
  const lineOf = (offset: number): number => position(offset).line;
  const [syntaxError] = doc.errors;
  if (syntaxError !== undefined) {
    const more = doc.errors.length > 1 ? ` (and ${doc.errors.length - 1} more)` : "";
    const at = position(syntaxError.pos[0]);
    return failedDocument(index, line, `line ${at.line}, column ${at.column}: ${syntaxError.message}${more}`);
  }
  const root = doc.contents;
  if (root === null) return undefined;
  if (isSeq(root)) return failedDocument(index, line, notAnObject([]));
  try {
    const value = new YamlConverter(limits, lineOf).value(root, 0);
    if (value === null) return undefined;
    if (!isMapping(value)) return failedDocument(index, line, notAnObject(value));
    return { object: value, document: index, line };
  } catch (error) {
    return failedDocument(index, line, describeFailure(error, lineOf));
  }
}

/** go-yaml v2 allowedAliasRatio: the share of decoded values that may come from aliases. */
function allowedAliasRatio(decoded: number): number {
  if (decoded <= 400_000) return 0.99;
  if (decoded >= 4_000_000) return 0.1;
  return 0.99 - (0.89 * (decoded - 400_000)) / 3_600_000;
}

/** Turns one document's node tree into plain values. */
class YamlConverter {
  private readonly limits: ResolvedParseOptions;
  private readonly lineOf: (offset: number) => number;
  /** Values produced, alias copies included. */
  private nodes = 0;
  /** Values produced while expanding an alias. */
  private aliasNodes = 0;
  /** > 0 while an alias is being expanded: anchors met then are copies, not definitions. */
  private expanding = 0;
  /** Anchor name → the latest node defining it, in document order. */
  private readonly anchors = new Map<string, Node>();
  /** Each alias → its anchor, fixed when the alias is first met (later anchors may reuse the name). */
  private readonly aliasTargets = new Map<Alias, Node>();
  /** Anchored node → how many values it produced, to refuse an expansion before doing it. */
  private readonly sizes = new Map<Node, number>();
  /** Anchored nodes being converted: an alias to one of them is a cycle. */
  private readonly open = new Set<Node>();

  constructor(limits: ResolvedParseOptions, lineOf: (offset: number) => number) {
    this.limits = limits;
    this.lineOf = lineOf;
  }

  /** The value of `node`, held by a collection at `depth` (0 for the document root). */
  value(node: ParsedNode | Node | null | undefined, depth: number): unknown {
    if (node === null || node === undefined) {
      this.count(undefined);
      return null;
    }
    if (isAlias(node)) return this.expand(node, depth);
    const defines = this.expanding === 0 && node.anchor !== undefined ? node.anchor : undefined;
    const before = this.nodes;
    if (defines !== undefined) {
      this.anchors.set(defines, node);
      this.open.add(node);
    }
    let value: unknown;
    if (isScalar(node)) {
      this.count(node);
      value = this.scalarValue(node);
    } else if (isMap(node)) {
      value = this.mapping(node.items, depth + 1, node);
    } else if (isSeq(node)) {
      value = this.sequence(node.items, depth + 1, node);
    } else {
      value = null;
    }
    if (defines !== undefined) {
      this.open.delete(node);
      this.sizes.set(node, this.nodes - before);
    }
    return value;
  }

  private count(node: Node | undefined): void {
    this.nodes++;
    if (this.expanding > 0) this.aliasNodes++;
    if (this.nodes > this.limits.maxNodes) {
      throw new DecodeFailure(`more than ${this.limits.maxNodes} values (the node limit)`, node?.range?.[0]);
    }
    if (this.aliasNodes > 100 && this.nodes > 1000 && this.aliasNodes / this.nodes > allowedAliasRatio(this.nodes)) {
      throw new DecodeFailure("document contains excessive aliasing", node?.range?.[0]);
    }
  }

  private target(alias: Alias): Node {
    let target = this.aliasTargets.get(alias);
    if (target === undefined) {
      target = this.anchors.get(alias.source);
      if (target === undefined)
        throw new DecodeFailure(`unknown anchor '${alias.source}' referenced`, alias.range?.[0]);
      this.aliasTargets.set(alias, target);
    }
    if (this.open.has(target)) {
      throw new DecodeFailure(`anchor '${alias.source}' value contains itself`, alias.range?.[0]);
    }
    return target;
  }

  private expand(alias: Alias, depth: number): unknown {
    const target = this.target(alias);
    const size = this.sizes.get(target) ?? 0;
    if (this.nodes + size > this.limits.maxNodes) {
      throw new DecodeFailure(
        `alias *${alias.source} expands past the limit of ${this.limits.maxNodes} values`,
        alias.range?.[0],
      );
    }
    this.expanding++;
    try {
      return this.value(target, depth);
    } finally {
      this.expanding--;
    }
  }

  private checkDepth(depth: number, node: Node): void {
    if (depth > this.limits.maxDepth) {
      throw new DecodeFailure(`nesting is deeper than the limit of ${this.limits.maxDepth}`, node.range?.[0]);
    }
  }

  private resolve(node: Scalar): ResolvedScalar {
    const text = typeof node.value === "string" ? node.value : String(node.value ?? "");
    const isPlain = node.type === undefined || node.type === "PLAIN";
    const resolved = resolveScalar(text, node.tag, isPlain);
    if (resolved.tag === "error") throw new DecodeFailure(resolved.message, node.range?.[0]);
    return resolved;
  }

  private scalarValue(node: Scalar): unknown {
    return scalarValue(this.resolve(node), String(node.value), node.range?.[0]);
  }

  /**
   * A mapping. Explicit keys may not repeat. Merge keys (`<<`) add the keys of the merged
   * mappings that are not set explicitly; with several, the earlier ones win (YAML merge key
   * spec; go-yaml v2 instead lets later entries overwrite, so `a: 1` followed by `<<: {a: 2}`
   * differs, a case no tool writes).
   */
  private mapping(items: readonly unknown[], depth: number, node: Node): Record<string, unknown> {
    this.checkDepth(depth, node);
    this.count(node);
    const out: Record<string, unknown> = {};
    const keyOffsets = new Map<string, number | undefined>();
    let merged: Record<string, unknown>[] | undefined;
    for (const item of items) {
      if (!isPair(item)) continue;
      const pair = item as Pair<ParsedNode | null, ParsedNode | null>;
      if (isMergeKey(pair.key)) {
        merged ??= [];
        this.mergeSources(pair.value, depth, pair.key.range?.[0], merged);
        continue;
      }
      const key = this.key(pair.key);
      const offset = pair.key?.range?.[0];
      if (keyOffsets.has(key)) {
        const earlier = keyOffsets.get(key);
        throw new DecodeFailure(
          `mapping key ${JSON.stringify(key)} already defined${earlier === undefined ? "" : ` at line ${this.lineOf(earlier)}`}`,
          offset,
        );
      }
      keyOffsets.set(key, offset);
      defineEntry(out, key, this.value(pair.value, depth));
    }
    if (merged !== undefined) {
      for (const source of merged) {
        for (const key of Object.keys(source)) {
          if (!Object.hasOwn(out, key)) defineEntry(out, key, source[key]);
        }
      }
    }
    return out;
  }

  /** The mappings a merge key brings in, in order of precedence (go-yaml v2 decoder.merge). */
  private mergeSources(
    value: ParsedNode | null,
    depth: number,
    offset: number | undefined,
    into: Record<string, unknown>[],
  ): void {
    const wantMap = () => new DecodeFailure("map merge requires map or sequence of maps as the value", offset);
    const isMapNode = (node: unknown): boolean => isMap(node) || (isAlias(node) && isMap(this.target(node)));
    if (isMapNode(value)) {
      // Converted at the mapping's own depth - 1: its entries land in this mapping.
      into.push(this.value(value, depth - 1) as Record<string, unknown>);
    } else if (isSeq(value)) {
      if (!value.items.every(isMapNode)) throw wantMap();
      // The sequence itself is not kept: its mappings' entries land in this mapping.
      for (const source of this.value(value, depth - 2) as Record<string, unknown>[]) into.push(source);
    } else {
      throw wantMap();
    }
  }

  /** A mapping key as text (sigs.k8s.io/yaml convertToJSONableObject). */
  private key(node: ParsedNode | null): string {
    let scalar: Node | null = node;
    if (node !== null && isAlias(node)) scalar = this.target(node);
    else if (node?.anchor !== undefined && this.expanding === 0) {
      this.anchors.set(node.anchor, node);
      this.sizes.set(node, 1);
    }
    const offset = node?.range?.[0];
    if (scalar === null) throw new DecodeFailure("unsupported map key null", offset);
    if (!isScalar(scalar)) {
      throw new DecodeFailure(`invalid map key: ${isSeq(scalar) ? "a sequence" : "a mapping"}`, offset);
    }
    const text = keyText(this.resolve(scalar));
    if (typeof text !== "string") throw new DecodeFailure(text.message, offset);
    return text;
  }

  private sequence(items: readonly unknown[], depth: number, node: Node): unknown[] {
    this.checkDepth(depth, node);
    this.count(node);
    const out: unknown[] = [];
    for (const item of items) {
      if (isPair(item)) {
        // A single-pair mapping inside a flow sequence, `[a: 1]`.
        out.push(this.mapping([item], depth + 1, node));
      } else {
        out.push(this.value(item as ParsedNode | null, depth));
      }
    }
    return out;
  }
}

/**
 * A resolved scalar as a decoded value (the block reader's too): integers and floats by integer.ts's rules; numbers
 * JSON cannot carry throw, with the offset of the scalar (`text`, as written) when known.
 */
function scalarValue(resolved: ResolvedScalar, text: string, offset: number | undefined): unknown {
  switch (resolved.tag) {
    case "null":
      return null;
    case "int":
      return integerValue(resolved.value);
    case "uint": {
      // Written as JSON digits, read by the API server as a float64.
      const value = Number(resolved.value);
      if (!Number.isFinite(value)) throw new DecodeFailure(`number ${text} is out of range for a float64`, offset);
      return value;
    }
    case "float":
      if (!Number.isFinite(resolved.value)) {
        // sigs.k8s.io/yaml fails here: "json: unsupported value: +Inf".
        throw new DecodeFailure(
          `${text} is not representable in JSON (kubectl fails with "json: unsupported value: ${goFloatName(resolved.value)}")`,
          offset,
        );
      }
      return floatValue(resolved.value);
    default:
      return resolved.value;
  }
}

const blockScalarValue = (resolved: ResolvedScalar, text: string): unknown => scalarValue(resolved, text, undefined);

/** go-yaml v2 isMerge: a plain `<<` or one tagged !!merge. */
function isMergeKey(node: ParsedNode | null): node is Scalar.Parsed {
  if (node === null || !isScalar(node) || node.value !== "<<") return false;
  return node.tag === MERGE_TAG || (node.tag === undefined && (node.type === undefined || node.type === "PLAIN"));
}

function goFloatName(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  return value > 0 ? "+Inf" : "-Inf";
}
