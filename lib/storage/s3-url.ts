/**
 * `s3://bucket/key` locations. A location whose key is empty or ends with `/` is a prefix (a folder); any other is
 * one object. Bucket names follow the S3 rules (3 to 63 characters of lower-case letters, digits, `.` and `-`),
 * checked loosely so that S3-compatible servers' names still pass.
 */
import { ConfigError } from "../errors.js";

export interface S3Location {
  bucket: string;
  /** The object key, or the prefix (empty or ending with `/`). */
  key: string;
  /** Whether `key` names a prefix (a folder) rather than one object. */
  isPrefix: boolean;
}

const SCHEME = "s3://";
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Whether a source string is an `s3://` location (case-insensitive scheme). */
export function isS3Url(source: string): boolean {
  return source.slice(0, SCHEME.length).toLowerCase() === SCHEME;
}

/** Splits `s3://bucket/key`; throws ConfigError naming the location when it is not one. */
export function parseS3Url(source: string): S3Location {
  if (!isS3Url(source)) throw new ConfigError(`not an s3:// location: ${JSON.stringify(source)}`);
  const rest = source.slice(SCHEME.length);
  const slash = rest.indexOf("/");
  const bucket = slash === -1 ? rest : rest.slice(0, slash);
  const key = slash === -1 ? "" : rest.slice(slash + 1);
  if (!BUCKET.test(bucket)) {
    throw new ConfigError(
      `${JSON.stringify(source)}: ${JSON.stringify(bucket)} is not a bucket name (3 to 63 lower-case letters, digits, "." or "-")`,
    );
  }
  if (key.startsWith("/")) throw new ConfigError(`${JSON.stringify(source)}: the key must not start with "/"`);
  return { bucket, key, isPrefix: key === "" || key.endsWith("/") };
}

/** `s3://bucket/key`. */
export function formatS3Url(bucket: string, key: string): string {
  return `${SCHEME}${bucket}/${key}`;
}
