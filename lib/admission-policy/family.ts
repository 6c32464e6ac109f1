/**
 * The ValidatingAdmissionPolicy family: ValidatingAdmissionPolicies and their bindings (admissionregistration.k8s.io
 * v1, v1beta1 read as well) compiled once, and requests answered as kube-apiserver 1.36's ValidatingAdmissionPolicy
 * admission plugin answers them (dispatch.ts). An admission family: it runs after the schema families and its
 * denial is a Status of its own (403 / 422 / 401 / 413, the first denying binding's message). Params, Namespaces
 * and RBAC objects come from the cluster state; authorization checks go to BundleOptions.authorizer or an offline
 * RBAC authorizer over the cluster state.
 */
import { goQuote } from "../go/strconv.js";
import { parseApiVersion } from "../objects/gvk.js";
import type { Authorizer } from "../policy/authorizer.js";
import type {
  BundleDocument,
  FamilyCompileContext,
  FamilyCompiler,
  FamilyPolicy,
  FamilyRequest,
} from "../policy/family.js";
import type { ResourceCatalogue } from "../policy/resources.js";
import type { GroupVersionKind, PolicyFailure } from "../policy/types.js";
import { attributesOf } from "./attributes.js";
import { createRbacAuthorizer, isRbacObject } from "./authorizer.js";
import { type CompiledPolicyExpressions, compilePolicyExpressions, type ExpressionProblem } from "./compile.js";
import { type CompiledBinding, type CompiledPolicy, type DispatchContext, dispatch } from "./dispatch.js";
import {
  admissionDocumentKind,
  type BindingDocument,
  DecodeProblem,
  decodeBinding,
  decodePolicy,
  type PolicyDocument,
} from "./documents.js";
import { createValidator } from "./evaluate.js";
import { admissionRulesOf, isBuiltinKind } from "./kinds.js";
import { compileMatch } from "./matching.js";
import { compileParamSelector, type ParamKind } from "./params.js";
import { familyResult } from "./result.js";
import { typeCheckPolicy } from "./typecheck.js";
import type { Validator } from "./validator.js";

const FAMILY = "admission-policy" as const;

/**
 * Resources API-based policies never see (k8s.io/apiserver policy/generic/plugin.go): the admission configuration
 * resources (no policy may judge the policies), and the non-persisted review resources kube-apiserver excludes
 * (kubernetes pkg/kubeapiserver/admission/exclusion/resources.go).
 */
const EXCLUDED_RESOURCES = new Set([
  "admissionregistration.k8s.io/validatingadmissionpolicies",
  "admissionregistration.k8s.io/validatingadmissionpolicybindings",
  "admissionregistration.k8s.io/mutatingadmissionpolicies",
  "admissionregistration.k8s.io/mutatingadmissionpolicybindings",
  "authentication.k8s.io/selfsubjectreviews",
  "authentication.k8s.io/tokenreviews",
  "authorization.k8s.io/localsubjectaccessreviews",
  "authorization.k8s.io/selfsubjectaccessreviews",
  "authorization.k8s.io/selfsubjectrulesreviews",
  "authorization.k8s.io/subjectaccessreviews",
]);

interface Decoded<T> {
  doc: T;
  source: BundleDocument;
}

function failure(doc: BundleDocument, severity: "error" | "warning", message: string, path?: string): PolicyFailure {
  const f: PolicyFailure = {
    severity,
    family: FAMILY,
    stage: "compile",
    file: doc.file,
    document: doc.document,
    message,
  };
  const p = doc.item === undefined ? path : path === undefined ? doc.item : `${doc.item}.${path}`;
  if (p !== undefined) f.path = p;
  return f;
}

function decodeAll(claimed: readonly BundleDocument[], failures: PolicyFailure[]) {
  const policies: Decoded<PolicyDocument>[] = [];
  const bindings: Decoded<BindingDocument>[] = [];
  for (const source of claimed) {
    try {
      if (admissionDocumentKind(source.object) === "policy")
        policies.push({ doc: decodePolicy(source.object), source });
      else bindings.push({ doc: decodeBinding(source.object), source });
    } catch (e) {
      if (!(e instanceof DecodeProblem)) throw e;
      failures.push(failure(source, "error", `cannot be decoded: ${e.message}`, e.path));
    }
  }
  return { policies, bindings };
}

/** The resource serving a policy's paramKind, or the configuration error the API server gives. */
function resolveParamKind(
  doc: PolicyDocument,
  resources: ResourceCatalogue,
): { kind?: ParamKind; error?: string; unusable?: string } {
  const pk = doc.paramKind;
  if (pk === undefined) return {};
  const gv = parseApiVersion(pk.apiVersion);
  if (gv === undefined) return { unusable: `failed to parse paramKind APIVersion: ${pk.apiVersion}` };
  const resource = resources.forKind(gv.group, gv.version, pk.kind);
  if (resource === undefined) {
    return { error: `failed to find resource referenced by paramKind: '${gv.group}/${gv.version}, Kind=${pk.kind}'` };
  }
  return { kind: { apiVersion: pk.apiVersion, group: gv.group, kind: pk.kind, resource } };
}

function problemFailure(source: BundleDocument, p: ExpressionProblem): PolicyFailure {
  const f = failure(source, "error", `Invalid value: ${goQuote(p.expression)}: ${p.message}`, p.path);
  f.stage = "cel";
  f.rule = p.expression;
  return f;
}

/** Compiles a policy's expressions now; compile problems and type-checking warnings become `cel` failures. */
function compileEagerly(
  doc: PolicyDocument,
  source: BundleDocument,
  ctx: FamilyCompileContext,
  failures: PolicyFailure[],
): CompiledPolicyExpressions {
  const problems: ExpressionProblem[] = [];
  const exprs = compilePolicyExpressions(doc, problems);
  for (const p of problems) failures.push(problemFailure(source, p));
  if (ctx.schemaOf !== undefined && problems.length === 0) {
    for (const w of typeCheckPolicy(doc, ctx.resources, ctx.schemaOf)) {
      const f = failure(source, "warning", `type checking: ${w.warning.trimEnd()}`, w.fieldRef);
      f.stage = "cel";
      failures.push(f);
    }
  }
  return exprs;
}

/**
 * A validator whose expressions compile on its first request: the same programs, and the same errors kept in them,
 * as an eager compile's (compile problems fail the expression when evaluated, as in the API server).
 */
function lazyValidator(doc: PolicyDocument): Validator {
  let compiled: Validator | undefined;
  return {
    validate(input) {
      compiled ??= createValidator(doc, compilePolicyExpressions(doc, []));
      return compiled.validate(input);
    },
  };
}

/** Converts an object to another version: a custom resource (conversion None) only changes its apiVersion. */
function convertObject() {
  return (object: Record<string, unknown>, to: GroupVersionKind): Record<string, unknown> | { error: string } => {
    if (isBuiltinKind(to)) {
      return {
        error: `converting ${String(object.apiVersion)} ${String(object.kind)} to ${to.group === "" ? "" : `${to.group}/`}${to.version} is not supported offline`,
      };
    }
    return { ...object, apiVersion: to.group === "" ? to.version : `${to.group}/${to.version}` };
  };
}

function createPolicy(
  policies: readonly CompiledPolicy[],
  ctx: FamilyCompileContext,
  authorizer: Authorizer,
): FamilyPolicy {
  const dispatchContext: DispatchContext = {
    namespace: (name) => ctx.cluster.namespace(name),
    resources: ctx.resources,
    cluster: ctx.cluster,
    authorizer,
    convert: convertObject(),
  };
  return {
    family: FAMILY,
    stage: "admission",
    // Policies match requests by resource: their rules, not kinds, say what they judge.
    kinds: [],
    admissionRules: admissionRulesOf(policies),
    covers: () => policies.length > 0,
    validate(req: FamilyRequest) {
      const attr = attributesOf(req);
      if (EXCLUDED_RESOURCES.has(`${attr.resource.group}/${attr.resource.resource}`)) return undefined;
      return familyResult(attr, dispatch(policies, attr, dispatchContext));
    },
  };
}

export function createAdmissionPolicyCompiler(): FamilyCompiler {
  const claimed: BundleDocument[] = [];
  /** What the compiled policies read from the cluster state (set by compile). */
  let consulted: { rbac: boolean; paramKinds: ParamKind[] } = { rbac: false, paramKinds: [] };
  return {
    family: FAMILY,
    stage: "admission",
    claimFile: () => false,
    claimDocument(doc) {
      if (admissionDocumentKind(doc.object) === undefined) return false;
      claimed.push(doc);
      return true;
    },
    async compile(ctx: FamilyCompileContext) {
      const failures: PolicyFailure[] = [];
      const { policies, bindings } = decodeAll(claimed, failures);
      const byName = new Map<string, Decoded<PolicyDocument>>();
      for (const p of policies) {
        if (byName.has(p.doc.name)) {
          failures.push(
            failure(p.source, "error", `a second ValidatingAdmissionPolicy named "${p.doc.name}": ignored`),
          );
          continue;
        }
        byName.set(p.doc.name, p);
      }
      const bindingsOf = new Map<string, CompiledBinding[]>();
      for (const b of bindings) {
        if (!byName.has(b.doc.policyName)) {
          const message = `binding "${b.doc.name}" names no known ValidatingAdmissionPolicy ("${b.doc.policyName}"): it is ignored`;
          failures.push(failure(b.source, "warning", message, "spec.policyName"));
          continue;
        }
        const compiled: CompiledBinding = { doc: b.doc };
        if (b.doc.matchResources !== undefined) compiled.match = compileMatch(b.doc.matchResources);
        const selector = compileParamSelector(b.doc.paramRef);
        if (selector !== undefined) compiled.paramSelector = selector;
        const list = bindingsOf.get(b.doc.policyName) ?? [];
        list.push(compiled);
        bindingsOf.set(b.doc.policyName, list);
      }
      const compiledPolicies: CompiledPolicy[] = [];
      for (const { doc, source } of byName.values()) {
        // Lazy (a bundle artifact, whose build compiled and type-checked every expression and recorded what it
        // found as `cel` failures): the expressions compile when the policy first validates a request.
        const exprs = ctx.compile === "lazy" ? undefined : compileEagerly(doc, source, ctx, failures);
        const param = resolveParamKind(doc, ctx.resources);
        if (param.unusable !== undefined) {
          // The API server skips such a policy altogether (policy_source.go calculatePolicyData).
          failures.push(
            failure(source, "error", `${param.unusable}: the policy is ignored`, "spec.paramKind.apiVersion"),
          );
          continue;
        }
        if (param.error !== undefined) failures.push(failure(source, "warning", param.error, "spec.paramKind"));
        const policyBindings = bindingsOf.get(doc.name) ?? [];
        // A policy without bindings is never evaluated (only compiled, for lint).
        if (policyBindings.length === 0) continue;
        const compiled: CompiledPolicy = {
          doc,
          validator: exprs === undefined ? lazyValidator(doc) : createValidator(doc, exprs),
          bindings: policyBindings,
        };
        if (doc.matchConstraints !== undefined) compiled.match = compileMatch(doc.matchConstraints);
        if (param.kind !== undefined) compiled.paramKind = param.kind;
        if (param.error !== undefined) compiled.configurationError = param.error;
        compiledPolicies.push(compiled);
      }
      if (compiledPolicies.length === 0) return { policy: null, failures };
      const authorizer = ctx.authorizer ?? createRbacAuthorizer(ctx.cluster);
      consulted = {
        rbac: ctx.authorizer === undefined,
        paramKinds: compiledPolicies.flatMap((p) => (p.paramKind === undefined ? [] : [p.paramKind])),
      };
      return { policy: createPolicy(compiledPolicies, ctx, authorizer), failures };
    },
    /** Namespaces (namespaceSelector, namespaceObject), RBAC objects (the default authorizer) and params. */
    consultsState(obj) {
      if (obj.apiVersion === "v1" && obj.kind === "Namespace") return true;
      if (consulted.rbac && isRbacObject(obj)) return true;
      const gv = typeof obj.apiVersion === "string" ? parseApiVersion(obj.apiVersion) : undefined;
      return gv !== undefined && consulted.paramKinds.some((k) => k.group === gv.group && k.kind === String(obj.kind));
    },
  };
}
