/**
 * Redaction of bad values: reports must not leak secrets. Values are dropped when the error is built, not at
 * render time: from every field of a core/v1 `Secret`, and from fields whose own name says they hold a
 * credential (`password`, `token`, `clientSecret`, ...). The message then shows `"<redacted>"` in place of the
 * value; the field and detail are kept.
 */

const CREDENTIAL_NAME =
  /^(password|passwd|passphrase|secret|token|bearer-?token|api-?key|private-?key|client-?secret|secret-?key|access-?key|secret-?access-?key|credentials?|auth-?token|refresh-?token|id-?token|session-?token)$/i;

/** Whether objects of this apiVersion/kind hold secret values everywhere (core/v1 Secret). */
export function isSecretKind(apiVersion: unknown, kind: unknown): boolean {
  return kind === "Secret" && apiVersion === "v1";
}

/** Whether the last named segment of a field path names a credential ("spec.auth.password", "data[token]"). */
export function isCredentialField(fieldPath: string): boolean {
  const names = fieldPath.split(/[.[\]]+/).filter((x) => x.length > 0 && !/^\d+$/.test(x));
  const last = names[names.length - 1];
  return last !== undefined && CREDENTIAL_NAME.test(last.replace(/_/g, "-"));
}

/** Whether a bad value at this field of this object must be redacted. */
export function shouldRedact(secretObject: boolean, fieldPath: string): boolean {
  return secretObject || isCredentialField(fieldPath);
}
