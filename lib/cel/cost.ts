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
  private fieldCache: Map<string, Decl | undefined> | undefined;
  /** The size the CRD size estimator reports for data of this type: [0, MaxElements]. */
  readonly range: Range;
  constructor(
    readonly minSize: number,
    readonly maxElements: number,
    private readonly fieldSource?: (celName: string) => Decl | undefined,
    readonly elem?: Decl,
    readonly key?: Decl,
  ) {
    this.range = { min: 0, max: maxElements };
  }

  /** An object field by its escaped CEL name. */
  field(name: string): Decl | undefined {
    if (this.fieldSource === undefined) return undefined;
    this.fieldCache ??= new Map();
    if (this.fieldCache.has(name)) return this.fieldCache.get(name);
    const d = this.fieldSource(name);
    this.fieldCache.set(name, d);
    return d;
  }
}

const REQUEST_STRING_LENGTH = MAX_REQUEST_SIZE - 2;
/** apiserver StringType (map keys): no MaxElements. */
const KEY_DECL = new Decl(2, 0);
/** The string properties WithTypeAndObjectMeta adds (no maxLength). */
const META_STRING_DECL = new Decl(2, REQUEST_STRING_LENGTH);
const META_OBJECT_DECL = new Decl(2, 0, (name) =>
  name === "name" || name === "generateName" ? META_STRING_DECL : undefined,
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
      return new Decl(minSize, 0, (celName) => {
        // A property is reachable by its escaped name only (`a-b` as `a__dash__b`, `namespace` as
        // `__namespace__`); escaping always introduces `__`, so other names are the property's own.
        if (!celName.includes("__")) {
          const entry = entries.find((e) => e[0] === celName);
          return entry !== undefined && escapedNames(celName)[0] === celName ? (entry[1]() ?? undefined) : undefined;
        }
        const entry = entries.find((e) => escapedNames(e[0])[0] === celName);
        return entry === undefined ? undefined : (entry[1]() ?? undefined);
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

/**
 * A cel-go field path (AstNode.Path), resolved against the rule's schema as it grows. The size estimator skips a
 * path's first element (the variable) and walks the rest from the rule's node, so a path that starts at an
 * expression without one (`f(x).y`, the iteration variable of a literal list) resolves from the rule's node too.
 * `decl` is undefined when the path leaves the schema.
 */
interface SchemaPath {
  decl: Decl | undefined;
}

interface LocalVar {
  name: string;
  path: SchemaPath | undefined;
  size: Range | undefined;
  type: CelTypeInfo;
}

/** What the coster knows about one expression (cel-go keeps it in maps by expression id). */
interface Info {
  node: ASTNode | undefined;
  cost: Range;
  type: CelTypeInfo;
  path: SchemaPath | undefined;
  /** A size computed by the expression itself (calls, comprehensions) or cached from the schema. */
  size: Range | undefined;
  entry: Entry | undefined;
  /** The local variable an identifier refers to. */
  local: LocalVar | undefined;
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
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
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

/** cel-go computeExprSize: the size of literals. */
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
      return fixed((e.args as unknown as unknown[]).length);
    case "map":
      return fixed((e.args as unknown as unknown[]).length);
    default:
      return undefined;
  }
}

function isVariableSized(k: Kind): boolean {
  return k === "string" || k === "bytes" || k === "list";
}

/** cel-go computeSize: a computed size, a literal's, the schema's, 1 for scalars, or a local variable's. */
function computeSize(info: Info): Range | undefined {
  if (info.size !== undefined) return info.size;
  if (info.node !== undefined) {
    const literal = literalSize(info.node);
    if (literal !== undefined) return literal;
  }
  const decl = info.path?.decl;
  if (decl !== undefined) {
    info.size = decl.range;
    return decl.range;
  }
  if (isScalar(info.type)) return ONE;
  return info.local?.size;
}

/** cel-go sizeOrUnknown / Kubernetes sizeEstimate. */
function sizeOf(info: Info): Range {
  return computeSize(info) ?? UNKNOWN;
}

/** The element of a list receiver as Kubernetes' listElementNode sees it: the receiver's path plus `@items`. */
function listElement(list: Info): { size: Range; type: CelTypeInfo } | undefined {
  const type = list.type.params[0];
  if (type === undefined) return undefined;
  const decl = list.path?.decl?.elem;
  return { size: decl === undefined ? UNKNOWN : decl.range, type };
}

/** Size-based equality and string/bytes comparison (cel-go: the smaller of the two max sizes × 0.1). */
function comparisonCost(l: Info, r: Info): Range {
  const smallestMax = Math.min(sizeOf(l).max, sizeOf(r).max);
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

interface CallEstimate {
  cost: Range;
  resultSize?: Range | undefined;
}

/** Kubernetes' library CostEstimator.EstimateCallCost (by function name, as it does). */
function kubernetesCallCost(fn: string, target: Info | undefined, args: Info[]): CallEstimate | undefined {
  switch (fn) {
    case "isSorted":
    case "sum":
    case "max":
    case "min":
    case "indexOf":
    case "lastIndexOf": {
      if (target === undefined) return undefined;
      const el = listElement(target);
      if (el !== undefined) {
        let elCost = ONE;
        if (el.type.kind === "string" || el.type.kind === "bytes") {
          elCost = add(elCost, byFactor(el.size, STRING_TRAVERSAL));
        }
        return { cost: mul(sizeOf(target), elCost) };
      }
      return { cost: byFactor(sizeOf(target), STRING_TRAVERSAL) };
    }
    case "url":
    case "jsonpatch.escapeKey": {
      if (args.length !== 1) return undefined;
      const sz = sizeOf(args[0]!);
      return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: sz };
    }
    case "lowerAscii":
    case "upperAscii":
    case "substring":
    case "trim": {
      if (target === undefined) return undefined;
      const sz = sizeOf(target);
      return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: sz };
    }
    case "replace":
      if (target === undefined || args.length < 2) return undefined;
      return replaceCost(sizeOf(target), sizeOf(args[0]!), sizeOf(args[1]!));
    case "split": {
      if (target === undefined) return undefined;
      const sz = sizeOf(target);
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
      const listSize = sizeOf(target);
      const el = listElement(target);
      if (el !== undefined) sz = mul(listSize, el.size);
      if (args.length > 0) {
        const sep = sizeOf(args[0]!);
        const minSep = listSize.min > 0 ? listSize.min - 1 : 0;
        const maxSep = listSize.max > 0 ? listSize.max - 1 : 0;
        sz = add(sz, mul(sep, { min: minSep, max: maxSep }));
      }
      return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: sz };
    }
    case "find":
    case "findAll": {
      if (target === undefined || args.length < 1) return undefined;
      const sz = sizeOf(target);
      const strCost = byFactor(add(sz, ONE), STRING_TRAVERSAL);
      const regexCost = byFactor(sizeOf(args[0]!), REGEX_LENGTH);
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
      return { cost: byFactor(sizeOf(args[0]!), STRING_TRAVERSAL) };
    case "ip":
      if (target === undefined) return undefined;
      return args.length >= 1 ? { cost: byFactor(sizeOf(args[0]!), STRING_TRAVERSAL) } : { cost: ONE };
    case "ip.isCanonical":
      if (target === undefined || args.length < 1) return undefined;
      return { cost: byFactor(sizeOf(args[0]!), 2 * STRING_TRAVERSAL) };
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
      if (args[0]!.type.kind === "string") c = add(c, byFactor(sizeOf(args[0]!), STRING_TRAVERSAL));
      return { cost: c };
    }
    case "validate":
      if (target === undefined || args.length < 1) return undefined;
      return {
        cost: byFactor(byFactor(sizeOf(args[0]!), STRING_TRAVERSAL), MAX_NAME_FORMAT_REGEX_SIZE * REGEX_LENGTH),
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
      const [l, r] = args as [Info, Info];
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
          const size = computeSize(r) ?? ONE;
          return { cost: byFactor({ min: 1, max: size.max }, STRING_TRAVERSAL) };
        }
      }
      return undefined;
    }
  }
  return undefined;
}

/** cel-go functionCost's builtin overloads (size-dependent string, bytes and list operations). */
function builtinCost(fn: string, target: Info | undefined, args: Info[]): CallEstimate | undefined {
  switch (fn) {
    case "bytes":
      if (target === undefined && args.length === 1 && args[0]!.type.kind === "string") {
        const sz = sizeOf(args[0]!);
        return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: { min: sz.min, max: mulU(sz.max, 4) } };
      }
      return undefined;
    case "string":
      if (target === undefined && args.length === 1 && args[0]!.type.kind === "bytes") {
        const sz = sizeOf(args[0]!);
        return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: { min: Math.floor(sz.min / 4), max: sz.max } };
      }
      return undefined;
    case "strings.quote":
      if (args.length === 1) {
        const sz = sizeOf(args[0]!);
        return {
          cost: byFactor(sz, STRING_TRAVERSAL),
          resultSize: { min: addU(sz.min, 2), max: addU(mulU(sz.max, 2), 2) },
        };
      }
      return undefined;
    case "format":
      // cel-go v0.26 ext strings: the receiver's traversal, no result size.
      if (target !== undefined && target.type.kind === "string" && args.length === 1) {
        return { cost: byFactor(sizeOf(target), STRING_TRAVERSAL) };
      }
      return undefined;
    case "startsWith":
    case "endsWith":
      if (target !== undefined && target.type.kind === "string" && args.length === 1) {
        return { cost: byFactor(sizeOf(args[0]!), STRING_TRAVERSAL) };
      }
      return undefined;
    case "matches":
      if (target !== undefined && args.length === 1) {
        const strCost = byFactor(add(sizeOf(target), ONE), STRING_TRAVERSAL);
        const regexCost = byFactor(sizeOf(args[0]!), REGEX_LENGTH);
        return { cost: mul(strCost, regexCost) };
      }
      return undefined;
    case "contains":
      if (target !== undefined && target.type.kind === "string" && args.length === 1) {
        const strCost = byFactor(sizeOf(target), STRING_TRAVERSAL);
        const subCost = byFactor(sizeOf(args[0]!), STRING_TRAVERSAL);
        return { cost: mul(strCost, subCost) };
      }
      return undefined;
    case "@in": {
      const k = args[1]?.type.kind;
      if (k !== "list" && k !== "dyn") return undefined;
      const c = byFactor(sizeOf(args[1]!), 1);
      return { cost: k === "dyn" ? union(c, ONE) : c };
    }
    case "_+_": {
      if (args.length !== 2) return undefined;
      const [l, r] = args as [Info, Info];
      const lk = l.type.kind;
      const rk = r.type.kind;
      const may = (kind: Kind) => (lk === kind || lk === "dyn") && (rk === kind || rk === "dyn");
      const sized = may("string") || may("bytes");
      const list = may("list");
      if (!sized && !list) return undefined;
      const resultSize = add(sizeOf(l), sizeOf(r));
      let cost: Range = sized ? byFactor(resultSize, STRING_TRAVERSAL) : ONE;
      if (sized && (list || (!isVariableSized(lk) && !isVariableSized(rk)))) cost = union(cost, ONE);
      return { cost, resultSize };
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
      const [l, r] = args as [Info, Info];
      const lk = l.type.kind;
      const rk = r.type.kind;
      const may = (kind: Kind) => (lk === kind || lk === "dyn") && (rk === kind || rk === "dyn");
      if (!may("string") && !may("bytes")) return undefined;
      const c = comparisonCost(l, r);
      return { cost: !isVariableSized(lk) && !isVariableSized(rk) ? union(c, ONE) : c };
    }
  }
  return undefined;
}

/** A two-variable comprehension recognised in compile.ts's rewrite. */
interface TwoVariable {
  macro: "all" | "exists" | "exists_one" | "transformList" | "transformMap" | "transformMapEntry";
  range: ASTNode;
  first: string;
  second: string;
  filter?: ASTNode | undefined;
  body: ASTNode;
}

function callParts(
  n: ASTNode | undefined,
): { name: string; target?: ASTNode | undefined; args: ASTNode[] } | undefined {
  if (n === undefined) return undefined;
  if (n.op === "call") {
    const [name, args] = n.args as unknown as [string, ASTNode[]];
    return { name, args };
  }
  if (n.op === "rcall") {
    const [name, target, args] = n.args as unknown as [string, ASTNode, ASTNode[]];
    return { name, target, args };
  }
  return undefined;
}

function idName(n: ASTNode | undefined): string | undefined {
  return n?.op === "id" ? (n.args as unknown as string) : undefined;
}

/** `cel.bind(k, __e[0], cel.bind(v, __e[1], body))`. */
function unwrapEntryBinds(n: ASTNode | undefined): { first: string; second: string; body: ASTNode } | undefined {
  const outer = callParts(n);
  if (outer?.name !== "bind" || idName(outer.target) !== "cel" || outer.args.length !== 3) return undefined;
  const inner = callParts(outer.args[2]);
  if (inner?.name !== "bind" || idName(inner.target) !== "cel" || inner.args.length !== 3) return undefined;
  const first = idName(outer.args[0]);
  const second = idName(inner.args[0]);
  if (first === undefined || second === undefined) return undefined;
  return { first, second, body: inner.args[2]! };
}

/** `__entries(x)`, optionally `.filter(__e, <binds>)`: the range and the filter. */
function entriesRange(n: ASTNode | undefined): { range: ASTNode; filter?: ASTNode } | undefined {
  const c = callParts(n);
  if (c === undefined) return undefined;
  if (c.target === undefined && c.name === "__entries" && c.args.length === 1) return { range: c.args[0]! };
  if (c.name === "filter" && c.args.length === 2 && idName(c.args[0]) === "__e") {
    const inner = callParts(c.target);
    const binds = unwrapEntryBinds(c.args[1]);
    if (inner?.name === "__entries" && inner.target === undefined && inner.args.length === 1 && binds !== undefined) {
      return { range: inner.args[0]!, filter: binds.body };
    }
  }
  return undefined;
}

/** Recognises compile.ts's rewrite of a two-variable comprehension (see twoVariableComprehension there). */
function twoVariableComprehension(target: ASTNode | undefined, name: string, args: ASTNode[]): TwoVariable | undefined {
  if (target === undefined) {
    // __fromEntries(<map of [__e[0], dyn(t)]>) and __mergeMaps(<map of t>)
    if ((name !== "__fromEntries" && name !== "__mergeMaps") || args.length !== 1) return undefined;
    const inner = callParts(args[0]);
    if (inner?.target === undefined) return undefined;
    const two = twoVariableComprehension(inner.target, inner.name, inner.args);
    if (two?.macro !== "transformList") return undefined;
    if (name === "__mergeMaps") return { ...two, macro: "transformMapEntry" };
    // the transform was [__e[0], dyn(<binds>)]
    const pair = two.body.op === "list" ? (two.body.args as unknown as ASTNode[]) : [];
    const dyn = callParts(pair[1]);
    const binds = dyn?.name === "dyn" && dyn.args.length === 1 ? unwrapEntryBinds(dyn.args[0]) : undefined;
    return binds === undefined ? undefined : { ...two, macro: "transformMap", body: binds.body };
  }
  if (args.length !== 2 || idName(args[0]) !== "__e") return undefined;
  const range = entriesRange(target);
  if (range === undefined) return undefined;
  if (name === "map") {
    // transformList keeps the pair when the transform is the [__e[0], dyn(...)] of transformMap
    const binds = unwrapEntryBinds(args[1]);
    if (binds !== undefined) return { macro: "transformList", ...range, ...binds };
    const pair = args[1]!.op === "list" ? (args[1]!.args as unknown as ASTNode[]) : [];
    const dyn = callParts(pair[1]);
    const inner = dyn?.name === "dyn" && dyn.args.length === 1 ? unwrapEntryBinds(dyn.args[0]) : undefined;
    if (inner === undefined) return undefined;
    return { macro: "transformList", ...range, first: inner.first, second: inner.second, body: args[1]! };
  }
  if (range.filter !== undefined) return undefined;
  const binds = unwrapEntryBinds(args[1]);
  if (binds === undefined) return undefined;
  if (name === "all" || name === "exists" || name === "exists_one") return { macro: name, ...range, ...binds };
  return undefined;
}

class Coster {
  private readonly locals: LocalVar[] = [];

  constructor(private readonly root: Decl | null) {}

  private peek(name: string): LocalVar | undefined {
    for (let i = this.locals.length - 1; i >= 0; i--) if (this.locals[i]!.name === name) return this.locals[i];
    return undefined;
  }

  /** The path of an expression extended by one step; an expression without a path starts at the rule's node. */
  private extend(path: SchemaPath | undefined, step: (d: Decl) => Decl | undefined): SchemaPath {
    if (path === undefined) return { decl: this.root ?? undefined };
    return { decl: path.decl === undefined ? undefined : step(path.decl) };
  }

  private info(node: ASTNode, cost: Range, path?: SchemaPath): Info {
    return { node, cost, type: typeOf(node), path, size: undefined, entry: undefined, local: undefined };
  }

  visit(e: ASTNode): Info {
    const a = e.args as unknown;
    switch (e.op) {
      case "value":
        return this.info(e, ZERO);
      case "id": {
        const v = this.peek(a as string);
        if (v === undefined) return this.info(e, ONE, { decl: this.root ?? undefined });
        const i = this.info(e, ONE, v.path);
        // The engine types two-variable comprehension variables dyn; cel-go knows their element types.
        if (v.type.kind !== "unknown") i.type = v.type;
        i.local = v;
        return i;
      }
      case ".": {
        const [operand, field] = a as [ASTNode, string];
        const o = this.visit(operand);
        const k = o.type.kind;
        // Objects and maps cost a selection; operands without a checked type are inside has() (objects or maps).
        const selectCost =
          k === "map" || k === "struct" || k === "param" || k === "unknown" ? add(o.cost, ONE) : o.cost;
        return this.info(
          e,
          selectCost,
          this.extend(o.path, (d) => d.field(field)),
        );
      }
      case ".?": {
        // cel-go `_?._(operand, 'field')`: a call of cost 1.
        const o = this.visit((a as [ASTNode])[0]);
        return this.info(e, add(o.cost, ONE));
      }
      case "[]":
        return this.visitIndex(e, a as [ASTNode, ASTNode]);
      case "[?]": {
        const [x, i] = a as [ASTNode, ASTNode];
        return this.info(e, add(add(this.visit(x).cost, this.visit(i).cost), ONE));
      }
      case "list": {
        const elements = a as ASTNode[];
        let sum = fixed(10);
        let item: Range = elements.length === 0 ? ZERO : { min: U64, max: 0 };
        for (const el of elements) {
          const i = this.visit(el);
          sum = add(sum, i.cost);
          item = union(item, sizeOf(i));
        }
        const out = this.info(e, sum);
        out.entry = { container: "list", key: ONE, val: item };
        return out;
      }
      case "map": {
        const entries = a as [ASTNode, ASTNode][];
        let sum = fixed(30);
        let key: Range = entries.length === 0 ? ZERO : { min: U64, max: 0 };
        let val: Range = key;
        for (const [k, v] of entries) {
          const ki = this.visit(k);
          const vi = this.visit(v);
          sum = add(add(sum, ki.cost), vi.cost);
          key = union(key, sizeOf(ki));
          val = union(val, sizeOf(vi));
        }
        const out = this.info(e, sum);
        out.entry = { container: "map", key, val };
        return out;
      }
      case "?:": {
        const [c, t, f] = a as [ASTNode, ASTNode, ASTNode];
        const ci = this.visit(c);
        const ti = this.visit(t);
        const fi = this.visit(f);
        const out = this.info(e, add(ci.cost, union(ti.cost, fi.cost)));
        out.size = union(sizeOf(ti), sizeOf(fi));
        out.entry = unionEntry(ti.entry, fi.entry);
        return out;
      }
      case "&&":
      case "||": {
        const [l, r] = a as [ASTNode, ASTNode];
        const li = this.visit(l);
        const ri = this.visit(r);
        return this.info(e, { min: li.cost.min, max: addU(li.cost.max, ri.cost.max) });
      }
      case "!_":
      case "-_": {
        const x = a as ASTNode;
        if (e.op === "-_" && x.op === "value") return this.info(e, ZERO); // a negative literal
        // cel-go drops an even number of repeated unary operators.
        if (x.op === e.op && !isNegatedLiteral(x)) {
          const inner = this.visit(x.args as unknown as ASTNode);
          return this.info(e, inner.cost);
        }
        return this.info(e, add(this.visit(x).cost, ONE));
      }
      case "call":
      case "rcall":
        return this.visitCall(e);
      default: {
        const fn = BINARY_FUNCTIONS[e.op];
        if (fn === undefined) return this.info(e, ZERO);
        return this.visitFunction(e, fn, undefined, a as ASTNode[]);
      }
    }
  }

  private visitIndex(e: ASTNode, [x, i]: [ASTNode, ASTNode]): Info {
    const xi = this.visit(x);
    const ii = this.visit(i);
    const out = this.info(e, add(add(xi.cost, ii.cost), ONE));
    const k = xi.type.kind;
    if (k === "list" || k === "map" || k === "dyn") {
      out.path = this.extend(xi.path, (d) => d.elem);
      out.size = xi.entry?.val ?? computeSize(out);
    }
    return out;
  }

  private visitCall(e: ASTNode): Info {
    let name: string;
    let target: ASTNode | undefined;
    let args: ASTNode[];
    if (e.op === "call") {
      [name, args] = e.args as unknown as [string, ASTNode[]];
    } else {
      [name, target, args] = e.args as unknown as [string, ASTNode, ASTNode[]];
    }
    name = ORIGINAL_NAMES.get(name) ?? name;
    const two = twoVariableComprehension(e.op === "call" ? undefined : target, name, args);
    if (two !== undefined) return this.visitTwoVariable(e, two);
    if (target === undefined) {
      if (name === "__entries" && args.length === 1) {
        // Outside the patterns below: the entries of a list or map stand for the list or map itself.
        const arg = this.visit(args[0]!);
        const out = this.info(e, arg.cost, arg.path);
        out.size = computeSize(arg);
        out.entry = arg.entry;
        return out;
      }
      if (name === "has" && args.length === 1) {
        // A presence test: free (PresenceTestHasCost(false)), only the operand of the selection costs.
        const arg = args[0]!;
        const operand = arg.op === "." ? (arg.args as unknown as [ASTNode])[0] : arg;
        return this.info(e, this.visit(operand).cost);
      }
      if (name === "__has" && args.length === 2) return this.info(e, this.visit(args[0]!).cost);
      if (name === "dyn" && args.length === 1) {
        const arg = this.visit(args[0]!);
        const out = this.info(e, add(arg.cost, ONE));
        out.size = computeSize(arg);
        out.entry = arg.entry;
        return out;
      }
    } else {
      if (MACROS.has(name) && args[0]?.op === "id" && (args.length === 2 || (name === "map" && args.length === 3))) {
        return this.visitComprehension(e, name, target, args);
      }
      if (name === "bind" && target.op === "id" && target.args === "cel" && args.length === 3) {
        // Only compile.ts's rewrites bind (user rules may not): the variable takes the value's path and size.
        const [id, init, body] = args as [ASTNode, ASTNode, ASTNode];
        const i = this.visit(init);
        this.locals.push({
          name: id.args as unknown as string,
          path: i.path,
          size: computeSize(i),
          type: UNKNOWN_TYPE,
        });
        const b = this.visit(body);
        this.locals.pop();
        return this.info(e, add(i.cost, b.cost));
      }
      if (target.op === "id") {
        const ns = target.args as unknown as string;
        if (NAMESPACES.has(ns) && this.peek(ns) === undefined) {
          name = `${ns}.${name}`;
          target = undefined;
        }
      }
    }
    return this.visitFunction(e, name, target, args);
  }

  /** cel-go costCall for a function (or operator) with its receiver and arguments. */
  private visitFunction(e: ASTNode, fn: string, target: ASTNode | undefined, args: ASTNode[]): Info {
    const argInfos: Info[] = [];
    let argSum = ZERO;
    for (const a of args) {
      // compile.ts wraps format() list elements in dyn() for the engine; cel-go sees them bare.
      const i = fn === "format" && a.op === "list" ? this.visitFormatList(a) : this.visit(a);
      argInfos.push(i);
      argSum = add(argSum, i.cost);
    }
    let sum = ZERO;
    let targetInfo: Info | undefined;
    if (target !== undefined) {
      targetInfo = this.visit(target);
      sum = targetInfo.cost;
    }
    let est: CallEstimate;
    if ((fn === "sets.contains" || fn === "sets.intersects" || fn === "sets.equivalent") && argInfos.length === 2) {
      // Overload estimators of the sets extension (ext/sets.go).
      const f = fn === "sets.equivalent" ? 2 : 1;
      est = { cost: add(byFactor(mul(sizeOf(argInfos[0]!), sizeOf(argInfos[1]!)), f), ONE) };
    } else {
      est = kubernetesCallCost(fn, targetInfo, argInfos) ?? builtinCost(fn, targetInfo, argInfos) ?? { cost: ONE };
    }
    const out = this.info(e, add(sum, add(est.cost, argSum)));
    if (fn === "_+_" && argInfos.length === 2) out.entry = unionEntry(argInfos[0]!.entry, argInfos[1]!.entry);
    out.size = est.resultSize ?? computeSize(out);
    return out;
  }

  /** A format() argument list whose elements compile.ts wrapped in dyn(). */
  private visitFormatList(list: ASTNode): Info {
    const elements = list.args as unknown as ASTNode[];
    let sum = fixed(10);
    let item: Range = elements.length === 0 ? ZERO : { min: U64, max: 0 };
    for (const el of elements) {
      const inner = el.op === "call" && (el.args as unknown as [string, ASTNode[]])[0] === "dyn" ? el : undefined;
      const i = this.visit(inner === undefined ? el : (inner.args as unknown as [string, ASTNode[]])[1][0]!);
      sum = add(sum, i.cost);
      item = union(item, sizeOf(i));
    }
    const out = this.info(list, sum);
    out.entry = { container: "list", key: ONE, val: item };
    return out;
  }

  /**
   * A two-variable comprehension (cel-go ext.TwoVarComprehensions), which compile.ts rewrites onto `__entries()`:
   * costed like cel-go's expansion, with the first variable on the index (lists) or key (maps) and the second on the
   * value.
   */
  private visitTwoVariable(e: ASTNode, c: TwoVariable): Info {
    const r = this.visit(c.range);
    let sum = r.cost;
    if (c.macro === "transformList") sum = add(sum, fixed(10));
    else if (c.macro === "transformMap" || c.macro === "transformMapEntry") sum = add(sum, fixed(30));
    const isList = (r.entry?.container ?? (r.type.kind === "list" ? "list" : "map")) === "list";
    this.locals.push({
      name: c.first,
      // `@indices` is no schema path; map keys have the key's size
      path: this.extend(r.path, isList ? () => undefined : (d) => d.key),
      size: r.entry?.key,
      type: isList ? parseTypeName("int") : (r.type.params[0] ?? UNKNOWN_TYPE),
    });
    this.locals.push({
      name: c.second,
      path: this.extend(r.path, (d) => d.elem),
      size: r.entry?.val,
      type: (isList ? r.type.params[0] : r.type.params[1]) ?? UNKNOWN_TYPE,
    });
    let loop = 0;
    let step: Range;
    let stepEntry: Entry | undefined;
    const filter = c.filter === undefined ? undefined : this.visit(c.filter).cost;
    const body = this.visit(c.body);
    switch (c.macro) {
      case "all":
      case "exists":
        loop = c.macro === "all" ? 2 : 3;
        step = { min: 1, max: addU(1, body.cost.max) };
        break;
      case "exists_one":
        step = add(body.cost, union(fixed(2), ONE));
        break;
      case "transformList":
        // __result__ + [t], or f ? __result__ + [t] : __result__
        step = add(fixed(12), body.cost);
        stepEntry = { container: "list", key: ONE, val: union(ZERO, sizeOf(body)) };
        break;
      default:
        // cel.@mapInsert(__result__, k, t) or cel.@mapInsert(__result__, t), or f ? ... : __result__
        step = add(fixed(c.macro === "transformMap" ? 3 : 2), body.cost);
        break;
    }
    if (filter !== undefined) step = add(filter, union(step, ONE));
    this.locals.pop();
    this.locals.pop();
    sum = add(sum, c.macro === "exists_one" ? fixed(2) : ONE);
    const rangeCount = sizeOf(r);
    sum = add(sum, mul(rangeCount, add(step, fixed(loop))));
    const out = this.info(e, sum);
    if (c.macro.startsWith("transform")) {
      out.size = rangeCount;
      out.entry = stepEntry;
    } else {
      out.size = ONE;
    }
    return out;
  }

  /** A macro comprehension (cel-go macro expansions of all, exists, exists_one, map and filter). */
  private visitComprehension(e: ASTNode, macro: string, range: ASTNode, args: ASTNode[]): Info {
    const iterVar = args[0]!.args as unknown as string;
    const r = this.visit(range);
    let sum = r.cost;
    const listResult = macro === "map" || macro === "filter";
    // The accumulator: `[]` for map/filter (cost 10), a bool or int literal otherwise.
    if (listResult) sum = add(sum, fixed(10));
    const accuEntry: Entry = { container: "list", key: ONE, val: ZERO };

    const isList = (r.entry?.container ?? (r.type.kind === "list" ? "list" : "map")) === "list";
    const v: LocalVar = {
      name: iterVar,
      path: this.extend(r.path, isList ? (d) => d.elem : (d) => d.key),
      size: isList ? r.entry?.val : r.entry?.key,
      type: r.type.params[0] ?? UNKNOWN_TYPE,
    };
    this.locals.push(v);

    let loop = 0;
    let step: Range;
    let stepEntry: Entry | undefined;
    switch (macro) {
      case "all":
      case "exists": {
        // @not_strictly_false(__result__) and @not_strictly_false(!__result__); __result__ && p, __result__ || p.
        loop = macro === "all" ? 2 : 3;
        const body = this.visit(args[1]!).cost;
        step = { min: 1, max: addU(1, body.max) };
        break;
      }
      case "exists_one":
        // p ? __result__ + 1 : __result__
        step = add(this.visit(args[1]!).cost, union(fixed(2), ONE));
        break;
      case "map": {
        // __result__ + [f(x)], or p(x) ? __result__ + [f(x)] : __result__
        const filter = args.length === 3 ? this.visit(args[1]!).cost : undefined;
        const transform = this.visit(args[args.length - 1]!);
        const append = add(fixed(12), transform.cost);
        stepEntry = unionEntry(accuEntry, { container: "list", key: ONE, val: sizeOf(transform) });
        step = filter === undefined ? append : add(filter, union(append, ONE));
        if (filter !== undefined) stepEntry = unionEntry(stepEntry, accuEntry);
        break;
      }
      default: {
        // filter: p(x) ? __result__ + [x] : __result__
        step = add(this.visit(args[1]!).cost, union(fixed(13), ONE));
        const x: Info = {
          node: undefined,
          cost: ONE,
          type: v.type,
          path: v.path,
          size: undefined,
          entry: undefined,
          local: v,
        };
        stepEntry = unionEntry(unionEntry(accuEntry, { container: "list", key: ONE, val: sizeOf(x) }), accuEntry);
        break;
      }
    }
    this.locals.pop();

    // The result: __result__, or __result__ == 1 for exists_one.
    sum = add(sum, macro === "exists_one" ? fixed(2) : ONE);
    const rangeCount = sizeOf(r);
    sum = add(sum, mul(rangeCount, add(step, fixed(loop))));
    const out = this.info(e, sum);
    if (listResult) {
      out.size = rangeCount;
      out.entry = stepEntry;
    } else {
      out.size = ONE;
    }
    return out;
  }
}

/** Options of estimateCost. */
export interface EstimateOptions {
  /** The node is the schema root or an embedded resource (its `self` has apiVersion, kind and metadata). */
  isResourceRoot?: boolean;
}

/**
 * Estimates the cost of one type-checked rule or messageExpression AST (after compile.ts's source rewrites and
 * method renames; the evaluation hooks installed afterwards do not matter), as `env.EstimateCost` does in
 * kube-apiserver. `self` is the schema node that carries the rule. Returns the [min, max] cost; Kubernetes checks
 * `max` (multiplied by the cardinality for rules, see ruleCost).
 */
export function estimateCost(ast: ASTNode, self: SchemaNode, opts: EstimateOptions = {}): CostEstimate {
  return new Coster(declOf(self, opts.isResourceRoot === true)).visit(ast).cost;
}
