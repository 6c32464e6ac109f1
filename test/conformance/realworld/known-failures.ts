/**
 * known-failures.yaml of the realworld suite: the checks tollgate does not pass yet, keyed by check name
 * (`crds/<project>/<file>`, `samples/<file>`, `updates/<test>`, `kubectl-validate/<file>#<document>`), each with a
 * `reason` and short `want` and `got` texts. The suite fails when a listed check passes or no longer exists, so the
 * list only shrinks. Edited by hand, with the reason found by reading the case.
 */
import { fileURLToPath } from "node:url";
import { readKnownFailureFile } from "../known-failures-file.js";

export const KNOWN_FAILURES_PATH = fileURLToPath(new URL("./known-failures.yaml", import.meta.url));

export interface KnownFailure {
  reason: string;
  want: string;
  got: string;
}

/** An absent or empty file is an empty list. */
export function readKnownFailures(path: string = KNOWN_FAILURES_PATH): Map<string, KnownFailure> {
  return readKnownFailureFile(path, ["want", "got"] as const);
}
