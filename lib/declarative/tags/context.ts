/**
 * What compiling one `+k8s:` tag sees: the scope it is written at (a struct field, a type declaration, or the list
 * element, map value or map key a payload selects), the accumulator of what the scope's tags produce, and the
 * compiler (for payloads, which compile at a scope of their own, and for problems). The tag functions of the other
 * files of this folder take a TagCall; registry.ts maps tag names to them.
 */
import type { TagLine } from "../go-source.js";
import {
  derefType,
  type GoType,
  type NamedType,
  type SourceRef,
  type StructField,
  type StructType,
  underlyingOf,
} from "../go-types.js";
import * as V from "../validators.js";
import { EMPTY_VLIST, type Group, type Level, type ListSem, type Validator, type VList } from "../walk.js";
import type { MemberCall } from "./struct-wide.js";
import type { Tag, TagScalar } from "./syntax.js";

export interface CompileProblem {
  severity: "error" | "warning";
  file: string;
  line: number;
  rule?: string;
  message: string;
}

/** A compile unit (a named type or a struct literal): its problems and the units it reaches. */
export interface Unit {
  problems: CompileProblem[];
  children: Set<Unit>;
}

export function newUnit(): Unit {
  return { problems: [], children: new Set() };
}

/** Every enum constant of a named string type, with its exclusions. */
export type EnumIndex = Map<NamedType, V.EnumMember[]>;

export type ScopeKind = "field" | "type" | "listValue" | "mapValue" | "mapKey";

export interface Scope {
  kind: ScopeKind;
  /** The type of the value at this scope as declared (maybe a pointer or a named type). */
  t: GoType;
  label: string;
  at: SourceRef;
  unit: Unit;
  field?: StructField;
  /** The field's `+default` marker, parsed (field scope). */
  defaultValue?: { value: unknown; ok: boolean };
  /** The effective list semantics when the value is a list. */
  sem?: ListSem;
  /** The JSON name used in list-item union member names. */
  listName?: string;
}

export interface ScopeResult {
  list: VList;
  groups: Group[];
  opaque: boolean;
  elemOpaque: boolean;
  keyOpaque: boolean;
}

/** The list metadata tags of a scope (listType, listMapKey, unique, customUnique). */
export interface ListMeta {
  listType?: { value: string; level: Level; rule: string };
  unique?: { value: string; level: Level; rule: string };
  keys: string[];
  customUnique: boolean;
  declared: boolean;
}

/** Wraps a payload's validators (the options of +k8s:ifEnabled / +k8s:ifDisabled). */
export type Wrap = (v: Validator) => Validator;

/** No wrapper: the tag is written directly at its scope, not as a payload of an option. */
export const IDENTITY: Wrap = (v) => v;

/** Where a tag compiles: its scope, the accumulator, its lifecycle level and wrappers. */
export interface TagSite {
  scope: Scope;
  acc: ScopeAcc;
  level: Level;
  wrap: Wrap;
  /** True for payloads, where unknown tags are errors (validation-gen fails on them). */
  nested: boolean;
  /** The outermost tag as written, wrappers included ("+k8s:beta=+k8s:maxItems=4"): what errors name. */
  outer?: string;
}

/** A list metadata tag as the list-metadata pass reads it. */
export interface ListMetaRead {
  /** The tag as written (with its lifecycle prefix). */
  raw: Tag;
  /** Its string value, if it has one. */
  value: string | undefined;
  level: Level;
  problem(message: string): void;
}

/**
 * How one tag compiles, by where it is written. A tag has `compile` when it means something at the scope it is
 * written at; `member` when it is struct-wide (collected from the fields of a struct and compiled once for the
 * struct); `listMeta` when it is list metadata (read before the scope's other tags, whose meaning depends on it).
 */
export interface TagDefinition {
  readonly compile?: (call: TagCall) => void;
  readonly member?: (call: MemberCall) => void;
  readonly listMeta?: (meta: ListMeta, read: ListMetaRead) => void;
  /** False when the tag cannot be the payload of +k8s:ifEnabled / +k8s:ifDisabled (list metadata and struct-wide tags never can). */
  readonly underOption?: false;
}

/** Tag definitions by name (without `k8s:`). */
export type TagTable = Readonly<Record<string, TagDefinition>>;

/** What the tag functions need from the compiler. */
export interface TagHost {
  readonly enums: EnumIndex;
  /** The definition of a tag by short name. */
  definition(name: string): TagDefinition | undefined;
  compileTag(tag: Tag, site: TagSite): void;
  problem(scope: Scope, tag: Tag | undefined, message: string, severity?: "error" | "warning"): void;
  parseTags(lines: TagLine[], file: string, unit: Unit): Tag[];
  listMeta(tags: Tag[], scope: Scope): ListMeta;
  listSem(meta: ListMeta, elem: GoType, scope: Scope): ListSem;
  compileScope(tags: Tag[], scope: Scope, meta: ListMeta): ScopeResult;
}

/** One tag being compiled at a site. */
export class TagCall {
  /** The tag's name without `k8s:`. */
  readonly name: string;
  /** The tag as errors name it (see TagSite.outer). */
  readonly rule: string;

  constructor(
    readonly host: TagHost,
    readonly tag: Tag,
    readonly site: TagSite,
  ) {
    this.name = shortName(tag.name);
    this.rule = site.outer ?? tag.text;
  }

  get scope(): Scope {
    return this.site.scope;
  }

  /** The declared type of the value at the scope. */
  get t(): GoType {
    return this.site.scope.t;
  }

  /** What kind of value it is: the underlying type after one pointer. */
  get base(): GoType {
    return baseOf(this.site.scope.t);
  }

  /** Adds a validator, at the site's level and inside its wrappers. */
  add(v: Validator): void {
    this.site.acc.validators.push(V.withLevel(this.site.level, this.site.wrap(v)));
  }

  problem(message: string, severity: "error" | "warning" = "error"): void {
    this.host.problem(this.site.scope, this.tag, message, severity);
  }

  /** The tag that is this tag's value, or a problem. */
  payload(): Tag | undefined {
    if (this.tag.value?.kind === "tag") return this.tag.value.tag;
    this.problem("needs a +k8s: tag as its value");
    return undefined;
  }

  /** The tag's integer value (at least `min`), or a problem. */
  intValue(min?: bigint): bigint | undefined {
    const value = this.tag.value;
    if (value?.kind !== "int") {
      this.problem("needs an integer value");
      return undefined;
    }
    if (min !== undefined && value.value < min) {
      this.problem(`must be at least ${min}`);
      return undefined;
    }
    return value.value;
  }

  /** Compiles a payload at this site, as a nested tag named by this tag's rule, with some of the site changed. */
  compilePayload(payload: Tag, changes: Partial<TagSite> = {}): void {
    this.host.compileTag(payload, { ...this.site, nested: true, outer: this.rule, ...changes });
  }
}

/** Accumulates what the tags of one scope produce. */
export class ScopeAcc {
  validators: Validator[] = [];
  groups: Group[] = [];
  updates: V.UpdateConstraint[] = [];
  updateRule: string | undefined;
  opaque = false;
  elemOpaque = false;
  keyOpaque = false;
  private listUnions = new Map<
    string,
    { kind: "union" | "zeroOrOneOf"; level: Level; rule: string; members: V.UnionMember[] }
  >();

  addListUnion(kind: "union" | "zeroOrOneOf", name: string, level: Level, rule: string, m: V.UnionMember): void {
    const key = `${kind}/${name}`;
    const u = this.listUnions.get(key) ?? { kind, level, rule, members: [] };
    u.members.push(m);
    this.listUnions.set(key, u);
  }

  finish(scope: Scope): ScopeResult {
    const validators = [...this.validators];
    if (this.updates.length > 0)
      validators.push(V.update(scope.t, this.updates, scope.sem, this.updateRule ?? "+k8s:update"));
    for (const u of this.listUnions.values()) {
      validators.push(
        V.withLevel(u.level, V.union({ kind: u.kind, members: u.members, discriminator: undefined, rule: u.rule })),
      );
    }
    return {
      list: listOf(validators),
      groups: this.groups,
      opaque: this.opaque,
      elemOpaque: this.elemOpaque,
      keyOpaque: this.keyOpaque,
    };
  }
}

export function shortName(name: string): string {
  return name.startsWith("k8s:") ? name.slice(4) : name;
}

/** Strips +k8s:alpha / +k8s:beta wrappers: the payload and its lifecycle level. */
export function peelLevel(tag: Tag): { level: Level; tag: Tag } {
  const n = shortName(tag.name);
  if ((n === "alpha" || n === "beta") && tag.value?.kind === "tag") return { level: n, tag: tag.value.tag };
  return { level: "standard", tag };
}

/** The short name of a tag after its lifecycle prefix. */
export function payloadName(tag: Tag): string {
  return shortName(peelLevel(tag).tag.name);
}

/** The only argument, when it is positional. */
export function positional(tag: Tag): TagScalar | undefined {
  const a = tag.args[0];
  return tag.args.length === 1 && a !== undefined && a.name === undefined ? a.value : undefined;
}

/** A named argument as text. */
export function stringArg(tag: Tag, name: string): string | undefined {
  const v = tag.args.find((a) => a.name === name)?.value;
  return v === undefined ? undefined : v.kind === "string" ? v.value : String(v.value);
}

export function mergeLists(a: VList, b: VList): VList {
  if (a.sc.length + a.rest.length === 0) return b;
  if (b.sc.length + b.rest.length === 0) return a;
  return { sc: [...a.sc, ...b.sc], rest: [...a.rest, ...b.rest] };
}

export function listOf(validators: Validator[]): VList {
  if (validators.length === 0) return EMPTY_VLIST;
  return { sc: validators.filter((v) => v.sc), rest: validators.filter((v) => !v.sc) };
}

/** The named type a value's declared type refers to, after one pointer. */
export function namedOf(t: GoType): NamedType | undefined {
  const d = derefType(t);
  return d.t === "named" ? d.named : undefined;
}

/** The underlying type of a value after one pointer: what kind of thing the value is. */
export function baseOf(t: GoType): GoType {
  return underlyingOf(derefType(t));
}

export function isIntKind(t: GoType): { bits: number; unsigned: boolean } | undefined {
  const u = baseOf(t);
  return u.t === "basic" && u.kind === "int" ? { bits: u.bits, unsigned: u.unsigned } : undefined;
}

export function isStringKind(t: GoType): boolean {
  const u = baseOf(t);
  return u.t === "basic" && u.kind === "string";
}

export function isBoolKind(t: GoType): boolean {
  const u = baseOf(t);
  return u.t === "basic" && u.kind === "bool";
}

/** A direct field of a struct (or of its inline embedded structs) by JSON name. */
export function findField(st: StructType, jsonName: string): StructField | undefined {
  for (const f of st.fields) {
    if (!f.inline && f.jsonName === jsonName) return f;
  }
  for (const f of st.fields) {
    if (!f.inline) continue;
    const b = baseOf(f.type);
    if (b.t === "struct") {
      const inner = findField(b.struct, jsonName);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

/** Parses the `+default=<json>` marker of a field, if any. */
export function defaultOf(lines: TagLine[]): { value: unknown; ok: boolean } | undefined {
  for (const l of lines) {
    if (!l.text.startsWith("+default=")) continue;
    const text = l.text.slice("+default=".length).trim();
    try {
      return { value: JSON.parse(text), ok: true };
    } catch {
      return { value: text, ok: false };
    }
  }
  return undefined;
}
