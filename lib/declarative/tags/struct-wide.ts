/**
 * Struct-wide tags: written on fields, they make one rule for the struct that holds the fields. Unions
 * (`+k8s:unionMember`, `+k8s:unionDiscriminator`: exactly one member set, or the one the discriminator names),
 * `+k8s:zeroOrOneOfMember` (at most one set), modes (`+k8s:modeDiscriminator` / `+k8s:discriminator` and the
 * per-mode rules `+k8s:ifMode` / `+k8s:member` of other fields) and dependent fields (`+k8s:dependentRequired`,
 * `+k8s:dependentForbidden`). StructWide collects them over the fields of one struct, then builds the
 * validators (spec/declarative-validation-behaviour.md section 9).
 */
import { isMapping } from "../../objects/mapping.js";
import type { StructField, StructType } from "../go-types.js";
import * as V from "../validators.js";
import { fieldRaw, isSet, view } from "../values.js";
import type { Group, Level, Validator, VList } from "../walk.js";
import {
  baseOf,
  findField,
  IDENTITY,
  isBoolKind,
  isIntKind,
  isStringKind,
  listOf,
  positional,
  type Scope,
  ScopeAcc,
  shortName,
  stringArg,
  type TagHost,
  type TagTable,
  type Unit,
} from "./context.js";
import type { Tag } from "./syntax.js";

/** One struct-wide tag on one field. */
export interface MemberCall {
  wide: StructWide;
  field: StructField;
  /** The tag after its lifecycle prefix. */
  tag: Tag;
  /** Its name without `k8s:`. */
  name: string;
  level: Level;
  /** The tag as written. */
  outer: Tag;
  problem(message: string): void;
}

interface UnionParts {
  members: { f: StructField; name: string; level: Level; rule: string }[];
  disc?: StructField;
  discLevel?: Level;
}

/** Per-mode tags of one field: by modality, then by mode value. */
type ModeRules = Map<string, Map<string, { tags: { tag: Tag; level: Level }[]; rule: string }>>;

interface Dependent {
  kind: "dependentRequired" | "dependentForbidden";
  f: StructField;
  sibling: string;
  level: Level;
  rule: string;
}

/** The struct-wide tags of one struct's fields, and the validators they make. */
export class StructWide {
  readonly unions = new Map<string, UnionParts>();
  readonly zeroOrOne = new Map<string, { members: { f: StructField; level: Level; rule: string }[] }>();
  readonly modeDiscs = new Map<string, StructField>();
  readonly modeRules = new Map<StructField, ModeRules>();
  readonly dependents: Dependent[] = [];
  private readonly scopes = new Map<StructField, Scope>();

  constructor(
    private readonly host: TagHost,
    private readonly st: StructType,
    private readonly unit: Unit,
  ) {}

  /** Collects one struct-wide tag of field `f` (`scope` is the field's scope, where its per-mode rules compile). */
  add(member: (call: MemberCall) => void, f: StructField, tag: Tag, level: Level, outer: Tag, scope: Scope): void {
    this.scopes.set(f, scope);
    const problem = (message: string) => {
      const line = outer.line ?? f.at.line;
      this.unit.problems.push({
        severity: "error",
        file: f.at.file,
        line,
        rule: outer.text,
        message: `${outer.text}: ${message}`,
      });
    };
    member({ wide: this, field: f, tag, name: shortName(tag.name), level, outer, problem });
  }

  union(name: string): UnionParts {
    const u = this.unions.get(name) ?? { members: [] };
    this.unions.set(name, u);
    return u;
  }

  private structProblem(message: string, line = this.st.at.line, file = this.st.at.file): void {
    this.unit.problems.push({ severity: "error", file, line, message });
  }

  build(): VList {
    const out: Validator[] = [];
    this.buildUnions(out);
    this.buildZeroOrOne(out);
    this.buildModes(out);
    this.buildDependents(out);
    return listOf(out);
  }

  private buildUnions(out: Validator[]): void {
    for (const [name, u] of this.unions) {
      if (u.members.length === 0) {
        this.structProblem(`union ${JSON.stringify(name)} has a discriminator but no members`);
        continue;
      }
      const members: V.UnionMember[] = u.members.map((m) => ({
        name: m.f.jsonName,
        discriminatorValue: m.name,
        field: m.f,
        isSet: (s) => fieldIsSet(m.f, s),
      }));
      const level = u.discLevel ?? commonLevel(u.members.map((m) => m.level));
      const discriminator = u.disc ? { field: u.disc } : undefined;
      out.push(V.withLevel(level, V.union({ kind: "union", members, discriminator, rule: u.members[0]!.rule })));
    }
  }

  private buildZeroOrOne(out: Validator[]): void {
    for (const z of this.zeroOrOne.values()) {
      const members: V.UnionMember[] = z.members.map((m) => ({
        name: m.f.jsonName,
        discriminatorValue: m.f.goName,
        isSet: (s) => fieldIsSet(m.f, s),
      }));
      out.push(
        V.withLevel(
          commonLevel(z.members.map((m) => m.level)),
          V.union({ kind: "zeroOrOneOf", members, discriminator: undefined, rule: z.members[0]!.rule }),
        ),
      );
    }
  }

  /** Each field's per-mode rules compile at the field's scope, one rule set per mode value. */
  private buildModes(out: Validator[]): void {
    for (const [member, byModality] of this.modeRules) {
      for (const [modality, byValue] of byModality) {
        const disc = this.modeDiscs.get(modality);
        if (disc === undefined) {
          this.structProblem(
            `+k8s:ifMode on ${member.goName} names modality ${JSON.stringify(modality)}, which has no +k8s:modeDiscriminator`,
            member.at.line,
            member.at.file,
          );
          continue;
        }
        const scope = this.scopes.get(member)!;
        const rules = new Map<string, { list: VList; groups: Group[] }>();
        const levels: Level[] = [];
        let firstRule = "";
        for (const [value, entry] of byValue) {
          if (firstRule === "") firstRule = entry.rule;
          const acc = new ScopeAcc();
          for (const { tag, level } of entry.tags) {
            levels.push(level);
            const site = { scope: { ...scope }, acc, level, wrap: IDENTITY, nested: true, outer: entry.rule };
            this.host.compileTag(tag, site);
          }
          const res = acc.finish(scope);
          rules.set(value, { list: res.list, groups: res.groups });
        }
        out.push(
          V.modeMember({ discriminator: disc, member, rules, defaultLevel: commonLevel(levels), rule: firstRule }),
        );
      }
    }
  }

  private buildDependents(out: Validator[]): void {
    for (const d of this.dependents) {
      const sib = findField(this.st, d.sibling);
      if (sib === undefined) {
        this.structProblem(`${d.rule}: no sibling field ${JSON.stringify(d.sibling)}`, d.f.at.line, d.f.at.file);
        continue;
      }
      out.push(V.withLevel(d.level, V.dependent(d.kind, d.f, sib, d.rule)));
    }
  }
}

/** The level of a rule made of several tags: theirs when they agree, else standard. */
function commonLevel(levels: Level[]): Level {
  return levels.length > 0 && levels.every((l) => l === levels[0]) ? levels[0]! : "standard";
}

function fieldIsSet(f: StructField, s: unknown): boolean {
  return isMapping(s) && isSet(f.type, view(f.type, fieldRaw(f, s)));
}

function unionMember(call: MemberCall): void {
  const f = call.field;
  if (f.type.t !== "pointer" && baseOf(f.type).t === "struct") {
    call.problem("union members cannot be non-pointer structs");
    return;
  }
  const u = call.wide.union(stringArg(call.tag, "union") ?? "");
  u.members.push({ f, name: stringArg(call.tag, "memberName") ?? f.goName, level: call.level, rule: call.outer.text });
}

function unionDiscriminator(call: MemberCall): void {
  const f = call.field;
  if (!isStringKind(f.type) || f.type.t === "pointer") {
    call.problem("the discriminator must be a non-pointer string field");
    return;
  }
  const u = call.wide.union(stringArg(call.tag, "union") ?? "");
  if (u.disc !== undefined) {
    call.problem("the union already has a discriminator");
    return;
  }
  u.disc = f;
  u.discLevel = call.level;
}

function zeroOrOneOfMember(call: MemberCall): void {
  const name = stringArg(call.tag, "union") ?? "";
  const z = call.wide.zeroOrOne.get(name) ?? { members: [] };
  z.members.push({ f: call.field, level: call.level, rule: call.outer.text });
  call.wide.zeroOrOne.set(name, z);
}

/** +k8s:modeDiscriminator(modality: m) and its newer spelling +k8s:discriminator(name: m), which allows integers. */
function modeDiscriminator(call: MemberCall): void {
  const f = call.field;
  const newer = call.name === "discriminator";
  const modality = stringArg(call.tag, newer ? "name" : "modality") ?? "";
  if (f.type.t === "pointer" || !(isStringKind(f.type) || isBoolKind(f.type) || (newer && isIntKind(f.type)))) {
    call.problem("a mode discriminator must be a non-pointer string or bool field");
    return;
  }
  if (call.wide.modeDiscs.has(modality)) {
    call.problem(`a second discriminator for modality ${JSON.stringify(modality)}`);
    return;
  }
  call.wide.modeDiscs.set(modality, f);
}

/**
 * +k8s:ifMode(mode: v, modality: m)=<tag> and its newer spelling +k8s:member(value: v, discriminator: m)=<tag>;
 * a positional argument is the value, in the unnamed modality.
 */
function modeRule(call: MemberCall): void {
  const tag = call.tag;
  const newer = call.name === "member";
  const pos = positional(tag);
  const value =
    pos !== undefined
      ? pos.kind === "string"
        ? pos.value
        : String(pos.value)
      : stringArg(tag, newer ? "value" : "mode");
  const modality = pos !== undefined ? "" : (stringArg(tag, newer ? "discriminator" : "modality") ?? "");
  if (value === undefined) {
    call.problem("needs the mode value");
    return;
  }
  if (tag.value?.kind !== "tag") {
    call.problem("needs a +k8s: tag as its value");
    return;
  }
  const byModality: ModeRules = call.wide.modeRules.get(call.field) ?? new Map();
  const byValue = byModality.get(modality) ?? new Map();
  const entry = byValue.get(value) ?? { tags: [], rule: call.outer.text };
  entry.tags.push({ tag: tag.value.tag, level: call.level });
  byValue.set(value, entry);
  byModality.set(modality, byValue);
  call.wide.modeRules.set(call.field, byModality);
}

function dependent(call: MemberCall): void {
  const sib = positional(call.tag);
  if (sib === undefined || sib.kind !== "string") {
    call.problem("needs the JSON name of a sibling field");
    return;
  }
  const kind = call.name === "dependentRequired" ? "dependentRequired" : "dependentForbidden";
  call.wide.dependents.push({ kind, f: call.field, sibling: sib.value, level: call.level, rule: call.outer.text });
}

export const STRUCT_WIDE_TAGS: TagTable = {
  unionMember: { member: unionMember },
  unionDiscriminator: { member: unionDiscriminator },
  zeroOrOneOfMember: { member: zeroOrOneOfMember },
  modeDiscriminator: { member: modeDiscriminator },
  discriminator: { member: modeDiscriminator },
  ifMode: { member: modeRule },
  member: { member: modeRule },
  dependentRequired: { member: dependent },
  dependentForbidden: { member: dependent },
};
