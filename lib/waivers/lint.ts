/**
 * `tollgate lint`'s checks of the waivers in force, beyond reading them (a waiver that cannot be read is already a
 * policy failure of the load): a waiver that has expired (it waives nothing), and selectors that can never match:
 * `kinds` globs none of the bundle's covered kinds match, and `namespaces` on a waiver whose kinds are all
 * cluster-scoped. Kinds are known only for the families that cover kinds; when the bundle holds admission policies
 * (judged by resource: any kind may be theirs), `kinds` are not checked. Warnings: a waiver that matches nothing is
 * harmless to validation, but its author meant something else.
 */
import picomatch from "picomatch";
import type { PolicyFailure, PolicySet } from "../policy/types.js";
import type { Waiver } from "./waiver.js";

export function lintWaivers(set: Pick<PolicySet, "waivers" | "kinds" | "admissionRules">, now: Date): PolicyFailure[] {
  const out: PolicyFailure[] = [];
  const at = now.getTime();
  for (const w of set.waivers) {
    if (w.expiresAt <= at) {
      out.push(
        warning(w, "spec.expires", `Waiver ${w.name} expired at ${w.expires}: it waives nothing (renew or remove it)`),
      );
    }
    const selected =
      w.kinds === undefined
        ? set.kinds
        : set.kinds.filter((k) => picomatch.isMatch(k.kind, [...(w.kinds ?? [])], { dot: true, noextglob: true }));
    if (w.kinds !== undefined && selected.length === 0 && set.admissionRules.length === 0) {
      const covered = [...new Set(set.kinds.map((k) => k.kind))].sort().join(", ");
      out.push(
        warning(
          w,
          "spec.kinds",
          `Waiver ${w.name}: kinds ${JSON.stringify(w.kinds)} match no kind the bundle covers (${covered || "none"}): it can never match`,
        ),
      );
    } else if (w.namespaces !== undefined && selected.length > 0 && selected.every((k) => k.scope === "Cluster")) {
      out.push(
        warning(
          w,
          "spec.namespaces",
          `Waiver ${w.name}: the kinds it selects are cluster-scoped and have no namespace: with namespaces it can never match`,
        ),
      );
    }
  }
  return out;
}

function warning(w: Waiver, path: string, message: string): PolicyFailure {
  const f: PolicyFailure = { severity: "warning", family: "config", stage: "config", path, message };
  if (w.file !== undefined) f.file = w.file;
  if (w.document !== undefined) f.document = w.document;
  return f;
}
