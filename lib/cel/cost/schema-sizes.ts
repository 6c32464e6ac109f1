/**
 * Sizes from the schema, the way apiextensions' `sizeEstimator` walks `DeclType`s (apiserver
 * `pkg/cel/common/schemas.go`): strings are `maxLength` × 4 (bytes `maxLength`), else the longest enum value, else
 * 3 MiB − 2, with fixed bounds for `duration`, `date` and `date-time`; lists and maps `maxItems`/`maxProperties`,
 * else the number of minimal elements that fit into a 3 MiB request; scalars and objects 0. A field path is
 * resolved from the rule's node, ignoring its first element (the variable).
 */
import type { SchemaNode } from "../../schema/structural.js";
import { escapedNames } from "../escape.js";
import type { Range } from "./range.js";

/** apiserver `MaxRequestSizeBytes`. */
export const MAX_REQUEST_SIZE = 3 * 1024 * 1024;

/** The size-relevant part of a DeclType. */
export class Decl {
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

export function zeroIfNegative(v: number): number {
  return v < 0 ? 0 : v;
}

function utf8Length(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** The DeclType of a schema node (apiserver common.SchemaDeclType); null when the node has no CEL type. */
export function declOf(node: SchemaNode, isResourceRoot: boolean): Decl | null {
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

/**
 * The sizes of the data of a schema node (a rule's `self`): what the cost estimator resolves a variable's field
 * paths against. `isResourceRoot`: the node is the schema root or an embedded resource (it has apiVersion, kind
 * and metadata). Null when the node has no CEL type.
 */
export function schemaSizes(node: SchemaNode, isResourceRoot: boolean): Decl | null {
  return declOf(node, isResourceRoot);
}
