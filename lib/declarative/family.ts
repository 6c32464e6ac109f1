/**
 * The declarative-validation family: Go API types with `+k8s:` comment tags (spec/k8s-declarative-validation-tags.txt,
 * spec/declarative-validation-behaviour.md), read from the bundle's `*.go` files and `go.mod`, compiled once into a
 * validator tree per kind, and interpreted at run time (no code generation).
 *
 * Bundle recognition: a Go package is a folder of `*.go` files; imports between packages of the bundle resolve
 * through the module path of the nearest `go.mod` (or, without one, by folder suffix); a package's API group comes
 * from `+groupName=` above its package clause (usually in doc.go), its version from the package name, its kinds
 * from structs that embed a `TypeMeta`. Packages without `+groupName` are libraries of types. Objects are matched
 * to kinds by apiVersion and kind and validated as given (no `+default` is applied).
 */
import { type ErrorContext, type FieldError, internal, OMIT_VALUE, type Severity, withType } from "../field/error.js";
import type { FamilyCompiler, FamilyPolicy, FamilyRequest, FamilyResult } from "../policy/family.js";
import {
  type BundleFile,
  type CoveredKind,
  EVERY_KIND,
  type PolicyFailure,
  type ResolvedBundleConfig,
} from "../policy/types.js";
import { Compiler } from "./compile.js";
import { type GoFile, loadGoParser, readGoFile, type TagLine, type TypeDecl } from "./go-source.js";
import { type GoPackage, type GoType, type NamedType, Universe } from "./go-types.js";
import { baseName, bundlePackages, type Fail } from "./packages.js";
import type { CompileProblem, EnumIndex, Unit } from "./tags/context.js";
import { parseTag, type Tag } from "./tags/syntax.js";
import type { EnumMember } from "./validators.js";
import { decodesDeep } from "./values.js";
import { decodeIssues, type Issue, NO_VALUE, type Run, runType, type TypeNode } from "./walk.js";

/** Decoding problems reported for one object before giving up (the API server reports only the first). */
const MAX_DECODE_ISSUES = 10;

/** What compiling the Go sources of a bundle produced, with timings (for benchmarks and the closing note). */
export interface DeclarativeCompileResult {
  policy: FamilyPolicy | null;
  failures: PolicyFailure[];
  stats: { files: number; packages: number; kinds: number; parseMs: number; compileMs: number };
}

interface CompiledKind {
  group: string;
  version: string;
  kind: string;
  pkgName: string;
  /** The root Go type (for decoding checks). */
  type: GoType;
  node: TypeNode;
  /** Request subresources this kind validates ("/" is the resource itself). */
  subresources: ReadonlySet<string>;
  policy: string;
}

export function createDeclarativeCompiler(): FamilyCompiler {
  const files: BundleFile[] = [];
  return {
    family: "declarative",
    stage: "schema",
    claimFile(file) {
      if (!file.path.endsWith(".go") && baseName(file.path) !== "go.mod") return false;
      files.push(file);
      return true;
    },
    claimDocument: () => false,
    async compile({ config }) {
      const r = await compileDeclarative(files, config);
      return { policy: r.policy, failures: r.failures };
    },
  };
}

const VERSION_NAME = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;

/** k8s.io/apimachinery's UnsafeGuessKindToResource (the plural a kind is most likely served under). */
function guessPlural(kind: string): string {
  const k = kind.toLowerCase();
  if (k.endsWith("s")) return `${k}es`;
  if (k.endsWith("y")) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}

/** Parses, resolves and compiles the Go sources of a bundle. Problems are PolicyFailures, never exceptions. */
export async function compileDeclarative(
  files: readonly BundleFile[],
  config: ResolvedBundleConfig,
): Promise<DeclarativeCompileResult> {
  const failures: PolicyFailure[] = [];
  const stats = { files: 0, packages: 0, kinds: 0, parseMs: 0, compileMs: 0 };
  const goSources = files.filter((f) => f.path.endsWith(".go") && !f.path.endsWith("_test.go"));
  if (goSources.length === 0) return { policy: null, failures, stats };
  const fail: Fail = (f) => failures.push({ family: "declarative", ...f });

  if (config.featureGates.DeclarativeValidation === false)
    fail({
      severity: "warning",
      message: "feature gate DeclarativeValidation is locked to true since Kubernetes 1.36; false is ignored",
    });

  const t0 = performance.now();
  const parsed = await parseSources(goSources, config, fail);
  if (parsed === undefined) return { policy: null, failures, stats };
  stats.files = parsed.length;
  stats.parseMs = performance.now() - t0;
  const t1 = performance.now();

  const { packages, failed } = bundlePackages(files, parsed, fail);
  stats.packages = packages.length;
  const universe = new Universe(packages);
  const compiler = new Compiler(universe, buildEnumIndex(universe, failures), failed);
  const nodes = compileTypes(universe, compiler);
  const { kinds, covered, problemKinds } = findKinds(universe, compiler, nodes, fail);
  stats.kinds = kinds.length;
  reportProblems(compiler, problemKinds, failures);
  stats.compileMs = performance.now() - t1;

  if (kinds.length === 0) return { policy: null, failures, stats };
  return { policy: createPolicy(kinds, covered), failures, stats };
}

/** Parses each Go file within the document size limit; undefined when the Go parser cannot be loaded. */
async function parseSources(
  goSources: readonly BundleFile[],
  config: ResolvedBundleConfig,
  fail: Fail,
): Promise<GoFile[] | undefined> {
  let parser: Awaited<ReturnType<typeof loadGoParser>>;
  try {
    parser = await loadGoParser();
  } catch (e) {
    fail({
      severity: "error",
      kinds: [EVERY_KIND],
      message: `cannot load the Go parser (tree-sitter-go): ${e instanceof Error ? e.message : String(e)}`,
    });
    return undefined;
  }
  const parsed: GoFile[] = [];
  for (const f of goSources) {
    if (Buffer.byteLength(f.content, "utf8") > config.limits.documentBytes) {
      fail({
        severity: "error",
        file: f.path,
        kinds: [EVERY_KIND],
        message: `file is larger than the document limit (${config.limits.documentBytes} bytes): not read`,
      });
      continue;
    }
    parsed.push(readGoFile(parser, f.path, f.content));
  }
  return parsed;
}

/** Every named type is compiled (so the tags of library packages are checked too); only kinds are validated. */
function compileTypes(universe: Universe, compiler: Compiler): Map<NamedType, TypeNode> {
  const nodes = new Map<NamedType, TypeNode>();
  for (const pkg of universe.packages) {
    for (const decl of pkg.types.values()) {
      if (decl.alias || decl.generic) continue;
      const nt = universe.namedType(pkg, decl.name)!;
      nodes.set(nt, compiler.nodeForNamed(nt));
    }
  }
  compiler.finish();
  return nodes;
}

interface FoundKinds {
  kinds: CompiledKind[];
  covered: CoveredKind[];
  /** The kinds each compile error makes unusable. */
  problemKinds: Map<CompileProblem, string[]>;
}

/** The API group of a package: its single `+groupName`, or undefined for a library package (or two names). */
function packageGroup(pkg: GoPackage, fail: Fail): string | undefined {
  const groupTags = pkg.packageTags.filter((t) => t.text.startsWith("+groupName="));
  if (groupTags.length === 0) return undefined;
  const groups = new Set(groupTags.map((t) => t.text.slice("+groupName=".length).trim()));
  if (groups.size > 1) {
    fail({
      severity: "error",
      file: groupTags[1]!.file,
      path: `line ${groupTags[1]!.line}`,
      message: `package ${pkg.dir} declares more than one +groupName: ${[...groups].join(", ")}`,
    });
    return undefined;
  }
  if (!VERSION_NAME.test(pkg.name))
    fail({
      severity: "warning",
      file: groupTags[0]!.file,
      message: `package name ${pkg.name} does not look like an API version (v1, v1beta1, v2alpha1...)`,
    });
  return [...groups][0]!;
}

/** The request subresources a kind validates: its +k8s:isSubresource, else "/" and every supportsSubresource. */
function kindSubresources(decl: TypeDecl, pkg: GoPackage): Set<string> {
  const subresources = new Set<string>();
  const lines = [...decl.doc, ...decl.docBefore];
  const isSub = tagValues(lines, "k8s:isSubresource");
  if (isSub.length > 0) for (const s of isSub) subresources.add(s);
  else {
    // On the type, or (newer upstream) on the package, for every type of the package.
    subresources.add("/");
    for (const s of tagValues(lines, "k8s:supportsSubresource")) subresources.add(s);
    for (const s of tagValues(pkg.packageTags, "k8s:supportsSubresource")) subresources.add(s);
  }
  return subresources;
}

/**
 * The kinds of the bundle: in each package with a `+groupName`, the structs that embed a `TypeMeta` (version:
 * the package name). A kind that reaches a compile error is not validated: the error names it.
 */
function findKinds(universe: Universe, compiler: Compiler, nodes: Map<NamedType, TypeNode>, fail: Fail): FoundKinds {
  const found: FoundKinds = { kinds: [], covered: [], problemKinds: new Map() };
  const seenKinds = new Set<string>();
  for (const pkg of universe.packages) {
    const group = packageGroup(pkg, fail);
    if (group === undefined) continue;
    const version = pkg.name;
    for (const decl of pkg.types.values()) {
      if (decl.alias || decl.generic) continue;
      const nt = universe.namedType(pkg, decl.name)!;
      const u = nt.underlying();
      if (u.t !== "struct" || !u.struct.fields.some((f) => f.embedded && f.goName === "TypeMeta")) continue;
      const key = `${group}/${version}/${decl.name}`;
      if (seenKinds.has(key)) {
        fail({
          severity: "error",
          file: decl.file,
          path: `line ${decl.line}`,
          message: `${key} is declared by more than one package`,
        });
        continue;
      }
      seenKinds.add(key);
      const node = nodes.get(nt)!;
      const errors = reachableProblems(compiler.units.get(node)!).filter((p) => p.severity === "error");
      for (const p of errors) {
        const list = found.problemKinds.get(p) ?? [];
        list.push(key);
        found.problemKinds.set(p, list);
      }
      if (errors.length > 0) continue;
      found.kinds.push({
        group,
        version,
        kind: decl.name,
        pkgName: pkg.name,
        type: { t: "named", named: nt },
        node,
        subresources: kindSubresources(decl, pkg),
        policy: `${group}/${version}.${decl.name}`,
      });
      found.covered.push({
        group,
        version,
        kind: decl.name,
        plural: guessPlural(decl.name),
        scope: decl.doc.some((l) => l.text.startsWith("+genclient:nonNamespaced")) ? "Cluster" : "Namespaced",
        family: "declarative",
        rules: compiler.countRules(node),
      });
    }
  }
  return found;
}

/** Every problem once (by file, line and text), with the kinds it makes unusable. */
function reportProblems(
  compiler: Compiler,
  problemKinds: ReadonlyMap<CompileProblem, string[]>,
  failures: PolicyFailure[],
): void {
  const seen = new Set<string>();
  for (const unit of compiler.units.values())
    collectProblems(unit, (p) => {
      const key = `${p.file}\0${p.line}\0${p.message}`;
      if (seen.has(key)) return;
      seen.add(key);
      const f: PolicyFailure = {
        severity: p.severity,
        family: "declarative",
        file: p.file,
        path: `line ${p.line}`,
        message: p.message,
      };
      if (p.rule !== undefined) f.rule = p.rule;
      const ks = problemKinds.get(p);
      if (ks !== undefined) f.kinds = [...new Set(ks)];
      failures.push(f);
    });
}

function tagValues(lines: TagLine[], name: string): string[] {
  const out: string[] = [];
  for (const l of lines) {
    if (!l.text.startsWith(`+${name}`)) continue;
    try {
      const t = parseTag(l.text);
      if (t.name === name && t.value?.kind === "string") out.push(t.value.value);
    } catch {
      // Reported when the type's tags are compiled.
    }
  }
  return out;
}

function reachableProblems(root: Unit): CompileProblem[] {
  const out: CompileProblem[] = [];
  collectProblems(root, (p) => out.push(p));
  return out;
}

function collectProblems(root: Unit, each: (p: CompileProblem) => void): void {
  const seen = new Set<Unit>();
  const stack = [root];
  while (stack.length > 0) {
    const u = stack.pop()!;
    if (seen.has(u)) continue;
    seen.add(u);
    for (const p of u.problems) each(p);
    for (const c of u.children) stack.push(c);
  }
}

/** Every typed constant of a named string type, with its +k8s:enumExclude conditions. */
function buildEnumIndex(universe: Universe, failures: PolicyFailure[]): EnumIndex {
  const index: EnumIndex = new Map();
  for (const pkg of universe.packages) {
    const stringConsts = new Map<string, string>();
    for (const c of pkg.consts) if (c.value?.kind === "string") stringConsts.set(c.name, c.value.value);
    for (const c of pkg.consts) {
      if (c.type === undefined || c.value === undefined) continue;
      const t = universe.resolveExpr(pkg, c.file, c.type);
      if (t.t !== "named") continue;
      const u = t.named.underlying();
      if (u.t !== "basic" || u.kind !== "string") continue;
      const value =
        c.value.kind === "string"
          ? c.value.value
          : c.value.kind === "ident"
            ? stringConsts.get(c.value.name)
            : undefined;
      if (value === undefined) continue;
      const member: EnumMember = { value, excluded: false, excludeWhen: [] };
      for (const l of c.doc) {
        if (!l.text.startsWith("+k8s:")) continue;
        let tag: Tag;
        try {
          tag = parseTag(l.text);
        } catch (e) {
          failures.push({
            severity: "error",
            family: "declarative",
            file: c.file,
            path: `line ${l.line}`,
            rule: l.text,
            message: `malformed tag: ${e instanceof Error ? e.message : String(e)}`,
          });
          continue;
        }
        if (tag.name === "k8s:enumExclude") member.excluded = true;
        else if (
          (tag.name === "k8s:ifEnabled" || tag.name === "k8s:ifDisabled") &&
          tag.value?.kind === "tag" &&
          tag.value.tag.name === "k8s:enumExclude"
        ) {
          const opt = tag.args[0]?.value;
          if (opt?.kind === "string")
            member.excludeWhen.push({ option: opt.value, enabled: tag.name === "k8s:ifEnabled" });
        }
      }
      const list = index.get(t.named) ?? [];
      list.push(member);
      index.set(t.named, list);
    }
  }
  return index;
}

/** An Issue as a FieldError, in the family's name, with the tag that produced it as `source.rule`. */
function issueToFieldError(i: Issue, policy: string, severity: Severity): FieldError {
  const ctx: ErrorContext = { source: { kind: "declarative", policy, rule: i.rule }, severity };
  if (i.origin !== undefined) ctx.origin = i.origin;
  const value = i.value === NO_VALUE ? OMIT_VALUE : i.value;
  if (i.type === "InternalError") return internal(i.path, i.detail, ctx);
  return withType(i.type, i.path, value, i.detail, ctx);
}

function createPolicy(kinds: CompiledKind[], covered: CoveredKind[]): FamilyPolicy {
  const byKey = new Map<string, CompiledKind>();
  for (const k of kinds) byKey.set(`${k.group}/${k.version}/${k.kind}`, k);
  return Object.freeze({
    family: "declarative" as const,
    stage: "schema" as const,
    kinds: Object.freeze(covered),
    covers: (group: string, version: string, kind: string) => byKey.has(`${group}/${version}/${kind}`),
    validate(req: FamilyRequest, ctx: { config: ResolvedBundleConfig }): FamilyResult | undefined {
      const k = byKey.get(`${req.group}/${req.version}/${req.kind}`);
      if (k === undefined) return undefined;
      return validateKind(k, req, ctx.config);
    },
  });
}

/**
 * Validates one object of a compiled kind. Standard errors and InternalErrors are returned; beta errors while
 * the DeclarativeValidationBeta gate is on (default), shadowed otherwise; alpha errors are always shadowed
 * (spec section 8). A fault inside the walk becomes the apiserver's `panic during declarative validation`.
 */
function validateKind(k: CompiledKind, req: FamilyRequest, config: ResolvedBundleConfig): FamilyResult {
  const result: FamilyResult = { errors: [], warnings: [], shadowed: [], ratcheted: [] };
  if (req.operation === "DELETE") return result;
  const errCtx: ErrorContext = { source: { kind: "declarative", policy: k.policy } };
  if (req.secret) errCtx.redact = true;
  const sub = req.subresource === undefined || req.subresource === "" ? "/" : `/${req.subresource.replace(/^\//, "")}`;
  if (!k.subresources.has(sub)) {
    result.errors.push(internal(null, `no validation found for *${k.pkgName}.${k.kind}, subresource: ${sub}`, errCtx));
    return result;
  }
  const update = req.operation === "UPDATE" && req.oldObject !== undefined;
  const run: Run = { update, gates: config.featureGates, issues: [] };
  if (!decodesDeep(k.type, req.object)) {
    const undecodable: Issue[] = [];
    decodeIssues(k.type, req.object, null, undecodable, MAX_DECODE_ISSUES);
    for (const i of undecodable) result.errors.push(issueToFieldError(i, k.policy, "error"));
    return result;
  }
  try {
    runType(run, k.node, null, req.object, update ? req.oldObject : undefined);
  } catch (e) {
    result.errors.push(
      internal(null, `panic during declarative validation: ${e instanceof Error ? e.message : String(e)}`, errCtx),
    );
    return result;
  }
  const betaEnforced = config.featureGates.DeclarativeValidationBeta !== false;
  for (const i of run.issues) {
    const enforced = i.type === "InternalError" || i.level === "standard" || (i.level === "beta" && betaEnforced);
    if (enforced) result.errors.push(issueToFieldError(i, k.policy, "error"));
    else result.shadowed.push(issueToFieldError(i, k.policy, "shadow"));
  }
  return result;
}
