/**
 * The libraries of Kubernetes' base CEL environment (apiserver pkg/cel/environment/base.go at compatibility
 * version 1.35, evaluated with everything a 1.36 binary knows; spec/k8s-cel-semantics.md §9), in registration
 * order. Every CEL expression of the API server (CRD rules, admission policies) sees them.
 */
import { CIDR_LIBRARY } from "./cidr.js";
import { FORMAT_LIBRARY } from "./format.js";
import { IP_LIBRARY } from "./ip.js";
import type { CelLibrary } from "./library.js";
import { LISTS_EXTENSION, LISTS_LIBRARY } from "./lists.js";
import { QUANTITY_LIBRARY } from "./quantity.js";
import { REGEX_LIBRARY } from "./regex.js";
import { SEMVER_LIBRARY } from "./semver.js";
import { SETS_EXTENSION } from "./sets.js";
import { STRINGS_LIBRARY } from "./strings.js";
import { URL_LIBRARY } from "./url.js";

export const KUBERNETES_LIBRARIES: readonly CelLibrary[] = Object.freeze([
  REGEX_LIBRARY,
  STRINGS_LIBRARY,
  LISTS_LIBRARY,
  SETS_EXTENSION,
  LISTS_EXTENSION,
  SEMVER_LIBRARY,
  QUANTITY_LIBRARY,
  IP_LIBRARY,
  CIDR_LIBRARY,
  URL_LIBRARY,
  FORMAT_LIBRARY,
]);
