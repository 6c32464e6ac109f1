/** The shape of a named benchmark case, of the row it reports and of the goals the row is held to. */

export interface BenchContext {
  corpusRoot: string;
}

/**
 * A goal a row is held to: a measured figure (a ratio to something measured in the same run, or a time over a
 * baseline) against its limit. `npm run bench` prints every goal, its figure and whether it is met.
 */
export interface BenchGoal {
  /** What is compared, e.g. "÷ JSON round trip" or "first verdict over bare Node". */
  label: string;
  actual: number;
  /** `<=`: the figure must not exceed the limit; `>=`: it must reach it. */
  op: "<=" | ">=";
  limit: number;
  /** How the figure and limit print: a ratio (×), milliseconds, or a percentage. */
  unit: "×" | "ms" | "%";
  /**
   * The same figure computed from CPU time instead of wall time, where the case measures it: on a loaded machine
   * wall time grows with the neighbours' work, CPU time much less, so the two side by side say how far to trust the
   * wall figure. Whether the goal is met is judged on `actual`.
   */
  byCpu?: number;
}

export interface BenchRow {
  name: string;
  unit: "µs" | "ms";
  /** The measured figure (median), in `unit` per operation. */
  value: number;
  /** The CPU time (user + system, of every process and thread involved) of that figure, where measured. */
  cpu?: number;
  min: number;
  max: number;
  /** Measured in the same run, same unit. */
  baseline: { label: string; value: number };
  /** The Go reference figure of perf-anchors.md, same unit, and the goal as a fraction of it. */
  reference?: { label: string; value: number; goalFraction: number };
  /** Goals besides the Go reference's (which run.ts derives from `reference`). */
  goals?: BenchGoal[];
  /** Extra lines printed under the table. */
  notes: string[];
  /** Extra figures written to the JSON results. */
  data: Record<string, number | string | boolean>;
}

export interface BenchCase {
  /** Unique; the command-line filter matches substrings of it. */
  name: string;
  run(ctx: BenchContext): Promise<BenchRow>;
}

/** A goal (see {@link BenchGoal}). */
export function goal(
  label: string,
  actual: number,
  op: BenchGoal["op"],
  limit: number,
  unit: BenchGoal["unit"],
  byCpu?: number,
): BenchGoal {
  return byCpu === undefined ? { label, actual, op, limit, unit } : { label, actual, op, limit, unit, byCpu };
}

export function isGoalMet(g: BenchGoal): boolean {
  return g.op === "<=" ? g.actual <= g.limit : g.actual >= g.limit;
}

/** Every goal of a row: the Go reference's (≥ 1/goalFraction × faster) first, then the row's own. */
export function goalsOf(row: BenchRow): BenchGoal[] {
  const out: BenchGoal[] = [];
  const ref = row.reference;
  if (ref !== undefined)
    out.push(goal(`${ref.label} ÷ tollgate`, ref.value / row.value, ">=", 1 / ref.goalFraction, "×"));
  if (row.goals !== undefined) out.push(...row.goals);
  return out;
}

/** A figure with its unit, for goal lines. */
export function formatGoalFigure(value: number, unit: BenchGoal["unit"]): string {
  if (unit === "%") return `${(value * 100).toFixed(1)}%`;
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return unit === "ms" ? `${value.toFixed(digits)} ms` : `${value.toFixed(digits)}×`;
}
