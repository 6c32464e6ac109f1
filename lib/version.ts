/**
 * tollgate's version, compiled into every build: the CLI (dist/cli), the Lambda bundles (which ship no
 * package.json) and the sources. Reports record it, `tollgate --version` prints it, and a bundle artifact records
 * the version that built it (an artifact is only served by that version, lib/bundle/artifact.ts).
 * test/unit/lib/version.test.ts keeps it equal to package.json's `version`.
 */
export const TOLLGATE_VERSION = "0.1.0";
