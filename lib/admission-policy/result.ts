/**
 * What the family answers for one request (k8s.io/apiserver validating/dispatcher.go and admission.NewForbidden):
 * the first denied decision's Status — `<resource>[.<group>] "<name>" is forbidden: ValidatingAdmissionPolicy '<p>'
 * [with binding '<b>'] denied request: <message>`, reason the validation's (Invalid by default; errors and
 * configuration errors have none: Invalid), code from the reason — the warnings and audit annotations in the order
 * the plugin records them, and one finding per denial, warning and audit result.
 */
import type { FieldError, FieldErrorSource, Severity } from "../field/error.js";
import { goQuote } from "../go/strconv.js";
import type { FamilyResult } from "../policy/family.js";
import type { DenialStatus } from "../policy/types.js";
import type { AdmissionAttributes } from "./attributes.js";
import type { DispatchedDecision, DispatchOutcome } from "./dispatch.js";
import { namespaceNotFound } from "./matching.js";

const FAMILY = "admission-policy" as const;

/** validating/policy_decision.go reasonToCode. */
function reasonToCode(reason: string): number {
  switch (reason) {
    case "Forbidden":
      return 403;
    case "Unauthorized":
      return 401;
    case "RequestEntityTooLarge":
      return 413;
    default:
      return 422;
  }
}

/** admission.NewForbidden's name: the request's name, else the object's name or generateName, else "Unknown". */
function forbiddenName(attr: AdmissionAttributes): string {
  if (attr.name !== "") return attr.name;
  if (attr.object === null) return "Unknown";
  const meta = attr.object.metadata;
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return "Unknown/errorGettingName";
  const m = meta as Record<string, unknown>;
  if (typeof m.name === "string" && m.name !== "") return m.name;
  if (typeof m.generateName === "string" && m.generateName !== "") return m.generateName;
  return "Unknown";
}

/** apierrors.NewForbidden's message. */
export function forbiddenMessage(attr: AdmissionAttributes, message: string): string {
  const { group, resource } = attr.resource;
  if (group === "" && resource === "") return `forbidden: ${message}`;
  const qualified = group === "" ? resource : `${resource}.${group}`;
  return `${qualified} ${goQuote(forbiddenName(attr))} is forbidden: ${message}`;
}

/** apierrors.NewForbidden's details: the resource's group (when not core), the resource as kind, the name. */
function forbiddenDetails(attr: AdmissionAttributes): { group?: string; kind?: string; name: string } {
  const { group, resource } = attr.resource;
  const out: { group?: string; kind?: string; name: string } = { name: forbiddenName(attr) };
  if (group !== "") out.group = group;
  if (resource !== "") out.kind = resource;
  return out;
}

/** The text a denial's Status carries after the resource prefix (its details.causes[0].message). */
export function denialText(d: DispatchedDecision): string {
  return d.binding === undefined
    ? `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.decision.message}`
    : `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.decision.message}`;
}

function warningText(d: DispatchedDecision): string {
  return `Validation failed for ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}': ${d.decision.message}`;
}

/**
 * One finding. For a Secret, a message a messageExpression computed is replaced by the static one (reports never
 * hold a Secret's values; the webhook's answer keeps the API server's text).
 */
function finding(
  d: DispatchedDecision,
  severity: Severity,
  text: (d: DispatchedDecision) => string,
  secret: boolean,
): FieldError {
  if (secret && d.decision.staticMessage !== undefined) {
    d = { ...d, decision: { ...d.decision, message: d.decision.staticMessage } };
  }
  const message = text(d);
  const source: FieldErrorSource = { kind: FAMILY, policy: d.policy };
  if (d.decision.expression !== undefined) source.rule = d.decision.expression;
  if (d.binding !== undefined) source.binding = d.binding;
  if (d.param !== undefined) source.param = d.param;
  if (d.index !== undefined) source.index = d.index;
  const e: FieldError = {
    type: "FieldValueForbidden",
    field: "",
    detail: d.decision.message,
    message,
    severity,
    source,
  };
  if (d.decision.evaluation === "error") e.evaluationError = true;
  if (d.decision.reason !== undefined) e.origin = d.decision.reason;
  return e;
}

/** The family's result for a dispatch; undefined when no policy matched and nothing was recorded. */
export function familyResult(attr: AdmissionAttributes, out: DispatchOutcome): FamilyResult | undefined {
  const annotations = Object.keys(out.auditAnnotations).length > 0;
  if (!out.matched && out.warnings.length === 0 && !annotations) return undefined;
  const result: FamilyResult = {
    errors: out.denied.map((d) => finding(d, "error", denialText, attr.secret)),
    warnings: out.warned.map((d) => finding(d, "warning", warningText, attr.secret)),
    shadowed: [],
    ratcheted: [],
    audits: out.audited.map((d) => finding(d, "audit", warningText, attr.secret)),
    warningTexts: [...out.warnings],
    auditAnnotations: { ...out.auditAnnotations },
  };
  if (out.namespaceNotFound !== undefined) {
    const message = namespaceNotFound(out.namespaceNotFound);
    // The Namespace lister's apierrors.NewNotFound, returned as it is.
    const details = { name: out.namespaceNotFound, kind: "namespaces" };
    result.status = { code: 404, reason: "NotFound", message, details, family: FAMILY };
    result.errors.push({
      type: "FieldValueInvalid",
      field: "metadata.namespace",
      detail: message,
      message,
      severity: "error",
      source: { kind: FAMILY, policy: "" },
      evaluationError: true,
    });
    return result;
  }
  const first = out.denied[0];
  if (first !== undefined) {
    const reason = first.decision.reason ?? "Invalid";
    const text = denialText(first);
    const status: DenialStatus = {
      code: reasonToCode(reason),
      reason,
      message: forbiddenMessage(attr, text),
      details: { ...forbiddenDetails(attr), causes: [{ message: text }] },
      family: FAMILY,
    };
    result.status = status;
  }
  return result;
}
