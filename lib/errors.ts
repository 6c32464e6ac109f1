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

/** S3 or filesystem failure. */
export class StorageError extends TollgateError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("STORAGE", message, options);
  }
}

export class InternalError extends TollgateError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("INTERNAL", message, options);
  }
}
