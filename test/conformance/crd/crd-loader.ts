/** Loads each CRD file of the corpus once per run: `loadBundle(<corpus>/crds/<file>)`, memoised by file. */
import { join } from "node:path";
import type { PolicySet } from "#lib";
import { loadBundle } from "#lib";

/** `loadBundle(path)` once per CRD file, shared by every case that names it. */
export interface CrdLoader {
  load(crd: string): Promise<PolicySet>;
}

export function createCrdLoader(corpusRoot: string): CrdLoader {
  const cache = new Map<string, Promise<PolicySet>>();
  return {
    load(crd) {
      const cached = cache.get(crd);
      if (cached !== undefined) return cached;
      const p: Promise<PolicySet> = loadBundle(join(corpusRoot, "crds", crd));
      // Keep the rejection for every case of this file, without an unhandled-rejection warning in between.
      p.catch(() => undefined);
      cache.set(crd, p);
      return p;
    },
  };
}
