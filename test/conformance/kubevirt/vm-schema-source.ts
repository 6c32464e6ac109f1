/**
 * Builds the typed-VirtualMachine table of lib/kubevirt/vm-schema.generated.ts from KubeVirt's OpenAPI document
 * (`<corpus>/kubevirt/schema/swagger.json`). `generate-vm-schema.ts` writes the file; the conformance suite checks
 * that the committed table is what this function builds from the corpus.
 *
 * Encoding of a field's Go type (see lib/kubevirt/vm-types.ts):
 * `s` string, `i` integer, `f` number, `b` boolean, `q` resource.Quantity, `x` int-or-string, `a` free-form JSON,
 * `@<Type>` a struct held by value, `*<Type>` a pointer to a struct (`*q` a pointer to a Quantity), `[]<code>` a
 * slice, `{}<code>` a map with string keys.
 *
 * Pointer or value: openapi-gen writes `default: {}` on struct fields held by value and nothing on pointers, so a
 * `$ref` with that default is `@`, one without is `*`. Exceptions, from the Go types: `VirtualMachineInstanceTemplateSpec.spec`
 * is a value (the reference VM of the template validator assigns `tmpl.Spec.Domain` directly). Quantity fields carry no
 * default either way; they are treated as pointers (`memory.guest` is `*resource.Quantity`). Scalar pointers
 * (`*int64`, `*bool`) cannot be told apart from values in the document and are treated as values (see vm-types.ts).
 */

interface SwaggerSchema {
  type?: string | string[];
  format?: string;
  default?: unknown;
  $ref?: string;
  items?: SwaggerSchema;
  additionalProperties?: SwaggerSchema | boolean;
  properties?: Record<string, SwaggerSchema>;
}

export interface Swagger {
  definitions: Record<string, SwaggerSchema>;
}

const QUANTITY = "k8s.io.apimachinery.pkg.api.resource.Quantity";
const ROOT = "v1.VirtualMachine";
/** Fields the document marks as pointers that are values in Go. */
const VALUE_OVERRIDES: ReadonlySet<string> = new Set(["v1.VirtualMachineInstanceTemplateSpec.spec"]);

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf("/") + 1);
}

function scalarCode(s: SwaggerSchema): string {
  const t = Array.isArray(s.type) ? s.type.filter((x) => x !== "null") : s.type === undefined ? [] : [s.type];
  if (t.length === 1) {
    switch (t[0]) {
      case "string":
        return "s";
      case "integer":
        return "i";
      case "number":
        return "f";
      case "boolean":
        return "b";
    }
  }
  if (t.includes("string") && (t.includes("number") || t.includes("integer"))) return "x";
  return "a";
}

/** The field codes of every struct reachable from v1.VirtualMachine, keyed by definition name. */
export function buildVmTypes(swagger: Swagger): Record<string, Record<string, string>> {
  const defs = swagger.definitions;
  const out: Record<string, Record<string, string>> = {};
  const queue: string[] = [ROOT];

  const isStruct = (name: string): boolean => {
    const d = defs[name];
    if (d === undefined) return false;
    return d.properties !== undefined || d.type === "object" || d.type === undefined;
  };

  const code = (s: SwaggerSchema, inStruct: string | null, field: string): string => {
    if (s.$ref !== undefined) {
      const name = refName(s.$ref);
      if (name === QUANTITY) return inStruct === null ? "q" : "*q";
      const d = defs[name];
      if (d === undefined) return "a";
      if (!isStruct(name)) return scalarCode(d);
      queue.push(name);
      if (inStruct === null) return `@${name}`;
      const byValue = s.default !== undefined || VALUE_OVERRIDES.has(`${inStruct}.${field}`);
      return `${byValue ? "@" : "*"}${name}`;
    }
    if (s.type === "array") return `[]${s.items === undefined ? "a" : code(s.items, null, field)}`;
    if (s.type === "object") {
      if (typeof s.additionalProperties === "object") return `{}${code(s.additionalProperties, null, field)}`;
      return "a";
    }
    return scalarCode(s);
  };

  while (queue.length > 0) {
    const name = queue.shift()!;
    if (out[name] !== undefined) continue;
    const fields: Record<string, string> = {};
    out[name] = fields;
    const props = defs[name]?.properties ?? {};
    for (const key of Object.keys(props).sort()) fields[key] = code(props[key]!, name, key);
  }
  const sorted: Record<string, Record<string, string>> = {};
  for (const k of Object.keys(out).sort()) sorted[k] = out[k]!;
  return sorted;
}
