/**
 * The known-failures.yaml format shared by the conformance suites: a mapping from a case key to an entry with a
 * non-empty `reason` and short one-line texts (`want`, `got`, and per suite e.g. the CEL `expr`). An absent or
 * empty file is an empty list. Files are written sorted by key (stable diffs) with long texts on one line.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { Document, parse } from "yaml";

export type KnownFailureEntry<F extends string> = { reason: string } & Record<F, string>;

/** Reads `path`; `fields` are the text fields besides `reason` (missing ones read as ""). */
export function readKnownFailureFile<F extends string>(
  path: string,
  fields: readonly F[],
): Map<string, KnownFailureEntry<F>> {
  const out = new Map<string, KnownFailureEntry<F>>();
  if (!existsSync(path)) return out;
  const parsed: unknown = parse(readFileSync(path, "utf8"));
  if (parsed === null || parsed === undefined) return out;
  if (typeof parsed !== "object" || Array.isArray(parsed)) throw new Error(`${path}: expected a mapping of case keys`);
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    const v = value as Record<string, unknown> | null;
    if (v === null || typeof v !== "object" || typeof v.reason !== "string" || v.reason === "") {
      throw new Error(`${path}: entry ${JSON.stringify(key)} needs a reason`);
    }
    const entry = { reason: v.reason } as KnownFailureEntry<F>;
    for (const f of fields) (entry as Record<string, string>)[f] = String(v[f] ?? "");
    out.set(key, entry);
  }
  return out;
}

/** Writes `entries` to `path` sorted by key, under the comment `header`, with `reason` first and then `fields`. */
export function writeKnownFailureFile<F extends string>(
  path: string,
  header: string,
  fields: readonly F[],
  entries: ReadonlyMap<string, KnownFailureEntry<F>>,
): void {
  const sorted: Record<string, Record<string, string>> = {};
  for (const key of [...entries.keys()].sort()) {
    const e = entries.get(key) as KnownFailureEntry<F>;
    const row: Record<string, string> = { reason: e.reason };
    for (const f of fields) row[f] = e[f];
    sorted[key] = row;
  }
  const doc = new Document(sorted);
  doc.commentBefore = header;
  writeFileSync(path, doc.toString({ lineWidth: 0 }));
}
