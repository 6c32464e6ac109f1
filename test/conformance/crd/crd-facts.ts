/**
 * Facts about the CRD version a case uses, read straight from the CRD YAML (independently of lib/): whether it
 * has any `x-kubernetes-validations` rule, and the messages its rules produce. The tools that explain failures
 * use them to tell "needs CEL" apart from schema bugs. Not used by the test itself (YAML parsing is slow).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";

export interface CrdVersionFacts {
  /** False when the file holds no CRD for the object's group, kind and version (facts then cover every version). */
  found: boolean;
  /** The version (or, when not found, any version of the file) has at least one x-kubernetes-validations rule. */
  hasCelRules: boolean;
  /** Number of x-kubernetes-validations rules in that version's schema. */
  celRules: number;
  /** What a failing rule prints: `message`, or `failed rule: <rule>`, trimmed (ruleMessageOrDefault). */
  celMessages: string[];
  /** Some rule has a messageExpression, whose output cannot be predicted from the YAML. */
  hasMessageExpression: boolean;
}

export interface CrdFactsReader {
  factsFor(crd: string, object: unknown): CrdVersionFacts;
}

type Json = Record<string, unknown>;

export function createCrdFactsReader(corpusRoot: string): CrdFactsReader {
  const docsByFile = new Map<string, Json[]>();
  const factsByKey = new Map<string, CrdVersionFacts>();
  function crdsOf(crd: string): Json[] {
    let docs = docsByFile.get(crd);
    if (docs === undefined) {
      const text = readFileSync(join(corpusRoot, "crds", crd), "utf8");
      docs = parseAllDocuments(text)
        .map((d) => d.toJS() as unknown)
        .filter((d): d is Json => isRecord(d) && d.kind === "CustomResourceDefinition");
      docsByFile.set(crd, docs);
    }
    return docs;
  }
  return {
    factsFor(crd, object) {
      const o = isRecord(object) ? object : {};
      const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : "";
      const kind = typeof o.kind === "string" ? o.kind : "";
      const key = `${crd}\u0000${apiVersion}\u0000${kind}`;
      let facts = factsByKey.get(key);
      if (facts === undefined) {
        facts = computeFacts(crdsOf(crd), apiVersion, kind);
        factsByKey.set(key, facts);
      }
      return facts;
    },
  };
}

function computeFacts(crds: Json[], apiVersion: string, kind: string): CrdVersionFacts {
  const slash = apiVersion.lastIndexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const schemas: unknown[] = [];
  let found = false;
  for (const crd of crds) {
    const spec = isRecord(crd.spec) ? crd.spec : {};
    const names = isRecord(spec.names) ? spec.names : {};
    const matchesKind = spec.group === group && names.kind === kind;
    for (const v of Array.isArray(spec.versions) ? spec.versions : []) {
      if (!isRecord(v)) continue;
      const schema = isRecord(v.schema) ? v.schema.openAPIV3Schema : undefined;
      if (matchesKind && v.name === version) {
        found = true;
        schemas.length = 0;
        schemas.push(schema);
        break;
      }
      if (!found) schemas.push(schema);
    }
    if (found) break;
  }
  const facts: CrdVersionFacts = {
    found,
    hasCelRules: false,
    celRules: 0,
    celMessages: [],
    hasMessageExpression: false,
  };
  for (const s of schemas) collectRules(s, facts);
  facts.hasCelRules = facts.celRules > 0;
  return facts;
}

function collectRules(node: unknown, facts: CrdVersionFacts): void {
  if (Array.isArray(node)) {
    for (const n of node) collectRules(n, facts);
    return;
  }
  if (!isRecord(node)) return;
  for (const [k, v] of Object.entries(node)) {
    if (k === "x-kubernetes-validations" && Array.isArray(v)) {
      for (const rule of v) {
        if (!isRecord(rule)) continue;
        facts.celRules++;
        if (typeof rule.messageExpression === "string") facts.hasMessageExpression = true;
        const message = typeof rule.message === "string" ? rule.message.trim() : "";
        const text = typeof rule.rule === "string" ? rule.rule.trim() : "";
        facts.celMessages.push(message !== "" ? message : `failed rule: ${text}`);
      }
    } else if (k !== "default" && k !== "example" && k !== "enum") {
      collectRules(v, facts);
    }
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Texts only the CEL validator produces, whatever the rule. */
const CEL_ONLY_TEXTS = [
  "some validation rules were not checked because the object was invalid",
  "evaluating rule:",
  "call cost exceeds limit",
  "running out of cost budget",
  "Forbidden: no further validation rules will be run due to call cost exceeds limit",
];

/** Whether a cause message (or warning text) looks like the output of one of the version's CEL rules. */
export function isCelMessage(message: string, facts: CrdVersionFacts): boolean {
  if (CEL_ONLY_TEXTS.some((t) => message.includes(t))) return true;
  return facts.celMessages.some((m) => message.endsWith(m));
}
