/**
 * Exceptions for broken surroundings (STYLE.md "Error model"): each has a stable `code` and an optional `cause`.
 * Violations and compile failures are data, never exceptions.
 */
export class TollgateError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Not JSON/YAML, too large, too deep, wrong shape. */
export class InputError extends TollgateError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("INPUT", message, options);
  }
}

/** Bad flags, environment variables or tollgate.yaml. */
export class ConfigError extends TollgateError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("CONFIG", message, options);
  }
}

/**
 * What kind of storage failure it was, so callers can react without reading the message (a missing `latest.json`
 * is a first run; a missing bundle is a configuration error; `unavailable` is worth a retry later):
 * - `not-found`: the object, file, bucket or folder does not exist;
 * - `access-denied`: credentials missing, wrong, or not allowed;
 * - `unavailable`: the server failed (5xx, throttling) or could not be reached (network, timeout);
 * - `invalid`: the request was refused as malformed (4xx other than the above);
 * - `other`: anything else.
 */
export type StorageFailure = "not-found" | "access-denied" | "unavailable" | "invalid" | "other";

/** S3 or filesystem failure. The message names the location (`s3://bucket/key` or a path) and what failed. */
export class StorageError extends TollgateError {
  /** The kind of failure; `other` when not known. */
  readonly failure: StorageFailure;

  constructor(message: string, options?: { cause?: unknown; failure?: StorageFailure }) {
    super("STORAGE", message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.failure = options?.failure ?? "other";
  }
}

export class InternalError extends TollgateError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("INTERNAL", message, options);
  }
}
