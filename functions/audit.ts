/**
 * The scheduled auditor Lambda (serverless.yml: `functions/audit.handler`, an EventBridge `schedule` event). Its
 * input, the event itself (EventBridge `input`) or `event.detail`:
 *
 *   { sources: string[], bundle: string, out: string, previous?: string, failOn?: "violation"|"warning"|"never" }
 *
 * (functions/audit-input.ts). Locations are local paths or s3:// URLs. The input and the `TOLLGATE_*` environment
 * (TOLLGATE_S3_ENDPOINT, TOLLGATE_S3_PATH_STYLE, TOLLGATE_CONCURRENCY, TOLLGATE_OWNER_LABELS, ...) are resolved by
 * audit/config.ts, as `tollgate audit`'s flags are, and the run is audit/execute.ts's: the same pipeline and the same
 * defaults as the CLI. An input with `shard` is refused: a sharded audit is the state machine's (the same input, with
 * its plan, shard and merge steps in functions/audit-steps.ts).
 *
 * Outcomes: findings that reach `failOn` are not a Lambda error (the report is the product): the returned summary
 * says `status: "violations"`, `exitCode: 1`. A bad input, a configuration error, a storage or internal error throws,
 * so the invocation fails visibly (CloudWatch, the schedule's retry and failure metrics). One structured log line
 * per run: the totals, the run folder and the status; never object content or credentials.
 */
import type { Context } from "aws-lambda";
import { ConfigError } from "#lib";
import { silenceSdkNodeVersionWarning } from "../audit/aws-sdk-warning.js";
import type { Env } from "../audit/config.js";
import { executeAudit } from "../audit/execute.js";
import { type AuditInput, parseAuditInput, resolveInputConfig } from "./audit-input.js";
import { type AuditSummary, logFields, summaryOf } from "./audit-summary.js";
import { createLogger, errorName, errorReason, type FunctionLogger } from "./logger.js";

export type { AuditSummary } from "./audit-summary.js";

/** What the handler logs through (the Lambdas' logger, functions/logger.ts; a recorder in tests). */
export type AuditLogger = Pick<FunctionLogger, "info" | "error" | "addContext">;

export interface AuditHandlerOptions {
  /** Where TOLLGATE_* variables are read; default `process.env`. */
  env?: Env;
  logger?: AuditLogger;
}

export type AuditHandler = (event: unknown, context?: Context) => Promise<AuditSummary>;

export function createAuditHandler(options: AuditHandlerOptions = {}): AuditHandler {
  const env = options.env ?? process.env;
  const logger = options.logger ?? createLogger();

  return async (event: unknown, context?: Context): Promise<AuditSummary> => {
    if (context !== undefined) logger.addContext(context);
    let input: AuditInput | undefined;
    try {
      input = parseAuditInput(event);
      if (input.shard !== undefined) {
        throw new ConfigError(
          "audit input: shard: a sharded audit runs on the state machine (serverless.yml, stepFunctions), not on this function",
        );
      }
      const config = resolveInputConfig(input, env);
      const {
        run,
        written: { folder },
      } = await executeAudit(config);
      const summary = summaryOf(config, run, folder);
      logger.info("audit finished", logFields(summary));
      return summary;
    } catch (err) {
      logger.error("audit failed", {
        error: errorName(err),
        reason: errorReason(err),
        ...(input !== undefined && { out: input.out, sources: input.sources.length }),
      });
      throw err;
    }
  };
}

/** The scheduled run: input from the event, configuration from `process.env`. */
silenceSdkNodeVersionWarning();
export const handler: AuditHandler = createAuditHandler();
