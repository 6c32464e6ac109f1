/**
 * CEL types as the static cost estimator needs them, read from the checker's type names (`list<string>`,
 * `map<string, int>`, `google.protobuf.Duration`, `kubernetes.Quantity`, …).
 */
import { checkedTypeName, type SyntaxNode } from "../engine.js";

export type Kind =
  | "bool"
  | "int"
  | "uint"
  | "double"
  | "string"
  | "bytes"
  | "duration"
  | "timestamp"
  | "null"
  | "type"
  | "list"
  | "map"
  | "optional"
  | "dyn"
  | "struct"
  | "param"
  | "unknown";

export interface CelTypeInfo {
  kind: Kind;
  name: string;
  params: CelTypeInfo[];
}

export const UNKNOWN_TYPE: CelTypeInfo = { kind: "unknown", name: "", params: [] };
const typeCache = new Map<string, CelTypeInfo>();

/** Splits "a, b<c, d>" at its top-level commas. */
export function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "<") depth++;
    else if (c === ">") depth--;
    else if (c === "," && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

export function parseTypeName(name: string): CelTypeInfo {
  const cached = typeCache.get(name);
  if (cached !== undefined) return cached;
  let t: CelTypeInfo;
  const lt = name.indexOf("<");
  if (lt > 0 && name.endsWith(">")) {
    const head = name.slice(0, lt);
    const params = splitTopLevel(name.slice(lt + 1, -1)).map(parseTypeName);
    const kind: Kind = head === "list" ? "list" : head === "map" ? "map" : head === "optional" ? "optional" : "type";
    t = { kind, name, params };
  } else {
    let kind: Kind;
    switch (name) {
      case "bool":
      case "int":
      case "uint":
      case "double":
      case "string":
      case "bytes":
      case "dyn":
      case "type":
        kind = name;
        break;
      case "null":
      case "null_type":
        kind = "null";
        break;
      case "google.protobuf.Duration":
        kind = "duration";
        break;
      case "google.protobuf.Timestamp":
        kind = "timestamp";
        break;
      default:
        kind = name.includes(".") ? "struct" : "param";
    }
    t = { kind, name, params: [] };
  }
  typeCache.set(name, t);
  return t;
}

/** The checked type of a syntax node (unknown where the checker did not record one). */
export function typeOf(node: SyntaxNode): CelTypeInfo {
  const n = checkedTypeName(node);
  return n === undefined ? UNKNOWN_TYPE : parseTypeName(n);
}

/** cel-go isScalar: types of a constant size. */
export function isScalar(t: CelTypeInfo): boolean {
  switch (t.kind) {
    case "bool":
    case "double":
    case "duration":
    case "int":
    case "timestamp":
    case "uint":
      return true;
    case "optional":
      return t.params[0] !== undefined && isScalar(t.params[0]);
    default:
      return false;
  }
}

/** Types whose size varies (cel-go: strings, bytes and lists). */
export function isVariableSized(k: Kind): boolean {
  return k === "string" || k === "bytes" || k === "list";
}
