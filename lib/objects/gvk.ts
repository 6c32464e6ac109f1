/** Group, version, kind and identity of decoded objects, read without trusting their shape. */
import { isMapping } from "./mapping.js";

/** An API group and version; the core group is "". */
export interface GroupVersion {
  group: string;
  version: string;
}

/**
 * apimachinery's `schema.ParseGroupVersion`: "" and "/" are the empty GroupVersion, text without "/" is a version
 * of the core group, text with one "/" is split there (so "/v1" is the core group's v1 and "apps/" the group "apps"
 * with an empty version), and more than one "/" is an error with Go's text.
 */
export function parseGroupVersion(gv: string): GroupVersion | { error: string } {
  if (gv === "" || gv === "/") return { group: "", version: "" };
  const slash = gv.indexOf("/");
  if (slash < 0) return { group: "", version: gv };
  if (gv.indexOf("/", slash + 1) >= 0) return { error: `unexpected GroupVersion string: ${gv}` };
  return { group: gv.slice(0, slash), version: gv.slice(slash + 1) };
}

/**
 * The GroupVersion of an `apiVersion` when an API server serves objects at it: {@link parseGroupVersion}, except
 * that forms with an empty group or version where they are written ("", "/", "apps/", "/v1") and text with
 * whitespace are refused (undefined). lib/policy routes by it; new code should call parseGroupVersion.
 */
export function parseApiVersion(apiVersion: string): GroupVersion | undefined {
  if (/\s/.test(apiVersion)) return undefined;
  const gv = parseGroupVersion(apiVersion);
  if ("error" in gv || gv.version === "") return undefined;
  if (apiVersion.includes("/") && gv.group === "") return undefined;
  return gv;
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
