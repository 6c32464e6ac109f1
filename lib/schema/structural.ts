/**
 * The structural schema of a CRD version (apiextensions-apiserver `pkg/apiserver/schema`): one compiled node per
 * schema node, with the generic part (type, nullable, default), the structure (properties, additionalProperties,
 * items), the Kubernetes extensions and the value validations kube-openapi checks. Compiled once per bundle load;
 * immutable afterwards.
 */

import { formatValue } from "../field/message.js";
import { type CompiledPattern, compilePattern, lazyPattern } from "../go/regexp.js";
import { supportedStringFormat } from "./formats.js";

export type SchemaType = "" | "object" | "array" | "string" | "integer" | "number" | "boolean";

/** One `x-kubernetes-validations` entry, kept raw for the CEL family. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** The value validations of a node (and of its allOf/anyOf/oneOf/not sub-schemas). */
export interface ValueValidation {
  /** Normalised string format that kube-openapi checks, or undefined. */
  format?: string;
  /** The format as written, for messages. */
  rawFormat?: string;
  /**
   * The format kube-openapi sees after apiextensions strips unsupported formats (the type validator and the
   * number range check use it): a supported string format, or int32/int64 on integers, float/double on numbers.
   */
  keptFormat?: string;
  maximum?: number;
  exclusiveMaximum: boolean;
  minimum?: number;
  exclusiveMinimum: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: CompiledPattern;
  patternSource?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  allOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  not?: SchemaNode;
}

export interface SchemaNode {
  type: SchemaType;
  nullable: boolean;
  hasDefault: boolean;
  default?: unknown;
  /** Declared properties, or null when the node declares none. */
  properties: Map<string, SchemaNode> | null;
  /** additionalProperties as a schema (a map), or null. */
  additionalProperties: SchemaNode | null;
  /** `additionalProperties: false` (only valid without properties; validated by kube-openapi). */
  additionalPropertiesFalse: boolean;
  items: SchemaNode | null;
  preserveUnknownFields: boolean;
  embeddedResource: boolean;
  intOrString: boolean;
  listType?: "atomic" | "set" | "map";
  listMapKeys?: string[];
  mapType?: "atomic" | "granular";
  validations: ValidationRule[];
  /** Value validations, or null when the node has none (fast path). */
  vv: ValueValidation | null;
  /** Path of this node in the CRD schema, for compile errors ("properties[spec].properties[x]"). */
  schemaPath: string;
}

export interface CompileIssue {
  /** Path within the openAPIV3Schema, in apiextensions' form: `properties[spec].properties[replicas].type`. */
  path: string;
  message: string;
  severity: "error" | "warning";
  /** Which compile step found it; absent: the schema itself. */
  stage?: "pattern" | "cel";
  /** A path within the openAPIV3Schema that ends the message; it is prefixed as `path` is. */
  messagePath?: string;
}

const SCHEMA_TYPES = new Set(["object", "array", "string", "integer", "number", "boolean"]);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function num(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  return undefined;
}

/**
 * Converts a raw openAPIV3Schema (decoded JSON) into a SchemaNode tree, collecting problems. The caller decides
 * whether the problems make the schema unusable (they are the API server's CRD-creation rejections).
 */
export function compileSchema(
  raw: unknown,
  issues: CompileIssue[],
  basePath = "",
  options: SchemaCompileOptions = {},
): SchemaNode {
  return convert(raw, basePath, issues, false, options);
}

/** Options of compileSchema. */
export interface SchemaCompileOptions {
  /**
   * Compile `pattern` regular expressions on first use instead of now (for bundle artifacts, whose build already
   * checked every pattern): a cold start then pays only for the patterns it meets.
   */
  lazyPatterns?: boolean;
}

/** The numeric value keywords, in the order the value validation holds them. */
const NUMBER_KEYWORDS = [
  "maximum",
  "minimum",
  "multipleOf",
  "maxLength",
  "minLength",
  "maxItems",
  "minItems",
  "maxProperties",
  "minProperties",
] as const;

/** The schema path of a keyword or child of the node at `path` (module-level: convert runs once per schema node). */
function childPath(path: string, k: string): string {
  return path === "" ? k : `${path}.${k}`;
}

function isString(x: unknown): x is string {
  return typeof x === "string";
}

function convert(
  raw: unknown,
  path: string,
  issues: CompileIssue[],
  inJunctor: boolean,
  options: SchemaCompileOptions,
): SchemaNode {
  // Every field is set here, the optional ones to undefined, so that every node has one shape (the validators
  // read these fields on every value; nodes of several shapes make each read a slow, megamorphic one).
  const node: SchemaNode = {
    type: "",
    nullable: false,
    hasDefault: false,
    default: undefined,
    properties: null,
    additionalProperties: null,
    additionalPropertiesFalse: false,
    items: null,
    preserveUnknownFields: false,
    embeddedResource: false,
    intOrString: false,
    listType: undefined,
    listMapKeys: undefined,
    mapType: undefined,
    validations: [],
    vv: null,
    schemaPath: path,
  };
  if (!isRecord(raw)) {
    issues.push({ path, message: "must be an object (a schema)", severity: "error" });
    return node;
  }
  const t = raw.type;
  if (t !== undefined) {
    if (typeof t === "string" && SCHEMA_TYPES.has(t)) node.type = t as SchemaType;
    else if (t === "null") {
      issues.push({
        path: childPath(path, "type"),
        message:
          'Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"',
        severity: "error",
      });
    } else {
      issues.push({
        path: childPath(path, "type"),
        message: `Unsupported value: ${formatValue(t)}: supported values: "array", "boolean", "integer", "number", "object", "string"`,
        severity: "error",
      });
    }
  }
  node.nullable = raw.nullable === true;
  if ("default" in raw) {
    node.hasDefault = true;
    node.default = raw.default;
  }
  node.preserveUnknownFields = raw["x-kubernetes-preserve-unknown-fields"] === true;
  node.embeddedResource = raw["x-kubernetes-embedded-resource"] === true;
  node.intOrString = raw["x-kubernetes-int-or-string"] === true;
  const lt = raw["x-kubernetes-list-type"];
  if (lt === "atomic" || lt === "set" || lt === "map") node.listType = lt;
  else if (lt !== undefined)
    issues.push({
      path: childPath(path, "x-kubernetes-list-type"),
      message: `Unsupported value: ${formatValue(lt)}: supported values: "atomic", "map", "set"`,
      severity: "error",
    });
  const lmk = raw["x-kubernetes-list-map-keys"];
  if (Array.isArray(lmk)) node.listMapKeys = lmk.filter(isString);
  const mt = raw["x-kubernetes-map-type"];
  if (mt === "atomic" || mt === "granular") node.mapType = mt;
  const xv = raw["x-kubernetes-validations"];
  if (Array.isArray(xv)) {
    for (const r of xv) {
      if (!isRecord(r)) continue;
      const rule: ValidationRule = { rule: typeof r.rule === "string" ? r.rule : "" };
      if (typeof r.message === "string") rule.message = r.message;
      if (typeof r.messageExpression === "string") rule.messageExpression = r.messageExpression;
      if (typeof r.reason === "string") rule.reason = r.reason;
      if (typeof r.fieldPath === "string") rule.fieldPath = r.fieldPath;
      if (r.optionalOldSelf === true) rule.optionalOldSelf = true;
      node.validations.push(rule);
    }
  }

  const props = raw.properties;
  if (isRecord(props)) {
    node.properties = new Map();
    for (const [name, sub] of Object.entries(props)) {
      node.properties.set(name, convert(sub, childPath(path, `properties[${name}]`), issues, inJunctor, options));
    }
  }
  const ap = raw.additionalProperties;
  if (isRecord(ap)) {
    node.additionalProperties = convert(ap, childPath(path, "additionalProperties"), issues, inJunctor, options);
  } else if (ap === false) node.additionalPropertiesFalse = true;
  const items = raw.items;
  if (isRecord(items)) node.items = convert(items, childPath(path, "items"), issues, inJunctor, options);
  else if (Array.isArray(items))
    issues.push({
      path: childPath(path, "items"),
      message: "Forbidden: items must be a schema object and not an array",
      severity: "error",
    });

  node.vv = convertValueValidation(raw, node, path, issues, options);
  return node;
}

function convertValueValidation(
  raw: Record<string, unknown>,
  node: SchemaNode,
  path: string,
  issues: CompileIssue[],
  options: SchemaCompileOptions,
): ValueValidation | null {
  // One shape for every node's value validations (see the node above).
  const vv: ValueValidation = {
    format: undefined,
    rawFormat: undefined,
    keptFormat: undefined,
    maximum: undefined,
    exclusiveMaximum: false,
    minimum: undefined,
    exclusiveMinimum: false,
    maxLength: undefined,
    minLength: undefined,
    pattern: undefined,
    patternSource: undefined,
    maxItems: undefined,
    minItems: undefined,
    uniqueItems: false,
    multipleOf: undefined,
    enum: undefined,
    maxProperties: undefined,
    minProperties: undefined,
    required: undefined,
    allOf: undefined,
    anyOf: undefined,
    oneOf: undefined,
    not: undefined,
  };
  let any = false;
  for (const key of NUMBER_KEYWORDS) {
    const v = num(raw[key]);
    if (v !== undefined) {
      vv[key] = v;
      any = true;
    }
  }
  if (raw.exclusiveMaximum === true) vv.exclusiveMaximum = true;
  if (raw.exclusiveMinimum === true) vv.exclusiveMinimum = true;
  if (raw.uniqueItems === true) {
    vv.uniqueItems = true;
    any = true;
  }
  if (typeof raw.format === "string" && raw.format !== "") {
    vv.rawFormat = raw.format;
    // apiextensions strips formats per type before building the validator (StripUnsupportedFormatsPostProcessor):
    // no type or string keeps supported string formats, integer keeps int32/int64, number keeps float/double.
    const f = node.type === "" || node.type === "string" ? supportedStringFormat(raw.format) : undefined;
    if (f !== undefined) {
      vv.format = f;
      vv.keptFormat = raw.format;
    } else if (
      (node.type === "integer" && (raw.format === "int32" || raw.format === "int64")) ||
      (node.type === "number" && (raw.format === "float" || raw.format === "double"))
    ) {
      vv.keptFormat = raw.format;
    }
    any = true;
  }
  if (typeof raw.pattern === "string") {
    const compiled = options.lazyPatterns === true ? lazyPattern(raw.pattern) : compilePattern(raw.pattern);
    // The source is kept even when it does not compile, so rule counts do not depend on when patterns compile.
    vv.patternSource = raw.pattern;
    any = true;
    if ("error" in compiled) {
      issues.push({
        path: childPath(path, "pattern"),
        message: `Invalid value: ${formatValue(raw.pattern)}: must be a valid regular expression, but isn't: ${compiled.error}`,
        severity: "error",
        stage: "pattern",
      });
    } else {
      vv.pattern = compiled;
      vv.patternSource = raw.pattern;
      any = true;
    }
  }
  if (Array.isArray(raw.enum)) {
    vv.enum = raw.enum;
    any = true;
  }
  if (Array.isArray(raw.required)) {
    vv.required = raw.required.filter(isString);
    if (vv.required.length > 0) any = true;
  }
  for (const j of ["allOf", "anyOf", "oneOf"] as const) {
    const list = raw[j];
    if (Array.isArray(list)) {
      const branches: SchemaNode[] = [];
      for (let i = 0; i < list.length; i++)
        branches.push(convert(list[i], childPath(path, `${j}[${i}]`), issues, true, options));
      vv[j] = branches;
      any = true;
    }
  }
  if (raw.not !== undefined) {
    vv.not = convert(raw.not, childPath(path, "not"), issues, true, options);
    any = true;
  }
  return any ? vv : null;
}
