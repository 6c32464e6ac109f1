/**
 * The cluster state an audit gives the admission families (lib's BundleOptions.clusterState): the Namespace objects
 * of the audited input, whose labels say which Pod Security levels a namespace enforces, audits and warns about and
 * which ValidatingAdmissionPolicy namespaceSelectors match; with `--policies-from-input` also every other object a
 * compiled family consults (RBAC objects for the `authorizer`, the policies' params). They are found by a pre-pass
 * over the sources, made only when the bundle enables an admission family (or the what-if Pod Security level does);
 * the policy set is then compiled again with them (and with the what-if level).
 *
 * For Namespaces alone the pre-pass decodes only the parts of the input that can hold one (their text names the
 * kind), so a large export costs one more read, not one more decode; with `--policies-from-input` it decodes all.
 */
import type { LoadedPolicies } from "./policies.js";
import { decodeRawPart } from "./sources/raw-part.js";
import type { RawPart, Source, SourceDoc } from "./sources/types.js";

export interface AuditPolicyOptions {
  /** `<level>:<version>`: the what-if Pod Security enforce level (lib's BundleOptions.podSecurity.enforce). */
  podSecurity?: string;
  /** `--policies-from-input`: also the input's objects the compiled families consult besides Namespaces. */
  stateFromInput?: boolean;
}

function isNamespace(obj: Record<string, unknown>): boolean {
  return obj.kind === "Namespace" && obj.apiVersion === "v1";
}

/**
 * The Namespace objects (v1) of the sources, in input order; with `consults`, also every object it takes (then
 * every part is decoded).
 */
export async function namespacesOf(
  sources: readonly Source[],
  consults?: (obj: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  const take = (docs: readonly SourceDoc[]) => {
    for (const d of docs) {
      if (d.kind === "object" && (isNamespace(d.object) || consults?.(d.object) === true)) out.push(d.object);
    }
  };
  for (const source of sources) {
    for await (const unit of source.units()) {
      if (unit.raw === undefined) {
        take(await unit.read());
        continue;
      }
      const start = out.length;
      let whole = false;
      for await (const part of unit.raw()) {
        if (consults === undefined && !mayHoldNamespace(part)) continue;
        const docs = decodeRawPart(part);
        if (typeof docs === "string") {
          // A part that only decodes with the whole unit: read the unit once, whole.
          whole = true;
          break;
        }
        take(docs);
      }
      if (whole) {
        out.length = start;
        take(await unit.read());
      }
    }
  }
  return out;
}

/** Whether a part's text can hold a Namespace (decoded parts always may). */
function mayHoldNamespace(part: RawPart): boolean {
  switch (part.kind) {
    case "text":
      return part.text.includes("Namespace");
    case "yaml":
      return part.piece.text === undefined || part.piece.text.includes("Namespace");
    case "json-item":
      return part.raw === undefined || part.raw.includes("Namespace");
    default:
      return true;
  }
}

/**
 * The policy set to audit with: `loaded` as it is, unless an admission family is enabled (or the what-if level is
 * given): then the bundle compiled again with the input's Namespaces as cluster state and the what-if level.
 */
export async function withAuditState(
  loaded: LoadedPolicies,
  sources: readonly Source[],
  options: AuditPolicyOptions,
  reload: (source: LoadedPolicies["source"]) => Promise<LoadedPolicies["policySet"]>,
): Promise<LoadedPolicies> {
  const admission = loaded.policySet.families.some((f) => f.stage === "admission");
  if (!admission && options.podSecurity === undefined) return loaded;
  const consults = options.stateFromInput === true ? loaded.policySet.consultsState : undefined;
  const clusterState = await namespacesOf(sources, consults);
  if (clusterState.length === 0 && options.podSecurity === undefined) return loaded;
  const source = {
    ...loaded.source,
    options: {
      ...loaded.source.options,
      ...(clusterState.length > 0 && { clusterState }),
      ...(options.podSecurity !== undefined && { podSecurity: { enforce: options.podSecurity } }),
    },
  };
  return { ...loaded, policySet: await reload(source), source };
}
