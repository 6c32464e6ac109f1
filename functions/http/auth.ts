/**
 * Optional bearer-token check. The comparison is constant-time over SHA-256 digests, so neither the token's
 * content nor its length leaks through timing.
 */
import { createHash, timingSafeEqual } from "node:crypto";

export type AuthResult = "none-configured" | "valid" | "missing" | "invalid";

function digest(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

/** A checker for one configured token (or none). */
export function bearerAuth(token: string | undefined): (authorization: string | undefined) => AuthResult {
  if (token === undefined) return () => "none-configured";
  const expected = digest(token);
  return (authorization) => {
    if (authorization === undefined) return "missing";
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (match === null) return "invalid";
    return timingSafeEqual(digest(match[1]!), expected) ? "valid" : "invalid";
  };
}
