/**
 * The webhook Lambda's entry point (serverless.yml: `functions/validate.handler`). Importing it resolves the
 * configuration from the environment (a wrong TOLLGATE_* value fails the cold start, naming the variable) and starts
 * loading the policy bundle; the first invocation awaits the load. Routes and answers: functions/webhook.ts.
 */
import { silenceSdkNodeVersionWarning } from "../audit/aws-sdk-warning.js";
import { processRuntime } from "./runtime.js";
import { createHandler, type Handler } from "./webhook.js";

// Before the runtime loads an s3:// bundle (the SDK warns when its first client is made).
silenceSdkNodeVersionWarning();

export type { Handler } from "./webhook.js";

/** `POST /validate` (AdmissionReview or bare object) and `GET /healthz`, for API Gateway v1 and v2 events. */
export const handler: Handler = createHandler(processRuntime());
