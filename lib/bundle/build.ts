/**
 * buildBundleArtifact(source): a bundle (folder, file, s3://) → one pre-decoded JSON artifact (artifact.ts), with
 * every rule compiled once at build time so that the artifact carries the policy failures the bundle has.
 */
import type { BundleFile, BundleOptions, PolicySet } from "../policy/types.js";
import {
  ARTIFACT_API_VERSION,
  ARTIFACT_FORMAT,
  ARTIFACT_KIND,
  artifactFiles,
  type BundleArtifact,
  decodeBundle,
  serializeArtifact,
} from "./artifact.js";
import { DEFAULT_LIMITS } from "./config.js";
import { loadBundle } from "./load.js";
import { readBundleFiles } from "./source.js";

export interface BuiltArtifact {
  artifact: BundleArtifact;
  /** The artifact as written (compact JSON). */
  text: string;
  /** The bundle compiled at build time (its failures and kinds are the artifact's `build`). */
  policySet: PolicySet;
}

/**
 * Builds the artifact of a bundle. The source is decoded and compiled exactly as loadBundle would (same options),
 * so loading the artifact gives the same digest, kinds, failures and verdicts. Building an artifact from an
 * artifact gives the same artifact. Throws only StorageError (an unreadable source).
 */
export async function buildBundleArtifact(
  source: string | BundleFile[],
  options: BundleOptions = {},
): Promise<BuiltArtifact> {
  const files = await readBundleFiles(source, options.s3);
  const limits = {
    maxBytes: options.limits?.documentBytes ?? DEFAULT_LIMITS.documentBytes,
    maxDepth: options.limits?.depth ?? DEFAULT_LIMITS.depth,
  };
  const decoded = decodeBundle(files, limits);
  const { s3: _s3, ...compileOptions } = options;
  const policySet = await loadBundle(files, compileOptions);
  const artifact: BundleArtifact = {
    apiVersion: ARTIFACT_API_VERSION,
    kind: ARTIFACT_KIND,
    format: ARTIFACT_FORMAT,
    digest: decoded.digest,
    build: { kinds: policySet.kinds, failures: policySet.failures, config: policySet.config },
    files: artifactFiles(decoded.entries),
  };
  return { artifact, text: serializeArtifact(artifact), policySet };
}
