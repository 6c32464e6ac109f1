/**
 * Static cost estimation of CRD validation rules at CRD load, as kube-apiserver 1.36 does when a CRD is written
 * (spec/k8s-cel-semantics.md §6):
 *
 * - the estimator is a port of cel-go's `checker/cost.go` coster over the engine's checked AST: a rule costs the
 *   sum of its parts (1 per identifier, field selection of a map or object, operator and call; constants free;
 *   list and map literals 10 and 30; `&&`/`||` the left side plus at most the right; comprehensions their range,
 *   accumulator and result plus, per element, the loop condition and step), with cel-go's size-based costs for
 *   string, bytes and list operations;
 * - Kubernetes' library estimates (apiserver `pkg/cel/library/cost.go` `CostEstimator.EstimateCallCost`) for
 *   lists, strings, regex, URL, IP/CIDR, quantity, semver and format functions, including its quirks (global
 *   `quantity()`, `isIP()` and `cidr()` fall back to the default cost because the estimator only handles them
 *   with a receiver);
 * - sizes come from the schema the way apiextensions' `sizeEstimator` walks `DeclType`s (apiserver
 *   `pkg/cel/common/schemas.go`): a field path is resolved from the rule's node, ignoring its first element;
 *   strings are `maxLength` × 4 (bytes `maxLength`), else the longest enum value, else 3 MiB − 2, with fixed
 *   bounds for `duration`, `date` and `date-time`; lists and maps `maxItems`/`maxProperties`, else the number of
 *   minimal elements that fit into a 3 MiB request; scalars and objects 0;
 * - the per-rule cost is multiplied by the rule's cardinality (apiextensions `CELSchemaContext`): the product of
 *   the `maxItems`/`maxProperties` of the lists and maps above the node, or, when one of them is unbounded,
 *   3 MiB / (the node's minimal serialized size + 1). messageExpression costs are not multiplied.
 *
 * Costs are float64 numbers saturating at 2^64 (Go's `math.MaxUint64` as a float): exact below 2^53, which covers
 * every value near the limits.
 */
import type { CompileIssue, SchemaNode } from "../schema/structural.js";
import { type ASTNode, checkedTypeName } from "./engine.js";
import { escapedNames } from "./escape.js";
import { METHOD_RENAMES } from "./library.js";

/** apiextensions `StaticEstimatedCostLimit`: the per-expression estimated cost limit (× cardinality for rules). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** apiextensions `StaticEstimatedCRDCostLimit`: the estimated cost limit of all expressions of one schema. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

/** A cost or size range (cel-go CostEstimate / SizeEstimate). */
export interface CostEstimate {
  min: number;
  max: number;
}

type Range = CostEstimate;

/** Go's math.MaxUint64 as a float64. */
const U64 = 2 ** 64;
/** apiserver `MaxRequestSizeBytes`. */
const MAX_REQUEST_SIZE = 3 * 1024 * 1024;
/** cel-go common.StringTraversalCostFactor / RegexStringLengthCostFactor. */
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
/** apiserver `MaxNameFormatRegexSize`, `MaxFormatSize`. */
const MAX_NAME_FORMAT_REGEX_SIZE = 128;
const MAX_FORMAT_SIZE = 64;

const ZERO: Range = { min: 0, max: 0 };
const ONE: Range = { min: 1, max: 1 };
const UNKNOWN: Range = { min: 0, max: U64 };

function addU(a: number, b: number): number {
  const s = a + b;
  return s >= U64 ? U64 : s;
}

function mulU(a: number, b: number): number {
  if (a === 0 || b === 0) return 0;
  const p = a * b;
  return p >= U64 ? U64 : p;
}

/** cel-go multiplyByCostFactor: the product rounded up, saturating. */
function factorU(x: number, f: number): number {
  if (x > 0 && f > 0 && x > U64 / f) return U64;
  const c = Math.ceil(x * f);
  return c >= U64 ? U64 : c;
}

function add(a: Range, b: Range): Range {
  return { min: addU(a.min, b.min), max: addU(a.max, b.max) };
}

function mul(a: Range, b: Range): Range {
  return { min: mulU(a.min, b.min), max: mulU(a.max, b.max) };
}

function byFactor(a: Range, f: number): Range {
  return { min: factorU(a.min, f), max: factorU(a.max, f) };
}

function union(a: Range, b: Range): Range {
  return { min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) };
}

function fixed(n: number): Range {
  return { min: n, max: n };
}

// ---------------------------------------------------------------------------------------------------------------
// CEL types, from the checker's type names

type Kind =
  | "bool"
  | "int"
  | "uint"
  | "double"
  | "string"
  | "bytes"
  | "duration"
  | "timestamp"
  | "null"
  | "type"
  | "list"
  | "map"
  | "optional"
  | "dyn"
  | "struct"
  | "param"
  | "unknown";

interface CelTypeInfo {
  kind: Kind;
  name: string;
  params: CelTypeInfo[];
}

const UNKNOWN_TYPE: CelTypeInfo = { kind: "unknown", name: "", params: [] };
const typeCache = new Map<string, CelTypeInfo>();

function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "<") depth++;
    else if (c === ">") depth--;
    else if (c === "," && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

function parseTypeName(name: string): CelTypeInfo {
  const cached = typeCache.get(name);
  if (cached !== undefined) return cached;
  let t: CelTypeInfo;
  const lt = name.indexOf("<");
  if (lt > 0 && name.endsWith(">")) {
    const head = name.slice(0, lt);
    const params = splitTopLevel(name.slice(lt + 1, -1)).map(parseTypeName);
    const kind: Kind = head === "list" ? "list" : head === "map" ? "map" : head === "optional" ? "optional" : "type";
    t = { kind, name, params };
  } else {
    let kind: Kind;
    switch (name) {
      case "bool":
      case "int":
      case "uint":
      case "double":
      case "string":
      case "bytes":
      case "dyn":
      case "type":
        kind = name;
        break;
      case "null":
      case "null_type":
        kind = "null";
        break;
      case "google.protobuf.Duration":
        kind = "duration";
        break;
      case "google.protobuf.Timestamp":
        kind = "timestamp";
        break;
      default:
        kind = name.includes(".") ? "struct" : "param";
    }
    t = { kind, name, params: [] };
  }
  typeCache.set(name, t);
  return t;
}

function typeOf(node: ASTNode): CelTypeInfo {
  const n = checkedTypeName(node);
  return n === undefined ? UNKNOWN_TYPE : parseTypeName(n);
}

/** cel-go isScalar: types of a constant size. */
function isScalar(t: CelTypeInfo): boolean {
  switch (t.kind) {
    case "bool":
    case "double":
    case "duration":
    case "int":
    case "timestamp":
    case "uint":
      return true;
    case "optional":
      return t.params[0] !== undefined && isScalar(t.params[0]);
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Schema declarations (apiserver DeclType: MaxElements and MinSerializedSize)

/** The size-relevant part of a DeclType. */
class Decl {
  private fieldMap: Map<string, Decl> | undefined;
  constructor(
    readonly minSize: number,
    readonly maxElements: number,
    private readonly fieldSource?: () => Map<string, Decl>,
    readonly elem?: Decl,
    readonly key?: Decl,
  ) {}

  /** An object field by its escaped CEL name. */
  field(name: string): Decl | undefined {
    if (this.fieldSource === undefined) return undefined;
    this.fieldMap ??= this.fieldSource();
    return this.fieldMap.get(name);
  }
}

const REQUEST_STRING_LENGTH = MAX_REQUEST_SIZE - 2;
/** apiserver StringType (map keys): no MaxElements. */
const KEY_DECL = new Decl(2, 0);
/** The string properties WithTypeAndObjectMeta adds (no maxLength). */
const META_STRING_DECL = new Decl(2, REQUEST_STRING_LENGTH);
const META_OBJECT_DECL = new Decl(
  2,
  0,
  () =>
    new Map([
      ["name", META_STRING_DECL],
      ["generateName", META_STRING_DECL],
    ]),
);

const declCache = new WeakMap<SchemaNode, Decl | null>();
const rootDeclCache = new WeakMap<SchemaNode, Decl | null>();

function zeroIfNegative(v: number): number {
  return v < 0 ? 0 : v;
}

function utf8Length(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** The DeclType of a schema node (apiserver common.SchemaDeclType); null when the node has no CEL type. */
function declOf(node: SchemaNode, isResourceRoot: boolean): Decl | null {
  const cache = isResourceRoot ? rootDeclCache : declCache;
  const hit = cache.get(node);
  if (hit !== undefined) return hit;
  const d = buildDecl(node, isResourceRoot);
  cache.set(node, d);
  return d;
}

/** The string-typed schema check of WithTypeAndObjectMeta. */
function isStringProp(n: SchemaNode | undefined): boolean {
  return n !== undefined && n.type === "string";
}

type PropEntry = [name: string, decl: () => Decl | null, hasDefault: boolean];

function propertyEntries(node: SchemaNode, isResourceRoot: boolean): PropEntry[] {
  const out: PropEntry[] = [];
  const props = node.properties;
  let replaceMeta = false;
  if (isResourceRoot) {
    const meta = props?.get("metadata");
    replaceMeta = !(
      props !== null &&
      props !== undefined &&
      isStringProp(props.get("kind")) &&
      isStringProp(props.get("apiVersion")) &&
      meta !== undefined &&
      meta.type === "object" &&
      meta.properties !== null &&
      isStringProp(meta.properties.get("name")) &&
      isStringProp(meta.properties.get("generateName"))
    );
  }
  if (props !== null) {
    for (const [name, sub] of props) {
      if (replaceMeta && (name === "kind" || name === "apiVersion" || name === "metadata")) continue;
      out.push([name, () => declOf(sub, sub.embeddedResource), sub.hasDefault && sub.default !== null]);
    }
  }
  if (replaceMeta) {
    out.push(["kind", () => META_STRING_DECL, false]);
    out.push(["apiVersion", () => META_STRING_DECL, false]);
    out.push(["metadata", () => META_OBJECT_DECL, false]);
  }
  return out;
}

function buildDecl(node: SchemaNode, isResourceRoot: boolean): Decl | null {
  const vv = node.vv;
  if (node.intOrString) {
    const max = vv?.maxLength !== undefined ? zeroIfNegative(vv.maxLength) * 4 : REQUEST_STRING_LENGTH;
    return new Decl(1, max);
  }
  switch (node.type) {
    case "array": {
      if (node.items === null) return null;
      const item = declOf(node.items, node.items.embeddedResource);
      if (item === null) return null;
      const max =
        vv?.maxItems !== undefined
          ? zeroIfNegative(vv.maxItems)
          : Math.floor(REQUEST_STRING_LENGTH / (item.minSize + 1));
      return new Decl(2, max, undefined, item);
    }
    case "object": {
      if (node.additionalProperties !== null) {
        const value = declOf(node.additionalProperties, node.additionalProperties.embeddedResource);
        if (value === null) return null;
        const max =
          vv?.maxProperties !== undefined
            ? zeroIfNegative(vv.maxProperties)
            : Math.floor(REQUEST_STRING_LENGTH / (value.minSize + 6));
        return new Decl(2, max, undefined, value, KEY_DECL);
      }
      const entries = propertyEntries(node, isResourceRoot);
      const required = new Set(vv?.required ?? []);
      let minSize = 2;
      for (const [name, decl, hasDefault] of entries) {
        if (!required.has(name) || hasDefault) continue;
        const d = decl();
        if (d !== null) minSize += utf8Length(name) + d.minSize + 4;
      }
      return new Decl(minSize, 0, () => {
        const fields = new Map<string, Decl>();
        for (const [name, decl] of entries) {
          const cel = escapedNames(name)[0];
          if (cel === undefined) continue;
          const d = decl();
          if (d !== null) fields.set(cel, d);
        }
        return fields;
      });
    }
    case "string": {
      switch (vv?.rawFormat) {
        case "byte":
          return new Decl(2, vv.maxLength !== undefined ? zeroIfNegative(vv.maxLength) : REQUEST_STRING_LENGTH);
        case "duration":
          return new Decl(3, 32);
        case "date":
          return new Decl(12, 12);
        case "date-time":
          return new Decl(21, 32);
      }
      if (vv?.maxLength !== undefined) return new Decl(2, zeroIfNegative(vv.maxLength) * 4);
      if (vv?.enum !== undefined && vv.enum.length > 0) {
        let longest = 0;
        for (const e of vv.enum) if (typeof e === "string") longest = Math.max(longest, utf8Length(e));
        return new Decl(2, longest);
      }
      return new Decl(2, REQUEST_STRING_LENGTH);
    }
    case "boolean":
      return new Decl(4, 0);
    case "number":
    case "integer":
      return new Decl(1, 0);
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Cardinality (apiextensions CELSchemaContext.MaxCardinality)

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

// ---------------------------------------------------------------------------------------------------------------
// Messages

/** Go's strconv 'f' formatting with `d` decimals (round half to even on the exact binary value). */
function goFixed(x: number, d: number): string {
  const scaled = x * 2 ** (d + 1);
  if (Number.isInteger(scaled) && scaled % 2 === 1) {
    // An exact tie: JavaScript rounds up, Go to the even digit.
    const p = 10 ** d;
    let n = Math.floor(x * p);
    if (n % 2 === 1) n += 1;
    const int = Math.floor(n / p);
    const frac = String(n - int * p).padStart(d, "0");
    return d === 0 ? String(int) : `${int}.${frac}`;
  }
  return x.toFixed(d);
}

/** The exceed factor of getCostErrorMessage: `more than 100x`, `%.1fx` from 1.5, `%fx` below. */
export function formatCostFactor(cost: number, limit: number): string {
  const f = cost / limit;
  if (f > 100) return "more than 100x";
  if (f < 1.5) return `${goFixed(f, 6)}x`;
  return `${goFixed(f, 1)}x`;
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

// ---------------------------------------------------------------------------------------------------------------
// The coster

interface Entry {
  container: "list" | "map";
  key: Range;
  val: Range;
}

function unionEntry(a: Entry | undefined, b: Entry | undefined): Entry | undefined {
  if (a === undefined || b === undefined) return undefined;
  return { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) };
}

interface LocalVar {
  path: string[] | undefined;
  size: Range | undefined;
  /** The element type of the iteration range. */
  type: CelTypeInfo;
}

/** A call argument or receiver as cel-go's estimators see it (checker.AstNode). */
interface ArgNode {
  node: ASTNode | undefined;
  path: string[] | undefined;
  type: CelTypeInfo;
  size: Range | undefined;
}

const MACROS = new Set(["all", "exists", "exists_one", "map", "filter"]);
/** Receivers that are namespaces of global functions (`optional.of`, `format.named`, `ip.isCanonical`). */
const NAMESPACES = new Set(["optional", "format", "ip", "sets", "strings", "math", "base64", "cel"]);

/** The original names of methods compile.ts renames before the check. */
const ORIGINAL_NAMES: ReadonlyMap<string, string> = new Map(
  Object.entries(METHOD_RENAMES).map(([from, to]) => [to, from.replace(/^global:/, "")]),
);

const BINARY_FUNCTIONS: Readonly<Record<string, string>> = {
  "==": "_==_",
  "!=": "_!=_",
  "<": "_<_",
  "<=": "_<=_",
  ">": "_>_",
  ">=": "_>=_",
  "+": "_+_",
  "-": "_-_",
  "*": "_*_",
  "/": "_/_",
  "%": "_%_",
  in: "@in",
};

function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

function isNegatedLiteral(node: ASTNode): boolean {
  return node.op === "-_" && (node.args as unknown as ASTNode).op === "value";
}

class Coster {
  private readonly paths = new Map<ASTNode, string[]>();
  private readonly sizes = new Map<ASTNode, Range>();
  private readonly entries = new Map<ASTNode, Entry>();
  private readonly scopes = new Map<string, LocalVar[]>();

  constructor(private readonly root: Decl | null) {}

  // -- scopes, paths, sizes ------------------------------------------------------------------------------------

  private peek(name: string): LocalVar | undefined {
    const s = this.scopes.get(name);
    return s === undefined ? undefined : s[s.length - 1];
  }

  private push(name: string, v: LocalVar): void {
    let s = this.scopes.get(name);
    if (s === undefined) {
      s = [];
      this.scopes.set(name, s);
    }
    s.push(v);
  }

  private pop(name: string): void {
    this.scopes.get(name)?.pop();
  }

  private getPath(e: ASTNode): string[] | undefined {
    if (e.op === "id") {
      const v = this.peek(e.args as unknown as string);
      if (v !== undefined) return v.path;
    }
    return this.paths.get(e);
  }

  /** apiextensions sizeEstimator.EstimateSize: the path from the rule's node, its first element skipped. */
  private sizeFromPath(path: string[] | undefined): Range | undefined {
    if (path === undefined || path.length === 0 || this.root === null) return undefined;
    let d: Decl | undefined = this.root;
    for (let i = 1; i < path.length; i++) {
      const name = path[i]!;
      if (name === "@items" || name === "@values") d = d.elem;
      else if (name === "@keys") d = d.key;
      else d = d.field(name);
      if (d === undefined) return undefined;
    }
    return { min: 0, max: d.maxElements };
  }

  /** cel-go computeSize. */
  private computeSize(e: ASTNode): Range | undefined {
    const cached = this.sizes.get(e);
    if (cached !== undefined) return cached;
    const literal = literalSize(e);
    if (literal !== undefined) return literal;
    const fromPath = this.sizeFromPath(this.getPath(e));
    if (fromPath !== undefined) {
      this.sizes.set(e, fromPath);
      return fromPath;
    }
    if (isScalar(typeOf(e))) return ONE;
    if (e.op === "id") {
      const v = this.peek(e.args as unknown as string);
      if (v?.size !== undefined) return v.size;
    }
    return undefined;
  }

  private sizeOrUnknown(e: ASTNode): Range {
    return this.computeSize(e) ?? UNKNOWN;
  }

  private computeEntry(e: ASTNode): Entry | undefined {
    return this.entries.get(e);
  }

  private argNode(e: ASTNode): ArgNode {
    return { node: e, path: this.getPath(e), type: typeOf(e), size: this.computeSize(e) };
  }

  // -- costs ---------------------------------------------------------------------------------------------------

  cost(e: ASTNode): Range {
    const a = e.args as unknown;
    switch (e.op) {
      case "value":
        return ZERO;
      case "id": {
        const name = a as string;
        const v = this.peek(name);
        if (v === undefined) this.paths.set(e, [name]);
        return ONE;
      }
      case ".":
        return this.costSelect(e);
      case ".?": {
        // cel-go `_?._(operand, 'field')`: a call of cost 1.
        const [operand] = a as [ASTNode, string];
        return add(this.cost(operand), ONE);
      }
      case "[]":
        return this.costIndex(e);
      case "[?]": {
        const [x, i] = a as [ASTNode, ASTNode];
        return add(add(this.cost(x), this.cost(i)), ONE);
      }
      case "list":
        return this.costList(e);
      case "map":
        return this.costMap(e);
      case "?:": {
        const [c, t, f] = a as [ASTNode, ASTNode, ASTNode];
        const cc = this.cost(c);
        const ct = this.cost(t);
        const cf = this.cost(f);
        this.sizes.set(e, union(this.sizeOrUnknown(t), this.sizeOrUnknown(f)));
        const entry = unionEntry(this.computeEntry(t), this.computeEntry(f));
        if (entry !== undefined) this.entries.set(e, entry);
        return add(cc, union(ct, cf));
      }
      case "&&":
      case "||": {
        const [l, r] = a as [ASTNode, ASTNode];
        const cl = this.cost(l);
        const cr = this.cost(r);
        return { min: cl.min, max: addU(cl.max, cr.max) };
      }
      case "!_":
      case "-_": {
        const x = a as ASTNode;
        if (e.op === "-_" && x.op === "value") return ZERO; // a negative literal
        // cel-go drops an even number of repeated unary operators.
        if (x.op === e.op && !isNegatedLiteral(x)) return this.cost(x.args as unknown as ASTNode);
        return add(this.cost(x), ONE);
      }
      case "call":
      case "rcall":
        return this.costCall(e);
      default: {
        const fn = BINARY_FUNCTIONS[e.op];
        if (fn === undefined) return ZERO;
        const [l, r] = a as [ASTNode, ASTNode];
        return this.costFunction(e, fn, undefined, [l, r]);
      }
    }
  }

  private costSelect(e: ASTNode): Range {
    const [operand, field] = e.args as unknown as [ASTNode, string];
    let sum = this.cost(operand);
    const k = typeOf(operand).kind;
    // Objects and maps cost a selection; operands without a checked type are inside has() (objects or maps).
    if (k === "map" || k === "struct" || k === "param" || k === "unknown") sum = add(sum, ONE);
    this.paths.set(e, [...(this.getPath(operand) ?? []), field]);
    return sum;
  }

  private costIndex(e: ASTNode): Range {
    const [x, i] = e.args as unknown as [ASTNode, ASTNode];
    const cx = this.cost(x);
    const ci = this.cost(i);
    const k = typeOf(x).kind;
    if (k === "list" || k === "map" || k === "dyn") {
      this.paths.set(e, [...(this.getPath(x) ?? []), k === "list" ? "@items" : "@values"]);
      const size = this.computeEntry(x)?.val ?? this.computeSize(e);
      if (size !== undefined) this.sizes.set(e, size);
    }
    return add(add(cx, ci), ONE);
  }

  private costList(e: ASTNode): Range {
    const elements = e.args as unknown as ASTNode[];
    let sum = fixed(10);
    let item: Range = elements.length === 0 ? ZERO : { min: U64, max: 0 };
    for (const el of elements) {
      sum = add(sum, this.cost(el));
      item = union(item, this.sizeOrUnknown(el));
    }
    this.entries.set(e, { container: "list", key: ONE, val: item });
    return sum;
  }

  private costMap(e: ASTNode): Range {
    const entries = e.args as unknown as [ASTNode, ASTNode][];
    let sum = fixed(30);
    let key: Range = entries.length === 0 ? ZERO : { min: U64, max: 0 };
    let val: Range = key;
    for (const [k, v] of entries) {
      sum = add(sum, this.cost(k));
      sum = add(sum, this.cost(v));
      key = union(key, this.sizeOrUnknown(k));
      val = union(val, this.sizeOrUnknown(v));
    }
    this.entries.set(e, { container: "map", key, val });
    return sum;
  }

  private costCall(e: ASTNode): Range {
    let name: string;
    let target: ASTNode | undefined;
    let args: ASTNode[];
    if (e.op === "call") {
      [name, args] = e.args as unknown as [string, ASTNode[]];
    } else {
      [name, target, args] = e.args as unknown as [string, ASTNode, ASTNode[]];
    }
    name = ORIGINAL_NAMES.get(name) ?? name;
    if (target === undefined) {
      if (name === "has" && args.length === 1) {
        // A presence test: free (PresenceTestHasCost(false)), only the operand of the selection costs.
        const arg = args[0]!;
        return arg.op === "." ? this.cost((arg.args as unknown as [ASTNode])[0]) : this.cost(arg);
      }
      if (name === "__has" && args.length === 2) return this.cost(args[0]!);
      if (name === "dyn" && args.length === 1) {
        const arg = args[0]!;
        const c = add(this.cost(arg), ONE);
        const size = this.computeSize(arg);
        if (size !== undefined) this.sizes.set(e, size);
        const entry = this.computeEntry(arg);
        if (entry !== undefined) this.entries.set(e, entry);
        return c;
      }
    } else {
      if (MACROS.has(name) && args[0]?.op === "id" && (args.length === 2 || (name === "map" && args.length === 3))) {
        return this.costComprehension(e, name, target, args);
      }
      if (target.op === "id") {
        const ns = target.args as unknown as string;
        if (NAMESPACES.has(ns) && this.peek(ns) === undefined) {
          name = `${ns}.${name}`;
          target = undefined;
        }
      }
    }
    return this.costFunction(e, name, target, args);
  }

  /** cel-go costCall for a function (or operator) with its receiver and arguments. */
  private costFunction(e: ASTNode, fn: string, target: ASTNode | undefined, args: ASTNode[]): Range {
    const argCosts: Range[] = [];
    const argNodes: ArgNode[] = [];
    for (const a of args) {
      argCosts.push(this.cost(a));
      argNodes.push(this.argNode(a));
    }
    let sum = ZERO;
    let targetNode: ArgNode | undefined;
    if (target !== undefined) {
      sum = this.cost(target);
      targetNode = this.argNode(target);
    }
    let argSum = ZERO;
    for (const c of argCosts) argSum = add(argSum, c);
    const est = this.functionCost(e, fn, targetNode, argNodes, argSum);
    const size = est.resultSize ?? this.computeSize(e);
    if (size !== undefined) this.sizes.set(e, size);
    return add(sum, est.cost);
  }

  private functionCost(
    e: ASTNode,
    fn: string,
    target: ArgNode | undefined,
    args: ArgNode[],
    argSum: Range,
  ): { cost: Range; resultSize?: Range } {
    // Overload estimators of the extension libraries (ext/sets.go).
    if ((fn === "sets.contains" || fn === "sets.intersects" || fn === "sets.equivalent") && args.length === 2) {
      const f = fn === "sets.equivalent" ? 2 : 1;
      const c = add(byFactor(mul(sizeEstimate(args[0]!), sizeEstimate(args[1]!)), f), ONE);
      return { cost: add(c, argSum) };
    }
    const k8s = this.kubernetesCallCost(fn, target, args);
    if (k8s !== undefined) {
      return k8s.resultSize === undefined
        ? { cost: add(k8s.cost, argSum) }
        : { cost: add(k8s.cost, argSum), resultSize: k8s.resultSize };
    }
    const builtin = this.builtinCost(e, fn, target, args);
    if (builtin !== undefined) {
      return builtin.resultSize === undefined
        ? { cost: add(builtin.cost, argSum) }
        : { cost: add(builtin.cost, argSum), resultSize: builtin.resultSize };
    }
    return { cost: add(ONE, argSum) };
  }

  /** Kubernetes' library CostEstimator.EstimateCallCost (by function name, as it does). */
  private kubernetesCallCost(
    fn: string,
    target: ArgNode | undefined,
    args: ArgNode[],
  ): { cost: Range; resultSize?: Range } | undefined {
    switch (fn) {
      case "isSorted":
      case "sum":
      case "max":
      case "min":
      case "indexOf":
      case "lastIndexOf": {
        if (target === undefined) return undefined;
        const el = listElementNode(target);
        if (el !== undefined) {
          let elCost = ONE;
          if (el.type.kind === "string" || el.type.kind === "bytes") {
            elCost = add(elCost, byFactor(this.itemsSize(el), STRING_TRAVERSAL));
          }
          return { cost: mul(sizeEstimate(target), elCost) };
        }
        return { cost: byFactor(sizeEstimate(target), STRING_TRAVERSAL) };
      }
      case "url":
      case "jsonpatch.escapeKey": {
        if (args.length !== 1) return undefined;
        const sz = sizeEstimate(args[0]!);
        return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: sz };
      }
      case "lowerAscii":
      case "upperAscii":
      case "substring":
      case "trim": {
        if (target === undefined) return undefined;
        const sz = sizeEstimate(target);
        return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: sz };
      }
      case "replace":
        if (target === undefined || args.length < 2) return undefined;
        return replaceCost(sizeEstimate(target), sizeEstimate(args[0]!), sizeEstimate(args[1]!));
      case "split": {
        if (target === undefined) return undefined;
        const sz = sizeEstimate(target);
        let max = sz.max;
        const limit = args[1]?.node;
        if (limit !== undefined && limit.op === "value" && typeof limit.args === "bigint") {
          max = Number(BigInt.asUintN(64, limit.args));
        }
        return { cost: byFactor(sz, 2 * STRING_TRAVERSAL), resultSize: { min: 0, max } };
      }
      case "join": {
        if (target === undefined) return undefined;
        let sz = ZERO;
        const listSize = sizeEstimate(target);
        const el = listElementNode(target);
        if (el !== undefined) sz = mul(listSize, this.itemsSize(el));
        if (args.length > 0) {
          const sep = sizeEstimate(args[0]!);
          const minSep = listSize.min > 0 ? listSize.min - 1 : 0;
          const maxSep = listSize.max > 0 ? listSize.max - 1 : 0;
          sz = add(sz, mul(sep, { min: minSep, max: maxSep }));
        }
        return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: sz };
      }
      case "find":
      case "findAll": {
        if (target === undefined || args.length < 1) return undefined;
        const sz = sizeEstimate(target);
        const strCost = byFactor(add(sz, ONE), STRING_TRAVERSAL);
        const regexCost = byFactor(sizeEstimate(args[0]!), REGEX_LENGTH);
        return { cost: mul(strCost, regexCost), resultSize: { min: 0, max: sz.max } };
      }
      case "cidr":
      case "isIP":
      case "isCIDR":
      case "quantity":
      case "isQuantity":
      case "semver":
      case "isSemver":
        // Kubernetes only estimates these with a receiver, which the global functions never have.
        if (target === undefined || args.length < 1) return undefined;
        return { cost: byFactor(sizeEstimate(args[0]!), STRING_TRAVERSAL) };
      case "ip":
        if (target === undefined) return undefined;
        if (args.length >= 1) return { cost: byFactor(sizeEstimate(args[0]!), STRING_TRAVERSAL) };
        return { cost: ONE };
      case "ip.isCanonical":
        if (target === undefined || args.length < 1) return undefined;
        return { cost: byFactor(sizeEstimate(args[0]!), 2 * STRING_TRAVERSAL) };
      case "masked":
      case "prefixLength":
      case "family":
      case "isUnspecified":
      case "isLoopback":
      case "isLinkLocalMulticast":
      case "isLinkLocalUnicast":
      case "isGlobalUnicast":
        return { cost: ONE };
      case "containsIP":
      case "containsCIDR": {
        if (target === undefined || args.length < 1) return undefined;
        const ipSize: Range = { min: 4, max: 16 };
        let c = byFactor(add(ipSize, ipSize), STRING_TRAVERSAL);
        if (fn === "containsCIDR") c = add(add(c, byFactor(ipSize, STRING_TRAVERSAL)), ONE);
        if (args[0]!.type.kind === "string") c = add(c, byFactor(sizeEstimate(args[0]!), STRING_TRAVERSAL));
        return { cost: c };
      }
      case "validate":
        if (target === undefined || args.length < 1) return undefined;
        return {
          cost: byFactor(byFactor(sizeEstimate(args[0]!), STRING_TRAVERSAL), MAX_NAME_FORMAT_REGEX_SIZE * REGEX_LENGTH),
        };
      case "format.named":
      case "sign":
      case "asInteger":
      case "isInteger":
      case "asApproximateFloat":
      case "isGreaterThan":
      case "isLessThan":
      case "compareTo":
      case "add":
      case "sub":
      case "major":
      case "minor":
      case "patch":
      case "getScheme":
      case "getHostname":
      case "getHost":
      case "getPort":
      case "getEscapedPath":
      case "getQuery":
        return { cost: ONE };
      case "_==_": {
        if (args.length !== 2) return undefined;
        const [l, r] = args as [ArgNode, ArgNode];
        if (l.type.name === "" || l.type.name !== r.type.name) return undefined;
        switch (l.type.name) {
          case "net.IP":
          case "net.CIDR":
          case "kubernetes.Quantity":
          case "kubernetes.Semver":
            return { cost: ONE };
          case "kubernetes.NamedFormat":
            return { cost: byFactor({ min: 1, max: MAX_FORMAT_SIZE }, STRING_TRAVERSAL) };
          case "kubernetes.URL": {
            // Kubernetes reads the right-hand size twice.
            const size = r.size ?? ONE;
            return { cost: byFactor({ min: 1, max: size.max }, STRING_TRAVERSAL) };
          }
        }
        return undefined;
      }
    }
    return undefined;
  }

  /** The size of a list's element (cel-go itemsNode: the receiver's path plus `@items`, no computed size). */
  private itemsSize(el: { path: string[] | undefined }): Range {
    return this.sizeFromPath(el.path) ?? UNKNOWN;
  }

  /** cel-go functionCost's builtin overloads (size-dependent string, bytes and list operations). */
  private builtinCost(
    e: ASTNode,
    fn: string,
    target: ArgNode | undefined,
    args: ArgNode[],
  ): { cost: Range; resultSize?: Range } | undefined {
    switch (fn) {
      case "bytes":
        if (target === undefined && args.length === 1 && args[0]!.type.kind === "string") {
          const sz = sizeOrUnknownNode(args[0]!);
          return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: { min: sz.min, max: mulU(sz.max, 4) } };
        }
        return undefined;
      case "string":
        if (target === undefined && args.length === 1 && args[0]!.type.kind === "bytes") {
          const sz = sizeOrUnknownNode(args[0]!);
          return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: { min: Math.floor(sz.min / 4), max: sz.max } };
        }
        return undefined;
      case "strings.quote":
        if (args.length === 1) {
          const sz = sizeOrUnknownNode(args[0]!);
          return {
            cost: byFactor(sz, STRING_TRAVERSAL),
            resultSize: { min: addU(sz.min, 2), max: addU(mulU(sz.max, 2), 2) },
          };
        }
        return undefined;
      case "startsWith":
      case "endsWith":
        if (target !== undefined && target.type.kind === "string" && args.length === 1) {
          return { cost: byFactor(sizeOrUnknownNode(args[0]!), STRING_TRAVERSAL) };
        }
        return undefined;
      case "matches":
        if (target !== undefined && args.length === 1) {
          const strCost = byFactor(add(sizeOrUnknownNode(target), ONE), STRING_TRAVERSAL);
          const regexCost = byFactor(sizeOrUnknownNode(args[0]!), REGEX_LENGTH);
          return { cost: mul(strCost, regexCost) };
        }
        return undefined;
      case "contains":
        if (target !== undefined && target.type.kind === "string" && args.length === 1) {
          const strCost = byFactor(sizeOrUnknownNode(target), STRING_TRAVERSAL);
          const subCost = byFactor(sizeOrUnknownNode(args[0]!), STRING_TRAVERSAL);
          return { cost: mul(strCost, subCost) };
        }
        return undefined;
      case "@in": {
        const k = args[1]?.type.kind;
        const inList = k === "list" || k === "dyn";
        if (!inList) return undefined;
        const c = byFactor(sizeOrUnknownNode(args[1]!), 1);
        return { cost: k === "dyn" ? union(c, ONE) : c };
      }
      case "_+_": {
        if (args.length !== 2) return undefined;
        const [l, r] = args as [ArgNode, ArgNode];
        const lk = l.type.kind;
        const rk = r.type.kind;
        const may = (kind: Kind) => (lk === kind || lk === "dyn") && (rk === kind || rk === "dyn");
        const sized = may("string") || may("bytes");
        const list = may("list");
        const constant = !isVariableSized(lk) && !isVariableSized(rk);
        if (!sized && !list) return undefined;
        const resultSize = add(sizeOrUnknownNode(l), sizeOrUnknownNode(r));
        if (l.node !== undefined && r.node !== undefined) {
          const entry = unionEntry(this.computeEntry(l.node), this.computeEntry(r.node));
          if (entry !== undefined) this.entries.set(e, entry);
        }
        let cost: Range | undefined;
        if (sized) cost = byFactor(resultSize, STRING_TRAVERSAL);
        if (list) cost = cost === undefined ? ONE : union(cost, ONE);
        if (constant) cost = cost === undefined ? ONE : union(cost, ONE);
        return { cost: cost!, resultSize };
      }
      case "_==_":
      case "_!=_":
        if (args.length !== 2) return undefined;
        return { cost: comparisonCost(args[0]!, args[1]!) };
      case "_<_":
      case "_<=_":
      case "_>_":
      case "_>=_": {
        if (args.length !== 2) return undefined;
        const [l, r] = args as [ArgNode, ArgNode];
        const lk = l.type.kind;
        const rk = r.type.kind;
        const may = (kind: Kind) => (lk === kind || lk === "dyn") && (rk === kind || rk === "dyn");
        if (!may("string") && !may("bytes")) return undefined;
        const c = comparisonCost(l, r);
        const constant = !isVariableSized(lk) && !isVariableSized(rk);
        return { cost: constant ? union(c, ONE) : c };
      }
    }
    return undefined;
  }

  /** A macro comprehension (cel-go macro expansions of all, exists, exists_one, map and filter). */
  private costComprehension(e: ASTNode, macro: string, range: ASTNode, args: ASTNode[]): Range {
    const iterVar = args[0]!.args as unknown as string;
    let sum = this.cost(range);
    const listResult = macro === "map" || macro === "filter";
    // The accumulator: `[]` for map/filter (cost 10), a bool or int literal otherwise.
    if (listResult) sum = add(sum, fixed(10));
    const accuEntry: Entry = { container: "list", key: ONE, val: ZERO };

    const rangeEntry = this.computeEntry(range);
    const rangeType = typeOf(range);
    const container = rangeEntry?.container ?? (rangeType.kind === "list" ? "list" : "map");
    const rangePath = this.getPath(range) ?? [];
    this.push(iterVar, {
      path: [...rangePath, container === "list" ? "@items" : "@keys"],
      size: container === "list" ? rangeEntry?.val : rangeEntry?.key,
      type: rangeType.params[0] ?? UNKNOWN_TYPE,
    });

    let loop = 0;
    let step: Range;
    let stepEntry: Entry | undefined;
    switch (macro) {
      case "all":
      case "exists": {
        // @not_strictly_false(__result__) and @not_strictly_false(!__result__); __result__ && p, __result__ || p.
        loop = macro === "all" ? 2 : 3;
        const body = this.cost(args[1]!);
        step = { min: 1, max: addU(1, body.max) };
        break;
      }
      case "exists_one": {
        // p ? __result__ + 1 : __result__
        const body = this.cost(args[1]!);
        step = add(body, union(fixed(2), ONE));
        break;
      }
      case "map": {
        // __result__ + [f(x)], or p(x) ? __result__ + [f(x)] : __result__
        const filter = args.length === 3 ? args[1]! : undefined;
        const transform = args[args.length - 1]!;
        const cf = filter === undefined ? undefined : this.cost(filter);
        const ct = this.cost(transform);
        const append = add(fixed(12), ct);
        const item = this.sizeOrUnknown(transform);
        stepEntry = unionEntry(accuEntry, { container: "list", key: ONE, val: item });
        step = cf === undefined ? append : add(cf, union(append, ONE));
        if (cf !== undefined) stepEntry = unionEntry(stepEntry, accuEntry);
        break;
      }
      default: {
        // filter: p(x) ? __result__ + [x] : __result__
        const body = this.cost(args[1]!);
        step = add(body, union(fixed(13), ONE));
        const item = this.iterVarSize(iterVar);
        stepEntry = unionEntry(unionEntry(accuEntry, { container: "list", key: ONE, val: item }), accuEntry);
        break;
      }
    }
    this.pop(iterVar);

    // The result: __result__, or __result__ == 1 for exists_one.
    sum = add(sum, macro === "exists_one" ? fixed(2) : ONE);
    const rangeCount = this.sizeOrUnknown(range);
    sum = add(sum, mul(rangeCount, add(step, fixed(loop))));
    if (listResult) {
      this.sizes.set(e, rangeCount);
      if (stepEntry !== undefined) this.entries.set(e, stepEntry);
    } else {
      this.sizes.set(e, ONE);
    }
    return sum;
  }

  /** The size of a reference to the current iteration variable (cel-go computeSize of its identifier). */
  private iterVarSize(name: string): Range {
    const v = this.peek(name);
    if (v === undefined) return UNKNOWN;
    return this.sizeFromPath(v.path) ?? (isScalar(v.type) ? ONE : undefined) ?? v.size ?? UNKNOWN;
  }
}

function isVariableSized(k: Kind): boolean {
  return k === "string" || k === "bytes" || k === "list";
}

function literalSize(e: ASTNode): Range | undefined {
  switch (e.op) {
    case "value": {
      const v = e.args as unknown;
      if (typeof v === "string") return fixed(codePointLength(v));
      if (v instanceof Uint8Array) return fixed(v.length);
      return ONE;
    }
    case "-_":
      return isNegatedLiteral(e) ? ONE : undefined;
    case "list":
      return fixed((e.args as unknown as ASTNode[]).length);
    case "map":
      return fixed((e.args as unknown as unknown[]).length);
    default:
      return undefined;
  }
}

function sizeOrUnknownNode(n: ArgNode): Range {
  return n.size ?? UNKNOWN;
}

/** Kubernetes' CostEstimator.sizeEstimate: the computed size, else the schema's, else unknown. */
function sizeEstimate(n: ArgNode): Range {
  return n.size ?? UNKNOWN;
}

/** cel-go listElementNode: the element of a parameterised type, with the receiver's path plus `@items`. */
function listElementNode(list: ArgNode): { path: string[] | undefined; type: CelTypeInfo } | undefined {
  const el = list.type.params[0];
  if (el === undefined) return undefined;
  return { path: list.path === undefined ? undefined : [...list.path, "@items"], type: el };
}

/** Size-based equality and string/bytes comparison (cel-go: the smaller of the two max sizes × 0.1). */
function comparisonCost(l: ArgNode, r: ArgNode): Range {
  const ls = sizeOrUnknownNode(l);
  const rs = sizeOrUnknownNode(r);
  const smallestMax = Math.min(ls.max, rs.max);
  return byFactor({ min: smallestMax > 0 ? 1 : 0, max: smallestMax }, STRING_TRAVERSAL);
}

/** Kubernetes' estimate of `replace`. */
function replaceCost(sz: Range, toReplace: Range, replaceWith: Range): { cost: Range; resultSize: Range } {
  const count = { min: 0, max: 0 };
  const retained = { min: 0, max: 0 };
  if (toReplace.min === 0) {
    count.max = sz.max < U64 ? sz.max + 1 : sz.max;
    retained.max = sz.max;
  } else if (replaceWith.max <= toReplace.min) {
    retained.max = sz.max;
  } else {
    count.max = Math.min(Math.ceil(sz.max / toReplace.min), U64);
  }
  if (toReplace.max === 0) {
    count.min = sz.min < U64 ? sz.min + 1 : sz.min;
    retained.min = sz.min;
  } else if (toReplace.max <= replaceWith.min) {
    retained.min = sz.min;
  } else {
    count.min = Math.min(Math.ceil(sz.min / toReplace.max), U64);
  }
  return { cost: byFactor(sz, 2 * STRING_TRAVERSAL), resultSize: add(mul(count, replaceWith), retained) };
}

/** Options of estimateCost. */
export interface EstimateOptions {
  /** The node is the schema root or an embedded resource (its `self` has apiVersion, kind and metadata). */
  isResourceRoot?: boolean;
}

/**
 * Estimates the cost of one type-checked rule or messageExpression AST (after compile.ts's has() rewrite and
 * method renames, before the evaluation hooks), as `env.EstimateCost` does in kube-apiserver. `self` is the
 * schema node that carries the rule. Returns the [min, max] cost; Kubernetes checks `max`.
 */
export function estimateCost(ast: ASTNode, self: SchemaNode, opts: EstimateOptions = {}): CostEstimate {
  return new Coster(declOf(self, opts.isResourceRoot === true)).cost(ast);
}
