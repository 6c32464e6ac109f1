/**
 * Compiles the `+k8s:` tags of resolved Go types into the validator tree of walk.ts, once per bundle load: one
 * TypeNode per named type (cached before recursing, so recursive types work), one FieldNode per struct field,
 * element and key iterations of lists and maps, struct-wide rules (unions, zero-or-one-of, mode discriminators,
 * dependent fields) attached to the struct that holds their members, and pruning of everything that validates
 * nothing (spec/declarative-validation-behaviour.md sections 1, 4, 5, 9). What each tag means is in tags/ (one
 * function per tag, found through tags/registry.ts); this file decides where tags are read and what they apply to.
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
import {
  baseOf,
  type CompileProblem,
  defaultOf,
  type EnumIndex,
  findField,
  IDENTITY,
  type ListMeta,
  listOf,
  mergeLists,
  namedOf,
  newUnit,
  peelLevel,
  type Scope,
  ScopeAcc,
  type ScopeResult,
  shortName,
  type TagDefinition,
  type TagHost,
  type TagSite,
  type Unit,
} from "./tags/context.js";
import { compileTag, tagDefinition } from "./tags/registry.js";
import { StructWide } from "./tags/struct-wide.js";
import { parseTag, type Tag, TagSyntaxError } from "./tags/syntax.js";
import * as V from "./validators.js";
import {
  EMPTY_VLIST,
  type FieldNode,
  type Iter,
  type ListSem,
  type TypeNode,
  type Validator,
  type VList,
} from "./walk.js";

export class Compiler implements TagHost {
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
    readonly enums: EnumIndex,
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
    this.units.set(node, newUnit());
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
      // A list of pointers (the field's type, or the list its named type is): validation-gen puts the nil-entry
      // check first among the field's own validators, only on a field that validates something, and never in the
      // named list type's function, whose own validators (maxItems...) do not run once a nil entry stops the field.
      const u = baseOf(f.field.type);
      if (f.live && u.t === "slice" && u.elem.t === "pointer") {
        f.list = { sc: [V.nilEntries("[]*T"), ...f.list.sc], rest: f.list.rest };
      }
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

  parseTags(lines: TagLine[], file: string, unit: Unit): Tag[] {
    const out: Tag[] = [];
    for (const l of lines) {
      if (!l.text.startsWith("+k8s:")) continue;
      try {
        const tag = parseTag(l.text);
        // Payload tags report the line of the comment they are written on.
        for (let t: Tag | undefined = tag; t !== undefined; t = t.value?.kind === "tag" ? t.value.tag : undefined)
          t.line = l.line;
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

  problem(scope: Scope, tag: Tag | undefined, message: string, severity: "error" | "warning" = "error"): void {
    const line = tag?.line ?? scope.at.line;
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
    const unit = newUnit();
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
        const member = tagDefinition(shortName(inner.name))?.member;
        if (member !== undefined) wide.add(member, f, inner, level, tag, scope);
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

  /** Element and key iterations of a list or map whose element (or key) type has rules. */
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
    // Problems of the type's own tags are reported where the type is compiled.
    const tags = this.parseTags(nt.decl.doc, nt.decl.file, newUnit());
    return this.listMeta(tags, { ...scope, kind: "type", unit: newUnit() });
  }

  /** The list metadata among a scope's tags (each read by its tag's `listMeta`). */
  listMeta(tags: Tag[], scope: Scope): ListMeta {
    const meta: ListMeta = { keys: [], customUnique: false, declared: false };
    for (const raw of tags) {
      const { level, tag } = peelLevel(raw);
      const read = tagDefinition(shortName(tag.name))?.listMeta;
      if (read === undefined) continue;
      meta.declared = true;
      const value = tag.value?.kind === "string" ? tag.value.value : undefined;
      read(meta, { raw, value, level, problem: (message) => this.problem(scope, raw, message) });
    }
    return meta;
  }

  listSem(meta: ListMeta, elem: GoType, scope: Scope): ListSem {
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

  compileScope(tags: Tag[], scope: Scope, meta: ListMeta): ScopeResult {
    const acc = new ScopeAcc();
    // Uniqueness is generated where the list type is declared.
    if (scope.sem !== undefined && meta.declared && !meta.customUnique && scope.sem.kind !== "none") {
      const decl = meta.listType?.value === "set" || meta.listType?.value === "map" ? meta.listType : meta.unique;
      if (decl !== undefined) acc.validators.push(V.withLevel(decl.level, V.unique(scope.sem, decl.rule)));
    }
    for (const tag of tags) this.compileTag(tag, { scope, acc, level: "standard", wrap: IDENTITY, nested: false });
    return acc.finish(scope);
  }

  /** Compiles one tag at a site (tags/registry.ts). */
  compileTag(tag: Tag, site: TagSite): void {
    compileTag(this, tag, site);
  }

  definition(name: string): TagDefinition | undefined {
    return tagDefinition(name);
  }
}
