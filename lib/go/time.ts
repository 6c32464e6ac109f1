/**
 * Go's `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with the units ns, us, µs (micro sign), μs (Greek
 * mu), ms, s, m, h (a unit is everything up to the next digit or `.`), `0` alone, and no value beyond the int64
 * range of nanoseconds. Fractions are added as Go adds them, through a float64 (`v += uint64(float64(f) *
 * (float64(unit) / scale))`), and a fraction's digits stop counting once they would overflow.
 */

const NANOS_PER_UNIT: ReadonlyMap<string, bigint> = new Map([
  ["ns", 1n],
  ["us", 1_000n],
  ["\u00b5s", 1_000n], // micro sign
  ["\u03bcs", 1_000n], // Greek small letter mu
  ["ms", 1_000_000n],
  ["s", 1_000_000_000n],
  ["m", 60_000_000_000n],
  ["h", 3_600_000_000_000n],
]);

const TWO_POW_63 = 1n << 63n;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** `leadingInt`: the integer at `s[i:]` and where it ends; undefined beyond 2^63. */
function leadingInt(s: string, i: number): { value: bigint; end: number } | undefined {
  let v = 0n;
  while (i < s.length && isDigit(s.charCodeAt(i))) {
    if (v > TWO_POW_63 / 10n) return undefined;
    v = v * 10n + BigInt(s.charCodeAt(i) - 0x30);
    if (v > TWO_POW_63) return undefined;
    i++;
  }
  return { value: v, end: i };
}

/** `leadingFraction`: the digits at `s[i:]` as an integer and its scale (accumulation stops on overflow). */
function leadingFraction(s: string, i: number): { value: bigint; scale: number; end: number } {
  let f = 0n;
  let scale = 1;
  let overflow = false;
  while (i < s.length && isDigit(s.charCodeAt(i))) {
    if (!overflow) {
      if (f > (TWO_POW_63 - 1n) / 10n) overflow = true;
      else {
        const y = f * 10n + BigInt(s.charCodeAt(i) - 0x30);
        if (y > TWO_POW_63) overflow = true;
        else {
          f = y;
          scale *= 10;
        }
      }
    }
    i++;
  }
  return { value: f, scale, end: i };
}

/** `time.ParseDuration(s)` in nanoseconds, or undefined where Go returns an error. */
export function parseDuration(input: string): bigint | undefined {
  let s = input;
  let negative = false;
  if (s.startsWith("-") || s.startsWith("+")) {
    negative = s.startsWith("-");
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") return undefined;
  let total = 0n;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (!(c === 0x2e || isDigit(c))) return undefined;
    const int = leadingInt(s, i);
    if (int === undefined) return undefined;
    const hasInt = int.end > i;
    i = int.end;
    let fraction = { value: 0n, scale: 1, end: i };
    if (i < s.length && s.charCodeAt(i) === 0x2e) fraction = leadingFraction(s, i + 1);
    const hasFraction = fraction.end > i + 1;
    i = fraction.end;
    if (!hasInt && !hasFraction) return undefined;
    const unitFrom = i;
    while (i < s.length && !(s.charCodeAt(i) === 0x2e || isDigit(s.charCodeAt(i)))) i++;
    const unit = NANOS_PER_UNIT.get(s.slice(unitFrom, i));
    if (unit === undefined) return undefined;
    let v = int.value;
    if (v > TWO_POW_63 / unit) return undefined;
    v *= unit;
    if (fraction.value > 0n) {
      v += BigInt(Math.trunc(Number(fraction.value) * (Number(unit) / fraction.scale)));
      if (v > TWO_POW_63) return undefined;
    }
    total += v;
    if (total > TWO_POW_63) return undefined;
  }
  if (negative) return -total;
  return total <= TWO_POW_63 - 1n ? total : undefined;
}
