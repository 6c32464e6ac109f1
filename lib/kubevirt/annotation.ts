/**
 * Parsing a validations annotation (`vm.kubevirt.io/validations` on a VM, `validations` on a Template) into rules,
 * as the real validator's Go `encoding/json` decoding into its `Rule` struct does
 * (spec/kubevirt-validator-behaviour.md, section 3):
 *
 * - the value is a JSON array of rule objects; `null` means no rules; anything else fails the whole annotation;
 * - keys match case-insensitively (`"Max"` sets `max`), an exact match first; repeated keys: the last wins; unknown
 *   keys are ignored;
 * - a wrong JSON type for a known key fails the whole annotation; `null` leaves a key unset;
 * - `path`/`valid` must be `jsonpath::<client-go JSONPath>`, rooted at the VM's `spec.template`: the prefix and one
 *   leading `$` are dropped and the rest becomes `{.spec.template<rest>}`; a JSONPath client-go rejects fails the
 *   annotation;
 * - `min`, `max`, `minLength`, `maxLength` are numbers (rounded half away from zero to int64) or `jsonpath::`
 *   strings; `values` entries are strings, JSONPaths when they start with `jsonpath::`.
 *
 * Problems found here are annotation failures. Per-rule problems the validator only finds while evaluating
 * (unknown type, missing message, duplicate name, bad regex, missing path) are facts of the compiled rule, checked
 * in rule order by rules.ts.
 */
import { formatValue } from "../field/message.js";
import type { CompiledPattern, PatternError } from "../go/regexp.js";
import { type JsonNode, JsonSyntaxError, readJson } from "./json-reader.js";
import { JsonPathSyntaxError, type ListNode, parseJsonPath } from "./jsonpath/parser.js";
import { compileRegex } from "./regex.js";

const JSONPATH_PREFIX = "jsonpath::";

/** Largest annotation accepted: Kubernetes caps all annotations of an object at 256 KiB together. */
const MAX_ANNOTATION_BYTES = 256 * 1024;
/** Most rules in one annotation. */
const MAX_RULES = 1000;

/** The rule types the format defines (VALIDATION.md "Validation rules"). */
const RULE_TYPES = ["integer", "string", "regex", "enum"] as const;
export type RuleType = (typeof RULE_TYPES)[number];

/** A `jsonpath::` value: the text after the prefix and the parsed template `{.spec.template<expr>}`. */
export interface RulePath {
  /** As written, after `jsonpath::` and one leading `$` (what the validator reports as the cause field). */
  readonly expr: string;
  readonly template: ListNode;
}

/** An integer argument: a literal (already rounded) or a JSONPath. */
export type IntArg = { readonly literal: bigint } | { readonly path: RulePath; readonly text: string };
/** A `values` entry: a literal string or a JSONPath. */
export type StringArg = { readonly literal: string } | { readonly path: RulePath; readonly text: string };

export interface Rule {
  /** Position in the annotation's array. */
  readonly index: number;
  /** `rule` as written ("" when absent). */
  readonly type: string;
  readonly name: string;
  readonly message: string;
  readonly path?: RulePath;
  readonly valid?: RulePath;
  readonly justWarning: boolean;
  readonly values?: readonly StringArg[];
  readonly min?: IntArg;
  readonly max?: IntArg;
  readonly minLength?: IntArg;
  readonly maxLength?: IntArg;
  readonly regex: string;
  /** For `regex` rules: the compiled `regex` (RE2), or Go's error. */
  readonly compiledRegex?: CompiledPattern | PatternError;
  /** Index of an earlier rule with the same name (the validator's "duplicate Rule Name"). */
  readonly duplicateOf?: number;
}

/** A parsed annotation: rules, or why the whole annotation cannot be used. */
export type RuleSet = { readonly rules: readonly Rule[] } | { readonly error: string };

/** Whether a RuleSet failed to parse. */
export function isParseFailure(s: RuleSet): s is { readonly error: string } {
  return "error" in s;
}

/** Thrown inside the decoder; caught by parseRules. */
class AnnotationError extends Error {}

const KEYS = [
  "rule",
  "name",
  "path",
  "message",
  "valid",
  "justWarning",
  "values",
  "min",
  "max",
  "minLength",
  "maxLength",
  "regex",
] as const;
type Key = (typeof KEYS)[number];

/** Go's case folding for field names (bytes.EqualFold; the Kelvin sign and long s fold to k and s). */
function fold(s: string): string {
  return s.replaceAll("\u212a", "k").replaceAll("\u017f", "s").toLowerCase();
}
const FOLDED = new Map<string, Key>(KEYS.map((k) => [fold(k), k]));

function matchKey(key: string): Key | undefined {
  if ((KEYS as readonly string[]).includes(key)) return key as Key;
  return FOLDED.get(fold(key));
}

function goType(n: JsonNode): string {
  return n.t === "bool" ? "bool" : n.t;
}

/**
 * Parses `jsonpath::<expr>` as the validator's `path.New` does: the prefix is required, one leading `$` is dropped,
 * and `{.spec.template<expr>}` must parse as a client-go template. Throws AnnotationError.
 */
function parseRulePath(value: string, what: string): RulePath {
  if (!value.startsWith(JSONPATH_PREFIX)) {
    throw new AnnotationError(`${what}: invalid JSONPath ${JSON.stringify(value)}: it must start with "jsonpath::"`);
  }
  let expr = value.slice(JSONPATH_PREFIX.length);
  if (expr.startsWith("$")) expr = expr.slice(1);
  try {
    return { expr, template: parseJsonPath(`{.spec.template${expr}}`) };
  } catch (e) {
    if (e instanceof JsonPathSyntaxError) {
      throw new AnnotationError(`${what}: invalid JSONPath ${JSON.stringify(value)}: ${e.message}`);
    }
    throw e;
  }
}

/** float64 → int64 rounded half away from zero (math.Round), refusing what int64 cannot hold. */
function roundNumber(n: JsonNode & { t: "number" }, what: string): bigint {
  if (!Number.isFinite(n.v)) throw new AnnotationError(`${what}: ${n.text} is out of range`);
  const r = Math.sign(n.v) * Math.round(Math.abs(n.v));
  if (Math.abs(r) >= 2 ** 63) throw new AnnotationError(`${what}: ${n.text} is out of the int64 range`);
  return BigInt(r);
}

function intArg(n: JsonNode, what: string): IntArg | undefined {
  switch (n.t) {
    case "null":
      return undefined;
    case "number":
      return { literal: roundNumber(n, what) };
    case "string":
      if (!n.v.startsWith(JSONPATH_PREFIX)) {
        throw new AnnotationError(
          `${what}: ${formatValue(n.v)} is neither a number nor a "jsonpath::" reference (quantities such as "2Gi" must be written in bytes)`,
        );
      }
      return { path: parseRulePath(n.v, what), text: n.v };
    default:
      throw new AnnotationError(`${what}: must be a number or a "jsonpath::" string, not ${goType(n)}`);
  }
}

function stringField(n: JsonNode, what: string): string | undefined {
  if (n.t === "null") return undefined;
  if (n.t !== "string") throw new AnnotationError(`${what}: must be a string, not ${goType(n)}`);
  return n.v;
}

interface Draft {
  type: string;
  name: string;
  message: string;
  regex: string;
  justWarning: boolean;
  path?: RulePath;
  valid?: RulePath;
  values?: StringArg[];
  min?: IntArg;
  max?: IntArg;
  minLength?: IntArg;
  maxLength?: IntArg;
}

function decodeRule(node: JsonNode, index: number): Draft {
  const draft: Draft = { type: "", name: "", message: "", regex: "", justWarning: false };
  if (node.t === "null") return draft;
  if (node.t !== "object") throw new AnnotationError(`rule #${index}: must be a JSON object, not ${goType(node)}`);
  for (const [rawKey, v] of node.entries) {
    const key = matchKey(rawKey);
    if (key === undefined) continue;
    const what = `rule #${index} "${key}"`;
    switch (key) {
      case "rule":
      case "name":
      case "message":
      case "regex": {
        const s = stringField(v, what);
        if (s === undefined) break;
        if (key === "rule") draft.type = s;
        else draft[key] = s;
        break;
      }
      case "justWarning":
        if (v.t === "null") break;
        if (v.t !== "bool") throw new AnnotationError(`${what}: must be a boolean, not ${goType(v)}`);
        draft.justWarning = v.v;
        break;
      case "path":
        // A null path reaches the Path unmarshaller as an empty string: "invalid JSONPath".
        draft.path = parseRulePath(v.t === "null" ? "" : (stringField(v, what) ?? ""), what);
        break;
      case "valid": {
        const s = stringField(v, what);
        if (s === undefined) delete draft.valid;
        else draft.valid = parseRulePath(s, what);
        break;
      }
      case "values": {
        if (v.t === "null") {
          delete draft.values;
          break;
        }
        if (v.t !== "array") throw new AnnotationError(`${what}: must be an array of strings, not ${goType(v)}`);
        draft.values = v.items.map((item, i) => {
          const s = item.t === "null" ? "" : item.t === "string" ? item.v : undefined;
          if (s === undefined) {
            throw new AnnotationError(`${what}[${i}]: must be a string, not ${goType(item)}`);
          }
          return s.startsWith(JSONPATH_PREFIX) ? { path: parseRulePath(s, `${what}[${i}]`), text: s } : { literal: s };
        });
        break;
      }
      case "min":
      case "max":
      case "minLength":
      case "maxLength": {
        const arg = intArg(v, what);
        if (arg === undefined) delete draft[key];
        else draft[key] = arg;
        break;
      }
    }
  }
  return draft;
}

/**
 * Parses an annotation value. An empty string is no rules (the validator treats it as absent); whitespace alone is
 * a JSON error. Never throws.
 */
export function parseRules(text: string): RuleSet {
  if (text === "") return { rules: [] };
  if (text.length > MAX_ANNOTATION_BYTES / 3 && new TextEncoder().encode(text).length > MAX_ANNOTATION_BYTES) {
    return { error: `the annotation is longer than ${MAX_ANNOTATION_BYTES} bytes` };
  }
  let doc: JsonNode;
  try {
    doc = readJson(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) return { error: `not valid JSON: ${e.message}` };
    throw e;
  }
  if (doc.t === "null") return { rules: [] };
  if (doc.t !== "array") return { error: `must be a JSON array of rules, not ${goType(doc)}` };
  if (doc.items.length > MAX_RULES) return { error: `has ${doc.items.length} rules; at most ${MAX_RULES} are allowed` };
  const rules: Rule[] = [];
  const firstByName = new Map<string, number>();
  try {
    doc.items.forEach((item, index) => {
      const d = decodeRule(item, index);
      const first = firstByName.get(d.name);
      if (first === undefined) firstByName.set(d.name, index);
      const rule: Rule = {
        index,
        type: d.type,
        name: d.name,
        message: d.message,
        justWarning: d.justWarning,
        regex: d.regex,
        ...(d.path !== undefined && { path: d.path }),
        ...(d.valid !== undefined && { valid: d.valid }),
        ...(d.values !== undefined && { values: d.values }),
        ...(d.min !== undefined && { min: d.min }),
        ...(d.max !== undefined && { max: d.max }),
        ...(d.minLength !== undefined && { minLength: d.minLength }),
        ...(d.maxLength !== undefined && { maxLength: d.maxLength }),
        ...(d.type === "regex" && { compiledRegex: compileRegex(d.regex) }),
        ...(first !== undefined && { duplicateOf: first }),
      };
      rules.push(rule);
    });
  } catch (e) {
    if (e instanceof AnnotationError) return { error: e.message };
    throw e;
  }
  return { rules };
}

/** How a rule is named in messages: `rule "name"`, or `rule #3` when it has no name. */
export function ruleLabel(rule: Pick<Rule, "name" | "index">): string {
  return rule.name === "" ? `rule #${rule.index}` : `rule ${JSON.stringify(rule.name)}`;
}

/** Whether a rule type is one the format defines. */
export function isKnownType(type: string): type is RuleType {
  return (RULE_TYPES as readonly string[]).includes(type);
}
