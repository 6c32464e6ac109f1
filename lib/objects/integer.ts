/**
 * The one rule for numbers in decoded objects, matching what the API server sees after kubectl:
 * JSON integer literals are int64 when they fit, float64 otherwise (k8s.io/apimachinery's
 * "preserve ints" JSON decoding), and YAML is first turned into JSON by sigs.k8s.io/yaml.
 *
 * - integers within ±(2^53−1) and all non-integers: `number`;
 * - integers outside that range but within int64: `bigint`, so no digit is lost;
 * - integers beyond int64: `number` (float64), as Go's decoder falls back to float64.
 */

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE;
/** -2^63 and 2^63 − 1. */
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
/** 2^64 − 1, the largest uint64. */
export const UINT64_MAX = 2n ** 64n - 1n;
const INT64_MIN_FLOAT = -(2 ** 63);
const INT64_LIMIT_FLOAT = 2 ** 63;

/** An exact integer (a literal without fraction or exponent) as a decoded value. */
export function integerValue(value: bigint): number | bigint {
  if (value >= MIN_SAFE && value <= MAX_SAFE) return Number(value);
  if (value >= INT64_MIN && value <= INT64_MAX) return value;
  return Number(value);
}

/**
 * A YAML float as a decoded value. sigs.k8s.io/yaml writes a float64 with Go's encoding/json,
 * which prints integral values below 1e21 without a fraction (`1.0` → `1`), and the API server
 * then reads those digits as an int64 when they fit. So an integral float within int64 becomes
 * an integer; other floats stay floats. The value must be finite.
 */
export function floatValue(value: number): number | bigint {
  if (Number.isSafeInteger(value)) return value === 0 ? 0 : value;
  if (Number.isInteger(value) && value >= INT64_MIN_FLOAT && value < INT64_LIMIT_FLOAT) return BigInt(value);
  return value;
}
