/** Group, version, kind and identity of decoded objects, read without trusting their shape. */
import { isMapping } from "./mapping.js";

/** An API group and version; the core group is "". */
export interface GroupVersion {
  group: string;
  version: string;
}

/**
 * Splits an `apiVersion` like apimachinery's schema.ParseGroupVersion: "v1" is the core group,
 * "apps/v1" the group "apps". Returns undefined for forms no API server serves, which Go either
 * rejects (more than one "/") or maps to an empty version: "", "/", "apps/", "/v1", and text with
 * whitespace.
 */
export function parseApiVersion(apiVersion: string): GroupVersion | undefined {
  if (apiVersion === "" || /\s/.test(apiVersion)) return undefined;
  const slash = apiVersion.indexOf("/");
  if (slash < 0) return { group: "", version: apiVersion };
  const group = apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  if (group === "" || version === "" || version.includes("/")) return undefined;
  return { group, version };
}

/** Who an object is. Each field is "" when absent or not a string (like Go's unstructured getters). */
export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  /** From `apiVersion`; "" for the core group and when `apiVersion` is invalid. */
  group: string;
  /** From `apiVersion`; "" when `apiVersion` is missing or invalid. */
  version: string;
  name: string;
  namespace: string;
  generateName: string;
  uid: string;
}

/** Reads the identity of any decoded value; never throws. */
export function objectIdentity(obj: unknown): ObjectIdentity {
  const object = isMapping(obj) ? obj : {};
  const metadata = isMapping(object.metadata) ? object.metadata : {};
  const apiVersion = text(object.apiVersion);
  const groupVersion = parseApiVersion(apiVersion);
  return {
    apiVersion,
    kind: text(object.kind),
    group: groupVersion?.group ?? "",
    version: groupVersion?.version ?? "",
    name: text(metadata.name),
    namespace: text(metadata.namespace),
    generateName: text(metadata.generateName),
    uid: text(metadata.uid),
  };
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}
