/**
 * The validators of the `+k8s:` tags, each with the error type, detail, bad value and origin that
 * k8s.io/apimachinery/pkg/api/validate gives (spec/declarative-validation-behaviour.md section 5).
 */
import type { FieldErrorType } from "../field/error.js";
import { childOf, indexOf, keyOf, type Path } from "../field/path.js";
import { goQuote } from "../go/strconv.js";
import { isMapping } from "../objects/mapping.js";
import { FORMATS } from "./content.js";
import type { GoType, StructField } from "./go-types.js";
import { compareNumbers, fieldRaw, goEqual, isSet, isZero, lengthOf, view } from "./values.js";
import {
  correlate,
  forEachElement,
  type Group,
  type Issue,
  type Level,
  type ListSem,
  listMatch,
  NO_VALUE,
  runList,
  runListFailed,
  type Validator,
  type VList,
} from "./walk.js";

function issue(
  type: FieldErrorType,
  path: Path | null,
  value: unknown,
  detail: string,
  origin: string | undefined,
  rule: string,
): Issue {
  return { type, path, value, detail, origin, level: "standard", rule };
}

function plural(n: bigint | number, one: string, many: string): string {
  return `${n} ${BigInt(n) === 1n ? one : many}`;
}

function numeric(v: unknown): v is number | bigint {
  return typeof v === "number" || typeof v === "bigint";
}

/** +k8s:required (value kinds: not zero; pointers: not nil; lists and maps: not empty). */
export function required(t: GoType, rule: string): Validator {
  return {
    sc: true,
    rule,
    check(_r, path, v, _ov, out) {
      if (isSet(t, v)) return false;
      out.push(issue("FieldValueRequired", path, NO_VALUE, "", undefined, rule));
      return true;
    },
  };
}

/** +k8s:optional: the same predicate as required, failing silently (it only stops the field). */
export function optional(t: GoType, rule: string): Validator {
  return { sc: true, rule, check: (_r, _path, v) => !isSet(t, v) };
}

/** +k8s:forbidden: an error when set, a silent stop when unset. */
export function forbidden(t: GoType, rule: string): Validator {
  return {
    sc: true,
    rule,
    check(_r, path, v, _ov, out) {
      if (isSet(t, v)) out.push(issue("FieldValueForbidden", path, NO_VALUE, "", undefined, rule));
      return true;
    },
  };
}

export function minimum(min: bigint, rule: string): Validator {
  return {
    sc: false,
    rule,
    check(_r, path, v, _ov, out) {
      if (!numeric(v) || compareNumbers(v, min) >= 0) return false;
      out.push(issue("FieldValueInvalid", path, v, `must be greater than or equal to ${min}`, "minimum", rule));
      return true;
    },
  };
}

export function maximum(max: bigint, rule: string): Validator {
  return {
    sc: false,
    rule,
    check(_r, path, v, _ov, out) {
      if (!numeric(v) || compareNumbers(v, max) <= 0) return false;
      out.push(issue("FieldValueInvalid", path, v, `must be less than or equal to ${max}`, "maximum", rule));
      return true;
    },
  };
}

/** +k8s:neq: strings are shown Go-quoted, numbers and booleans bare (content.NEQError). */
export function neq(disallowed: string | bigint | boolean, rule: string): Validator {
  const text = typeof disallowed === "string" ? goQuote(disallowed) : String(disallowed);
  return {
    sc: false,
    rule,
    check(_r, path, v, _ov, out) {
      if (v === undefined) return false;
      const equal =
        typeof disallowed === "bigint" ? numeric(v) && compareNumbers(v, disallowed) === 0 : v === disallowed;
      if (!equal) return false;
      out.push(issue("FieldValueInvalid", path, v, `must not be equal to ${text}`, "neq", rule));
      return true;
    },
  };
}

function runeCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export function minLength(min: bigint, rule: string): Validator {
  return {
    sc: false,
    rule,
    check(_r, path, v, _ov, out) {
      if (typeof v !== "string" || BigInt(runeCount(v)) >= min) return false;
      const detail = `must be at least ${plural(min, "character", "characters")}`;
      out.push(issue("FieldValueTooShort", path, NO_VALUE, detail, "minLength", rule));
      return true;
    },
  };
}

export function maxLength(max: bigint, rule: string): Validator {
  return {
    sc: false,
    rule,
    check(_r, path, v, _ov, out) {
      if (typeof v !== "string" || BigInt(runeCount(v)) <= max) return false;
      const detail = `may not be more than ${plural(max, "character", "characters")}`;
      out.push(issue("FieldValueTooLong", path, NO_VALUE, detail, "maxLength", rule));
      return true;
    },
  };
}

export function maxBytes(max: bigint, rule: string): Validator {
  return {
    sc: false,
    rule,
    check(_r, path, v, _ov, out) {
      if (typeof v !== "string" || BigInt(Buffer.byteLength(v, "utf8")) <= max) return false;
      out.push(
        issue(
          "FieldValueTooLong",
          path,
          NO_VALUE,
          `may not be more than ${plural(max, "byte", "bytes")}`,
          "maxBytes",
          rule,
        ),
      );
      return true;
    },
  };
}

/** +k8s:format=<name>: every problem is one error, origin `format=<name>`. */
export function format(name: string, rule: string): Validator | undefined {
  const fn = FORMATS[name];
  if (fn === undefined) return undefined;
  const origin = `format=${name}`;
  return {
    sc: false,
    rule,
    check(_r, path, v, _ov, out) {
      if (typeof v !== "string") return false;
      const problems = fn(v);
      for (const p of problems) {
        if (p.kind === "tooLong")
          out.push(
            issue(
              "FieldValueTooLong",
              path,
              NO_VALUE,
              `may not be more than ${plural(p.max, "byte", "bytes")}`,
              origin,
              rule,
            ),
          );
        else out.push(issue("FieldValueInvalid", path, p.value, p.detail, origin, rule));
      }
      return problems.length > 0;
    },
  };
}

/** One member of an enum: excluded always, or while an option is on (ifEnabled) / off (ifDisabled). */
export interface EnumMember {
  value: string;
  excluded: boolean;
  excludeWhen: { option: string; enabled: boolean }[];
}

/** +k8s:enum: the value must be a member not excluded under the current options; NotSupported otherwise. */
export function enumeration(members: EnumMember[], rule: string): Validator {
  const gated = members.some((m) => m.excludeWhen.length > 0);
  const fixed = gated ? undefined : allowedValues(members, {});
  return {
    sc: false,
    rule,
    check(r, path, v, _ov, out) {
      if (typeof v !== "string") return false;
      const allowed = fixed ?? allowedValues(members, r.gates);
      if (allowed.includes(v)) return false;
      const detail = allowed.length > 0 ? `supported values: ${allowed.map(goQuote).join(", ")}` : "";
      out.push(issue("FieldValueNotSupported", path, v, detail, undefined, rule));
      return true;
    },
  };
}

function allowedValues(members: EnumMember[], gates: Readonly<Record<string, boolean>>): string[] {
  const out = new Set<string>();
  for (const m of members) {
    if (m.excluded) continue;
    if (m.excludeWhen.some((w) => (gates[w.option] === true) === w.enabled)) continue;
    out.add(m.value);
  }
  return [...out].sort();
}

export function minItems(min: bigint, origin: "minItems" | "minProperties", rule: string): Validator {
  return {
    sc: false,
    rule,
    check(_r, path, v, _ov, out) {
      const n = lengthOf(v);
      if (BigInt(n) >= min) return false;
      out.push(issue("FieldValueTooFew", path, n, `must have at least ${plural(min, "item", "items")}`, origin, rule));
      return true;
    },
  };
}

/** +k8s:maxItems / +k8s:maxProperties: short-circuit (spec section 6). */
export function maxItems(max: bigint, origin: "maxItems" | "maxProperties", rule: string): Validator {
  return {
    sc: true,
    rule,
    check(_r, path, v, _ov, out) {
      const n = lengthOf(v);
      if (BigInt(n) <= max) return false;
      out.push(issue("FieldValueTooMany", path, n, `must have at most ${plural(max, "item", "items")}`, origin, rule));
      return true;
    },
  };
}

/** Uniqueness of a set or list-map: every later duplicate index once, ascending; badValue the element. */
export function unique(sem: ListSem, rule: string): Validator {
  return {
    sc: false,
    rule,
    check(_r, path, v, _ov, out) {
      if (!Array.isArray(v) || v.length < 2) return false;
      const views = v.map((e) => view(sem.elem, e));
      const dups = new Set<number>();
      for (let i = 0; i < views.length; i++) {
        if (views[i] === undefined) continue;
        for (let j = i + 1; j < views.length; j++) {
          if (views[j] === undefined || dups.has(j)) continue;
          if (listMatch(sem, views[i], views[j])) dups.add(j);
        }
      }
      for (const j of [...dups].sort((a, b) => a - b))
        out.push(issue("FieldValueDuplicate", indexOf(path, j), v[j], "", undefined, rule));
      return dups.size > 0;
    },
  };
}

/** The implicit check of a list of pointers: every nil entry is Required at its index (short-circuit). */
export function nilEntries(rule: string): Validator {
  return {
    sc: true,
    rule,
    check(_r, path, v, _ov, out) {
      if (!Array.isArray(v)) return false;
      let failed = false;
      v.forEach((e, i) => {
        if (e !== null && e !== undefined) return;
        out.push(issue("FieldValueRequired", indexOf(path, i), NO_VALUE, "", undefined, rule));
        failed = true;
      });
      return failed;
    },
  };
}

/** +k8s:eachVal (lists and maps) and +k8s:eachKey (maps, errors at the map's path). */
export function each(
  kind: "list" | "mapValues" | "mapKeys",
  elem: GoType,
  sem: ListSem | undefined,
  inner: VList,
  rule: string,
): Validator {
  return {
    sc: inner.sc.length > 0,
    rule,
    check(r, path, v, ov, out) {
      return forEachElement(r, kind, elem, sem, path, v, ov, (p, ev, oev) => runListFailed(r, inner, p, ev, oev, out));
    },
  };
}

/** +k8s:immutable: on UPDATE, any change ratcheting lets through (including from or to unset) is an error. */
export function immutable(t: GoType, rule: string): Validator {
  return {
    sc: true,
    rule,
    check(r, path, v, ov, out) {
      if (!r.update) return false;
      if (v === undefined && ov === undefined) return false;
      if (v !== undefined && ov !== undefined && goEqual(t, v, ov)) return false;
      out.push(issue("FieldValueInvalid", path, null, "field is immutable", "immutable", rule));
      return true;
    },
  };
}

export type UpdateConstraint = "NoSet" | "NoUnset" | "NoModify" | "NoAddItem" | "NoRemoveItem";

/**
 * +k8s:update=<constraint> (all constraints of a scope merged into one short-circuit validator). Without a
 * correlated old value, value kinds and non-pointer structs are not checked; pointers, lists and maps see "unset".
 */
export function update(t: GoType, constraints: UpdateConstraint[], sem: ListSem | undefined, rule: string): Validator {
  const u = t.t === "named" ? t.named.underlying() : t;
  return {
    sc: true,
    rule,
    check(r, path, v, ov, out) {
      if (!r.update) return false;
      const before = out.length;
      const invalid = (detail: string) => out.push(issue("FieldValueInvalid", path, null, detail, "update", rule));
      if (u.t === "pointer") {
        for (const c of constraints) {
          if (c === "NoSet" && ov === undefined && v !== undefined) invalid("field cannot be set once created");
          if (c === "NoUnset" && ov !== undefined && v === undefined) invalid("field cannot be cleared once set");
          if (c === "NoModify" && ov !== undefined && v !== undefined) invalid("field cannot be modified once set");
        }
      } else if (u.t === "slice" || u.t === "map") {
        const oldLen = lengthOf(ov);
        const newLen = lengthOf(v);
        for (const c of constraints) {
          if (c === "NoSet" && oldLen === 0 && newLen > 0) invalid("field cannot be set once created");
          if (c === "NoUnset" && oldLen > 0 && newLen === 0) invalid("field cannot be cleared once set");
          if (c === "NoAddItem" || c === "NoRemoveItem") {
            const detail = c === "NoAddItem" ? "item may not be added" : "item may not be removed";
            if (u.t === "map") {
              const [from, to] = c === "NoAddItem" ? [v, ov] : [ov, v];
              if (!isMapping(from)) continue;
              const other = isMapping(to) ? to : {};
              for (const k of Object.keys(from))
                if (!Object.hasOwn(other, k))
                  out.push(issue("FieldValueForbidden", keyOf(path, k), NO_VALUE, detail, "update", rule));
            } else if (sem !== undefined) {
              const [from, to] = c === "NoAddItem" ? [v, ov] : [ov, v];
              if (!Array.isArray(from)) continue;
              from.forEach((raw, i) => {
                const e = view(sem.elem, raw);
                if (e === undefined || correlate(sem, to, e) !== undefined) return;
                const at = c === "NoAddItem" ? indexOf(path, i) : path;
                out.push(issue("FieldValueForbidden", at, NO_VALUE, detail, "update", rule));
              });
            }
          }
        }
      } else if (u.t === "struct") {
        if (ov === undefined) return false;
        if (constraints.includes("NoModify")) invalid("field cannot be modified once set");
      } else {
        if (ov === undefined) return false;
        const oldZero = isZero(t, ov);
        const newZero = isZero(t, v);
        for (const c of constraints) {
          if (c === "NoSet" && oldZero && !newZero) invalid("field cannot be set once created");
          if (c === "NoUnset" && !oldZero && newZero) invalid("field cannot be cleared once set");
          if (c === "NoModify" && !oldZero && !newZero) invalid("field cannot be modified once set");
        }
      }
      return out.length > before;
    },
  };
}

/** +k8s:monotonic (alpha, master only): on UPDATE with both values set, the value may not decrease. */
export function monotonic(rule: string): Validator {
  return {
    sc: false,
    rule,
    check(r, path, v, ov, out) {
      if (!r.update || !numeric(v) || !numeric(ov) || compareNumbers(v, ov) >= 0) return false;
      out.push(issue("FieldValueInvalid", path, v, `may not be decreased from ${ov}`, "monotonic", rule));
      return true;
    },
  };
}

/** +k8s:validateFalse (a test fixture): `forced failure: <msg>`, optionally short-circuit or non-error. */
export function validateFalse(msg: string, shortCircuit: boolean, nonError: boolean, rule: string): Validator {
  return {
    sc: shortCircuit,
    rule,
    check(_r, path, _v, _ov, out) {
      if (!nonError) out.push(issue("FieldValueInvalid", path, null, `forced failure: ${msg}`, "validateFalse", rule));
      return true;
    },
  };
}

/** +k8s:validateTrue (a test fixture): never fails. */
export function validateTrue(shortCircuit: boolean, rule: string): Validator {
  return { sc: shortCircuit, rule, check: () => false };
}

/** +k8s:ifEnabled(Option) / +k8s:ifDisabled(Option): runs the payload only while the option is on / off. */
export function ifOption(option: string, enabled: boolean, inner: Validator, rule: string): Validator {
  return {
    sc: inner.sc,
    rule,
    check(r, path, v, ov, out) {
      if ((r.gates[option] === true) !== enabled) return false;
      return inner.check(r, path, v, ov, out);
    },
  };
}

/** +k8s:alpha / +k8s:beta: marks every error of the payload with the lifecycle level; flags are unchanged. */
export function withLevel(level: Level, inner: Validator): Validator {
  if (level === "standard") return inner;
  return {
    sc: inner.sc,
    rule: inner.rule,
    check(r, path, v, ov, out) {
      const start = out.length;
      const failed = inner.check(r, path, v, ov, out);
      for (let i = start; i < out.length; i++) {
        const it = out[i]!;
        if (it.level === "standard") it.level = level;
      }
      return failed;
    },
  };
}

/** A group run with a lifecycle level (an item or subfield group inside +k8s:alpha / +k8s:beta). */
export function groupWithLevel(level: Level, g: Group): Group {
  if (level === "standard") return g;
  return (r, path, v, ov, out) => {
    const start = out.length;
    g(r, path, v, ov, out);
    for (let i = start; i < out.length; i++) if (out[i]!.level === "standard") out[i]!.level = level;
  };
}

/**
 * +k8s:subfield(name)=...: the payload runs on one field of the struct at `path.name`. The sub-field's own
 * short-circuit validators guard it silently; an unchanged sub-field is skipped on UPDATE.
 */
export function subfieldGroup(field: StructField, guards: Validator[], payload: VList, groups: Group[]): Group {
  return (r, path, v, ov, out) => {
    if (!isMapping(v)) return;
    const sub = view(field.type, fieldRaw(field, v));
    const old = isMapping(ov) ? view(field.type, fieldRaw(field, ov)) : undefined;
    if (isMapping(ov) && r.update && goEqual(field.type, sub, old)) return;
    const p = field.inline ? path : childOf(path, field.jsonName);
    const scratch: Issue[] = [];
    for (const g of guards) if (g.check(r, p, sub, old, scratch)) return;
    if (runList(r, payload, p, sub, old, out)) return;
    for (const g of groups) g(r, p, sub, old, out);
  };
}

/** +k8s:item(k: v, ...)=...: the payload runs on the first element whose keys match, at `path[index]`. */
export function itemGroup(sem: ListSem, matches: (e: unknown) => boolean, payload: VList, groups: Group[]): Group {
  return (r, path, v, ov, out) => {
    if (!Array.isArray(v)) return;
    let index = -1;
    let elem: unknown;
    for (let i = 0; i < v.length; i++) {
      const e = view(sem.elem, v[i]);
      if (e !== undefined && matches(e)) {
        index = i;
        elem = e;
        break;
      }
    }
    if (index === -1) return;
    let old: unknown;
    if (Array.isArray(ov)) {
      for (const raw of ov) {
        const e = view(sem.elem, raw);
        if (e !== undefined && matches(e)) {
          old = e;
          break;
        }
      }
    }
    if (r.update && old !== undefined && goEqual(sem.elem, elem, old)) return;
    const p = indexOf(path, index);
    if (runList(r, payload, p, elem, old, out)) return;
    for (const g of groups) g(r, p, elem, old, out);
  };
}

/** A member of a union over struct fields or over list items. */
export interface UnionMember {
  /** The name in messages: the JSON field name, or `list[{"key": "value"}]` for a list item. */
  name: string;
  /** The discriminator value that selects this member. */
  discriminatorValue: string;
  isSet(structOrList: unknown): boolean;
  /** For struct members: the member's own path (discriminated unions report there). */
  field?: StructField;
}

export interface UnionSpec {
  kind: "union" | "zeroOrOneOf";
  members: UnionMember[];
  discriminator: { field: StructField } | undefined;
  rule: string;
}

/**
 * validate.Union / DiscriminatedUnion / ZeroOrOneOfUnion at the struct (or list) path, origin `union` or
 * `zeroOrOneOf`. On UPDATE nothing is reported when the discriminator and the set-ness of every member are
 * unchanged.
 */
export function union(spec: UnionSpec): Validator {
  const all = spec.members.map((m) => `\`${m.name}\``).join(", ");
  const origin = spec.kind;
  const rule = spec.rule;
  const disc = spec.discriminator;
  const discValue = (s: unknown): string => {
    if (disc === undefined || !isMapping(s)) return "";
    const d = view(disc.field.type, fieldRaw(disc.field, s));
    return typeof d === "string" ? d : d === undefined ? "" : String(d);
  };
  return {
    sc: false,
    rule,
    check(r, path, v, ov, out) {
      const newSet = spec.members.map((m) => m.isSet(v));
      let changed = false;
      if (r.update) {
        changed = discValue(v) !== discValue(ov) || spec.members.some((m, i) => m.isSet(ov) !== newSet[i]);
        if (!changed) return false;
      }
      const before = out.length;
      if (disc !== undefined) {
        const current = discValue(v);
        const discName = disc.field.jsonName;
        spec.members.forEach((m, i) => {
          const selected = current === m.discriminatorValue;
          const p = m.field === undefined ? path : childOf(path, m.field.jsonName);
          if (newSet[i] && !selected)
            out.push(
              issue(
                "FieldValueInvalid",
                p,
                "",
                `may only be specified when \`${discName}\` is ${goQuote(m.discriminatorValue)}`,
                origin,
                rule,
              ),
            );
          else if (!newSet[i] && selected)
            out.push(
              issue(
                "FieldValueInvalid",
                p,
                "",
                `must be specified when \`${discName}\` is ${goQuote(current)}`,
                origin,
                rule,
              ),
            );
        });
        return out.length > before;
      }
      const specified = spec.members.filter((_, i) => newSet[i]).map((m) => m.name);
      if (specified.length > 1) {
        const what = spec.kind === "union" ? "must specify exactly one of" : "must specify at most one of";
        out.push(issue("FieldValueInvalid", path, `{${specified.join(", ")}}`, `${what}: ${all}`, origin, rule));
      } else if (specified.length === 0 && spec.kind === "union") {
        out.push(issue("FieldValueInvalid", path, "", `must specify one of: ${all}`, origin, rule));
      }
      return out.length > before;
    },
  };
}

/** One member field of a mode discriminator group: rules per mode value, implicit Forbidden otherwise. */
export interface ModeMemberSpec {
  discriminator: StructField;
  member: StructField;
  rules: Map<string, { list: VList; groups: Group[] }>;
  defaultLevel: Level;
  rule: string;
}

/** validate.Modal: the rules of the current mode, or Forbidden when no rule names it (origin none). */
export function modeMember(spec: ModeMemberSpec): Validator {
  const m = spec.member;
  const d = spec.discriminator;
  const text = (s: Record<string, unknown>): string => {
    const x = view(d.type, fieldRaw(d, s));
    return typeof x === "string" ? x : String(x);
  };
  return {
    sc: false,
    rule: spec.rule,
    check(r, path, v, ov, out) {
      if (!isMapping(v)) return false;
      const value = view(m.type, fieldRaw(m, v));
      const old = isMapping(ov) ? ov : undefined;
      const oldValue = old === undefined ? undefined : view(m.type, fieldRaw(m, old));
      const mode = text(v);
      if (r.update && old !== undefined && mode === text(old) && goEqual(m.type, value, oldValue)) return false;
      const p = m.inline ? path : childOf(path, m.jsonName);
      const before = out.length;
      const rules = spec.rules.get(mode);
      if (rules !== undefined) {
        if (!runList(r, rules.list, p, value, oldValue, out))
          for (const g of rules.groups) g(r, p, value, oldValue, out);
      } else if (isSet(m.type, value)) {
        const it = issue("FieldValueForbidden", p, NO_VALUE, "", undefined, spec.rule);
        it.level = spec.defaultLevel;
        out.push(it);
      }
      return out.length > before;
    },
  };
}

/** +k8s:dependentRequired / +k8s:dependentForbidden (alpha, master only). */
export function dependent(
  kind: "dependentRequired" | "dependentForbidden",
  self: StructField,
  sibling: StructField,
  rule: string,
): Validator {
  return {
    sc: false,
    rule,
    check(r, path, v, ov, out) {
      if (!isMapping(v)) return false;
      const selfSet = isSet(self.type, view(self.type, fieldRaw(self, v)));
      const sibSet = isSet(sibling.type, view(sibling.type, fieldRaw(sibling, v)));
      if (r.update && isMapping(ov)) {
        const oldSelf = isSet(self.type, view(self.type, fieldRaw(self, ov)));
        const oldSib = isSet(sibling.type, view(sibling.type, fieldRaw(sibling, ov)));
        if (oldSelf === selfSet && oldSib === sibSet) return false;
      }
      if (!selfSet) return false;
      const p = childOf(path, sibling.jsonName);
      if (kind === "dependentRequired" && !sibSet) {
        out.push(issue("FieldValueRequired", p, NO_VALUE, `must be set when ${self.jsonName} is set`, kind, rule));
        return true;
      }
      if (kind === "dependentForbidden" && sibSet) {
        out.push(issue("FieldValueForbidden", p, NO_VALUE, `may not be set when ${self.jsonName} is set`, kind, rule));
        return true;
      }
      return false;
    },
  };
}
