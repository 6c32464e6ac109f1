/**
 * How much each fuzz property runs. `npm test` runs a small budget (a few seconds per property); `npm run fuzz`
 * (TOLLGATE_FUZZ=long) the long one: 200,000 webhook requests. Runs are seeded (TOLLGATE_FUZZ_SEED, default fixed)
 * so a failure reproduces; fast-check prints the seed and the shrunk counterexample. TOLLGATE_FUZZ_RUNS overrides the
 * number of runs of every property.
 */
export const LONG = process.env.TOLLGATE_FUZZ === "long";

/** The seed of every property; a failure prints it with its path. */
export const SEED = Number(process.env.TOLLGATE_FUZZ_SEED ?? "20261125");

/** Runs of a property: `short` in npm test, `long` in npm run fuzz. */
export function runs(short: number, long: number): number {
  const override = Number(process.env.TOLLGATE_FUZZ_RUNS);
  if (Number.isInteger(override) && override > 0) return override;
  return LONG ? long : short;
}

/** The vitest timeout of a property, generous in the long run. */
export function timeout(shortMs: number): number {
  return LONG ? 3_600_000 : shortMs;
}
