/**
 * loadBundle(source): list the documents of a policy bundle (a folder, a file, an s3:// object or prefix, a bundle
 * artifact, or in-memory files), recognise each by content, parse tollgate.yaml, compile each family once (schema
 * families first, then the admission families, which see the schema families' kinds and the cluster state),
 * collect PolicyFailures, freeze. Never throws because a policy is bad: only an unreadable source (StorageError) is
 * thrown.
 */

import { appendAll } from "../objects/append.js";
import { builtinResources } from "../policy/builtin-resources.js";
import { createClusterState } from "../policy/cluster-state.js";
import type { FamilyCompileContext, FamilyCompiler, FamilyPolicy } from "../policy/family.js";
import { createPolicySet } from "../policy/policy-set.js";
import { createResourceCatalogue, resourcesOfKinds } from "../policy/resources.js";
import {
  type BundleFile,
  type BundleOptions,
  EVERY_KIND,
  type PolicyFailure,
  type PolicyNote,
  type PolicySet,
  type ResolvedBundleConfig,
} from "../policy/types.js";
import { WaiverCollector } from "../waivers/collect.js";
import { decodeBundle, decodeEntries } from "./artifact.js";
import { classifyEntries } from "./classify.js";
import { decodeLimitsOf, resolveBundleConfig } from "./config.js";
import { FAMILY_COMPILERS } from "./families.js";
import { readBundleFiles } from "./source.js";

/**
 * Loads and compiles a policy bundle once. `source` is a folder, a file, `s3://bucket/key` (one file, or a bundle
 * artifact), `s3://bucket/prefix/` (a folder), or in-memory files. A single file that is a bundle artifact (`tollgate
 * bundle build`) is recognised by content and loaded without YAML decoding. Options override the bundle's
 * tollgate.yaml, which overrides the built-in defaults.
 */
export async function loadBundle(source: string | BundleFile[], options: BundleOptions = {}): Promise<PolicySet> {
  const files = await readBundleFiles(source, options.s3);
  const limits = decodeLimitsOf(options);
  const { digest, entries, failures, built } = decodeBundle(files, limits);
  // An artifact's build compiled every CEL rule and pattern already: compile those lazily, and take their failures
  // from the build (a lazy load does not find them by itself). The CRD family takes all of its own from the build
  // (compileFamilies hands the build over): it compiles its schemas lazily too.
  const lazy = built !== undefined || options.compile === "lazy";
  if (built !== undefined) {
    appendAll(
      failures,
      built.failures.filter((f) => (f.stage === "cel" || f.stage === "pattern") && f.family !== "crd"),
    );
  }
  const compilers = FAMILY_COMPILERS.map((make) => make());
  const notes: PolicyNote[] = [];
  const waivers = new WaiverCollector(failures);
  const classified = classifyEntries(entries, compilers, failures, notes, waivers);
  // Waiver files given beside the bundle (the auditor's --waivers): Waivers only, never policies or state.
  for (const { file, documents } of decodeEntries(options.waivers ?? [], limits)) {
    waivers.addFile(file.path, documents ?? [{ document: 0, error: "not a YAML or JSON file" }]);
  }
  const config = resolveBundleConfig(classified.config, options);
  const families = await compileFamilies(
    compilers,
    config,
    { compile: lazy ? "lazy" : "eager", built },
    failures,
    options,
    [...classified.state, ...(options.clusterState ?? [])],
  );
  const { policies, resources } = families;
  const consulting = families.consulting.filter((c) => c.consultsState !== undefined);
  const consultsState = (obj: Record<string, unknown>) => consulting.some((c) => c.consultsState?.(obj) === true);
  const consulted = dropConsultedState(notes, classified.stateNotes, consultsState);
  return createPolicySet({
    digest,
    config,
    families: policies,
    resources,
    failures,
    notes: consulted,
    consultsState,
    waivers: waivers.waivers,
  });
}

/** The notes without the "not a policy document" notes of state objects a compiled family consults. */
function dropConsultedState(
  notes: readonly PolicyNote[],
  stateNotes: ReadonlyMap<PolicyNote, Record<string, unknown>>,
  consultsState: (obj: Record<string, unknown>) => boolean,
): PolicyNote[] {
  return notes.filter((n) => {
    const obj = stateNotes.get(n);
    return obj === undefined || !consultsState(obj);
  });
}

/**
 * Compiles the enabled families: the schema stage first, then the admission stage with the catalogue of resources
 * (built-in ones and the schema families' kinds) and the cluster state.
 */
async function compileFamilies(
  compilers: readonly FamilyCompiler[],
  config: ResolvedBundleConfig,
  how: Pick<FamilyCompileContext, "compile" | "built">,
  failures: PolicyFailure[],
  options: BundleOptions,
  state: readonly unknown[],
) {
  const policies: FamilyPolicy[] = [];
  /** The compilers whose policy compiled (those may consult the cluster state). */
  const consulting: FamilyCompiler[] = [];
  const empty = createClusterState([]);
  let resources = createResourceCatalogue(builtinResources());
  for (const stage of ["schema", "admission"] as const) {
    if (stage === "admission") {
      const schemaKinds = policies.flatMap((p) => p.kinds);
      resources = createResourceCatalogue([...resourcesOfKinds(schemaKinds), ...builtinResources()]);
    }
    const cluster = stage === "admission" ? createClusterState(state) : empty;
    for (const c of compilers) {
      if (c.stage !== stage || !config.families[c.family]) continue;
      try {
        const ctx: FamilyCompileContext = { config, options, compile: how.compile, cluster, resources };
        if (how.built !== undefined) ctx.built = how.built;
        if (stage === "admission") {
          if (options.authorizer !== undefined) ctx.authorizer = options.authorizer;
          const schemaFamilies = policies.filter((p) => p.schemaOf !== undefined);
          ctx.schemaOf = (g, v, k) => {
            for (const p of schemaFamilies) {
              const s = p.schemaOf?.(g, v, k);
              if (s !== undefined) return s;
            }
            return undefined;
          };
        }
        const r = await c.compile(ctx);
        appendAll(failures, r.failures);
        if (r.policy !== null) {
          policies.push(r.policy);
          consulting.push(c);
        }
      } catch (e) {
        const message = `internal error while compiling the ${c.family} family: ${e instanceof Error ? e.message : String(e)}`;
        // Which kinds the family would have covered is unknown: every kind is affected.
        failures.push({ severity: "error", family: c.family, stage: "compile", kinds: [EVERY_KIND], message });
      }
    }
  }
  return { policies, resources, consulting };
}
