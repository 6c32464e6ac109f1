/** The shape of a named benchmark case and of the row it reports. */

export interface BenchContext {
  corpusRoot: string;
}

export interface BenchRow {
  name: string;
  unit: "µs" | "ms";
  /** The measured figure (median), in `unit` per operation. */
  value: number;
  min: number;
  max: number;
  /** Measured in the same run, same unit. */
  baseline: { label: string; value: number };
  /** The Go reference figure of perf-anchors.md, same unit, and the goal as a fraction of it. */
  reference?: { label: string; value: number; goalFraction: number };
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
