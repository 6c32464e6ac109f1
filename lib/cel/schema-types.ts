/**
 * CEL types of a CRD version's structural schema, and lazy conversion of JSON values to CEL values
 * (apiserver pkg/cel/common UnstructuredToVal): integers as CEL int (bigint), numbers as double, date/date-time
 * as timestamp, duration as duration, byte as bytes, int-or-string as dyn, objects with properties (and the resource
 * root and embedded resources) as struct types whose fields convert when read, maps (additionalProperties) as
 * map(string, V), arrays as lists tagged with their list type. Null-valued properties are absent.
 * See spec/k8s-cel-semantics.md §4 "Where rules run and what self is".
 */
import { GoFloat } from "../field/message.js";
import { parseDuration, parseRFC3339 } from "../go/time.js";
import { deepEqualJson } from "../schema/equality.js";
import type { SchemaNode } from "../schema/structural.js";
import type { CelObjectType } from "./environment.js";
import { escapedNames } from "./escape.js";
import { durationValue, timestampValue } from "./time-values.js";

/** A CEL type of a schema node, with the conversion of its JSON values. */
export interface CelType {
  /** The engine's type name: `int`, `list<string>`, `map<string, k8s.t3>`, `k8s.t3`, `dyn`... */
  readonly name: string;
  /** The schema type name printed in runtime error messages (`object`, `string`, `""` for int-or-string). */
  readonly schemaTypeName: string;
  convert(raw: unknown): unknown;
}

/** List types of converted arrays, for Kubernetes list-type equality and concatenation. */
export const LIST_TYPES = new WeakMap<unknown[], { listType: "set" | "map"; keys: string[] }>();

/** The JSON object under a struct value. */
export const RAW = Symbol("raw");

/**
 * Struct values: a Map subclass (the engine reads message fields through get()), converting fields lazily. Every
 * object type's values are of this one class, so that the engine's and this module's code sees one shape however
 * many types a process has compiled (a class per type made each read site megamorphic: ~3× slower evaluation once
 * a few CRDs' rules had run); the engine tells the types apart by `constructor`, which each value carries as its own
 * property: its type's token (registered as the type's value class).
 */
export class StructValue extends Map<string, unknown> {
  readonly [RAW]: Record<string, unknown>;
  private readonly fields: ReadonlyMap<string, FieldEntry>;
  /** Converted fields read so far (lists, maps and structs), by their field's slot: each converts once per value. */
  private memo: unknown[] | undefined;
  constructor(raw: Record<string, unknown>, fields: ReadonlyMap<string, FieldEntry>, type: StructTypeToken) {
    super();
    this[RAW] = raw;
    this.fields = fields;
    (this as { constructor: unknown }).constructor = type;
  }

  override get(k: string): unknown {
    const f = this.fields.get(k);
    return f === undefined ? undefined : this.read(f);
  }

  /** The field of this value's type named `k` (a CEL name), for {@link read}. */
  field(k: string): StructField | undefined {
    return this.fields.get(k);
  }

  /** The value of a field of this value's type (see {@link field}): what `get` gives for its name. */
  read(entry: StructField): unknown {
    if (entry.memo && this.memo !== undefined) {
      const m = this.memo[entry.slot];
      if (m !== undefined) return m;
    }
    const raw = this[RAW];
    const v = raw[entry.raw];
    if (v === null || v === undefined) return undefined;
    if (entry.inherited && !Object.hasOwn(raw, entry.raw)) return undefined;
    const c = entry.type.convert(v);
    if (entry.memo) {
      this.memo ??= [];
      this.memo[entry.slot] = c;
    }
    return c;
  }

  override has(k: string): boolean {
    const f = this.fields.get(k);
    if (f === undefined) return false;
    const raw = this[RAW];
    return Object.hasOwn(raw, f.raw) && raw[f.raw] !== null && raw[f.raw] !== undefined;
  }
}

/** An object type's token: the `constructor` of its values, by which the engine knows their type. */
type StructTypeToken = abstract new (...args: never[]) => object;

/** Property names every object inherits: a field of such a name needs an own-property check. */
const inherited: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** A field of a struct type, as StructValue.field gives it (for StructValue.read). */
export type StructField = Readonly<FieldEntry>;

interface FieldEntry {
  raw: string;
  type: CelType;
  memo: boolean;
  /** Objects inherit a property of this name (`constructor`, `toString`): it is present only as an own property. */
  inherited: boolean;
  /** Where a value of the type keeps the field's converted value (its position among the type's fields). */
  slot: number;
}

/** Adds the field `cel` (the CEL name) of the raw property `raw` to a struct type's fields. */
function addField(fields: Map<string, FieldEntry>, cel: string, raw: string, type: CelType, memo: boolean): void {
  fields.set(cel, { raw, type, memo, inherited: inherited.has(raw), slot: fields.size });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof GoFloat);
}

/** CEL ints of small JSON integers, each made once (counts, indexes, weights): BigInt() allocates every time. */
const SMALL_INTS: bigint[] = [];
const SMALL_INT_LIMIT = 4096;

function toBigInt(v: unknown): unknown {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isInteger(v)) {
    if (v < 0 || v >= SMALL_INT_LIMIT) return BigInt(v);
    while (SMALL_INTS.length <= v) SMALL_INTS.push(BigInt(SMALL_INTS.length));
    return SMALL_INTS[v]!;
  }
  return v;
}

function toDouble(v: unknown): unknown {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof GoFloat) return v.value;
  return v;
}

/** kube-openapi's `timeUnits` (each unit's spellings; the last one is also a prefix) and their nanoseconds. */
const OPENAPI_DURATION_UNITS: readonly (readonly [readonly string[], bigint])[] = [
  [["ns", "nano"], 1n],
  [["us", "\u00b5s", "micro"], 1_000n],
  [["ms", "milli"], 1_000_000n],
  [["s", "sec"], 1_000_000_000n],
  [["m", "min"], 60_000_000_000n],
  [["h", "hr", "hour"], 3_600_000_000_000n],
  [["d", "day"], 86_400_000_000_000n],
  [["w", "wk", "week"], 604_800_000_000_000n],
];

/**
 * kube-openapi `strfmt.ParseDuration` in nanoseconds, as the API server converts a `duration` field for CEL:
 * `time.ParseDuration`, else the sum of every `(\d+)\s*([A-Za-zµ]+)` whose unit is known (`3 days`, `1w2d`;
 * `strconv.Atoi` fails beyond int64; the sum wraps as Go's int64 does). Undefined when it does not parse.
 */
export function parseOpenAPIDuration(s: string): bigint | undefined {
  const go = parseDuration(s);
  if (go !== undefined) return go;
  let total = 0n;
  let ok = false;
  for (const m of s.matchAll(/(\d+)\s*([A-Za-z\u00b5]+)/g)) {
    const factor = BigInt(m[1]!);
    if (factor > (1n << 63n) - 1n) return undefined;
    const unit = m[2]!.toLowerCase();
    for (const [variants, nanos] of OPENAPI_DURATION_UNITS) {
      variants.forEach((variant, i) => {
        if ((i === variants.length - 1 && unit.startsWith(variant)) || variant === unit) {
          ok = true;
          total = BigInt.asIntN(64, total + BigInt.asIntN(64, factor * nanos));
        }
      });
    }
  }
  return ok ? total : undefined;
}

/**
 * kube-openapi `strfmt.ParseDateTime`, as the API server converts a `date-time` field for CEL: `time.Parse` with
 * RFC 3339 layouts (any fraction of a second, the zone kept), else without a zone (UTC); `""` is the epoch.
 */
function parseDateTime(s: string): Date | undefined {
  if (s === "") return timestampValue({ seconds: 0n, nanos: 0, offset: 0 });
  const t = parseRFC3339(s) ?? (s.endsWith("Z") ? undefined : parseRFC3339(`${s}Z`));
  return t === undefined ? undefined : timestampValue(t);
}

/** `time.Parse("2006-01-02", s)` (strfmt's full-date layout), as the API server converts a `date` field. */
function parseDate(s: string): Date | undefined {
  const t = s.length === 10 ? parseRFC3339(`${s}T00:00:00Z`) : undefined;
  return t === undefined ? undefined : timestampValue(t);
}

function base64ToBytes(s: string): unknown {
  return Uint8Array.from(Buffer.from(s, "base64"));
}

function identity(v: unknown): unknown {
  return v;
}

// The scalar types (shared: types are never changed once built).
const INT_OR_STRING: CelType = { name: "dyn", schemaTypeName: "", convert: toBigInt };
const INTEGER: CelType = { name: "int", schemaTypeName: "integer", convert: toBigInt };
const NUMBER: CelType = { name: "double", schemaTypeName: "number", convert: toDouble };
const BOOLEAN: CelType = { name: "bool", schemaTypeName: "boolean", convert: identity };
const STRING: CelType = { name: "string", schemaTypeName: "string", convert: identity };

/**
 * Builds the CEL types of one CRD version's schema: the types of the nodes asked for, and the object types they
 * need (`objectTypes`, in the order an environment must declare them).
 */
export class CelTypeRegistry {
  private readonly byNode = new Map<SchemaNode, CelType | null>();
  private readonly rootTypes = new Map<SchemaNode, CelType>();
  private readonly declared: CelObjectType[] = [];
  private counter = 0;
  private metaType: CelType | undefined;

  /** `prefix`: the object type names' prefix, unique per registry (`k8s.v3.`). */
  constructor(private readonly prefix: string) {}

  /** The object types of the types built so far. */
  get objectTypes(): readonly CelObjectType[] {
    return this.declared;
  }

  /** The type of `self` at a node; the resource root and embedded resources get apiVersion/kind/metadata. */
  typeOf(node: SchemaNode, isRoot = false): CelType | null {
    if (isRoot) {
      const cached = this.rootTypes.get(node);
      if (cached !== undefined) return cached;
      const t = this.structType(node, true);
      this.rootTypes.set(node, t);
      return t;
    }
    if (this.byNode.has(node)) return this.byNode.get(node)!;
    // Put a placeholder first for recursive schemas.
    this.byNode.set(node, null);
    const t = this.build(node);
    this.byNode.set(node, t);
    return t;
  }

  private build(node: SchemaNode): CelType | null {
    if (node.intOrString) {
      return INT_OR_STRING;
    }
    if (node.embeddedResource && node.type === "object") return this.structType(node, true);
    switch (node.type) {
      case "integer":
        return INTEGER;
      case "number":
        return NUMBER;
      case "boolean":
        return BOOLEAN;
      case "string":
        return this.stringType(node);
      case "array": {
        if (node.items === null) return null;
        const item = this.typeOf(node.items);
        if (item === null) return null;
        const listType = node.listType === "set" || node.listType === "map" ? node.listType : undefined;
        const keys = node.listMapKeys ?? [];
        return {
          name: `list<${item.name}>`,
          schemaTypeName: "array",
          convert: (raw) => {
            if (!Array.isArray(raw)) return raw;
            const out = raw.map((x) => (x === null ? null : item.convert(x)));
            if (listType !== undefined) LIST_TYPES.set(out, { listType, keys });
            return out;
          },
        };
      }
      case "object": {
        if (node.additionalProperties !== null && (node.properties === null || node.properties.size === 0)) {
          const value = this.typeOf(node.additionalProperties);
          if (value === null) return null;
          const nullable = node.additionalProperties.nullable;
          const valueName = nullable ? "dyn" : value.name;
          return {
            name: `map<string, ${valueName}>`,
            schemaTypeName: "object",
            convert: (raw) => {
              if (!isRecord(raw)) return raw;
              const m = new Map<string, unknown>();
              for (const k of Object.keys(raw)) {
                const v = raw[k];
                m.set(k, v === null ? null : value.convert(v));
              }
              return m;
            },
          };
        }
        return this.structType(node, false);
      }
      default:
        return null;
    }
  }

  private stringType(node: SchemaNode): CelType {
    const f = node.vv?.format;
    if (f === "datetime" || f === "date") {
      return {
        name: "google.protobuf.Timestamp",
        schemaTypeName: "string",
        convert: (v) => (typeof v === "string" ? ((f === "date" ? parseDate(v) : parseDateTime(v)) ?? v) : v),
      };
    }
    if (f === "duration") {
      return {
        name: "google.protobuf.Duration",
        schemaTypeName: "string",
        convert: (v) => {
          const nanos = typeof v === "string" ? parseOpenAPIDuration(v) : undefined;
          return nanos === undefined ? v : durationValue(nanos);
        },
      };
    }
    if (f === "byte") {
      return {
        name: "bytes",
        schemaTypeName: "string",
        convert: (v) => (typeof v === "string" ? base64ToBytes(v) : v),
      };
    }
    return STRING;
  }

  /**
   * The metadata of a resource root (the custom resource, or an embedded resource): `name` and `generateName`
   * only, whatever the schema declares, unless the schema already declares `kind`, `apiVersion` and a metadata with
   * `name` and `generateName` as strings; then every declared field stays visible (apiextensions-apiserver
   * schema/cel/model WithTypeAndObjectMeta).
   */
  private metadataType(): CelType {
    if (this.metaType !== undefined) return this.metaType;
    const fields = new Map<string, FieldEntry>();
    addField(fields, "name", "name", STRING, false);
    addField(fields, "generateName", "generateName", STRING, false);
    this.metaType = this.register(`${this.prefix}meta`, fields);
    return this.metaType;
  }

  private structType(node: SchemaNode, withResourceMeta: boolean): CelType {
    const name = `${this.prefix}t${this.counter++}`;
    const fields = new Map<string, FieldEntry>();
    // Register the name before resolving fields, so recursive schemas refer to it.
    const placeholder: CelType = { name, schemaTypeName: "object", convert: identity };
    if (!withResourceMeta) this.byNode.set(node, placeholder);
    const replaceMeta = withResourceMeta && !declaresTypeAndObjectMeta(node);
    if (replaceMeta) {
      addField(fields, "apiVersion", "apiVersion", STRING, false);
      addField(fields, "kind", "kind", STRING, false);
      addField(fields, "metadata", "metadata", this.metadataType(), true);
    }
    if (node.properties !== null) {
      for (const [prop, sub] of node.properties) {
        if (replaceMeta && (prop === "apiVersion" || prop === "kind" || prop === "metadata")) continue;
        const t = this.typeOf(sub);
        if (t === null) continue;
        const memo = t.name.startsWith("list<") || t.name.startsWith("map<") || t.name.startsWith(this.prefix);
        for (const cel of escapedNames(prop)) addField(fields, cel, prop, t, memo);
      }
    }
    const t = this.register(name, fields);
    if (!withResourceMeta) this.byNode.set(node, t);
    Object.assign(placeholder, t);
    return t;
  }

  private register(name: string, fields: Map<string, FieldEntry>): CelType {
    const token: StructTypeToken = class {};
    const fieldTypes: Record<string, string> = {};
    for (const [cel, f] of fields) fieldTypes[cel] = f.type.name;
    this.declared.push({ name, fields: fieldTypes, valueClass: token, equals: structEqual });
    return {
      name,
      schemaTypeName: "object",
      convert: (raw) => (isRecord(raw) ? new StructValue(raw, fields, token) : raw),
    };
  }
}

/** Struct equality compares the raw objects, with null-valued properties treated as absent. */
function structEqual(a: unknown, b: unknown): boolean {
  if (!(a instanceof StructValue) || !(b instanceof StructValue)) return a === b;
  return deepEqualJson(withoutNulls(a[RAW]), withoutNulls(b[RAW]));
}

function withoutNulls(o: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(o)) {
    if (o[k] === null) {
      out ??= { ...o };
      delete out[k];
    }
  }
  return out ?? o;
}

/** Whether a resource root's schema declares what WithTypeAndObjectMeta would add, so it keeps its own fields. */
function declaresTypeAndObjectMeta(node: SchemaNode): boolean {
  const props = node.properties;
  const meta = props?.get("metadata");
  return (
    props?.get("kind")?.type === "string" &&
    props.get("apiVersion")?.type === "string" &&
    meta?.type === "object" &&
    meta.properties !== null &&
    meta.properties.get("name")?.type === "string" &&
    meta.properties.get("generateName")?.type === "string"
  );
}
