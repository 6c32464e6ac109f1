/**
 * The typed `kubevirt.io/v1` VirtualMachine, as the real template validator sees it.
 *
 * The validator decodes the admitted VM into the Go struct `kubevirt.io/api/core/v1.VirtualMachine` and evaluates
 * JSONPaths by reflection over that struct (spec/kubevirt-validator-behaviour.md, section 4). So what a path finds
 * depends on the Go type, not only on the JSON: a field the type defines is "found" even when the JSON omits it (as
 * its zero value, or as a nil pointer), and a field it does not define is never found. This module gives tollgate
 * that type, built from KubeVirt's OpenAPI document (vm-schema.generated.ts; see the generator for how pointers are
 * told from values).
 *
 * Deliberate simplifications, each unobservable through the rules that templates write:
 * - scalar pointers (`*int64 terminationGracePeriodSeconds`, `*bool`) are values: an absent one is its zero value,
 *   a present one its value (the real validator refuses integer rules on `*int64` with "mismatching type", a Go
 *   artefact like the `<T Value>` strings that values.ts does not reproduce either);
 * - `resource.Quantity`, `IntOrString` and `metav1.Time` are leaves, not the Go structs behind them;
 * - Go field names (`.Cores` for `.cores`) are matched case-insensitively against the JSON names when they start
 *   with a capital letter (reflection's `FieldByName`, approximated without the Go names).
 */
import { VM_TYPES } from "./vm-schema.generated.js";

export type ScalarKind = "string" | "integer" | "number" | "boolean" | "quantity" | "intOrString";

export type TypeNode =
  | { readonly kind: "struct"; readonly name: string; readonly fields: StructFields }
  | { readonly kind: "list"; readonly item: TypeNode }
  | { readonly kind: "map"; readonly value: TypeNode }
  | { readonly kind: "scalar"; readonly scalar: ScalarKind }
  | { readonly kind: "any" };

export interface FieldType {
  readonly name: string;
  readonly type: TypeNode;
  /** A Go pointer: nil when absent from the JSON. */
  readonly pointer: boolean;
}

const SCALARS: Readonly<Record<string, TypeNode>> = {
  s: { kind: "scalar", scalar: "string" },
  i: { kind: "scalar", scalar: "integer" },
  f: { kind: "scalar", scalar: "number" },
  b: { kind: "scalar", scalar: "boolean" },
  q: { kind: "scalar", scalar: "quantity" },
  x: { kind: "scalar", scalar: "intOrString" },
};

/** Free-form JSON (Go `interface{}` or a type the document does not describe). */
export const ANY_TYPE: TypeNode = { kind: "any" };

const structs = new Map<string, TypeNode & { kind: "struct" }>();

/** The struct type of a definition, resolved once and shared (fields resolve lazily, so cycles are fine). */
export function structType(name: string): (TypeNode & { kind: "struct" }) | undefined {
  const cached = structs.get(name);
  if (cached !== undefined) return cached;
  const codes = VM_TYPES[name];
  if (codes === undefined) return undefined;
  const fields = new StructFields(codes);
  const node = { kind: "struct" as const, name, fields };
  structs.set(name, node);
  return node;
}

/** The fields of a struct, each decoded from its code on first use. */
export class StructFields {
  private readonly decoded = new Map<string, FieldType>();
  /** JSON field names, sorted (the OpenAPI document's order). */
  readonly names: readonly string[];
  constructor(private readonly codes: Readonly<Record<string, string>>) {
    this.names = Object.keys(codes);
  }

  get(key: string): FieldType | undefined {
    const hit = this.decoded.get(key);
    if (hit !== undefined) return hit;
    if (!Object.hasOwn(this.codes, key)) return undefined;
    const code = this.codes[key]!;
    const pointer = code.startsWith("*");
    const field: FieldType = { name: key, type: decode(pointer ? code.slice(1) : code), pointer };
    this.decoded.set(key, field);
    return field;
  }
}

function decode(code: string): TypeNode {
  if (code.startsWith("[]")) return { kind: "list", item: decode(code.slice(2)) };
  if (code.startsWith("{}")) return { kind: "map", value: decode(code.slice(2)) };
  const scalar = SCALARS[code];
  if (scalar !== undefined) return scalar;
  // `@Name` (a value) or, with the pointer's `*` already taken off, `Name`.
  return structType(code.startsWith("@") ? code.slice(1) : code) ?? ANY_TYPE;
}

/** `v1.VirtualMachine`. */
export function virtualMachineType(): TypeNode & { kind: "struct" } {
  return structType("v1.VirtualMachine")!;
}

/**
 * The field a JSONPath step `name` selects in a struct: the JSON name, else (reflection's `FieldByName`) a Go field
 * name, approximated as a capitalised name equal to a JSON name but for case.
 */
export function lookupField(t: TypeNode & { kind: "struct" }, name: string): FieldType | undefined {
  const f = t.fields.get(name);
  if (f !== undefined) return f;
  if (name.length === 0 || name[0] === name[0]!.toLowerCase()) return undefined;
  const lower = name.toLowerCase();
  for (const key of t.fields.names) if (key.toLowerCase() === lower) return t.fields.get(key);
  return undefined;
}

/** A short description of a type for messages: `string`, `v1.CPU`, `list`, `map`. */
export function typeText(t: TypeNode): string {
  switch (t.kind) {
    case "struct":
      return t.name;
    case "list":
      return `list of ${typeText(t.item)}`;
    case "map":
      return `map of ${typeText(t.value)}`;
    case "scalar":
      return t.scalar === "intOrString" ? "int-or-string" : t.scalar;
    case "any":
      return "free-form value";
  }
}
