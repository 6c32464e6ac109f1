/**
 * Go's `strconv.FormatFloat` for the layouts the CEL libraries print with: `'g'` and `'f'` with
 * the shortest round-tripping digits (precision -1), and `'f'` with a fixed number of decimals,
 * rounded half to even on the exact binary value as Go does (`0.125` with two decimals is
 * `0.12`, where JavaScript's `toFixed` gives `0.13`).
 *
 * Non-finite values print as Go prints them: `NaN`, `+Inf`, `-Inf`.
 */

/** The shortest digits of a finite non-zero `|x|` and its decimal point position: `x = 0.d1d2… × 10^dp`. */
function shortestDigits(x: number): { digits: string; dp: number } {
  const [mant, exp] = Math.abs(x).toExponential().split("e") as [string, string];
  const digits = mant.replace(".", "");
  return { digits, dp: Number(exp) + 1 };
}

function nonFinite(x: number): string | undefined {
  if (Number.isNaN(x)) return "NaN";
  if (x === Number.POSITIVE_INFINITY) return "+Inf";
  if (x === Number.NEGATIVE_INFINITY) return "-Inf";
  return undefined;
}

function sign(x: number): string {
  return x < 0 || Object.is(x, -0) ? "-" : "";
}

/** Digits `d` with the decimal point at `dp`, in `%f` layout (no exponent). */
function fixedLayout(digits: string, dp: number): string {
  if (dp <= 0) return `0.${"0".repeat(-dp)}${digits}`;
  if (dp >= digits.length) return digits + "0".repeat(dp - digits.length);
  return `${digits.slice(0, dp)}.${digits.slice(dp)}`;
}

/** `strconv.FormatFloat(x, 'f', -1, 64)`. */
export function formatFloatShortestF(x: number): string {
  const nf = nonFinite(x);
  if (nf !== undefined) return nf;
  if (x === 0) return `${sign(x)}0`;
  const { digits, dp } = shortestDigits(x);
  return sign(x) + fixedLayout(digits, dp);
}

/**
 * `strconv.FormatFloat(x, 'g', -1, 64)`: the `%e` layout (`1.234567e+06`) when the decimal
 * exponent is below -4 or at least 6 (Go's fixed threshold for shortest formatting), else `%f`.
 */
export function formatFloatShortestG(x: number): string {
  const nf = nonFinite(x);
  if (nf !== undefined) return nf;
  if (x === 0) return `${sign(x)}0`;
  const { digits, dp } = shortestDigits(x);
  const exp = dp - 1;
  if (exp < -4 || exp >= 6) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    return `${sign(x)}${mant}e${exp < 0 ? "-" : "+"}${e < 10 ? `0${e}` : e}`;
  }
  return sign(x) + fixedLayout(digits, dp);
}

/** The exact value of a finite double as `num / 2^shift` (`shift ≥ 0`). */
function exactBinary(x: number): { num: bigint; shift: bigint } {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(x));
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const exp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (exp === 0) {
    e = -1074;
  } else {
    mant |= 1n << 52n;
    e = exp - 1075;
  }
  return e >= 0 ? { num: mant << BigInt(e), shift: 0n } : { num: mant, shift: BigInt(-e) };
}

/** `strconv.FormatFloat(x, 'f', prec, 64)`: exact value rounded half to even to `prec` decimals. */
export function formatFloatFixed(x: number, prec: number): string {
  const nf = nonFinite(x);
  if (nf !== undefined) return nf;
  const { num, shift } = exactBinary(x);
  // round(num × 10^prec / 2^shift), ties to even
  const scaled = num * 10n ** BigInt(prec);
  const den = 1n << shift;
  let q = scaled / den;
  const r = scaled % den;
  const twice = r * 2n;
  if (twice > den || (twice === den && q % 2n === 1n)) q += 1n;
  let digits = q.toString();
  if (prec > 0) {
    digits = digits.padStart(prec + 1, "0");
    digits = `${digits.slice(0, -prec)}.${digits.slice(-prec)}`;
  }
  return sign(x) + digits;
}

/** Inserts `,` every three digits in the integer part of a plain decimal number (`1234.5` → `1,234.5`). */
export function groupThousands(s: string): string {
  const neg = s.startsWith("-");
  const body = neg ? s.slice(1) : s;
  const dot = body.indexOf(".");
  const int = dot < 0 ? body : body.slice(0, dot);
  const frac = dot < 0 ? "" : body.slice(dot);
  let grouped = "";
  for (let i = 0; i < int.length; i++) {
    if (i > 0 && (int.length - i) % 3 === 0) grouped += ",";
    grouped += int[i];
  }
  return (neg ? "-" : "") + grouped + frac;
}

/**
 * `strconv.FormatFloat(x, 'e', prec, 64)` split into its parts for a finite `x`: the mantissa
 * digits (`prec + 1` of them, rounded half to even on the exact value) and the decimal exponent.
 */
export function exponentDigits(x: number, prec: number): { negative: boolean; digits: string; exp: number } {
  const negative = x < 0 || Object.is(x, -0);
  if (x === 0) return { negative, digits: "0".repeat(prec + 1), exp: 0 };
  const { num, shift } = exactBinary(x);
  let exp = shortestDigits(x).dp - 1;
  // round(num / 2^shift / 10^(exp - prec)), ties to even
  const round = (e: number): bigint => {
    const k = prec - e;
    let n = num;
    let d = 1n << shift;
    if (k >= 0) n *= 10n ** BigInt(k);
    else d *= 10n ** BigInt(-k);
    let q = n / d;
    const twice = (n % d) * 2n;
    if (twice > d || (twice === d && q % 2n === 1n)) q += 1n;
    return q;
  };
  let q = round(exp);
  if (q >= 10n ** BigInt(prec + 1)) {
    exp += 1;
    q = round(exp);
  }
  return { negative, digits: q.toString(), exp };
}
