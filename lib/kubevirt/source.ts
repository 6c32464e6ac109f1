/**
 * Where a VirtualMachine's rules come from, and what a Template holds (spec/kubevirt-validator-behaviour.md,
 * section 2, and one deliberate addition in step 5):
 *
 * 1. annotation `vm.kubevirt.io/skip-validations` present (any value; a label does nothing): no rules;
 * 2. `metadata.deletionTimestamp` set: no rules (the validator admits deleting VMs unevaluated);
 * 3. annotation `vm.kubevirt.io/validations` non-empty: those rules, and the template is not consulted;
 * 4. else the linked template: `vm.kubevirt.io/template` (name) and `vm.kubevirt.io/template.namespace` (or the
 *    older `vm.kubevirt.io/template-namespace`, used only when the new key is empty or absent in the same map),
 *    both from the labels when the labels have both, else both from the annotations; never mixed, and no namespace
 *    default (a name alone links nothing);
 * 5. the template's rules: its own `metadata.annotations.validations`; when it has none, the
 *    `vm.kubevirt.io/validations` annotation of its VirtualMachine in `objects[]` (where current common templates
 *    keep them; the real validator never reads it, so without this a VM of such a template would get no rules), with the template's parameter values
 *    substituted as template processing would.
 *
 * A Template without `metadata.namespace` is taken to be in `openshift`, where the SSP operator installs the common
 * templates (and the convention of the shared case corpus).
 */
import { isMapping } from "../objects/mapping.js";
import { isParseFailure, parseRules, type RuleSet } from "./annotation.js";
import { type LintProblem, lintRuleSet } from "./lint.js";

export const VALIDATIONS_ANNOTATION = "vm.kubevirt.io/validations";
const TEMPLATE_VALIDATIONS_ANNOTATION = "validations";
const SKIP_ANNOTATION = "vm.kubevirt.io/skip-validations";
const TEMPLATE_NAME_KEY = "vm.kubevirt.io/template";
const TEMPLATE_NAMESPACE_KEY = "vm.kubevirt.io/template.namespace";
const OLD_TEMPLATE_NAMESPACE_KEY = "vm.kubevirt.io/template-namespace";
/** Where a Template without a namespace is taken to live. */
const DEFAULT_TEMPLATE_NAMESPACE = "openshift";

/** Most distinct annotation texts a policy keeps parsed, and the longest text it keeps (16 MiB at most in all). */
const MAX_CACHED_RULE_SETS = 1024;
const MAX_CACHED_TEXT = 16 * 1024;

function stringMap(v: unknown): Record<string, unknown> {
  return isMapping(v) ? v : {};
}

export function isTemplateObject(obj: Record<string, unknown>): boolean {
  return (
    typeof obj.apiVersion === "string" && obj.apiVersion.startsWith("template.openshift.io/") && obj.kind === "Template"
  );
}

export function isVirtualMachineObject(obj: Record<string, unknown>): boolean {
  return (
    typeof obj.apiVersion === "string" && obj.apiVersion.startsWith("kubevirt.io/") && obj.kind === "VirtualMachine"
  );
}

/** `template.openshift.io/v1/Template`, the prefix of a template's PolicyFailure kinds. */
export function templateKind(): string {
  return "template.openshift.io/v1/Template";
}

/** `<namespace>/<name>` */
function templateKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** Parsed annotations by text: a pure memo, bounded, oldest entry out first. */
export interface RuleCache {
  parse(text: string): RuleSet;
}

export function createRuleCache(max = MAX_CACHED_RULE_SETS): RuleCache {
  const map = new Map<string, RuleSet>();
  return {
    parse(text) {
      const hit = map.get(text);
      if (hit !== undefined) return hit;
      const parsed = parseRules(text);
      if (text.length > MAX_CACHED_TEXT) return parsed;
      if (map.size >= max) map.delete(map.keys().next().value as string);
      map.set(text, parsed);
      return parsed;
    },
  };
}

/** The rules of an annotation value: absent or "" is none; a non-string value fails. */
function annotationRules(value: unknown, cache: RuleCache): RuleSet | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") return { error: "the annotation value must be a string" };
  return cache.parse(value);
}

/** A Template's parameters that have a value (`parameters[].name` → `value`). */
function parameterValues(parameters: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!Array.isArray(parameters)) return out;
  for (const p of parameters) {
    if (isMapping(p) && typeof p.name === "string" && typeof p.value === "string") out.set(p.name, p.value);
  }
  return out;
}

/** `${{NAME}}` (the value as JSON, in template processing) or `${NAME}`; in a string both become the value. */
const PARAMETER_REFERENCE = /\$\{\{([A-Za-z0-9_]+)\}\}|\$\{([A-Za-z0-9_]+)\}/g;

/**
 * Template processing substitutes `${NAME}` and `${{NAME}}` in the objects' strings before the VM exists, so the
 * rules a VM gets from `objects[]` are the substituted text. Parameters without a value (generated or required
 * ones) are left as they are.
 */
function substitute(text: string, params: ReadonlyMap<string, string>): string {
  if (params.size === 0 || !text.includes("$")) return text;
  return text.replace(PARAMETER_REFERENCE, (m, a: string | undefined, b: string | undefined) => {
    return params.get((a ?? b)!) ?? m;
  });
}

/** One linted annotation of a document. */
export interface LintedAnnotation {
  /** The field that holds it: `metadata.annotations[validations]`, `objects[0].metadata.annotations[...]`. */
  readonly path: string;
  readonly problems: readonly LintProblem[];
}

/** A Template (or a VirtualMachine of the bundle) with its rules and lint. */
export interface TemplateEntry {
  /** `<namespace>/<name>`. */
  readonly key: string;
  readonly kindName: "Template" | "VirtualMachine";
  /** The rules VMs linked to it get; undefined when it has none. */
  readonly rules?: RuleSet;
  /** Where those rules are. */
  readonly rulesPath?: string;
  readonly lint: readonly LintedAnnotation[];
}

/**
 * The entry of a Template, or with `kindName` "VirtualMachine" of a VM of the bundle (its own rules, for lint).
 * Undefined without a name.
 */
export function templateEntry(
  obj: Record<string, unknown>,
  cache: RuleCache,
  kindName: "Template" | "VirtualMachine" = "Template",
): TemplateEntry | undefined {
  const meta = stringMap(obj.metadata);
  if (typeof meta.name !== "string" || meta.name === "") return undefined;
  const ns = typeof meta.namespace === "string" && meta.namespace !== "" ? meta.namespace : undefined;
  const annotations = stringMap(meta.annotations);
  const lint: LintedAnnotation[] = [];
  if (kindName === "VirtualMachine") {
    const path = `metadata.annotations[${VALIDATIONS_ANNOTATION}]`;
    const rules = annotationRules(annotations[VALIDATIONS_ANNOTATION], cache);
    if (rules !== undefined) lint.push({ path, problems: lintRuleSet(rules) });
    return {
      key: ns === undefined ? meta.name : templateKey(ns, meta.name),
      kindName,
      lint,
      ...(rules && { rules, rulesPath: path }),
    };
  }

  let rules: RuleSet | undefined;
  let rulesPath: string | undefined;
  const own = annotationRules(annotations[TEMPLATE_VALIDATIONS_ANNOTATION], cache);
  if (own !== undefined) {
    rulesPath = `metadata.annotations[${TEMPLATE_VALIDATIONS_ANNOTATION}]`;
    rules = own;
    lint.push({ path: rulesPath, problems: lintRuleSet(own) });
  }
  const objects = Array.isArray(obj.objects) ? obj.objects : [];
  const params = parameterValues(obj.parameters);
  objects.forEach((o: unknown, i: number) => {
    if (!isMapping(o) || !isVirtualMachineObject(o)) return;
    const text = stringMap(stringMap(o.metadata).annotations)[VALIDATIONS_ANNOTATION];
    const vmRulesSet = annotationRules(typeof text === "string" ? substitute(text, params) : text, cache);
    if (vmRulesSet === undefined) return;
    const path = `objects[${i}].metadata.annotations[${VALIDATIONS_ANNOTATION}]`;
    lint.push({ path, problems: lintRuleSet(vmRulesSet) });
    if (rules === undefined) {
      rules = vmRulesSet;
      rulesPath = path;
    }
  });
  const key = templateKey(ns ?? DEFAULT_TEMPLATE_NAMESPACE, meta.name);
  const entry: TemplateEntry = { key, kindName, lint };
  return rules === undefined ? entry : { ...entry, rules, rulesPath: rulesPath! };
}

/** Where a VM's rules come from. */
export type VmRules =
  | { readonly kind: "none" }
  | { readonly kind: "template-not-found"; readonly field: string; readonly key: string; readonly name: string }
  | { readonly kind: "template-ambiguous"; readonly field: string; readonly key: string }
  | {
      readonly kind: "rules";
      readonly rules: RuleSet;
      /** `source.policy` of the results: "vm-annotation" or "<namespace>/<template>". */
      readonly policy: string;
      /** The VM's field that holds (or links to) the rules. */
      readonly field: string;
      readonly fromTemplate: boolean;
      /** For template rules: where in the Template they are. */
      readonly annotationPath: string;
    };

interface Link {
  name: string;
  namespace: string;
  field: string;
}

/** The VM's link to its template (labels first, both keys from the same map; no namespace default). */
function templateLink(meta: Record<string, unknown>): Link | undefined {
  for (const which of ["labels", "annotations"] as const) {
    const m = stringMap(meta[which]);
    const name = m[TEMPLATE_NAME_KEY];
    let namespace = m[TEMPLATE_NAMESPACE_KEY];
    if (typeof namespace !== "string" || namespace === "") namespace = m[OLD_TEMPLATE_NAMESPACE_KEY];
    if (typeof name === "string" && name !== "" && typeof namespace === "string" && namespace !== "") {
      return { name, namespace, field: `metadata.${which}[${TEMPLATE_NAME_KEY}]` };
    }
  }
  return undefined;
}

/** Finds a VM's rules (see the module comment). */
export function vmRules(
  vm: Record<string, unknown>,
  templates: ReadonlyMap<string, TemplateEntry>,
  ambiguous: ReadonlySet<string>,
  cache: RuleCache,
): VmRules {
  const meta = stringMap(vm.metadata);
  const annotations = stringMap(meta.annotations);
  if (Object.hasOwn(annotations, SKIP_ANNOTATION)) return { kind: "none" };
  if (meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null) return { kind: "none" };
  const own = annotationRules(annotations[VALIDATIONS_ANNOTATION], cache);
  if (own !== undefined) {
    const field = `metadata.annotations[${VALIDATIONS_ANNOTATION}]`;
    return { kind: "rules", rules: own, policy: "vm-annotation", field, fromTemplate: false, annotationPath: field };
  }
  const link = templateLink(meta);
  if (link === undefined) return { kind: "none" };
  const key = templateKey(link.namespace, link.name);
  if (ambiguous.has(key)) return { kind: "template-ambiguous", field: link.field, key };
  const entry = templates.get(key);
  if (entry === undefined) return { kind: "template-not-found", field: link.field, key, name: link.name };
  if (entry.rules === undefined) return { kind: "none" };
  if (!isParseFailure(entry.rules) && entry.rules.rules.length === 0) return { kind: "none" };
  return {
    kind: "rules",
    rules: entry.rules,
    policy: key,
    field: link.field,
    fromTemplate: true,
    annotationPath: entry.rulesPath ?? TEMPLATE_VALIDATIONS_ANNOTATION,
  };
}
