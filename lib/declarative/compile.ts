/**
 * Compiles the `+k8s:` tags of resolved Go types into the validator tree of walk.ts, once per bundle load: one
 * TypeNode per named type (cached before recursing, so recursive types work), struct-wide rules (unions,
 * zero-or-one-of, mode discriminators, dependent fields) attached to the struct that holds their members, and
 * pruning of everything that validates nothing (spec/declarative-validation-behaviour.md sections 1, 4, 5, 9).
 *
 * Problems are data: each is recorded with file, line and tag on the unit (type or struct) where it was found,
 * and the family turns those reachable from a kind into PolicyFailures for that kind.
 */
import type { TagLine } from "./go-source.js";
import {
  derefType,
  type GoPackage,
  type GoType,
  type NamedType,
  type SourceRef,
  type StructField,
  type StructType,
  typeText,
  type Universe,
  underlyingOf,
} from "./go-types.js";
import { parseTag, type Tag, type TagScalar, TagSyntaxError } from "./tags.js";
import * as V from "./validators.js";
import { fieldRaw, isRecord, isSet, view } from "./values.js";
import {
  EMPTY_VLIST,
  type FieldNode,
  type Group,
  type Iter,
  type Level,
  type ListSem,
  type TypeNode,
  type Validator,
  type VList,
} from "./walk.js";

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

type ScopeKind = "field" | "type" | "listValue" | "mapValue" | "mapKey";

interface Scope {
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

interface ScopeResult {
  list: VList;
  groups: Group[];
  opaque: boolean;
  elemOpaque: boolean;
  keyOpaque: boolean;
}

/** The k8s: tags that are generator configuration or other generators' business: no runtime meaning. */
function isGeneratorTag(name: string): boolean {
  return (
    /-gen(:|$|-)/.test(name) ||
    name.startsWith("k8s:validation-gen") ||
    name === "k8s:protobuf" ||
    name.startsWith("k8s:openapi") ||
    name === "k8s:prerelease-lifecycle-gen" ||
    name.startsWith("k8s:deepcopy")
  );
}

const STRUCT_WIDE = new Set([
  "unionMember",
  "unionDiscriminator",
  "zeroOrOneOfMember",
  "modeDiscriminator",
  "ifMode",
  "discriminator",
  "member",
  "dependentRequired",
  "dependentForbidden",
]);

/** Tags handled by the list-metadata pass rather than as validators. */
const LIST_META = new Set(["listType", "listMapKey", "unique", "customUnique"]);

/** Known tags that are read elsewhere or carry no validation. */
const METADATA = new Set(["supportsSubresource", "isSubresource"]);

function short(name: string): string {
  return name.startsWith("k8s:") ? name.slice(4) : name;
}

function mergeLists(a: VList, b: VList): VList {
  if (a.sc.length + a.rest.length === 0) return b;
  if (b.sc.length + b.rest.length === 0) return a;
  return { sc: [...a.sc, ...b.sc], rest: [...a.rest, ...b.rest] };
}

function listOf(validators: Validator[]): VList {
  if (validators.length === 0) return EMPTY_VLIST;
  return { sc: validators.filter((v) => v.sc), rest: validators.filter((v) => !v.sc) };
}

function positional(tag: Tag): TagScalar | undefined {
  const a = tag.args[0];
  return tag.args.length === 1 && a !== undefined && a.name === undefined ? a.value : undefined;
}

function namedArg(tag: Tag, name: string): TagScalar | undefined {
  return tag.args.find((a) => a.name === name)?.value;
}

function stringArg(tag: Tag, name: string): string | undefined {
  const v = namedArg(tag, name);
  return v === undefined ? undefined : v.kind === "string" ? v.value : String(v.value);
}

/** Strips +k8s:alpha / +k8s:beta wrappers: the payload and its lifecycle level. */
function peelLevel(tag: Tag): { level: Level; tag: Tag } {
  const n = short(tag.name);
  if ((n === "alpha" || n === "beta") && tag.value?.kind === "tag") return { level: n, tag: tag.value.tag };
  return { level: "standard", tag };
}

interface ListMeta {
  listType?: { value: string; level: Level; rule: string };
  unique?: { value: string; level: Level; rule: string };
  keys: string[];
  customUnique: boolean;
  declared: boolean;
}

/** The named type a value's declared type refers to, after one pointer. */
function namedOf(t: GoType): NamedType | undefined {
  const d = derefType(t);
  return d.t === "named" ? d.named : undefined;
}

function isIntKind(t: GoType): { bits: number; unsigned: boolean } | undefined {
  const u = underlyingOf(derefType(t));
  return u.t === "basic" && u.kind === "int" ? { bits: u.bits, unsigned: u.unsigned } : undefined;
}

function isStringKind(t: GoType): boolean {
  const u = underlyingOf(derefType(t));
  return u.t === "basic" && u.kind === "string";
}

function isBoolKind(t: GoType): boolean {
  const u = underlyingOf(derefType(t));
  return u.t === "basic" && u.kind === "bool";
}

/** The underlying type of a value after one pointer: what kind of thing the value is. */
function baseOf(t: GoType): GoType {
  return underlyingOf(derefType(t));
}

function fitsWidth(v: bigint, w: { bits: number; unsigned: boolean }): boolean {
  const b = BigInt(w.bits);
  return w.unsigned ? v >= 0n && v < 1n << b : v >= -(1n << (b - 1n)) && v < 1n << (b - 1n);
}

/** Parses the `+default=<json>` marker of a field, if any. */
function defaultOf(lines: TagLine[]): { value: unknown; ok: boolean } | undefined {
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

/** Every enum constant of a named string type, with its exclusions. */
export type EnumIndex = Map<NamedType, V.EnumMember[]>;

const IDENTITY = (v: Validator): Validator => v;

export class Compiler {
  private readonly named = new Map<NamedType, TypeNode>();
  private readonly anon = new Map<StructType, TypeNode>();
  private readonly structParts = new Map<StructType, { fields: FieldNode[]; list: VList; unit: Unit }>();
  readonly units = new Map<TypeNode, Unit>();
  /** Every node created, for the liveness fixpoint. */
  private readonly allNodes: TypeNode[] = [];
  private readonly allFields: FieldNode[] = [];
  private readonly fieldChildren = new Map<FieldNode, (TypeNode | undefined)[]>();
  /** What the requiredness lint needs to know about each field. */
  private readonly fieldLint = new Map<
    FieldNode,
    { unit: Unit; at: SourceRef; label: string; requiredness: boolean }
  >();

  constructor(
    readonly universe: Universe,
    private readonly enums: EnumIndex,
    private readonly failedPackages: ReadonlyMap<GoPackage, SourceRef>,
  ) {}

  /** The node of a named type (its type-level tags, and its fields when it is a struct). */
  nodeForNamed(nt: NamedType): TypeNode {
    const cached = this.named.get(nt);
    if (cached !== undefined) return cached;
    const node = this.newNode(nt.name);
    this.named.set(nt, node);
    const unit = this.units.get(node)!;
    const at = { file: nt.decl.file, line: nt.decl.line };
    const broken = this.failedPackages.get(nt.pkg);
    if (broken !== undefined) {
      // One problem per package (deduplicated by location and text), naming every kind it disables.
      unit.problems.push({
        severity: "error",
        ...broken,
        message: `package ${nt.pkg.dir || "."} could not be read: its types are not used`,
      });
      return node;
    }
    const u = nt.underlying();
    if (u.t === "unsupported" && u.error !== undefined) {
      unit.problems.push({ severity: "error", ...(u.at ?? at), message: u.error });
      return node;
    }
    const tags = this.parseTags(nt.decl.doc, nt.decl.file, unit);
    const scope: Scope = { kind: "type", t: { t: "named", named: nt }, label: `${nt.pkg.name}.${nt.name}`, at, unit };
    const meta = this.listMeta(tags, scope);
    if (u.t === "slice") scope.sem = this.listSem(meta, u.elem, scope);
    const res = this.compileScope(tags, scope, meta);
    node.list = res.list;
    node.groups = res.groups;
    node.opaque = res.opaque;
    if (u.t === "slice" || u.t === "map") {
      const { iters, extra } = this.iterations(u, scope.sem, res, unit, at);
      node.iters = iters;
      if (extra.length > 0) node.list = mergeLists(node.list, listOf(extra));
    }
    if (u.t === "struct") {
      const part = this.structPart(u.struct);
      node.fields = part.fields;
      node.list = mergeLists(node.list, part.list);
      unit.children.add(part.unit);
    }
    return node;
  }

  /** The node of an anonymous struct type used as a field type. */
  nodeForStruct(st: StructType): TypeNode {
    const cached = this.anon.get(st);
    if (cached !== undefined) return cached;
    const node = this.newNode("struct");
    this.anon.set(st, node);
    const part = this.structPart(st);
    node.fields = part.fields;
    node.list = part.list;
    this.units.get(node)!.children.add(part.unit);
    return node;
  }

  private newNode(label: string): TypeNode {
    const node: TypeNode = { label, list: EMPTY_VLIST, groups: [], iters: [], opaque: false, fields: [], live: false };
    this.units.set(node, { problems: [], children: new Set() });
    this.allNodes.push(node);
    return node;
  }

  /** The node for a value of type `t` (after one pointer), when it is a named type or an anonymous struct. */
  private targetFor(t: GoType, unit: Unit): TypeNode | undefined {
    const d = derefType(t);
    let node: TypeNode | undefined;
    if (d.t === "named") node = this.nodeForNamed(d.named);
    else if (d.t === "struct") node = this.nodeForStruct(d.struct);
    if (node !== undefined) unit.children.add(this.units.get(node)!);
    return node;
  }

  /**
   * Marks nodes and fields that validate something (directly or below), then drops the rest, so the walk only
   * visits where rules exist.
   */
  finish(): void {
    let changed = true;
    while (changed) {
      changed = false;
      for (const f of this.allFields) {
        if (f.live) continue;
        const kids = this.fieldChildren.get(f) ?? [];
        if (f.list.sc.length + f.list.rest.length > 0 || f.groups.length > 0 || kids.some((k) => k?.live)) {
          f.live = true;
          changed = true;
        }
      }
      for (const n of this.allNodes) {
        if (n.live) continue;
        if (
          n.list.sc.length + n.list.rest.length > 0 ||
          n.groups.length > 0 ||
          n.iters.some((i) => i.node.live) ||
          n.fields.some((f) => f.live)
        ) {
          n.live = true;
          changed = true;
        }
      }
    }
    // validation-gen's lint: a non-struct field with (direct or transitive) validations must say whether it is
    // optional, required or forbidden. A warning here: the generated code does not depend on it.
    for (const f of this.allFields) {
      const lint = this.fieldLint.get(f);
      if (lint === undefined || lint.requiredness || !f.live || f.field.omitted) continue;
      if (f.field.type.t !== "pointer" && baseOf(f.field.type).t === "struct") continue;
      lint.unit.problems.push({
        severity: "warning",
        ...lint.at,
        message: `field ${lint.label} has validations but no +k8s:optional, +k8s:required or +k8s:forbidden (validation-gen lint)`,
      });
    }
    for (const f of this.allFields) {
      if (f.target !== undefined && !f.target.live) f.target = undefined;
      f.iters = f.iters.filter((i) => i.node.live);
    }
    for (const n of this.allNodes) {
      n.iters = n.iters.filter((i) => i.node.live);
      n.fields = n.fields.filter((f) => f.live);
    }
  }

  /** The number of validators reachable from a node (for CoveredKind.rules). */
  countRules(root: TypeNode): number {
    const seen = new Set<TypeNode>();
    let n = 0;
    const visit = (node: TypeNode) => {
      if (seen.has(node)) return;
      seen.add(node);
      n += node.list.sc.length + node.list.rest.length + node.groups.length;
      for (const it of node.iters) visit(it.node);
      for (const f of node.fields) {
        n += f.list.sc.length + f.list.rest.length + f.groups.length;
        if (f.target) visit(f.target);
        for (const it of f.iters) visit(it.node);
      }
    };
    visit(root);
    return n;
  }

  private parseTags(lines: TagLine[], file: string, unit: Unit): Tag[] {
    const out: Tag[] = [];
    for (const l of lines) {
      if (!l.text.startsWith("+k8s:")) continue;
      try {
        const tag = parseTag(l.text);
        // Payload tags report the line of the comment they are written on.
        for (let t: Tag | undefined = tag; t !== undefined; t = t.value?.kind === "tag" ? t.value.tag : undefined)
          (t as Tag & { line?: number }).line = l.line;
        out.push(tag);
      } catch (e) {
        const message = e instanceof TagSyntaxError ? e.message : String(e);
        unit.problems.push({
          severity: "error",
          file,
          line: l.line,
          rule: l.text,
          message: `malformed tag: ${message}`,
        });
      }
    }
    return out;
  }

  private problem(scope: Scope, tag: Tag | undefined, message: string, severity: "error" | "warning" = "error"): void {
    const line = (tag as (Tag & { line?: number }) | undefined)?.line ?? scope.at.line;
    const p: CompileProblem = {
      severity,
      file: scope.at.file,
      line,
      message: tag ? `${tag.text}: ${message}` : message,
    };
    if (tag !== undefined) p.rule = tag.text;
    scope.unit.problems.push(p);
  }

  /** The compiled fields and struct-wide validators of a struct literal (shared by types defined from it). */
  private structPart(st: StructType): { fields: FieldNode[]; list: VList; unit: Unit } {
    const cached = this.structParts.get(st);
    if (cached !== undefined) return cached;
    const unit: Unit = { problems: [], children: new Set() };
    const part = { fields: [] as FieldNode[], list: EMPTY_VLIST, unit };
    this.structParts.set(st, part);
    const structLabel = st.owner ? `${st.owner.pkg.name}.${st.owner.name}` : "struct";
    const wide = new StructWide(this, st, unit);
    for (const f of st.fields) {
      const at = f.at;
      const label = `${structLabel}.${f.goName}`;
      const scope: Scope = { kind: "field", t: f.type, label, at, unit, field: f, defaultValue: defaultOf(f.tags) };
      const all = this.parseTags(f.tags, at.file, unit);
      const own: Tag[] = [];
      for (const tag of all) {
        const { level, tag: inner } = peelLevel(tag);
        if (STRUCT_WIDE.has(short(inner.name))) wide.add(f, inner, level, tag, scope);
        else own.push(tag);
      }
      if (f.type.t === "unsupported" && f.type.error !== undefined) {
        unit.problems.push({ severity: "error", ...(f.type.at ?? at), message: `field ${label}: ${f.type.error}` });
        continue;
      }
      const node = this.compileField(f, own, scope);
      part.fields.push(node);
      const requiredness = all.some((t) => /\+k8s:(required|optional|forbidden)\b/.test(t.text));
      this.fieldLint.set(node, { unit, at, label, requiredness });
    }
    part.list = wide.build();
    return part;
  }

  private compileField(f: StructField, tags: Tag[], scope: Scope): FieldNode {
    const meta = this.listMeta(tags, scope);
    const base = baseOf(f.type);
    const typeMeta = this.namedListMeta(f.type, scope);
    if (meta.declared && typeMeta?.declared)
      this.problem(scope, undefined, `list metadata is declared on both the field ${scope.label} and its type`);
    if (base.t === "slice") scope.sem = this.listSem(meta.declared ? meta : (typeMeta ?? meta), base.elem, scope);
    scope.listName = f.jsonName;
    const res = this.compileScope(tags, scope, meta);
    const node: FieldNode = { field: f, list: res.list, groups: res.groups, target: undefined, iters: [], live: false };
    const kids: (TypeNode | undefined)[] = [];
    if (!res.opaque) {
      const d = derefType(f.type);
      if (d.t === "named" || d.t === "struct") {
        node.target = this.targetFor(f.type, scope.unit);
        kids.push(node.target);
      } else if (d.t === "slice" || d.t === "map") {
        const { iters, extra } = this.iterations(d, scope.sem, res, scope.unit, scope.at);
        node.iters = iters;
        for (const it of iters) kids.push(it.node);
        if (extra.length > 0) node.list = mergeLists(node.list, listOf(extra));
      }
      this.warnExternal(f, res, scope);
    }
    this.allFields.push(node);
    this.fieldChildren.set(node, kids);
    return node;
  }

  /** A field of a type from outside the bundle is opaque; say so unless +k8s:opaqueType does. */
  private warnExternal(f: StructField, res: ScopeResult, scope: Scope): void {
    let d = derefType(f.type);
    let viaElem = false;
    if (d.t === "slice" || d.t === "map") {
      d = derefType(d.elem);
      viaElem = true;
    }
    if (d.t !== "external" || (viaElem && res.elemOpaque)) return;
    // apimachinery's types (ObjectMeta, Time, Quantity, IntOrString...) are not in API bundles; upstream generates
    // their few rules from a read-only package. They are opaque here without a warning for each use.
    if (d.pkgPath.startsWith("k8s.io/apimachinery/")) return;
    this.problem(
      scope,
      undefined,
      `field ${scope.label} has type ${d.pkgPath}.${d.name} from a package outside the bundle: it is not validated (mark it +k8s:opaqueType to say so)`,
      "warning",
    );
  }

  /** Element and key iterations of a list or map whose element (or key) type has rules, and the nil-entry check. */
  private iterations(
    u: GoType,
    sem: ListSem | undefined,
    res: ScopeResult,
    unit: Unit,
    at: SourceRef,
  ): { iters: Iter[]; extra: Validator[] } {
    const iters: Iter[] = [];
    const extra: Validator[] = [];
    if (u.t === "slice") {
      if (u.elem.t === "pointer") extra.push(V.nilEntries("[]*T"));
      if (u.elem.t === "slice" || u.elem.t === "map") return { iters, extra };
      if (!res.elemOpaque) {
        const node = this.targetFor(u.elem, unit);
        if (node !== undefined) iters.push({ kind: "list", node, elem: u.elem, sem });
      }
    } else if (u.t === "map") {
      const k = underlyingOf(u.key);
      if (!(k.t === "basic" && k.kind === "string"))
        unit.problems.push({
          severity: "warning",
          ...at,
          message: `map keys of type ${typeText(u.key)} are not supported; only string keys are validated`,
        });
      if (!res.elemOpaque) {
        const node = this.targetFor(u.elem, unit);
        if (node !== undefined) iters.push({ kind: "mapValues", node, elem: u.elem, sem: undefined });
      }
      if (!res.keyOpaque && u.key.t === "named") {
        const node = this.targetFor(u.key, unit);
        if (node !== undefined) iters.push({ kind: "mapKeys", node, elem: u.key, sem: undefined });
      }
    }
    return { iters, extra };
  }

  /** The list metadata declared on a named list type a field uses. */
  private namedListMeta(t: GoType, scope: Scope): ListMeta | undefined {
    const nt = namedOf(t);
    if (nt === undefined || nt.underlying().t !== "slice") return undefined;
    const tags = this.parseTags(nt.decl.doc, nt.decl.file, { problems: [], children: new Set() });
    return this.listMeta(tags, { ...scope, kind: "type", unit: { problems: [], children: new Set() } });
  }

  private listMeta(tags: Tag[], scope: Scope): ListMeta {
    const meta: ListMeta = { keys: [], customUnique: false, declared: false };
    for (const raw of tags) {
      const { level, tag } = peelLevel(raw);
      const n = short(tag.name);
      if (!LIST_META.has(n)) continue;
      meta.declared = true;
      const value = tag.value?.kind === "string" ? tag.value.value : undefined;
      if (n === "customUnique") meta.customUnique = true;
      else if (n === "listMapKey") {
        if (value === undefined) this.problem(scope, raw, "needs a field name");
        else meta.keys.push(value);
      } else if (n === "listType") {
        if (value !== "atomic" && value !== "set" && value !== "map")
          this.problem(scope, raw, `unsupported list type ${JSON.stringify(value)} (supported: atomic, map, set)`);
        else meta.listType = { value, level, rule: raw.text };
      } else if (n === "unique") {
        if (value !== "set" && value !== "map")
          this.problem(scope, raw, `unsupported unique type ${JSON.stringify(value)} (supported: map, set)`);
        else meta.unique = { value, level, rule: raw.text };
      }
    }
    return meta;
  }

  private listSem(meta: ListMeta, elem: GoType, scope: Scope): ListSem {
    const lt = meta.listType?.value;
    const uq = meta.unique?.value;
    if (uq !== undefined && (lt === "set" || lt === "map"))
      this.problem(scope, undefined, `+k8s:unique cannot be combined with +k8s:listType=${lt}`);
    const kind = lt === "map" || uq === "map" ? "map" : lt === "set" || uq === "set" ? "set" : "none";
    const sem: ListSem = { kind, elem, keys: [] };
    if (kind === "map") {
      const st = baseOf(elem);
      if (st.t !== "struct")
        this.problem(scope, undefined, `list-map semantics need struct elements, not ${typeText(elem)}`);
      else if (meta.keys.length === 0)
        this.problem(scope, undefined, "list-map semantics need at least one +k8s:listMapKey");
      else {
        for (const k of meta.keys) {
          const f = findField(st.struct, k);
          if (f === undefined)
            this.problem(scope, undefined, `+k8s:listMapKey=${k}: no such field in ${typeText(elem)}`);
          else sem.keys.push(f);
        }
      }
    } else if (meta.keys.length > 0) {
      this.problem(scope, undefined, "+k8s:listMapKey needs +k8s:listType=map or +k8s:unique=map");
    }
    return sem;
  }

  private compileScope(tags: Tag[], scope: Scope, meta: ListMeta): ScopeResult {
    const acc = new ScopeAcc();
    // Uniqueness is generated where the list type is declared.
    if (scope.sem !== undefined && meta.declared && !meta.customUnique && scope.sem.kind !== "none") {
      const decl = meta.listType?.value === "set" || meta.listType?.value === "map" ? meta.listType : meta.unique;
      if (decl !== undefined) acc.validators.push(V.withLevel(decl.level, V.unique(scope.sem, decl.rule)));
    }
    for (const tag of tags) this.compileTag(tag, scope, acc, "standard", IDENTITY, false);
    return acc.finish(scope);
  }

  /**
   * Compiles one tag into `acc`. `wrap` applies the wrappers around it (options); `level` is the lifecycle level;
   * `nested` is true for payloads (where unknown tags are errors, as validation-gen crashes on them).
   */
  compileTag(
    tag: Tag,
    scope: Scope,
    acc: ScopeAcc,
    level: Level,
    wrap: (v: Validator) => Validator,
    nested: boolean,
    outer?: string,
  ): void {
    const n = short(tag.name);
    // Errors name the tag as written, wrappers included: "+k8s:beta=+k8s:maxItems=4".
    const rule = outer ?? tag.text;
    const add = (v: Validator) => acc.validators.push(V.withLevel(level, wrap(v)));
    const payload = (): Tag | undefined => {
      if (tag.value?.kind === "tag") return tag.value.tag;
      this.problem(scope, tag, "needs a +k8s: tag as its value");
      return undefined;
    };
    const intValue = (min?: bigint): bigint | undefined => {
      if (tag.value?.kind !== "int") {
        this.problem(scope, tag, "needs an integer value");
        return undefined;
      }
      if (min !== undefined && tag.value.value < min) {
        this.problem(scope, tag, `must be at least ${min}`);
        return undefined;
      }
      return tag.value.value;
    };
    if (!tag.name.startsWith("k8s:")) return;
    if (isGeneratorTag(tag.name)) return;
    const t = scope.t;
    const base = baseOf(t);
    switch (n) {
      case "alpha":
      case "beta": {
        const p = payload();
        if (p === undefined) return;
        if (level !== "standard")
          this.problem(scope, tag, "+k8s:alpha and +k8s:beta must be the outermost prefix", "warning");
        this.compileTag(p, scope, acc, n, wrap, true, rule);
        return;
      }
      case "ifEnabled":
      case "ifDisabled": {
        const opt = positional(tag);
        const p = payload();
        if (opt === undefined || opt.kind !== "string" || opt.value === "") {
          this.problem(scope, tag, "needs the option name as its only argument");
          return;
        }
        if (p === undefined) return;
        const option = opt.value;
        const enabled = n === "ifEnabled";
        const pn = short(peelLevel(p).tag.name);
        if (pn === "subfield" || pn === "item") {
          const before = acc.groups.length;
          this.compileTag(p, scope, acc, level, wrap, true, rule);
          for (let i = before; i < acc.groups.length; i++) {
            const g = acc.groups[i]!;
            acc.groups[i] = (r, path, v, ov, out) => {
              if ((r.gates[option] === true) === enabled) g(r, path, v, ov, out);
            };
          }
          return;
        }
        if (LIST_META.has(pn) || pn === "opaqueType" || STRUCT_WIDE.has(pn)) {
          this.problem(scope, tag, `+k8s:${pn} cannot be used inside +k8s:${n}`);
          return;
        }
        this.compileTag(p, scope, acc, level, (v) => wrap(V.ifOption(option, enabled, v, rule)), true, rule);
        return;
      }
      case "required":
      case "optional":
      case "forbidden": {
        if (scope.kind !== "field") {
          this.problem(scope, tag, "can only be used on struct fields");
          return;
        }
        if (t.t !== "pointer" && base.t === "struct") {
          this.problem(scope, tag, `cannot be used on a non-pointer struct field (${scope.label})`);
          return;
        }
        if (n === "required") add(V.required(t, rule));
        else if (n === "forbidden") add(V.forbidden(t, rule));
        else {
          // +k8s:optional with a +default: the server validates after defaulting, so unset cannot happen
          // (spec section 5.1): required unless a value kind defaults to its zero value (then a no-op).
          const d = scope.defaultValue;
          if (d === undefined) add(V.optional(t, rule));
          else {
            const nilable = t.t === "pointer" || base.t === "slice" || base.t === "map";
            const zeroDefault = d.ok && (d.value === "" || d.value === 0 || d.value === false);
            if (nilable || !zeroDefault) add(V.required(t, rule));
          }
        }
        return;
      }
      case "minimum":
      case "maximum": {
        const w = isIntKind(t);
        if (w === undefined) {
          this.problem(scope, tag, `can only be used on integer types, not ${typeText(t)}`);
          return;
        }
        const v = intValue();
        if (v === undefined) return;
        if (!fitsWidth(v, w)) {
          this.problem(scope, tag, `${v} does not fit the field's type ${typeText(t)}`);
          return;
        }
        add(n === "minimum" ? V.minimum(v, rule) : V.maximum(v, rule));
        return;
      }
      case "neq": {
        const val = tag.value;
        if (val === undefined || val.kind === "tag") {
          this.problem(scope, tag, "needs a value");
          return;
        }
        if (isStringKind(t) && val.kind === "string") add(V.neq(val.value, rule));
        else if (isIntKind(t) && val.kind === "int") add(V.neq(val.value, rule));
        else if (isBoolKind(t) && val.kind === "bool") add(V.neq(val.value, rule));
        else
          this.problem(
            scope,
            tag,
            `the value does not match the type ${typeText(t)} (neq supports string, integer and boolean types)`,
          );
        return;
      }
      case "minLength":
      case "maxLength":
      case "maxBytes": {
        if (!isStringKind(t)) {
          this.problem(scope, tag, `can only be used on string types, not ${typeText(t)}`);
          return;
        }
        const v = intValue(0n);
        if (v === undefined) return;
        if (n === "minLength") {
          if (v > 0n) add(V.minLength(v, rule));
        } else add(n === "maxLength" ? V.maxLength(v, rule) : V.maxBytes(v, rule));
        return;
      }
      case "format": {
        if (!isStringKind(t)) {
          this.problem(scope, tag, `can only be used on string types, not ${typeText(t)}`);
          return;
        }
        const name = tag.value?.kind === "string" ? tag.value.value : undefined;
        const v = name === undefined ? undefined : V.format(name, rule);
        if (v === undefined) this.problem(scope, tag, `unsupported validation format ${JSON.stringify(name ?? "")}`);
        else add(v);
        return;
      }
      case "enum": {
        const nt = scope.kind === "type" && t.t === "named" ? t.named : undefined;
        if (nt === undefined || !isStringKind(t)) {
          this.problem(scope, tag, "can only be used on a named string type declaration");
          return;
        }
        const members = this.enums.get(nt) ?? [];
        if (members.length === 0) this.problem(scope, tag, `enum type ${nt.name} has no constants`, "warning");
        add(V.enumeration(members, rule));
        return;
      }
      case "enumExclude":
        this.problem(scope, tag, "can only be used on constants of an enum type");
        return;
      case "listType":
      case "listMapKey":
      case "unique":
      case "customUnique":
        if (base.t !== "slice" || (scope.kind !== "field" && scope.kind !== "type"))
          this.problem(scope, tag, "can only be used on list fields and list types");
        else if (wrap !== IDENTITY) this.problem(scope, tag, "cannot be used as a payload here");
        return;
      case "minItems":
      case "maxItems": {
        if (base.t !== "slice") {
          this.problem(scope, tag, `can only be used on lists, not ${typeText(t)}`);
          return;
        }
        const v = intValue(0n);
        if (v === undefined) return;
        add(n === "minItems" ? V.minItems(v, "minItems", rule) : V.maxItems(v, "maxItems", rule));
        return;
      }
      case "minProperties":
      case "maxProperties": {
        if (base.t !== "map") {
          this.problem(scope, tag, `can only be used on maps, not ${typeText(t)}`);
          return;
        }
        const v = intValue(0n);
        if (v === undefined) return;
        if (v > 100000n) {
          this.problem(scope, tag, "must be at most 100000");
          return;
        }
        add(n === "minProperties" ? V.minItems(v, "minProperties", rule) : V.maxItems(v, "maxProperties", rule));
        return;
      }
      case "eachVal":
      case "eachKey": {
        const p = payload();
        if (p === undefined) return;
        if (n === "eachKey" ? base.t !== "map" : base.t !== "slice" && base.t !== "map") {
          this.problem(
            scope,
            tag,
            `can only be used on ${n === "eachKey" ? "maps" : "lists and maps"}, not ${typeText(t)}`,
          );
          return;
        }
        const pn = short(peelLevel(p).tag.name);
        if (pn === "opaqueType") {
          if (n === "eachVal") acc.elemOpaque = true;
          else acc.keyOpaque = true;
          return;
        }
        const elem = base.t === "slice" ? base.elem : base.t === "map" ? (n === "eachKey" ? base.key : base.elem) : t;
        const kind = base.t === "slice" ? "list" : n === "eachKey" ? "mapKeys" : "mapValues";
        const inner = new ScopeAcc();
        const sub: Scope = {
          kind: kind === "list" ? "listValue" : kind === "mapKeys" ? "mapKey" : "mapValue",
          t: elem,
          label: `${scope.label}[*]`,
          at: scope.at,
          unit: scope.unit,
        };
        if (pn === "update" && kind === "list" && scope.sem?.kind !== "map")
          this.problem(scope, tag, "+k8s:eachVal=+k8s:update on a list needs listType=map or unique=map");
        this.compileTag(p, sub, inner, "standard", IDENTITY, true, rule);
        const res = inner.finish(sub);
        if (res.groups.length > 0)
          this.problem(scope, tag, "item and subfield rules cannot be used inside eachVal/eachKey");
        if (res.list.sc.length + res.list.rest.length === 0) return;
        add(V.each(kind, elem, kind === "list" ? scope.sem : undefined, res.list, rule));
        return;
      }
      case "item": {
        const p = payload();
        if (p === undefined) return;
        this.compileItem(tag, p, scope, acc, level, rule);
        return;
      }
      case "subfield": {
        const p = payload();
        if (p === undefined) return;
        this.compileSubfield(tag, p, scope, acc, level, wrap, rule);
        return;
      }
      case "immutable":
        if (scope.kind === "mapKey") {
          this.problem(scope, tag, "cannot be used on map keys");
          return;
        }
        add(V.immutable(t, rule));
        return;
      case "update": {
        const c = tag.value?.kind === "string" ? tag.value.value : undefined;
        if (c !== "NoSet" && c !== "NoUnset" && c !== "NoModify" && c !== "NoAddItem" && c !== "NoRemoveItem") {
          this.problem(scope, tag, `unknown +k8s:update constraint ${JSON.stringify(c ?? "")}`);
          return;
        }
        const isList = base.t === "slice" || base.t === "map";
        if (c === "NoModify" && isList) {
          this.problem(
            scope,
            tag,
            "NoModify is not supported on lists and maps; use +k8s:eachVal=+k8s:update=NoModify",
          );
          return;
        }
        if ((c === "NoAddItem" || c === "NoRemoveItem") && !isList) {
          this.problem(scope, tag, `${c} can only be used on lists and maps`);
          return;
        }
        if (
          (c === "NoAddItem" || c === "NoRemoveItem") &&
          base.t === "slice" &&
          (scope.sem?.kind ?? "none") === "none"
        ) {
          this.problem(scope, tag, `${c} on a list needs listType=set, listType=map or unique`);
          return;
        }
        if ((c === "NoSet" || c === "NoUnset") && t.t !== "pointer" && base.t === "struct") {
          this.problem(scope, tag, `${c} has no effect on a non-pointer struct`, "warning");
        }
        if (scope.kind === "field" && level === "standard" && wrap === IDENTITY) acc.updates.push(c);
        else add(V.update(t, [c], scope.sem, rule));
        if (acc.updateRule === undefined) acc.updateRule = rule;
        return;
      }
      case "opaqueType":
        if (nested && scope.kind !== "listValue" && scope.kind !== "mapValue") {
          this.problem(scope, tag, "cannot be used as a payload here");
          return;
        }
        acc.opaque = true;
        return;
      case "monotonic":
        if (isIntKind(t) === undefined) {
          this.problem(scope, tag, `can only be used on integer types, not ${typeText(t)}`);
          return;
        }
        add(V.monotonic(rule));
        return;
      case "validateFalse":
      case "validateTrue":
      case "validateTrueAlpha":
      case "validateTrueBeta": {
        const flags = (stringArg(tag, "flags") ?? "").split(",").map((s) => s.trim());
        const sc = flags.includes("ShortCircuit");
        const msg = tag.value?.kind === "string" ? tag.value.value : "";
        if (n === "validateFalse") add(V.validateFalse(msg, sc, flags.includes("NonError"), rule));
        else add(V.validateTrue(sc, rule));
        return;
      }
      case "validateError": {
        const msg = tag.value?.kind === "string" ? tag.value.value : "";
        this.problem(scope, tag, `forced error: ${msg}`);
        return;
      }
      case "customValidation":
        this.problem(
          scope,
          tag,
          "hand-written validation (ValidateCustom_...) cannot be interpreted: skipped",
          "warning",
        );
        return;
      default:
        if (METADATA.has(n)) {
          if (scope.kind !== "type") this.problem(scope, tag, "can only be used on type declarations");
          return;
        }
        if (STRUCT_WIDE.has(n)) {
          this.problem(scope, tag, "can only be used on struct fields (or list items selected with +k8s:item)");
          return;
        }
        if (nested) this.problem(scope, tag, `unknown tag +${tag.name}`);
        else
          this.problem(
            scope,
            tag,
            `unknown tag +${tag.name}: ignored (validation-gen ignores unknown tags)`,
            "warning",
          );
        return;
    }
  }

  private compileItem(tag: Tag, p: Tag, scope: Scope, acc: ScopeAcc, level: Level, outerRule: string): void {
    const sem = scope.sem;
    if (sem === undefined || sem.kind !== "map") {
      this.problem(scope, tag, "can only be used on lists with listType=map or unique=map");
      return;
    }
    const named = new Map<string, TagScalar>();
    for (const a of tag.args) {
      if (a.name === undefined) {
        this.problem(scope, tag, "needs named arguments (key field: value)");
        return;
      }
      named.set(a.name, a.value);
    }
    for (const k of sem.keys) {
      if (!named.has(k.jsonName)) {
        this.problem(scope, tag, `every key field must be given; ${k.jsonName} is missing`);
        return;
      }
    }
    const keyFields: { field: StructField; value: TagScalar }[] = [];
    for (const [k, value] of named) {
      const f = sem.keys.find((x) => x.jsonName === k);
      if (f === undefined) {
        this.problem(scope, tag, `${k} is not a key field of the list`);
        return;
      }
      keyFields.push({ field: f, value });
    }
    const matches = (e: unknown): boolean => {
      if (!isRecord(e)) return false;
      for (const { field, value } of keyFields) {
        const x = view(field.type, fieldRaw(field, e));
        if (value.kind === "int") {
          if (!(typeof x === "number" || typeof x === "bigint") || BigInt(x) !== value.value) return false;
        } else if (x !== value.value) return false;
      }
      return true;
    };
    const { level: innerLevel, tag: inner } = peelLevel(p);
    const pn = short(inner.name);
    const effLevel = innerLevel !== "standard" ? innerLevel : level;
    if (pn === "zeroOrOneOfMember" || pn === "unionMember") {
      const selector = `{${keyFields
        .map(
          ({ field, value }) =>
            `${JSON.stringify(field.jsonName)}: ${value.kind === "string" ? JSON.stringify(value.value) : String(value.value)}`,
        )
        .join(", ")}}`;
      const unionName = stringArg(inner, "union") ?? "";
      const memberName = stringArg(inner, "memberName");
      acc.addListUnion(pn === "unionMember" ? "union" : "zeroOrOneOf", unionName, effLevel, outerRule, {
        name: `${scope.listName ?? ""}[${selector}]`,
        discriminatorValue: memberName ?? selector,
        isSet: (list) => Array.isArray(list) && list.some((raw) => matches(view(sem.elem, raw))),
      });
      return;
    }
    const sub: Scope = {
      kind: "listValue",
      t: sem.elem,
      label: `${scope.label}[${tag.args.map((a) => a.name).join(",")}]`,
      at: scope.at,
      unit: scope.unit,
    };
    const innerAcc = new ScopeAcc();
    this.compileTag(p, sub, innerAcc, "standard", IDENTITY, true, outerRule);
    const res = innerAcc.finish(sub);
    acc.groups.push(V.groupWithLevel(level, V.itemGroup(sem, matches, res.list, res.groups)));
  }

  private compileSubfield(
    tag: Tag,
    p: Tag,
    scope: Scope,
    acc: ScopeAcc,
    level: Level,
    wrap: (v: Validator) => Validator,
    outerRule: string,
  ): void {
    const base = baseOf(scope.t);
    const arg = positional(tag);
    if (base.t !== "struct") {
      this.problem(scope, tag, `can only be used on structs, not ${typeText(scope.t)}`);
      return;
    }
    if (arg === undefined || arg.kind !== "string") {
      this.problem(scope, tag, "needs the JSON name of a field as its only argument");
      return;
    }
    if (short(peelLevel(p).tag.name) === "subfield") {
      this.problem(scope, tag, "subfield rules cannot be nested");
      return;
    }
    const f = findField(base.struct, arg.value);
    if (f === undefined) {
      this.problem(scope, tag, `${typeText(scope.t)} has no field ${JSON.stringify(arg.value)}`);
      return;
    }
    // The sub-field's own short-circuit validators guard the subfield rules (not for opaque fields or types).
    const guards: Validator[] = [];
    const ownTags: Tag[] = [];
    const unit: Unit = { problems: [], children: new Set() };
    const own = this.parseTags(f.tags, f.at.file, unit);
    let opaque = false;
    for (const t of own) {
      const n = short(peelLevel(t).tag.name);
      if (n === "opaqueType") opaque = true;
      if (!STRUCT_WIDE.has(n)) ownTags.push(t);
    }
    const ownNamed = namedOf(f.type);
    if (
      ownNamed !== undefined &&
      this.parseTags(ownNamed.decl.doc, ownNamed.decl.file, unit).some((t) => short(t.name) === "opaqueType")
    )
      opaque = true;
    if (!opaque) {
      const ownScope: Scope = {
        kind: "field",
        t: f.type,
        label: `${scope.label}.${f.goName}`,
        at: f.at,
        unit,
        field: f,
        defaultValue: defaultOf(f.tags),
      };
      const meta = this.listMeta(ownTags, ownScope);
      if (baseOf(f.type).t === "slice")
        ownScope.sem = this.listSem(meta, (baseOf(f.type) as { elem: GoType }).elem, ownScope);
      guards.push(...this.compileScope(ownTags, ownScope, meta).list.sc);
    }
    const sub: Scope = {
      kind: "field",
      t: f.type,
      label: `${scope.label}.${f.goName}`,
      at: scope.at,
      unit: scope.unit,
      field: f,
      listName: f.jsonName,
    };
    const subBase = baseOf(f.type);
    if (subBase.t === "slice") sub.sem = this.listSem(this.listMeta([], sub), subBase.elem, sub);
    const innerAcc = new ScopeAcc();
    this.compileTag(p, sub, innerAcc, "standard", wrap, true, outerRule);
    const res = innerAcc.finish(sub);
    acc.groups.push(V.groupWithLevel(level, V.subfieldGroup(f, guards, res.list, res.groups)));
  }
}

/** Accumulates what the tags of one scope produce. */
class ScopeAcc {
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

/** A direct field of a struct (or of its inline embedded structs) by JSON name. */
function findField(st: StructType, jsonName: string): StructField | undefined {
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

/** Struct-wide rules contributed by fields: unions, zero-or-one-of, mode discriminators, dependent fields. */
class StructWide {
  private unions = new Map<
    string,
    { members: { f: StructField; name: string; level: Level; rule: string }[]; disc?: StructField; discLevel?: Level }
  >();
  private zeroOrOne = new Map<string, { members: { f: StructField; level: Level; rule: string }[] }>();
  private modeDiscs = new Map<string, StructField>();
  private modeRules = new Map<
    StructField,
    Map<string, Map<string, { tags: { tag: Tag; level: Level }[]; rule: string }>>
  >();
  private dependents: {
    kind: "dependentRequired" | "dependentForbidden";
    f: StructField;
    sibling: string;
    level: Level;
    rule: string;
    tag: Tag;
    scope: Scope;
  }[] = [];
  private scopes = new Map<StructField, Scope>();

  constructor(
    private readonly c: Compiler,
    private readonly st: StructType,
    private readonly unit: Unit,
  ) {}

  add(f: StructField, tag: Tag, level: Level, outer: Tag, scope: Scope): void {
    this.scopes.set(f, scope);
    const n = short(tag.name);
    const problem = (message: string) => {
      const line = (outer as Tag & { line?: number }).line ?? f.at.line;
      this.unit.problems.push({
        severity: "error",
        file: f.at.file,
        line,
        rule: outer.text,
        message: `${outer.text}: ${message}`,
      });
    };
    switch (n) {
      case "unionMember": {
        const t = baseOf(f.type);
        if (f.type.t !== "pointer" && t.t === "struct")
          return void problem("union members cannot be non-pointer structs");
        const u = this.union(stringArg(tag, "union") ?? "");
        u.members.push({ f, name: stringArg(tag, "memberName") ?? f.goName, level, rule: outer.text });
        return;
      }
      case "unionDiscriminator": {
        if (!isStringKind(f.type) || f.type.t === "pointer")
          return void problem("the discriminator must be a non-pointer string field");
        const u = this.union(stringArg(tag, "union") ?? "");
        if (u.disc !== undefined) return void problem("the union already has a discriminator");
        u.disc = f;
        u.discLevel = level;
        return;
      }
      case "zeroOrOneOfMember": {
        const name = stringArg(tag, "union") ?? "";
        const z = this.zeroOrOne.get(name) ?? { members: [] };
        z.members.push({ f, level, rule: outer.text });
        this.zeroOrOne.set(name, z);
        return;
      }
      case "modeDiscriminator":
      case "discriminator": {
        const modality = stringArg(tag, n === "discriminator" ? "name" : "modality") ?? "";
        if (
          f.type.t === "pointer" ||
          !(isStringKind(f.type) || isBoolKind(f.type) || (n === "discriminator" && isIntKind(f.type)))
        )
          return void problem("a mode discriminator must be a non-pointer string or bool field");
        if (this.modeDiscs.has(modality))
          return void problem(`a second discriminator for modality ${JSON.stringify(modality)}`);
        this.modeDiscs.set(modality, f);
        return;
      }
      case "ifMode":
      case "member": {
        const pos = positional(tag);
        const value =
          pos !== undefined
            ? pos.kind === "string"
              ? pos.value
              : String(pos.value)
            : stringArg(tag, n === "member" ? "value" : "mode");
        const modality = pos !== undefined ? "" : (stringArg(tag, n === "member" ? "discriminator" : "modality") ?? "");
        if (value === undefined) return void problem("needs the mode value");
        if (tag.value?.kind !== "tag") return void problem("needs a +k8s: tag as its value");
        const byModality = this.modeRules.get(f) ?? new Map();
        const byValue = byModality.get(modality) ?? new Map();
        const entry = byValue.get(value) ?? { tags: [], rule: outer.text };
        entry.tags.push({ tag: tag.value.tag, level });
        byValue.set(value, entry);
        byModality.set(modality, byValue);
        this.modeRules.set(f, byModality);
        return;
      }
      case "dependentRequired":
      case "dependentForbidden": {
        const sib = positional(tag);
        if (sib === undefined || sib.kind !== "string") return void problem("needs the JSON name of a sibling field");
        this.dependents.push({ kind: n, f, sibling: sib.value, level, rule: outer.text, tag: outer, scope });
        return;
      }
    }
  }

  private union(name: string) {
    const u = this.unions.get(name) ?? { members: [] };
    this.unions.set(name, u);
    return u;
  }

  private structProblem(message: string, line = this.st.at.line, file = this.st.at.file): void {
    this.unit.problems.push({ severity: "error", file, line, message });
  }

  build(): VList {
    const out: Validator[] = [];
    const levelOf = (levels: Level[]): Level =>
      levels.length > 0 && levels.every((l) => l === levels[0]) ? levels[0]! : "standard";
    for (const [name, u] of this.unions) {
      if (u.members.length === 0) {
        this.structProblem(`union ${JSON.stringify(name)} has a discriminator but no members`);
        continue;
      }
      const members: V.UnionMember[] = u.members.map((m) => ({
        name: m.f.jsonName,
        discriminatorValue: m.name,
        field: m.f,
        isSet: (s) => isRecord(s) && isSet(m.f.type, view(m.f.type, fieldRaw(m.f, s))),
      }));
      const level = u.discLevel ?? levelOf(u.members.map((m) => m.level));
      out.push(
        V.withLevel(
          level,
          V.union({
            kind: "union",
            members,
            discriminator: u.disc ? { field: u.disc } : undefined,
            rule: u.members[0]!.rule,
          }),
        ),
      );
    }
    for (const z of this.zeroOrOne.values()) {
      const members: V.UnionMember[] = z.members.map((m) => ({
        name: m.f.jsonName,
        discriminatorValue: m.f.goName,
        isSet: (s) => isRecord(s) && isSet(m.f.type, view(m.f.type, fieldRaw(m.f, s))),
      }));
      out.push(
        V.withLevel(
          levelOf(z.members.map((m) => m.level)),
          V.union({ kind: "zeroOrOneOf", members, discriminator: undefined, rule: z.members[0]!.rule }),
        ),
      );
    }
    for (const [member, byModality] of this.modeRules) {
      for (const [modality, byValue] of byModality) {
        const disc = this.modeDiscs.get(modality);
        if (disc === undefined) {
          this.structProblem(
            `+k8s:ifMode on ${member.goName} names modality ${JSON.stringify(modality)}, which has no +k8s:modeDiscriminator`,
            member.at.line,
            member.at.file,
          );
          continue;
        }
        const scope = this.scopes.get(member)!;
        const rules = new Map<string, { list: VList; groups: Group[] }>();
        const levels: Level[] = [];
        let firstRule = "";
        for (const [value, entry] of byValue) {
          if (firstRule === "") firstRule = entry.rule;
          const acc = new ScopeAcc();
          for (const { tag, level } of entry.tags) {
            levels.push(level);
            this.c.compileTag(tag, { ...scope }, acc, level, IDENTITY, true, entry.rule);
          }
          const res = acc.finish(scope);
          rules.set(value, { list: res.list, groups: res.groups });
        }
        out.push(V.modeMember({ discriminator: disc, member, rules, defaultLevel: levelOf(levels), rule: firstRule }));
      }
    }
    for (const d of this.dependents) {
      const sib = findField(this.st, d.sibling);
      if (sib === undefined) {
        this.structProblem(`${d.rule}: no sibling field ${JSON.stringify(d.sibling)}`, d.f.at.line, d.f.at.file);
        continue;
      }
      out.push(V.withLevel(d.level, V.dependent(d.kind, d.f, sib, d.rule)));
    }
    return listOf(out);
  }
}
