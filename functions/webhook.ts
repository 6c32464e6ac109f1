/**
 * The webhook's request handling (API Gateway REST payload v1 and HTTP API payload v2), for one runtime;
 * functions/validate.ts binds it to the process runtime as the Lambda `handler`:
 *
 * - `POST /validate` with an admission.k8s.io/v1 AdmissionReview → an AdmissionReview answer (always HTTP 200);
 *   with a bare Kubernetes object → a `Status`, 200 `Success` or 422 `Invalid` (a dry-run style create);
 * - `GET /healthz` → `{status: "ok"}`, and with the token (or when none is configured) the bundle's digest,
 *   covered kinds, rule counts per family, policy failures, the loader's notes (documents it ignored) and the
 *   waivers in force (name, policy, owner, expiry, standing).
 *
 * Waivers (the bundle's `Waiver` documents) apply to each verdict at the runtime's clock (lib/waivers): a request
 * denied only by field errors that active waivers cover is allowed, with a warning naming each waiver and its expiry;
 * every other denial stands (internal errors, failed policies and plugin denials without causes are never waived).
 *
 * Thin by design: normalise the event, check auth, route, call the PolicySet, build the answer. Outcome → HTTP
 * code is functions/http/status.ts; shapes are functions/http/admission.ts; cold-start state is runtime.ts.
 * Logs carry the uid, kind, decision and latency, never object content, bad values or the token.
 */
import type { Context } from "aws-lambda";
import {
  badRequestStatus,
  compileWaivers,
  InputError,
  isExhaustion,
  type PolicySet,
  successStatus,
  type ValidateRequest,
  type Verdict,
  waiverStanding,
  waiverTargetOf,
  waiveVerdict,
} from "#lib";
import {
  type BodyLimits,
  denialStatus,
  faultReviewResponse,
  readValidateBody,
  reviewResponse,
  type ValidateBody,
  validateRequestOf,
  warningsOf,
} from "./http/admission.js";
import { bearerAuth } from "./http/auth.js";
import {
  type ApiGatewayEvent,
  type HttpRequest,
  type HttpResponse,
  jsonResponse,
  toHttpRequest,
} from "./http/event.js";
import { failureStatus, httpCode } from "./http/status.js";
import { errorName } from "./logger.js";
import { type Runtime, round } from "./runtime.js";

/** /healthz calls a waiver expiring within this many days `expiring` (the auditor's default `--warn-expiry`). */
const HEALTHZ_WARN_EXPIRY_DAYS = 14;

export type Handler = (event: ApiGatewayEvent, context?: Context) => Promise<HttpResponse>;

/** The handler for one runtime (tests and benchmarks build their own; Lambda uses functions/validate.ts). */
export function createHandler(runtime: Runtime): Handler {
  const webhook = new Webhook(runtime);
  return (event, context) => webhook.handle(event, context);
}

/** The routes and answers of one runtime. */
class Webhook {
  private readonly logger: Runtime["logger"];
  private readonly checkAuth: ReturnType<typeof bearerAuth>;
  private readonly limits: BodyLimits;

  constructor(private readonly runtime: Runtime) {
    this.logger = runtime.logger;
    this.checkAuth = bearerAuth(runtime.config.token);
    this.limits = { maxBytes: runtime.config.maxBodyBytes, maxDepth: runtime.config.maxDepth };
  }

  async handle(event: ApiGatewayEvent, context: Context | undefined): Promise<HttpResponse> {
    const t0 = performance.now();
    const deadline = deadlineOf(t0, context);
    if (context !== undefined) this.logger.addContext(context);
    try {
      const req = toHttpRequest(event, { maxBodyBytes: this.runtime.config.maxBodyBytes });
      if (req.path === "/healthz" || req.path.endsWith("/healthz")) {
        if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed("GET");
        return await this.healthz(req);
      }
      if (req.path === "/validate" || req.path.endsWith("/validate")) {
        if (req.method !== "POST") return methodNotAllowed("POST");
        return await this.validate(req, t0, deadline);
      }
      return jsonResponse(httpCode("notFound"), failureStatus("notFound", `no route for ${req.method} ${req.path}`));
    } catch (error) {
      return this.fault(error, undefined, t0, "internal");
    }
  }

  private async healthz(req: HttpRequest): Promise<HttpResponse> {
    const auth = this.checkAuth(req.headers.authorization);
    const detailed = auth === "valid" || auth === "none-configured";
    let set: PolicySet;
    try {
      set = await this.runtime.policySet();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return jsonResponse(
        httpCode("internal"),
        failureStatus("internal", detailed ? `the policy bundle could not be loaded: ${reason}` : "not ready"),
      );
    }
    if (!detailed) return jsonResponse(200, { status: "ok" });
    const rules: Record<string, number> = { crd: 0, kubevirt: 0, declarative: 0 };
    for (const k of set.kinds) rules[k.family] = (rules[k.family] ?? 0) + k.rules;
    return jsonResponse(200, {
      status: "ok",
      digest: set.digest,
      failurePolicy: set.config.failurePolicy,
      kinds: set.kinds.map((k) => `${k.group === "" ? "" : `${k.group}/`}${k.version}/${k.kind}`),
      rules,
      families: set.families,
      failures: set.failures,
      notes: set.notes,
      waivers: set.waivers.map((w) => ({
        name: w.name,
        policy: w.policy,
        owner: w.owner,
        expires: w.expires,
        standing: waiverStanding(w, this.runtime.now().getTime(), HEALTHZ_WARN_EXPIRY_DAYS),
      })),
    });
  }

  private async validate(req: HttpRequest, t0: number, deadline: number): Promise<HttpResponse> {
    const auth = this.checkAuth(req.headers.authorization);
    if (auth === "missing" || auth === "invalid") {
      this.logger.warn("unauthorized", { auth, latencyMs: round(performance.now() - t0) });
      return jsonResponse(
        httpCode("unauthorized"),
        failureStatus("unauthorized", "a bearer token is required (Authorization: Bearer <token>)"),
        { "www-authenticate": "Bearer" },
      );
    }
    if (req.bodyError !== undefined) return this.badRequest(req.bodyError, t0);
    let body: ValidateBody;
    try {
      body = readValidateBody(req.body, this.limits);
    } catch (error) {
      if (error instanceof InputError) return this.badRequest(error, t0);
      return this.fault(error, undefined, t0, "internal");
    }
    let set: PolicySet;
    try {
      set = await beforeDeadline(this.runtime.policySet(), deadline);
    } catch (error) {
      return this.fault(error, body, t0, "load");
    }
    const shouldStop = () => performance.now() > deadline;
    try {
      return body.kind === "review"
        ? this.answerReview(body, set, t0, shouldStop)
        : this.answerObject(body, set, t0, shouldStop);
    } catch (error) {
      return this.fault(error, body, t0, "internal");
    }
  }

  private answerReview(
    body: ValidateBody & { kind: "review" },
    set: PolicySet,
    t0: number,
    shouldStop: () => boolean,
  ): HttpResponse {
    const { review } = body;
    const request = validateRequestOf(review);
    const verdict = request === undefined ? undefined : this.judge(set, { ...request, shouldStop });
    this.logger.info("admission", {
      uid: review.uid,
      kind: review.identity === undefined ? undefined : kindOf(review.identity),
      operation: review.operation,
      subResource: review.subResource,
      dryRun: review.dryRun,
      ...decision(verdict),
      latencyMs: round(performance.now() - t0),
    });
    return jsonResponse(200, reviewResponse(review.uid, verdict, review.identity));
  }

  private answerObject(
    body: ValidateBody & { kind: "object" },
    set: PolicySet,
    t0: number,
    shouldStop: () => boolean,
  ): HttpResponse {
    const verdict = this.judge(set, { operation: "CREATE", object: body.object, shouldStop });
    this.logger.info("object", {
      kind: kindOf(body.identity),
      ...decision(verdict),
      latencyMs: round(performance.now() - t0),
    });
    const headers = warningHeaders(warningsOf(verdict));
    if (verdict.allowed) return jsonResponse(httpCode("allowed"), successStatus(), headers);
    // An admission plugin's denial answers with its own code (Pod Security: 403); field errors with 422.
    const status = denialStatus(verdict, body.identity);
    return jsonResponse(status.code, status, headers);
  }

  /** The verdict on a request, after the bundle's waivers (judged at the runtime's clock). */
  private judge(set: PolicySet, request: ValidateRequest): Verdict {
    const verdict = set.validate(request);
    if (verdict.allowed || set.waivers.length === 0) return verdict;
    const waived = waiveVerdict(verdict, compileWaivers(set.waivers, this.runtime.now()), waiverTargetOf(request));
    if (waived.waived.length > 0 || waived.expired.length > 0) {
      this.logger.info("waivers", {
        waived: waived.waived.map((w) => w.waiver.name),
        expired: waived.expired.map((w) => w.waiver.name),
      });
    }
    return waived.verdict;
  }

  private badRequest(error: InputError, t0: number): HttpResponse {
    // The message says what is wrong with the request; it never quotes the body.
    this.logger.warn("bad request", { error: error.message, latencyMs: round(performance.now() - t0) });
    return jsonResponse(httpCode("badRequest"), badRequestStatus(error.message));
  }

  /**
   * A failed bundle load or an internal fault: a well-formed answer under the failure policy. A request that
   * exhausted the process (the stack, a string's length) is denied under either policy: the request itself is
   * why it could not be evaluated, and a request must never be allowed for being too large.
   */
  private fault(error: unknown, body: ValidateBody | undefined, t0: number, cause: "load" | "internal"): HttpResponse {
    const exhausted = cause === "internal" && isExhaustion(error);
    const configured = this.runtime.loaded()?.config.failurePolicy ?? this.runtime.config.failurePolicy ?? "Fail";
    const failurePolicy = exhausted ? "Fail" : configured;
    const message =
      cause === "load"
        ? "tollgate could not load its policy bundle; see the function's logs"
        : exhausted
          ? "the request is too large or too deeply nested for tollgate to validate"
          : "tollgate failed internally while validating; see the function's logs";
    this.logger.error("internal fault", {
      uid: body?.kind === "review" ? body.review.uid : undefined,
      error: errorName(error),
      reason: error instanceof Error ? error.message : String(error),
      failurePolicy,
      latencyMs: round(performance.now() - t0),
    });
    if (body?.kind === "review") return jsonResponse(200, faultReviewResponse(body.review.uid, failurePolicy, message));
    return jsonResponse(httpCode("internal"), failureStatus("internal", message));
  }
}

/**
 * Time kept back from the invocation's remaining time to build and return the answer: the webhook answers under its
 * failure policy before Lambda's timeout would cut it off (and the API server would apply its own).
 */
export const ANSWER_MARGIN_MS = 1_000;

/** The time (performance.now) by which the answer must be built; none without a Lambda context. */
function deadlineOf(t0: number, context: Context | undefined): number {
  const remaining = context?.getRemainingTimeInMillis?.();
  return typeof remaining === "number" && Number.isFinite(remaining) ? t0 + remaining - ANSWER_MARGIN_MS : Infinity;
}

/** The promise's value, or a rejection when the deadline comes first. */
function beforeDeadline<T>(promise: Promise<T>, deadline: number): Promise<T> {
  const wait = deadline - performance.now();
  if (wait === Infinity) return promise;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error("the policy bundle did not load before the deadline")),
      Math.max(0, wait),
    );
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

function methodNotAllowed(allow: string): HttpResponse {
  return jsonResponse(
    httpCode("methodNotAllowed"),
    failureStatus("methodNotAllowed", `only ${allow} is allowed here`),
    { allow },
  );
}

function kindOf(id: { apiVersion: string; kind: string }): string {
  return `${id.apiVersion}/${id.kind}`;
}

/** The log fields of a decision: counts only, never messages (they quote bad values). */
function decision(verdict: Verdict | undefined): Record<string, unknown> {
  if (verdict === undefined) return { decision: "allowed", covered: false };
  return {
    decision: verdict.allowed ? "allowed" : "denied",
    covered: verdict.covered,
    causes: verdict.errors.length,
    warnings: warningsOf(verdict).length,
  };
}

/**
 * kube-apiserver's warning headers (`299 - "<text>"`, quotes and backslashes escaped), joined into one header value.
 * The texts are already bounded and free of control characters (lib/field/bounds.ts); characters beyond ASCII are
 * written as `\uXXXX` escapes, since an API Gateway or Lambda header value is not reliably carried as UTF-8.
 */
function warningHeaders(warnings: readonly string[]): Record<string, string> {
  if (warnings.length === 0) return {};
  const quoted = warnings.map((w) => {
    const escaped = w
      .replace(/[\\"]/g, (c) => `\\${c}`)
      .replace(/[^\t\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    return `299 - "${escaped}"`;
  });
  return { warning: quoted.join(", ") };
}
