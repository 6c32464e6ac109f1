/**
 * The CLI's exception for broken surroundings it can name: bad flags, a bundle or input path that does not exist,
 * an unreadable file. `main.ts` maps it to exit code 2. It carries `name: "ConfigError"` so that the library's own
 * configuration errors (an unreadable bundle source) land in the same row of the exit-code table.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly code: string;

  constructor(message: string, options?: { code?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = options?.code ?? "TOLLGATE_CONFIG";
  }
}

/** Whether an exception means "usage or configuration error" (exit 2) rather than an internal fault (exit 3). */
export function isConfigError(err: unknown): boolean {
  if (err instanceof ConfigError) return true;
  // lib/ throws its own classes; they are told apart by their stable `name`, never by message text.
  return err instanceof Error && (err.name === "ConfigError" || err.name === "StorageError");
}
