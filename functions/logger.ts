/**
 * The Lambdas' one logger: JSON lines through the powertools Logger (level from POWERTOOLS_LOG_LEVEL or the Lambda
 * log level; default INFO), with the invocation's request id once `addContext` is called. Logs carry counts, ids and
 * error names, never object content, bad values or credentials.
 */
import { Logger } from "@aws-lambda-powertools/logger";
import type { LogAttributes } from "@aws-lambda-powertools/logger/types";
import type { Context } from "aws-lambda";

/** What the handlers log through; the powertools Logger in Lambda, a recorder in tests. */
export interface FunctionLogger {
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
  addContext(context: Context): void;
}

export function createLogger(): FunctionLogger {
  const logger = new Logger({ serviceName: "tollgate" });
  return {
    info: (message, attributes = {}) => logger.info(message, attributes as LogAttributes),
    warn: (message, attributes = {}) => logger.warn(message, attributes as LogAttributes),
    error: (message, attributes = {}) => logger.error(message, attributes as LogAttributes),
    addContext: (context) => logger.addContext(context),
  };
}

/** The class name of a thrown value, for the logs' `error` field. */
export function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/** The message of a thrown value, for the logs' `reason` field (cut by {@link boundedLogger}). */
export function errorReason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Longest string attribute of a log line; longer ones (a request's uid, an error's message) are cut. */
export const MAX_LOG_FIELD_CHARS = 1024;

function boundedAttributes(attributes: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (attributes === undefined) return undefined;
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(attributes)) {
    if (typeof v !== "string" || v.length <= MAX_LOG_FIELD_CHARS) continue;
    out ??= { ...attributes };
    out[k] = `${v.slice(0, MAX_LOG_FIELD_CHARS)}... (${v.length - MAX_LOG_FIELD_CHARS} more characters)`;
  }
  return out ?? attributes;
}

/** A logger whose string attributes are cut to {@link MAX_LOG_FIELD_CHARS}: request fields reach the logs bounded. */
export function boundedLogger(logger: FunctionLogger): FunctionLogger {
  return {
    info: (message, attributes) => logger.info(message, boundedAttributes(attributes)),
    warn: (message, attributes) => logger.warn(message, boundedAttributes(attributes)),
    error: (message, attributes) => logger.error(message, boundedAttributes(attributes)),
    addContext: (context) => logger.addContext(context),
  };
}
