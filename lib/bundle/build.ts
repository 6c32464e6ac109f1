/**
 * buildBundleArtifact(source): a bundle (folder, file, s3://) → one pre-decoded JSON artifact (artifact.ts), with
 * every rule compiled once at build time so that the artifact carries the policy failures the bundle has.
 */
import { InternalError } from "../errors.js";
import type { BundleFile, BundleOptions, PolicySet } from "../policy/types.js";
import { TOLLGATE_VERSION } from "../version.js";
import {
  ARTIFACT_API_VERSION,
  ARTIFACT_FORMAT,
  ARTIFACT_KIND,
  artifactFiles,
  type BundleArtifact,
  decodeBundle,
  serializeArtifact,
} from "./artifact.js";
import { decodeLimitsOf } from "./config.js";
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
  const { s3: _s3, ...compileOptions } = options;
  const policySet = await loadBundle(files, compileOptions);
  const built = artifactOfLoaded(files, policySet, options);
  if (built === undefined) throw new InternalError(`the bundle's digest changed while it was compiled (${source})`);
  return { ...built, policySet };
}

/**
 * The artifact of bundle files that `policySet` was loaded from (loadBundle(files, options)), without compiling them
 * again: the files decoded once more (the block reader makes that cheap), the set's kinds, failures and config as
 * the build. For handing a loaded bundle to another thread or process, which then starts without compiling every
 * rule. Undefined when the set does not come from these files (another digest).
 */
export function artifactOfLoaded(
  files: readonly BundleFile[],
  policySet: PolicySet,
  options: BundleOptions = {},
): { artifact: BundleArtifact; text: string } | undefined {
  const limits = decodeLimitsOf(options);
  const decoded = decodeBundle(files, limits);
  if (decoded.digest !== policySet.digest) return undefined;
  const artifact: BundleArtifact = {
    apiVersion: ARTIFACT_API_VERSION,
    kind: ARTIFACT_KIND,
    format: ARTIFACT_FORMAT,
    tollgate: TOLLGATE_VERSION,
    digest: decoded.digest,
    build: { kinds: policySet.kinds, failures: policySet.failures, config: policySet.config },
    files: artifactFiles(decoded.entries),
  };
  return { artifact, text: serializeArtifact(artifact) };
}
