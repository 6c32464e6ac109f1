/**
 * The KubeVirt template-validation family: `vm.kubevirt.io/validations` rules applied to `kubevirt.io/v1`
 * VirtualMachines as the real template validator (kubevirt/ssp-operator's virt-template-validator) applies them;
 * template lint for the bundle (PolicyFailures) and for Templates that are validated themselves (field errors).
 *
 * Where the validator misbehaves, tollgate departs from it on purpose (spec/kubevirt-validator-behaviour.md,
 * sections 12 and 15): unknown rule types are ignored with a warning (the format text says so; the validator
 * rejects); a failed `justWarning` rule is only a warning; valid quantities (`1.5Gi`) compare exactly instead of
 * failing; values render as their JSON text and lengths count characters (not Go's `<T Value>` and bytes); a rule
 * that would crash the validator (no `path`, a nil quantity) is a rule error; and a template without a template-level
 * `validations` annotation lends the rules of its VirtualMachine object (below).
 *
 * Where a VM's rules come from (spec/kubevirt-validator-behaviour.md, section 2; source.ts):
 * `vm.kubevirt.io/skip-validations` → none; the VM's own `vm.kubevirt.io/validations` → those; else the Template the VM
 * links to by `vm.kubevirt.io/template` + `vm.kubevirt.io/template.namespace` (labels, else annotations): its
 * template-level `validations` annotation, else the `vm.kubevirt.io/validations` of its VirtualMachine object in
 * `objects[]` (where current common templates keep them; the validator never reads it).
 *
 * Results (field errors, `source.kind` "kubevirt", `source.policy` "<namespace>/<template>" or "vm-annotation",
 * `source.rule` the rule's name):
 * - a value that breaks a rule: `FieldValueInvalid` at the value's field (`spec.template.spec.domain.cpu.cores`),
 *   `badValue` the value, `detail` the rule's message; a warning for a `justWarning` rule;
 * - a rule that cannot be evaluated, or an annotation that does not parse: `FieldValueInvalid` with
 *   `evaluationError: true` on the field that holds the rules (`metadata.annotations[vm.kubevirt.io/validations]`,
 *   or for template rules the VM's link to the template, `metadata.labels[vm.kubevirt.io/template]`). Problems of a
 *   template's rules themselves (they also are PolicyFailures of the bundle) get the failure policy's answer: an
 *   error with `Fail` (the default), a warning with `Ignore`. Problems of the VM's own rules, and problems this VM
 *   causes (nothing at the path, a value of the wrong type), are errors, as in the real validator;
 * - unknown rule types: a warning (`evaluationError: true`); the rule is ignored;
 * - a link to a template the bundle does not hold: a warning "template <namespace>/<name> not found".
 *
 * A Template that is validated itself gets its lint problems as `FieldValueInvalid` field errors with
 * `evaluationError: true` on the annotation that holds the rules (`metadata.annotations[validations]`,
 * `objects[0].metadata.annotations[vm.kubevirt.io/validations]`): errors when rules cannot be used (the Template
 * is then invalid), warnings otherwise.
 */

import { type ErrorContext, type FieldError, invalid, OMIT_VALUE } from "../field/error.js";
import { appendAll } from "../objects/append.js";
import type { BundleDocument, FamilyCompiler, FamilyPolicy, FamilyRequest, FamilyResult } from "../policy/family.js";
import type { CoveredKind, FailurePolicy, PolicyFailure } from "../policy/types.js";
import { isKnownType, isParseFailure, ruleLabel } from "./annotation.js";
import { evaluateRules } from "./rules.js";
import {
  createRuleCache,
  isTemplateObject,
  isVirtualMachineObject,
  type RuleCache,
  type TemplateEntry,
  templateEntry,
  templateKind,
  VALIDATIONS_ANNOTATION,
  type VmRules,
  vmRules,
} from "./source.js";
import { jsonValue } from "./values.js";

const FAMILY = "kubevirt" as const;

function emptyResult(): FamilyResult {
  return { errors: [], warnings: [], shadowed: [], ratcheted: [] };
}

function ctx(policy: string, rule: string | undefined, severity: "error" | "warning"): ErrorContext {
  const source = rule === undefined ? { kind: FAMILY, policy } : { kind: FAMILY, policy, rule };
  return { source, severity };
}

function evaluationError(
  field: string,
  detail: string,
  policy: string,
  rule: string | undefined,
  severity: "error" | "warning",
): FieldError {
  const e = invalid(field, OMIT_VALUE, detail, ctx(policy, rule, severity));
  e.evaluationError = true;
  return e;
}

/**
 * The name `source.rule` (and a PolicyFailure's `rule`) carries: the rule's name as the annotation gives it, the
 * empty name included. The validator identifies rules by name: several rules without one share the empty name (the
 * later ones are its duplicates). Messages tell them apart by index (`rule #3`).
 */
function ruleId(rule: { name: string; index: number }): string {
  return rule.name;
}

function push(result: FamilyResult, e: FieldError): void {
  if (e.severity === "warning") result.warnings.push(e);
  else result.errors.push(e);
}

/** Replaces list indexes by `[*]`: values read from the reference VM name no element of the admitted one. */
function referenceField(path: string): string {
  return path.replace(/\[\d+\]/g, "[*]");
}

/** Field errors for one VM's rules. */
function vmResult(
  vm: Record<string, unknown>,
  src: VmRules & { kind: "rules" },
  failurePolicy: FailurePolicy,
): FamilyResult {
  const result = emptyResult();
  // Problems of a template's own rules follow the failure policy; everything else is an error.
  const policySeverity = src.fromTemplate && failurePolicy === "Ignore" ? "warning" : "error";
  const where = src.fromTemplate ? `template ${src.policy}: ` : "";

  if (isParseFailure(src.rules)) {
    const what = src.fromTemplate ? src.annotationPath : `annotation ${VALIDATIONS_ANNOTATION}`;
    push(
      result,
      evaluationError(
        src.field,
        `${where}cannot parse ${what}: ${src.rules.error}`,
        src.policy,
        undefined,
        src.fromTemplate ? policySeverity : "error",
      ),
    );
    return result;
  }

  for (const { rule, outcome } of evaluateRules(src.rules.rules, vm)) {
    const id = ruleId(rule);
    switch (outcome.kind) {
      case "skipped":
      case "satisfied":
        break;
      case "ignored":
        push(
          result,
          evaluationError(src.field, `${where}${ruleLabel(rule)}: ${outcome.problem}`, src.policy, id, "warning"),
        );
        break;
      case "error": {
        const severity = outcome.policy && src.fromTemplate ? policySeverity : "error";
        push(
          result,
          evaluationError(src.field, `${where}${ruleLabel(rule)}: ${outcome.problem}`, src.policy, id, severity),
        );
        break;
      }
      case "unsatisfied": {
        const severity = rule.justWarning ? "warning" : "error";
        const seen = new Set<string>();
        for (const { value } of outcome.failures) {
          const path = value.path === null ? src.field : value.path.toString();
          const field = value.reference ? referenceField(path) : path;
          const bad = jsonValue(value);
          const key = `${field}\u0000${JSON.stringify(bad, (_, v) => (typeof v === "bigint" ? v.toString() : v))}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const c = ctx(src.policy, id, severity);
          push(result, invalid(field, bad, rule.message, c));
        }
        break;
      }
    }
  }
  return result;
}

/** Field errors for a Template that is validated itself: its lint problems. */
function templateResult(entry: TemplateEntry): FamilyResult {
  const result = emptyResult();
  for (const source of entry.lint) {
    for (const p of source.problems) {
      const rule = p.rule === undefined ? undefined : ruleId(p.rule);
      push(result, evaluationError(source.path, p.message, entry.key, rule, p.severity));
    }
  }
  return result;
}

interface KubevirtPolicyParts {
  templates: ReadonlyMap<string, TemplateEntry>;
  /** Keys defined by more than one Template document. */
  ambiguous: ReadonlySet<string>;
}

const VM_GROUP = "kubevirt.io";
const VM_VERSIONS: ReadonlySet<string> = new Set(["v1", "v1alpha3"]);
const TEMPLATE_GROUP = "template.openshift.io";

/** The compiled family: immutable apart from a bounded memo of parsed annotations. */
function createKubevirtPolicy(parts: KubevirtPolicyParts, cache: RuleCache = createRuleCache()): FamilyPolicy {
  let ruleCount = 0;
  for (const t of parts.templates.values()) {
    if (t.rules !== undefined && !isParseFailure(t.rules)) {
      ruleCount += t.rules.rules.filter((r) => isKnownType(r.type)).length;
    }
  }
  // Only kinds the bundle gives something to check are listed (and so registered by webhook-config): VMs when a
  // Template of the bundle has rules. A VM that carries its own rules is still checked (covers() lets every VM
  // through; validate() answers undefined, "not covered", for a VM with no rules of its own and no linked Template).
  const kinds: CoveredKind[] =
    ruleCount === 0
      ? []
      : [...VM_VERSIONS].map((version) => ({
          group: VM_GROUP,
          version,
          kind: "VirtualMachine",
          plural: "virtualmachines",
          scope: "Namespaced" as const,
          family: FAMILY,
          rules: ruleCount,
        }));

  function validateVm(req: FamilyRequest, failurePolicy: FailurePolicy): FamilyResult | undefined {
    // The validator's webhook matches CREATE and UPDATE of the main resource, and validates the new object only.
    if (req.operation === "DELETE" || req.operation === "CONNECT" || req.subresource !== undefined) return undefined;
    const src = vmRules(req.object, parts.templates, parts.ambiguous, cache);
    switch (src.kind) {
      case "none":
        // No rules of its own, none linked (or validation skipped by annotation): nothing checked it.
        return undefined;
      case "template-not-found": {
        const result = emptyResult();
        const e = invalid(src.field, src.name, `template ${src.key} not found`, ctx(src.key, undefined, "warning"));
        result.warnings.push(e);
        return result;
      }
      case "template-ambiguous": {
        const result = emptyResult();
        push(
          result,
          evaluationError(
            src.field,
            `template ${src.key} is defined more than once in the bundle; its rules cannot be used`,
            src.key,
            undefined,
            failurePolicy === "Ignore" ? "warning" : "error",
          ),
        );
        return result;
      }
      case "rules":
        return vmResult(req.object, src, failurePolicy);
    }
  }

  /** A Template is checked (its rules linted) only when it carries validation rules. */
  function validateTemplate(obj: Record<string, unknown>): FamilyResult | undefined {
    const entry = templateEntry(obj, cache);
    return entry === undefined ? undefined : templateResult(entry);
  }

  return Object.freeze({
    family: FAMILY,
    stage: "schema",
    kinds: Object.freeze(kinds),
    covers(group: string, version: string, kind: string): boolean {
      if (group === VM_GROUP) return kind === "VirtualMachine" && VM_VERSIONS.has(version);
      return group === TEMPLATE_GROUP && version === "v1" && kind === "Template";
    },
    validate(req: FamilyRequest, context: { config: { failurePolicy: FailurePolicy } }): FamilyResult | undefined {
      try {
        if (req.group === TEMPLATE_GROUP) {
          if (req.operation === "DELETE" || req.operation === "CONNECT") return undefined;
          return validateTemplate(req.object);
        }
        return validateVm(req, context.config.failurePolicy);
      } catch (e) {
        // Never throws for a bad object: an internal fault answers per the failure policy.
        const result = emptyResult();
        const detail = `internal error while evaluating template validations: ${e instanceof Error ? e.message : String(e)}`;
        push(
          result,
          evaluationError(
            "metadata.annotations",
            detail,
            "tollgate",
            undefined,
            context.config.failurePolicy === "Ignore" ? "warning" : "error",
          ),
        );
        return result;
      }
    },
  });
}

/** PolicyFailures for one linted document of the bundle. */
function lintFailures(doc: BundleDocument, entry: TemplateEntry, kind: string): PolicyFailure[] {
  const out: PolicyFailure[] = [];
  const prefix = doc.item === undefined ? "" : `${doc.item}.`;
  for (const source of entry.lint) {
    for (const p of source.problems) {
      const f: PolicyFailure = {
        severity: p.severity,
        family: FAMILY,
        file: doc.file,
        document: doc.document,
        path: `${prefix}${source.path}`,
        kinds: [`${kind}:${entry.key}`],
        message: `${entry.kindName} ${entry.key}: ${p.message}`,
      };
      if (p.rule !== undefined) f.rule = ruleId(p.rule);
      out.push(f);
    }
  }
  return out;
}

/** The family's compiler: claims Templates and VirtualMachines, lints them, indexes Templates by namespace/name. */
export function createKubevirtCompiler(): FamilyCompiler {
  const claimed: BundleDocument[] = [];
  return {
    family: FAMILY,
    stage: "schema",
    claimFile: () => false,
    claimDocument(doc) {
      if (!isTemplateObject(doc.object) && !isVirtualMachineObject(doc.object)) return false;
      claimed.push(doc);
      return true;
    },
    async compile() {
      const failures: PolicyFailure[] = [];
      const cache = createRuleCache();
      const templates = new Map<string, TemplateEntry>();
      const origins = new Map<string, BundleDocument[]>();
      for (const doc of claimed) {
        const obj = doc.object;
        const isTemplate = isTemplateObject(obj);
        const entry = isTemplate ? templateEntry(obj, cache) : templateEntry(obj, cache, "VirtualMachine");
        if (entry === undefined) {
          failures.push({
            severity: "warning",
            family: FAMILY,
            file: doc.file,
            document: doc.document,
            ...(doc.item !== undefined && { path: doc.item }),
            message: `${String(obj.kind)} without metadata.name: ignored`,
          });
          continue;
        }
        appendAll(failures, lintFailures(doc, entry, isTemplate ? templateKind() : "kubevirt.io/v1/VirtualMachine"));
        if (!isTemplate) continue;
        const list = origins.get(entry.key) ?? [];
        list.push(doc);
        origins.set(entry.key, list);
        if (!templates.has(entry.key)) templates.set(entry.key, entry);
      }
      const ambiguous = new Set<string>();
      for (const [key, docs] of origins) {
        if (docs.length < 2) continue;
        ambiguous.add(key);
        failures.push({
          severity: "error",
          family: FAMILY,
          file: docs[0]!.file,
          document: docs[0]!.document,
          kinds: [`${templateKind()}:${key}`],
          message: `Template ${key} is defined by more than one document: ${docs.map((d) => `${d.file}#${d.document}`).join(", ")}; VMs linked to it get the failure policy's answer`,
        });
      }
      return { policy: createKubevirtPolicy({ templates, ambiguous }, cache), failures };
    },
  };
}
