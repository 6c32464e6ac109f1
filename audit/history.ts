/**
 * `history.json` at the report prefix: one compact JSON line per completed run (its time, totals by severity, the
 * pass rate's parts, counts per policy, namespace and team, the bundle digest and the digest of its index.json),
 * appended by the sink once the run's index.json is written (sink.ts), so a report draws the trend of the last
 * {@link HISTORY_SHOWN} runs from one small object instead of listing the bucket.
 *
 * Bounds: the file keeps the last {@link HISTORY_KEPT} runs, and each line the {@link GROUPS_PER_LINE} largest
 * groups of each group-by (by findings), so a line stays small on clusters with thousands of namespaces. A line that
 * does not parse is skipped by readers (and dropped at the next append). The evidence of a run is its index.json
 * chain (evidence.ts); the history is a convenience and is not part of the chain.
 */
import type { GroupCounts, RunGroups } from "./groups.js";
import type { AuditRunHeader } from "./model.js";

export const HISTORY_FILE = "history.json";
/** Runs a report draws. */
export const HISTORY_SHOWN = 90;
/** Runs the file keeps. */
export const HISTORY_KEPT = 1000;
/** Largest groups kept per group-by in a line. */
export const GROUPS_PER_LINE = 50;

/** The group-bys a history line keeps (controllers are too many to keep per run). */
const HISTORY_GROUP_BYS = ["policy", "namespace", "team"] as const;

export interface HistoryEntry {
  runId: string;
  /** The run folder, relative to the prefix (`20261122T021500Z/`). */
  path: string;
  startedAt: string;
  finishedAt: string;
  /** The bundle's digest. */
  bundle: string;
  /** sha256 of the run's index.json. */
  index: string;
  /** Objects a policy covered, and those of them that failed (the pass rate's parts). */
  objects: { checked: number; failed: number };
  /** Findings by severity (every severity, zeros included). */
  findings: Record<string, number>;
  groups: Partial<Record<(typeof HISTORY_GROUP_BYS)[number], Record<string, GroupCounts>>>;
}

function total(c: GroupCounts): number {
  let n = 0;
  for (const v of Object.values(c.findings)) n += v;
  return n;
}

/** The largest `n` groups of a group-by, by findings then name. */
function largest(groups: Record<string, GroupCounts>, n: number): Record<string, GroupCounts> {
  const entries = Object.entries(groups).sort((a, b) => total(b[1]) - total(a[1]) || (a[0] < b[0] ? -1 : 1));
  return Object.fromEntries(entries.slice(0, n));
}

/** The line of a run, once its index.json (digest `index`) is written in `path`. */
export function historyEntryOf(
  run: AuditRunHeader & { groups?: RunGroups },
  path: string,
  index: string,
): HistoryEntry {
  const s = run.summary;
  const groups: HistoryEntry["groups"] = {};
  if (run.groups !== undefined) {
    for (const by of HISTORY_GROUP_BYS) groups[by] = largest(run.groups[by], GROUPS_PER_LINE);
  }
  return {
    runId: run.runId,
    path,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    bundle: run.bundle.digest,
    index,
    objects: { checked: s.valid + s.invalid, failed: s.invalid },
    findings: { ...s.findings },
    groups,
  };
}

function isEntry(v: unknown): v is HistoryEntry {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Partial<HistoryEntry>;
  return (
    typeof e.runId === "string" &&
    typeof e.path === "string" &&
    typeof e.finishedAt === "string" &&
    typeof e.findings === "object" &&
    e.findings !== null &&
    typeof e.objects === "object" &&
    e.objects !== null
  );
}

/** The entries of a history.json text, oldest first; lines that are not entries are skipped. */
export function parseHistory(text: string): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const v: unknown = JSON.parse(line);
      if (isEntry(v)) out.push(v);
    } catch {
      // A damaged line is skipped: the history is a convenience, the index.json chain is the evidence.
    }
  }
  return out;
}

/** The history text with `entry` appended (a line for the same run folder replaced), the last {@link HISTORY_KEPT}. */
export function appendHistory(text: string | undefined, entry: HistoryEntry): string {
  const entries = parseHistory(text ?? "").filter((e) => e.path !== entry.path);
  entries.push(entry);
  return `${entries
    .slice(-HISTORY_KEPT)
    .map((e) => JSON.stringify(e))
    .join("\n")}\n`;
}
