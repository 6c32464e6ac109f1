/**
 * The KubeVirt template-validation family (issue: KubeVirt template validation annotations). Until it is built,
 * it claims Templates and VirtualMachines so they are reported as not evaluated, instead of as unknown documents.
 */
import type { BundleDocument, FamilyCompiler } from "../policy/family.js";
import type { PolicyFailure } from "../policy/types.js";

export function createKubevirtCompiler(): FamilyCompiler {
  const claimed: BundleDocument[] = [];
  return {
    family: "kubevirt",
    claimFile: () => false,
    claimDocument(doc) {
      const { apiVersion, kind } = doc.object;
      const isTemplate =
        typeof apiVersion === "string" && apiVersion.startsWith("template.openshift.io/") && kind === "Template";
      const isVm = typeof apiVersion === "string" && apiVersion.startsWith("kubevirt.io/") && kind === "VirtualMachine";
      if (!isTemplate && !isVm) return false;
      claimed.push(doc);
      return true;
    },
    async compile() {
      const failures: PolicyFailure[] = claimed.map((d) => ({
        severity: "warning",
        family: "kubevirt",
        file: d.file,
        document: d.document,
        message: `KubeVirt template validations are not supported yet; ${String(d.object.kind)} ignored`,
      }));
      return { policy: null, failures };
    },
  };
}
