/**
 * The declarative-validation family (+k8s: tags on Go API types). Until it is built, it claims Go sources so they
 * are reported as not evaluated.
 */
import type { FamilyCompiler } from "../policy/family.js";
import type { BundleFile, PolicyFailure } from "../policy/types.js";

export function createDeclarativeCompiler(): FamilyCompiler {
  const files: BundleFile[] = [];
  return {
    family: "declarative",
    claimFile(file) {
      if (!file.path.endsWith(".go") && !file.path.endsWith("go.mod")) return false;
      files.push(file);
      return true;
    },
    claimDocument: () => false,
    async compile() {
      const failures: PolicyFailure[] = files
        .filter((f) => f.path.endsWith(".go"))
        .map((f) => ({
          severity: "warning",
          family: "declarative",
          file: f.path,
          message: "declarative validation (+k8s: tags in Go sources) is not supported yet; this file is ignored",
        }));
      return { policy: null, failures };
    },
  };
}
