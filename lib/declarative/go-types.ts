/**
 * Type resolution over the Go packages of a bundle, the way validation-gen (through gengo and go/types) sees them:
 * named types, type definitions of type definitions (which keep only the underlying literal, so the original's
 * type-level tags are not inherited), true aliases (the very same type), embedded and `json:",inline"` structs,
 * pointers, slices, maps, const enums discovered by type, imports between packages of the bundle (through the
 * module path of the bundle's go.mod, or by folder suffix without one), and types from packages outside the
 * bundle (opaque). See spec/declarative-validation-behaviour.md sections 2 and 9.
 */
import { appendAll } from "../objects/append.js";
import type { ConstDecl, FieldDecl, GoFile, TagLine, TypeDecl, TypeExpr } from "./go-source.js";

export interface SourceRef {
  file: string;
  line: number;
}

export interface GoPackage {
  /** The bundle folder holding the package ("widgets/v1"; "" for the bundle root). */
  dir: string;
  /** The Go import path (module path + folder), when a go.mod covers the folder. */
  importPath: string | undefined;
  name: string;
  files: GoFile[];
  /** Every `+` line above the package clauses of its files, with its file. */
  packageTags: (TagLine & { file: string })[];
  types: Map<string, TypeDecl>;
  consts: ConstDecl[];
}

export type BasicKind = "string" | "bool" | "int" | "float" | "bytes";

export type GoType =
  | { t: "basic"; name: string; kind: BasicKind; bits: number; unsigned: boolean }
  | { t: "named"; named: NamedType }
  | { t: "pointer"; elem: GoType }
  | { t: "slice"; elem: GoType }
  | { t: "map"; key: GoType; elem: GoType }
  | { t: "struct"; struct: StructType }
  | { t: "external"; pkgPath: string; name: string }
  | { t: "interface" }
  | { t: "unsupported"; what: string; error?: string; at?: SourceRef };

export interface NamedType {
  /** "<import path or folder>.<Name>" */
  id: string;
  pkg: GoPackage;
  name: string;
  decl: TypeDecl;
  /** The underlying type: never a named type (a definition of a named type takes its underlying literal). */
  underlying(): GoType;
}

export interface StructType {
  fields: StructField[];
  /** The named type this struct literal belongs to, when it is a named type's underlying type. */
  owner: NamedType | undefined;
  at: SourceRef;
}

export interface StructField {
  goName: string;
  /** The JSON key; "" for an inline (embedded) field. */
  jsonName: string;
  inline: boolean;
  /** `json:"-"`: never decoded. */
  omitted: boolean;
  embedded: boolean;
  type: GoType;
  tags: TagLine[];
  at: SourceRef;
}

const BASIC: Record<string, { kind: BasicKind; bits: number; unsigned: boolean }> = {
  string: { kind: "string", bits: 0, unsigned: false },
  bool: { kind: "bool", bits: 0, unsigned: false },
  int: { kind: "int", bits: 64, unsigned: false },
  int8: { kind: "int", bits: 8, unsigned: false },
  int16: { kind: "int", bits: 16, unsigned: false },
  int32: { kind: "int", bits: 32, unsigned: false },
  rune: { kind: "int", bits: 32, unsigned: false },
  int64: { kind: "int", bits: 64, unsigned: false },
  uint: { kind: "int", bits: 64, unsigned: true },
  uint8: { kind: "int", bits: 8, unsigned: true },
  byte: { kind: "int", bits: 8, unsigned: true },
  uint16: { kind: "int", bits: 16, unsigned: true },
  uint32: { kind: "int", bits: 32, unsigned: true },
  uint64: { kind: "int", bits: 64, unsigned: true },
  uintptr: { kind: "int", bits: 64, unsigned: true },
  float32: { kind: "float", bits: 32, unsigned: false },
  float64: { kind: "float", bits: 64, unsigned: false },
};

const BYTES: GoType = { t: "basic", name: "[]byte", kind: "bytes", bits: 0, unsigned: false };

/** A resolution problem: file, line and message (a PolicyFailure when it matters). */
/** The packages of a bundle and the resolution of their types. */
export class Universe {
  readonly packages: GoPackage[];
  private readonly byImportPath = new Map<string, GoPackage>();
  private readonly named = new Map<string, NamedType>();
  private readonly structs = new Map<object, StructType>();

  constructor(packages: GoPackage[]) {
    this.packages = packages;
    for (const p of packages) if (p.importPath !== undefined) this.byImportPath.set(p.importPath, p);
  }

  /** The bundle package an import path names: by import path, else by the longest folder suffix. */
  packageForImport(path: string): GoPackage | undefined {
    const exact = this.byImportPath.get(path);
    if (exact !== undefined) return exact;
    let best: GoPackage | undefined;
    for (const p of this.packages) {
      if (p.importPath !== undefined || p.dir === "") continue;
      if (path === p.dir || path.endsWith(`/${p.dir}`)) {
        if (best === undefined || p.dir.length > best.dir.length) best = p;
      }
    }
    return best;
  }

  /** The named type `name` of package `pkg` (created once, resolved lazily). */
  namedType(pkg: GoPackage, name: string): NamedType | undefined {
    const decl = pkg.types.get(name);
    if (decl === undefined || decl.alias) return undefined;
    const id = `${pkg.importPath ?? pkg.dir}.${name}`;
    const cached = this.named.get(id);
    if (cached !== undefined) return cached;
    let resolved: GoType | undefined;
    let resolving = false;
    const self: NamedType = {
      id,
      pkg,
      name,
      decl,
      underlying: () => {
        if (resolved !== undefined) return resolved;
        if (resolving) {
          resolved = unsupported("recursive type definition", `invalid recursive type ${name}`, decl);
          return resolved;
        }
        resolving = true;
        if (decl.generic) {
          resolved = unsupported(
            "generic type",
            `generic type ${name} is not supported by declarative validation`,
            decl,
          );
        } else {
          const t = this.resolveExpr(pkg, decl.file, decl.type, self);
          resolved = t.t === "named" ? t.named.underlying() : t;
        }
        resolving = false;
        return resolved;
      },
    };
    this.named.set(id, self);
    return self;
  }

  /** Resolves a type expression written in `file` of `pkg`. `owner` is set for a named type's own literal. */
  resolveExpr(pkg: GoPackage, file: string, e: TypeExpr, owner?: NamedType, aliasDepth = 0): GoType {
    switch (e.kind) {
      case "name":
        return this.resolveName(pkg, file, e.name, e.line, aliasDepth);
      case "qualified":
        return this.resolveQualified(pkg, file, e.pkg, e.name, e.line, aliasDepth);
      case "pointer":
        return { t: "pointer", elem: this.resolveExpr(pkg, file, e.elem, undefined, aliasDepth) };
      case "slice": {
        const elem = this.resolveExpr(pkg, file, e.elem, undefined, aliasDepth);
        if (elem.t === "basic" && elem.kind === "int" && elem.bits === 8 && elem.unsigned) return BYTES;
        return { t: "slice", elem };
      }
      case "array":
        return { t: "unsupported", what: "array" };
      case "map":
        return {
          t: "map",
          key: this.resolveExpr(pkg, file, e.key, undefined, aliasDepth),
          elem: this.resolveExpr(pkg, file, e.value, undefined, aliasDepth),
        };
      case "struct": {
        const cached = this.structs.get(e);
        if (cached !== undefined) return { t: "struct", struct: cached };
        const st: StructType = { fields: [], owner, at: { file, line: e.line } };
        this.structs.set(e, st);
        for (const f of e.fields) appendAll(st.fields, this.resolveFields(pkg, file, f));
        return { t: "struct", struct: st };
      }
      case "interface":
        return { t: "interface" };
      case "generic":
        return { t: "unsupported", what: "generic type instantiation", at: { file, line: e.line } };
      case "other":
        return { t: "unsupported", what: e.what, at: { file, line: e.line } };
    }
  }

  private resolveName(pkg: GoPackage, file: string, name: string, line: number, aliasDepth: number): GoType {
    const decl = pkg.types.get(name);
    if (decl !== undefined) return this.declType(pkg, decl, aliasDepth);
    if (name === "any" || name === "error") return { t: "interface" };
    if (name === "complex64" || name === "complex128") return { t: "unsupported", what: name };
    const basic = BASIC[name];
    if (basic !== undefined)
      return { t: "basic", name: name === "byte" ? "uint8" : name === "rune" ? "int32" : name, ...basic };
    for (const imp of this.fileImports(pkg, file)) {
      if (imp.name !== ".") continue;
      const other = this.packageForImport(imp.path);
      const d = other?.types.get(name);
      if (other !== undefined && d !== undefined) return this.declType(other, d, aliasDepth);
    }
    return unsupported("undefined type", `undefined type ${name}`, { file, line });
  }

  private resolveQualified(
    pkg: GoPackage,
    file: string,
    qualifier: string,
    name: string,
    line: number,
    aliasDepth: number,
  ): GoType {
    const imp = this.importFor(pkg, file, qualifier);
    if (imp === undefined)
      return unsupported("undefined package", `undefined package ${qualifier} (in ${qualifier}.${name})`, {
        file,
        line,
      });
    const other = this.packageForImport(imp);
    if (other === undefined) return { t: "external", pkgPath: imp, name };
    const decl = other.types.get(name);
    if (decl === undefined)
      return unsupported("undefined type", `undefined type ${qualifier}.${name} (package ${imp} has no type ${name})`, {
        file,
        line,
      });
    return this.declType(other, decl, aliasDepth);
  }

  private declType(pkg: GoPackage, decl: TypeDecl, aliasDepth: number): GoType {
    if (decl.alias) {
      if (aliasDepth > 32) return unsupported("alias cycle", `invalid recursive type alias ${decl.name}`, decl);
      return this.resolveExpr(pkg, decl.file, decl.type, undefined, aliasDepth + 1);
    }
    return { t: "named", named: this.namedType(pkg, decl.name)! };
  }

  /** The import path a qualifier names in a file: explicit import names, else the default package names. */
  importFor(pkg: GoPackage, file: string, qualifier: string): string | undefined {
    const imports = this.fileImports(pkg, file);
    for (const imp of imports) if (imp.name === qualifier) return imp.path;
    for (const imp of imports) {
      if (imp.name !== undefined) continue;
      const p = this.packageForImport(imp.path);
      if (p !== undefined ? p.name === qualifier : defaultPackageNames(imp.path).includes(qualifier)) return imp.path;
    }
    return undefined;
  }

  private fileImports(pkg: GoPackage, file: string): { name: string | undefined; path: string }[] {
    return pkg.files.find((f) => f.path === file)?.imports ?? [];
  }

  private resolveFields(pkg: GoPackage, file: string, f: FieldDecl): StructField[] {
    const tag = structTagValue(f.tag, "json");
    const jsonParts = tag === undefined ? [] : tag.split(",");
    const tagName = jsonParts[0] ?? "";
    const options = jsonParts.slice(1);
    const omitted = tag !== undefined && tagName === "-" && options.length === 0;
    const at = { file, line: f.line };
    const type = this.resolveExpr(pkg, file, f.type);
    if (f.embedded) {
      const typeName = embeddedName(f.type);
      const inline = tagName === "" && isStructLike(type);
      if (!inline && !isExported(typeName)) return [];
      return [
        {
          goName: typeName,
          jsonName: inline ? "" : tagName || typeName,
          inline,
          omitted,
          embedded: true,
          type,
          tags: f.doc,
          at,
        },
      ];
    }
    const out: StructField[] = [];
    for (const name of f.names) {
      if (!isExported(name)) continue;
      const inline = options.includes("inline") && tagName === "";
      out.push({
        goName: name,
        jsonName: inline ? "" : tagName || name,
        inline,
        omitted,
        embedded: false,
        type,
        tags: f.doc,
        at,
      });
    }
    return out;
  }
}

function unsupported(what: string, error: string, at: SourceRef): GoType {
  return { t: "unsupported", what, error, at: { file: at.file, line: at.line } };
}

function isExported(name: string): boolean {
  const c = name.codePointAt(0);
  if (c === undefined) return false;
  const ch = String.fromCodePoint(c);
  return ch !== ch.toLowerCase();
}

function embeddedName(e: TypeExpr): string {
  switch (e.kind) {
    case "name":
      return e.name;
    case "qualified":
      return e.name;
    case "pointer":
      return embeddedName(e.elem);
    case "generic":
      return embeddedName(e.base);
    default:
      return "";
  }
}

/** A struct, or a named struct, or a pointer to one (what encoding/json promotes when embedded). */
function isStructLike(t: GoType): boolean {
  if (t.t === "pointer") return isStructLike(t.elem);
  if (t.t === "named") return t.named.underlying().t === "struct";
  return t.t === "struct" || t.t === "external";
}

/** reflect.StructTag.Get: the value of `key` in a conventional `key:"value" key2:"value2"` struct tag. */
function structTagValue(tag: string | undefined, key: string): string | undefined {
  if (tag === undefined) return undefined;
  let i = 0;
  while (i < tag.length) {
    while (i < tag.length && tag[i] === " ") i++;
    const nameStart = i;
    while (i < tag.length && tag[i]! > " " && tag[i] !== ":" && tag[i] !== '"') i++;
    if (i === nameStart || i + 1 >= tag.length || tag[i] !== ":" || tag[i + 1] !== '"') return undefined;
    const name = tag.slice(nameStart, i);
    i += 2;
    let value = "";
    while (i < tag.length && tag[i] !== '"') {
      if (tag[i] === "\\") i++;
      value += tag[i] ?? "";
      i++;
    }
    if (i >= tag.length) return undefined;
    i++;
    if (name === key) return value;
  }
  return undefined;
}

/** The package names an import path is commonly known by (the last element, without a major-version suffix). */
function defaultPackageNames(path: string): string[] {
  const parts = path.split("/");
  const last = parts[parts.length - 1] ?? "";
  const names = new Set<string>([last, last.replace(/\.v\d+$/, ""), last.replace(/-/g, "")]);
  if (/^v\d+$/.test(last) && parts.length >= 2) names.add(parts[parts.length - 2]!.replace(/-/g, ""));
  return [...names];
}

/** The type after one level of pointer. */
export function derefType(t: GoType): GoType {
  return t.t === "pointer" ? t.elem : t;
}

/** The type with named types replaced by their underlying type (one pointer level kept as is). */
export function underlyingOf(t: GoType): GoType {
  return t.t === "named" ? t.named.underlying() : t;
}

/** A short description of a type for messages ("int32", "[]string", "*v1.Endpoint"). */
export function typeText(t: GoType): string {
  switch (t.t) {
    case "basic":
      return t.name;
    case "named":
      return `${t.named.pkg.name}.${t.named.name}`;
    case "pointer":
      return `*${typeText(t.elem)}`;
    case "slice":
      return `[]${typeText(t.elem)}`;
    case "map":
      return `map[${typeText(t.key)}]${typeText(t.elem)}`;
    case "struct":
      return "struct{...}";
    case "external":
      return `${t.pkgPath}.${t.name}`;
    case "interface":
      return "interface{}";
    case "unsupported":
      return t.what;
  }
}
