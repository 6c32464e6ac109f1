/**
 * The built-in resources of Kubernetes 1.36 (kind ↔ resource, scope, subresources), for the admission families'
 * matching.
 */
import type { ResourceInfo } from "./resources.js";

/** The built-in resources. */
export function builtinResources(): readonly ResourceInfo[] {
  return [];
}
