/**
 * CEL environments: what an expression compiles against (cel-go's `cel.Env`). An environment holds
 *
 * - libraries: the functions, types and constants beyond the base language (default: every library of Kubernetes'
 *   base environment, libraries/kubernetes.ts; an admission policy adds its own, e.g. `authorizer`);
 * - object types with declared fields (`kubernetes.Request`, a CRD schema's structs, …);
 * - top-level variables with their types (`self`, `object`, `request`, …): an expression may use only these;
 * - where the static cost estimator finds the sizes of the variables' data (a CRD rule's schema node).
 *
 * Environments are immutable once made; `extend` makes a child with more types and variables (a CRD version's
 * types, then each rule node's `self`). Base environments (one per list of libraries) are built once and shared.
 */

import type { CostContext } from "./cost/estimate.js";
import type { CallCostEstimator } from "./cost/operand.js";
import type { RuntimeCallCost, RuntimeCostContext } from "./cost/runtime.js";
import type { Decl } from "./cost/schema-sizes.js";
import { type EngineEnvironment, type EngineType, engineTypes, newEnvironment } from "./engine.js";
import { CORE_LIBRARY } from "./libraries/core.js";
import { KUBERNETES_LIBRARIES } from "./libraries/kubernetes.js";
import type { CelLibrary, LibraryOverride } from "./libraries/library.js";
import { STANDARD_LIBRARY } from "./libraries/standard.js";

/** An object type with declared fields. */
export interface CelObjectType {
  /** The type's name as declarations spell it (`kubernetes.Request`); it must contain a dot. */
  readonly name: string;
  /** Field name → CEL type name (`string`, `int`, `list<string>`, `map<string, dyn>`, another object type, `dyn`). */
  readonly fields: Readonly<Record<string, string>>;
  /**
   * The class of this type's values. Default: values are plain objects (or Maps), wrapped when an expression reads
   * them; their fields must already hold CEL values (int as bigint, double as number, …).
   */
  readonly valueClass?: abstract new (
    ...args: never[]
  ) => object;
  /** `==` on two values of this type. Without it, `==` on this type does not compile. */
  readonly equals?: (a: unknown, b: unknown) => boolean;
}

/** What an environment adds to its parent (or to the base environment of its libraries). */
export interface CelDeclarations {
  /** Object types (their fields may name each other, and types of a parent environment). */
  readonly objectTypes?: readonly CelObjectType[];
  /** Top-level variables: name → CEL type name (`dyn`, `int`, `map<string, string>`, an object type, …). */
  readonly variables?: Readonly<Record<string, string>>;
  /**
   * Where the cost estimator finds the sizes of the variables' data: a schema node's sizes (`schemaSizes`, as a
   * CRD rule's `self`). Default: the parent's; for a new environment, unknown (the estimate assumes the worst).
   */
  readonly sizes?: Decl | null;
}

export interface CelEnvironmentOptions extends CelDeclarations {
  /**
   * The libraries, in registration order. Default: `KUBERNETES_LIBRARIES`. The core library (what tollgate's source
   * rewrites call, and Go-exact versions of a few engine built-ins) and the standard library (cel-go's conversions,
   * timestamps and durations where the engine's differ) are always present.
   */
  readonly libraries?: readonly CelLibrary[];
}

/**
 * Variables a child made by `extendEach` declares without an engine environment of its own: their engine types,
 * which compiling sets on the parsed tree (program.ts), and the ordinary child for expressions that cannot be
 * compiled that way.
 */
export interface BoundVariables {
  readonly types: ReadonlyMap<string, EngineType>;
  /** The same environment made by `extend` (made on first use). */
  full(): CelEnvironment;
}

/** What an environment's libraries contribute to compiling: renames and cost estimators. */
interface LibrarySet {
  readonly libraries: readonly CelLibrary[];
  readonly base: EngineEnvironment;
  readonly renames: Readonly<Record<string, string>>;
  readonly originalNames: ReadonlyMap<string, string>;
  readonly callCosts: ReadonlyMap<string, readonly CallCostEstimator[]>;
  readonly overrides: ReadonlyMap<string, LibraryOverride>;
  readonly runtime: RuntimeCostContext;
}

/** A CEL environment (see the module comment). Make one with createCelEnvironment. */
export interface CelEnvironment {
  /** The top-level variables: name → CEL type name. */
  readonly variables: ReadonlyMap<string, string>;
  /** The engine environment expressions are parsed in (for lib/cel's compile step). */
  readonly engine: EngineEnvironment;
  /** Built-in methods the libraries replace: method → registered name (see CelLibrary.renames). */
  readonly renames: Readonly<Record<string, string>>;
  /** Own implementations of built-ins, by cel-go name (see CelLibrary.overrides). */
  readonly overrides: ReadonlyMap<string, LibraryOverride>;
  /** What the cost estimator needs from this environment. */
  readonly cost: CostContext;
  /** What the runtime costs need from this environment (its libraries' runtime costs). */
  readonly runtimeCost: RuntimeCostContext;
  /** Set on children made by `extendEach`: `engine` is the parent's, which does not declare these variables. */
  readonly bound: BoundVariables | undefined;
  /**
   * A child environment: this one's libraries, types and variables, plus `declarations`. A variable may not be
   * declared again.
   */
  extend(declarations: CelDeclarations): CelEnvironment;
  /**
   * Children that each add only variables (and the sizes of their data), as `extend` would make them one by one,
   * but sharing this environment's engine environment instead of copying it per child: a CRD version declares
   * `self` and `oldSelf` at each of its rule nodes. An expression compiles in such a child with the same outcome
   * as in the ordinary one (program.ts falls back to it where the shared engine cannot give that).
   */
  extendEach(declarations: readonly VariableDeclarations[]): CelEnvironment[];
}

/** What a child made by `extendEach` adds. */
export interface VariableDeclarations {
  readonly variables: Readonly<Record<string, string>>;
  readonly sizes?: Decl | null;
}

class Environment implements CelEnvironment {
  readonly variables: ReadonlyMap<string, string>;
  readonly renames: Readonly<Record<string, string>>;
  readonly overrides: ReadonlyMap<string, LibraryOverride>;
  readonly cost: CostContext;
  readonly runtimeCost: RuntimeCostContext;

  /**
   * `engine`: the child's own engine environment (declarations made into it), or the parent's when `bound` gives
   * the types of the added variables.
   */
  constructor(
    private readonly librarySet: LibrarySet,
    readonly engine: EngineEnvironment,
    inherited: ReadonlyMap<string, string>,
    sizes: Decl | null,
    declarations: CelDeclarations,
    readonly bound: BoundVariables | undefined = undefined,
  ) {
    const variables = new Map(inherited);
    for (const [name, type] of Object.entries(declarations.variables ?? {})) variables.set(name, type);
    this.variables = variables;
    this.renames = librarySet.renames;
    this.overrides = librarySet.overrides;
    this.cost = {
      sizes: declarations.sizes === undefined ? sizes : declarations.sizes,
      originalNames: librarySet.originalNames,
      callCosts: librarySet.callCosts,
    };
    this.runtimeCost = librarySet.runtime;
  }

  extend(declarations: CelDeclarations): CelEnvironment {
    if (this.bound !== undefined) return this.bound.full().extend(declarations);
    return childOf(this.librarySet, this.engine, this.variables, this.cost.sizes, declarations);
  }

  extendEach(declarations: readonly VariableDeclarations[]): CelEnvironment[] {
    if (this.bound !== undefined) return declarations.map((d) => this.extend(d));
    const typeNames = new Set<string>();
    for (const d of declarations) for (const t of Object.values(d.variables)) typeNames.add(t);
    const types = engineTypes(this.engine, typeNames);
    return declarations.map((d) => {
      let full: CelEnvironment | undefined;
      const fullChild = (): CelEnvironment => {
        full ??= childOf(this.librarySet, this.engine, this.variables, this.cost.sizes, d);
        return full;
      };
      const preset = new Map<string, EngineType>();
      for (const [name, typeName] of Object.entries(d.variables)) {
        const t = types.get(typeName);
        if (t !== undefined && !this.variables.has(name)) preset.set(name, t);
      }
      // An unknown type or a variable declared again: the ordinary child, which reports it as `extend` does.
      if (preset.size !== Object.keys(d.variables).length) return fullChild();
      return new Environment(this.librarySet, this.engine, this.variables, this.cost.sizes, d, {
        types: preset,
        full: fullChild,
      });
    });
  }
}

/** A child environment with an engine environment of its own (the parent's copied, the declarations made in it). */
function childOf(
  librarySet: LibrarySet,
  parent: EngineEnvironment,
  inherited: ReadonlyMap<string, string>,
  sizes: Decl | null,
  declarations: CelDeclarations,
): Environment {
  const engine = parent.clone();
  declare(engine, declarations);
  return new Environment(librarySet, engine, inherited, sizes, declarations);
}

/**
 * The object types in declaration order, except that a type without a value class comes after the declared types
 * its fields name (the engine builds its field conversions when it is declared).
 */
function declarationOrder(types: readonly CelObjectType[]): CelObjectType[] {
  const byName = new Map(types.map((t) => [t.name, t]));
  const out: CelObjectType[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (t: CelObjectType): void => {
    if (state.get(t.name) === "done") return;
    if (state.get(t.name) === "visiting") {
      throw new Error(`CEL object type ${t.name} refers to itself through its fields; give the types a valueClass`);
    }
    state.set(t.name, "visiting");
    if (t.valueClass === undefined) {
      for (const fieldType of Object.values(t.fields)) {
        for (const name of fieldType.split(/[<>,\s]+/)) {
          const referenced = byName.get(name);
          if (referenced !== undefined && referenced !== t) visit(referenced);
        }
      }
    }
    state.set(t.name, "done");
    out.push(t);
  };
  for (const t of types) visit(t);
  return out;
}

function declare(env: EngineEnvironment, declarations: CelDeclarations): void {
  for (const t of declarationOrder(declarations.objectTypes ?? [])) {
    if (t.valueClass === undefined) env.registerType({ name: t.name, fields: { ...t.fields } });
    else env.registerType(t.name, { ctor: t.valueClass, fields: { ...t.fields } });
    const equals = t.equals;
    if (equals !== undefined) env.registerOperator(`${t.name} == ${t.name}`, (a: unknown, b: unknown) => equals(a, b));
  }
  for (const [name, type] of Object.entries(declarations.variables ?? {})) env.registerVariable(name, type);
}

const librarySets: LibrarySet[] = [];

function addTo<T>(byName: Map<string, T[]>, name: string, item: T): void {
  const list = byName.get(name) ?? [];
  list.push(item);
  byName.set(name, list);
}

/** The shared base of a list of libraries: built once, frozen by its first child (the engine's clone). */
function librarySetOf(libraries: readonly CelLibrary[]): LibrarySet {
  const hit = librarySets.find(
    (s) => s.libraries.length === libraries.length && s.libraries.every((l, i) => l === libraries[i]),
  );
  if (hit !== undefined) return hit;
  const all = [CORE_LIBRARY, STANDARD_LIBRARY, ...libraries];
  const base = newEnvironment();
  const renames: Record<string, string> = {};
  const callCosts = new Map<string, CallCostEstimator[]>();
  const overrides = new Map<string, LibraryOverride>();
  const runtimeCosts = new Map<string, RuntimeCallCost[]>();
  for (const library of all) {
    library.register(base);
    for (const [from, to] of Object.entries(library.renames ?? {})) {
      if (renames[from] !== undefined && renames[from] !== to) {
        throw new Error(`CEL library ${library.name}: ${from} is already renamed to ${renames[from]}`);
      }
      renames[from] = to;
    }
    for (const [name, override] of Object.entries(library.overrides ?? {})) {
      if (overrides.has(name)) throw new Error(`CEL library ${library.name}: ${name} is already overridden`);
      overrides.set(name, override);
    }
    for (const [fn, estimate] of Object.entries(library.callCosts ?? {})) addTo(callCosts, fn, estimate);
    for (const [fn, cost] of Object.entries(library.runtimeCosts ?? {})) addTo(runtimeCosts, fn, cost);
  }
  const originalNames = new Map(Object.entries(renames).map(([from, to]) => [to, from.replace(/^global:/, "")]));
  const set: LibrarySet = {
    libraries: [...libraries],
    base,
    renames: Object.freeze(renames),
    originalNames,
    callCosts,
    overrides,
    runtime: { originalNames, runtimeCosts },
  };
  librarySets.push(set);
  return set;
}

/**
 * A CEL environment with the given libraries (default: Kubernetes' base environment), object types and variables.
 * Throws when a declaration is invalid (an unknown type name, a variable declared twice, conflicting libraries).
 */
export function createCelEnvironment(options: CelEnvironmentOptions = {}): CelEnvironment {
  const librarySet = librarySetOf(options.libraries ?? KUBERNETES_LIBRARIES);
  return childOf(librarySet, librarySet.base, new Map(), null, options);
}
