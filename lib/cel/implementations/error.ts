/**
 * The one error the Kubernetes CEL library functions throw.
 *
 * `message` is the text Kubernetes shows for the CEL evaluation error (what `err.Error()` of the
 * cel-go error value prints), so that the adapter can build the `<message> evaluating rule: ...`
 * body without rewording it. `code` tells the adapter which cel-go error kind it stands for:
 *
 * - `"error"`: a plain `types.NewErr` / `types.WrapErr` error (the common case);
 * - `"no_such_overload"`: cel-go's `no such overload` error, which Kubernetes raises when a function
 *   receives an argument it cannot handle at runtime (for example `cidr(c).containsIP('x')` with a
 *   string that is not an IP address). The message is then `no such overload`.
 */
export class LibraryError extends Error {
  override readonly name = "LibraryError";
  readonly code: LibraryErrorCode;

  constructor(message: string, code: LibraryErrorCode = "error") {
    super(message);
    this.code = code;
  }
}

/** See {@link LibraryError}. */
export type LibraryErrorCode = "error" | "no_such_overload";

/** cel-go's `no such overload` runtime error. */
export function noSuchOverload(): LibraryError {
  return new LibraryError("no such overload", "no_such_overload");
}
