/** A validator for the subset of JSON Schema 2020-12 that audit/report/report.schema.json uses (tests only). */
/** The subset of JSON Schema 2020-12 that report.schema.json uses. */
export interface Schema {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  pattern?: string;
  minimum?: number;
  $ref?: string;
  $defs?: Record<string, Schema>;
}

export function validateSchema(schema: Schema, value: unknown, root: Schema, path = "$"): string[] {
  if (schema.$ref !== undefined) {
    const name = schema.$ref.replace("#/$defs/", "");
    return validateSchema(root.$defs![name]!, value, root, path);
  }
  const errors: string[] = [];
  if (schema.const !== undefined && value !== schema.const) errors.push(`${path}: not ${String(schema.const)}`);
  if (schema.enum !== undefined && !schema.enum.includes(value)) errors.push(`${path}: not in enum`);
  const type = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
  if (schema.type !== undefined) {
    const ok =
      schema.type === "integer"
        ? Number.isInteger(value)
        : schema.type === "number"
          ? type === "number"
          : type === schema.type;
    if (!ok) return [...errors, `${path}: not ${schema.type}`];
  }
  if (schema.pattern !== undefined && typeof value === "string" && !new RegExp(schema.pattern).test(value)) {
    errors.push(`${path}: does not match ${schema.pattern}`);
  }
  if (schema.minimum !== undefined && typeof value === "number" && value < schema.minimum)
    errors.push(`${path}: < min`);
  if (type === "object") {
    const o = value as Record<string, unknown>;
    for (const r of schema.required ?? []) if (!(r in o)) errors.push(`${path}: missing ${r}`);
    for (const [k, v] of Object.entries(o)) {
      const sub = schema.properties?.[k];
      if (sub !== undefined) errors.push(...validateSchema(sub, v, root, `${path}.${k}`));
      else if (schema.additionalProperties === false) errors.push(`${path}: unexpected ${k}`);
      else if (typeof schema.additionalProperties === "object") {
        errors.push(...validateSchema(schema.additionalProperties, v, root, `${path}.${k}`));
      }
    }
  }
  if (type === "array" && schema.items !== undefined) {
    (value as unknown[]).forEach((v, i) => {
      errors.push(...validateSchema(schema.items!, v, root, `${path}[${i}]`));
    });
  }
  return errors;
}
