/**
 * The S3 BlobStore (AWS S3 and S3-compatible servers). The only module of lib/ that imports the AWS SDK; the rest
 * of lib/ reaches it through a dynamic import (index.ts), so nothing pays for loading the SDK unless it uses S3.
 *
 * Retries are the SDK's (standard mode: `maxAttempts`, exponential backoff with jitter). Every request is bounded in
 * time by the HTTP handler's settings: a connection that is not made within `connectionTimeoutMs` and a request whose
 * socket stays silent for `requestTimeoutMs` fail with a TimeoutError and are retried, so a server that stops
 * answering (paused mid-upload, a socket that accepts and never replies) ends the operation in bounded time.
 * Every failure becomes a StorageError naming the operation and `s3://bucket/key`, classified by the SDK error's
 * name and HTTP status, never by its message text.
 */

import { Readable } from "node:stream";
import {
  DeleteObjectsCommand,
  type DeleteObjectsCommandOutput,
  GetObjectCommand,
  type GetObjectCommandOutput,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { StorageError, type StorageFailure } from "../errors.js";
import type { BlobBody, BlobStore, WriteOptions } from "./blob-store.js";
import { formatS3Url } from "./s3-url.js";

/** Static credentials; without them the SDK's default provider chain is used. */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** How to reach S3. Every field is optional: the defaults are AWS S3 with the SDK's default chains. */
export interface S3Options {
  /**
   * Endpoint URL of an S3-compatible server (`http://127.0.0.1:4569`). Default: AWS S3 for the region.
   */
  endpoint?: string;
  /**
   * Path-style addressing (`endpoint/bucket/key`) instead of virtual-hosted style (`bucket.endpoint/key`).
   * Default: `true` when `endpoint` is set (local servers rarely resolve bucket host names), `false` otherwise.
   */
  pathStyle?: boolean;
  /** Region. Default: the SDK's chain (`AWS_REGION`, profile), or `us-east-1` when `endpoint` is set. */
  region?: string;
  /** Static credentials. Default: the SDK's default chain (environment, profile, container or instance role). */
  credentials?: S3Credentials;
  /**
   * Flexible checksums (`requestChecksumCalculation` and `responseChecksumValidation` of the SDK): `WHEN_SUPPORTED`
   * (the SDK's default) or `WHEN_REQUIRED`. Default: `WHEN_REQUIRED` when `endpoint` is set, because S3-compatible
   * servers such as s3rver store a streamed body's aws-chunked framing literally under `WHEN_SUPPORTED`
   * (research/toolchain.md §2), and `WHEN_SUPPORTED` otherwise.
   */
  checksums?: "WHEN_SUPPORTED" | "WHEN_REQUIRED";
  /** Attempts per request, retries included (the SDK's standard retry mode). Default 3. */
  maxAttempts?: number;
  /** Milliseconds to establish a connection before the attempt fails. Default 5,000. */
  connectionTimeoutMs?: number;
  /**
   * Milliseconds a request's socket may stay silent (no byte sent or received) before the attempt fails. Default
   * 30,000: with 3 attempts and the backoff, a server that stopped answering fails the operation in about 95 s.
   */
  requestTimeoutMs?: number;
}

/** {@link S3Options.connectionTimeoutMs}'s default. */
export const DEFAULT_S3_CONNECTION_TIMEOUT_MS = 5_000;
/** {@link S3Options.requestTimeoutMs}'s default. */
export const DEFAULT_S3_REQUEST_TIMEOUT_MS = 30_000;

export interface S3StoreOptions extends S3Options {
  bucket: string;
  /** Keys listed per request. Default 1000 (the S3 maximum). */
  pageSize?: number;
  /** Bodies larger than this go up as multipart uploads, as do streams. Default 16 MiB. */
  multipartThreshold?: number;
  /** Multipart part size. Default 8 MiB (S3's minimum is 5 MiB). */
  partSize?: number;
  /** Parts uploaded at once. Default 4. */
  queueSize?: number;
}

const MiB = 1024 * 1024;

/** The SDK client configuration for these options. */
function s3ClientConfig(options: S3Options): S3ClientConfig {
  const custom = options.endpoint !== undefined && options.endpoint !== "";
  const config: S3ClientConfig = {
    forcePathStyle: options.pathStyle ?? custom,
    maxAttempts: options.maxAttempts ?? 3,
    // The handler's socketTimeout is the inactivity timeout (its requestTimeout bounds a whole request, which a
    // large multipart part may rightly exceed, and only warns unless told to throw).
    requestHandler: {
      connectionTimeout: options.connectionTimeoutMs ?? DEFAULT_S3_CONNECTION_TIMEOUT_MS,
      socketTimeout: options.requestTimeoutMs ?? DEFAULT_S3_REQUEST_TIMEOUT_MS,
    },
  };
  if (custom) config.endpoint = options.endpoint;
  const region = options.region ?? (custom ? "us-east-1" : undefined);
  if (region !== undefined) config.region = region;
  if (options.credentials !== undefined) config.credentials = { ...options.credentials };
  const checksums = options.checksums ?? (custom ? "WHEN_REQUIRED" : "WHEN_SUPPORTED");
  config.requestChecksumCalculation = checksums;
  config.responseChecksumValidation = checksums;
  return config;
}

/** A BlobStore over one bucket: keys are object keys. */
export function createS3Store(options: S3StoreOptions): BlobStore {
  const { bucket } = options;
  const client = new S3Client(s3ClientConfig(options));
  const pageSize = options.pageSize ?? 1000;
  const threshold = options.multipartThreshold ?? 16 * MiB;
  const partSize = Math.max(5 * MiB, options.partSize ?? 8 * MiB);
  const queueSize = options.queueSize ?? 4;

  async function get(key: string): Promise<Uint8Array> {
    let out: GetObjectCommandOutput;
    try {
      out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      if (out.Body === undefined) return new Uint8Array();
      return await out.Body.transformToByteArray();
    } catch (e) {
      throw s3Error("read", bucket, key, e);
    }
  }

  return {
    location: `s3://${bucket}`,
    async readText(key) {
      return new TextDecoder("utf-8").decode(await get(key));
    },
    readBytes: get,
    async readStream(key) {
      let out: GetObjectCommandOutput;
      try {
        out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      } catch (e) {
        throw s3Error("read", bucket, key, e);
      }
      const body = out.Body;
      if (body === undefined) return Readable.from([]);
      return body instanceof Readable ? body : Readable.fromWeb(body.transformToWebStream() as never);
    },
    async *list(prefix = "") {
      let token: string | undefined;
      do {
        let page: ListObjectsV2CommandOutput;
        try {
          page = await client.send(
            new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: pageSize, ContinuationToken: token }),
          );
        } catch (e) {
          throw s3Error("list", bucket, prefix, e);
        }
        for (const o of page.Contents ?? []) {
          if (o.Key === undefined) continue;
          const info = { key: o.Key, size: o.Size ?? 0 };
          yield o.LastModified === undefined ? info : { ...info, lastModified: o.LastModified };
        }
        token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
    },
    async write(key, body: BlobBody, writeOptions?: WriteOptions) {
      const contentType =
        writeOptions?.contentType ??
        (typeof body === "string" ? "text/plain; charset=utf-8" : "application/octet-stream");
      const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
      try {
        if (bytes instanceof Readable || bytes.byteLength > threshold) {
          const upload = new Upload({
            client,
            params: { Bucket: bucket, Key: key, Body: bytes, ContentType: contentType },
            partSize,
            queueSize,
            leavePartsOnError: false,
          });
          await upload.done();
        } else {
          await client.send(
            new PutObjectCommand({
              Bucket: bucket,
              Key: key,
              Body: bytes,
              ContentLength: bytes.byteLength,
              ContentType: contentType,
            }),
          );
        }
      } catch (e) {
        throw s3Error("write", bucket, key, e);
      }
    },
    async remove(keys) {
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        const batch = keys.slice(i, i + DELETE_BATCH);
        let out: DeleteObjectsCommandOutput;
        try {
          out = await client.send(
            new DeleteObjectsCommand({
              Bucket: bucket,
              Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
            }),
          );
        } catch (e) {
          throw s3Error("delete", bucket, batch[0] ?? "", e);
        }
        // A multi-object delete answers 200 and lists the keys it could not delete (deleting a missing key succeeds).
        const failed = out.Errors?.[0];
        if (failed !== undefined) {
          const error = { name: failed.Code, message: failed.Message, $metadata: {} };
          throw s3Error("delete", bucket, failed.Key ?? batch[0] ?? "", error);
        }
      }
    },
    close() {
      client.destroy();
    },
  };
}

/** Keys per DeleteObjects request: the S3 maximum. */
const DELETE_BATCH = 1000;

interface SdkErrorShape {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  $fault?: unknown;
}

/** What an SDK or network error says about a failure: by error name, HTTP status and errno code. */
function s3Failure(e: unknown): StorageFailure {
  const err = (typeof e === "object" && e !== null ? e : {}) as SdkErrorShape;
  const status = typeof err.$metadata?.httpStatusCode === "number" ? err.$metadata.httpStatusCode : undefined;
  switch (err.name) {
    case "NoSuchKey":
    case "NoSuchBucket":
    case "NotFound":
      return "not-found";
    case "AccessDenied":
    case "InvalidAccessKeyId":
    case "SignatureDoesNotMatch":
    case "ExpiredToken":
    case "CredentialsProviderError":
      return "access-denied";
    case "TimeoutError":
    case "RequestTimeout":
    case "SlowDown":
      return "unavailable";
  }
  if (status === 404) return "not-found";
  if (status === 401 || status === 403) return "access-denied";
  if (status !== undefined && (status >= 500 || status === 429)) return "unavailable";
  if (status !== undefined && status >= 400) return "invalid";
  switch (err.code) {
    case "ECONNREFUSED":
    case "ECONNRESET":
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "ETIMEDOUT":
    case "EPIPE":
      return "unavailable";
  }
  return "other";
}

/** `cannot read s3://bucket/key: NoSuchKey (HTTP 404): The specified key does not exist.` */
function s3Error(what: "read" | "list" | "write" | "delete", bucket: string, key: string, e: unknown): StorageError {
  const err = (typeof e === "object" && e !== null ? e : {}) as SdkErrorShape;
  const status = typeof err.$metadata?.httpStatusCode === "number" ? ` (HTTP ${err.$metadata.httpStatusCode})` : "";
  const name =
    typeof err.name === "string" && err.name !== "Error" ? err.name : typeof err.code === "string" ? err.code : "error";
  const text = typeof err.message === "string" && err.message !== "" && err.message !== name ? `: ${err.message}` : "";
  const where = what === "list" ? `objects under ${formatS3Url(bucket, key)}` : formatS3Url(bucket, key);
  // The SDK's own text ("Could not load credentials from any providers") does not say where credentials come from.
  const hint =
    name === "CredentialsProviderError"
      ? " (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE; an S3-compatible server such as s3rver or MinIO takes its own keys)"
      : "";
  return new StorageError(`cannot ${what} ${where}: ${name}${status}${text}${hint}`, {
    cause: e,
    failure: s3Failure(e),
  });
}
