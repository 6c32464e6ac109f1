/**
 * The Pod Security fixture suite of k8s.io/pod-security-admission (`<corpus>/pod-security/testdata`, read in place;
 * its README gives the layout): `<level>/<version>/{pass,fail}/<check><n>.yaml`. A `pass/` file must be allowed at
 * its level and version; a `fail/` file denied, with the check its stem names among the failing checks (stems are
 * the check ids lower-cased).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDocuments } from "../../../lib/objects/decode.js";

export interface PodFixture {
  /** `<level>/<version>/<pass|fail>/<file>`. */
  key: string;
  level: "baseline" | "restricted";
  version: string;
  expect: "pass" | "fail";
  /** fail/: the lower-cased id of the check that must fail. */
  check?: string;
  pod: Record<string, unknown>;
}

/** Every fixture, sorted by level, version (numerically), outcome and file. */
export function readPodFixtures(corpusRoot: string): PodFixture[] {
  const root = join(corpusRoot, "pod-security", "testdata");
  if (!existsSync(root)) throw new Error(`Conformance corpus: ${root} is missing`);
  const out: PodFixture[] = [];
  for (const level of ["baseline", "restricted"] as const) {
    const versions = readdirSync(join(root, level)).sort((a, b) => minor(a) - minor(b));
    for (const version of versions) {
      for (const expect of ["pass", "fail"] as const) {
        const dir = join(root, level, version, expect);
        if (!existsSync(dir)) continue;
        for (const file of readdirSync(dir)
          .filter((f) => f.endsWith(".yaml"))
          .sort()) {
          const docs = parseDocuments(readFileSync(join(dir, file), "utf8"));
          const pod = docs[0]?.object;
          if (docs.length !== 1 || pod === undefined || typeof pod !== "object" || pod === null || Array.isArray(pod)) {
            throw new Error(`Conformance corpus: ${join(dir, file)} is not one Pod`);
          }
          const fixture: PodFixture = {
            key: `${level}/${version}/${expect}/${file}`,
            level,
            version,
            expect,
            pod: pod as Record<string, unknown>,
          };
          if (expect === "fail") fixture.check = file.replace(/\d*\.yaml$/, "");
          out.push(fixture);
        }
      }
    }
  }
  if (out.length === 0) throw new Error(`Conformance corpus: no fixtures under ${root}`);
  return out;
}

function minor(version: string): number {
  const m = /^v1\.(\d+)$/.exec(version);
  if (m === null) throw new Error(`Conformance corpus: unexpected version folder ${version}`);
  return Number(m[1]);
}
