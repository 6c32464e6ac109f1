/**
 * Counts for the CRD compile benchmark, read from the CRD YAML independently of lib/: CRDs, served versions,
 * CEL rules (x-kubernetes-validations entries in served versions, the count perf-anchors.md and
 * crds/INVENTORY.md use: 2,544 for the corpus, 218 for HTTPRoute) and OpenAPI value validations in served
 * versions (maxLength, minLength, pattern, maximum, minimum, multipleOf, enum, format, maxItems, minItems,
 * uniqueItems, maxProperties, minProperties, required, allOf, anyOf, oneOf, not, and list types set/map).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { parseAllDocuments } from "yaml";

export interface CrdFile {
  /** Relative to `<corpus>/crds/`, forward slashes. */
  path: string;
  content: string;
}

export interface CrdCounts {
  files: number;
  bytes: number;
  crds: number;
  servedVersions: number;
  celRules: number;
  valueValidations: number;
  /** Time spent parsing the YAML with the `yaml` package to count (one cold pass), ms. */
  yamlParseMs: number;
  /** The same documents as JSON text, one string per file (the compile baseline parses these). */
  jsonTexts: string[];
}

/** Every `.yaml` under `<corpus>/crds/` except `openshift-api/variants/` (the set crds/INVENTORY.md counts). */
export function listInventoryCrdFiles(corpusRoot: string): CrdFile[] {
  const root = join(corpusRoot, "crds");
  const out: CrdFile[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      const rel = relative(root, full).split(sep).join("/");
      if (statSync(full).isDirectory()) {
        if (rel !== "openshift-api/variants") walk(full);
      } else if (name.endsWith(".yaml")) {
        out.push({ path: rel, content: readFileSync(full, "utf8") });
      }
    }
  };
  walk(root);
  return out;
}

type Json = Record<string, unknown>;

const VALUE_KEYWORDS = [
  "maxLength",
  "minLength",
  "pattern",
  "maximum",
  "minimum",
  "multipleOf",
  "enum",
  "format",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxProperties",
  "minProperties",
  "required",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
];

export function countCrds(files: readonly CrdFile[]): CrdCounts {
  const counts: CrdCounts = {
    files: files.length,
    bytes: 0,
    crds: 0,
    servedVersions: 0,
    celRules: 0,
    valueValidations: 0,
    yamlParseMs: 0,
    jsonTexts: [],
  };
  for (const f of files) {
    counts.bytes += Buffer.byteLength(f.content);
    const t0 = performance.now();
    const docs = parseAllDocuments(f.content).map((d) => d.toJS() as unknown);
    counts.yamlParseMs += performance.now() - t0;
    counts.jsonTexts.push(JSON.stringify(docs));
    for (const doc of docs) {
      if (!isRecord(doc) || doc.kind !== "CustomResourceDefinition") continue;
      counts.crds++;
      const spec = isRecord(doc.spec) ? doc.spec : {};
      for (const v of Array.isArray(spec.versions) ? spec.versions : []) {
        if (!isRecord(v) || v.served !== true) continue;
        counts.servedVersions++;
        walkSchema(isRecord(v.schema) ? v.schema.openAPIV3Schema : undefined, counts);
      }
    }
  }
  return counts;
}

function walkSchema(node: unknown, counts: CrdCounts): void {
  if (!isRecord(node)) return;
  for (const k of VALUE_KEYWORDS) if (node[k] !== undefined) counts.valueValidations++;
  const listType = node["x-kubernetes-list-type"];
  if (listType === "set" || listType === "map") counts.valueValidations++;
  const rules = node["x-kubernetes-validations"];
  if (Array.isArray(rules)) counts.celRules += rules.length;
  if (isRecord(node.properties)) for (const p of Object.values(node.properties)) walkSchema(p, counts);
  walkSchema(node.items, counts);
  walkSchema(node.additionalProperties, counts);
  walkSchema(node.not, counts);
  for (const k of ["allOf", "anyOf", "oneOf"]) {
    const list = node[k];
    if (Array.isArray(list)) for (const s of list) walkSchema(s, counts);
  }
}

function isRecord(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
