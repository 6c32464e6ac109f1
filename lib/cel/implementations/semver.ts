/**
 * The Kubernetes CEL semver library, version 1 (k8s.io/apiserver/pkg/cel/library/semverlib.go,
 * type `kubernetes.Semver`), on github.com/blang/semver/v4's `Parse` and `Compare`.
 *
 * `semver(s)` accepts strict `MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]` (no `v` prefix, no leading
 * zeros, all three numbers). `semver(s, true)` first normalises like Kubernetes'
 * `normalizeAndParse`: strips one leading `v`, strips leading zeros of the dot-separated parts
 * (the third part includes any pre-release and build), and pads `1` / `1.2` with `.0`; a short
 * version carrying `-` or `+` fails with `short version cannot contain PreRelease/Build meta data`.
 * Errors are blang/semver's texts (`No Major.Minor.Patch elements found`,
 * `Invalid character(s) found in major number "v1"`, ...).
 *
 * Ordering is semver 2.0 precedence: numbers numerically, a version with a pre-release sorts
 * before the same version without, pre-release identifiers compare numerically when both are
 * numeric, numeric before alphanumeric, alphanumeric by byte order, and a longer list of equal
 * identifiers is greater. Build metadata is ignored, also by `==`.
 */

import { goQuote } from "../../go/strconv.js";
import { LibraryError } from "./error.js";

const UINT64_MAX = (1n << 64n) - 1n;

/** One pre-release identifier. */
type PreRelease = { readonly num: bigint } | { readonly str: string };

function containsOnly(s: string, allowed: (c: number) => boolean): boolean {
  for (let i = 0; i < s.length; i++) if (!allowed(s.charCodeAt(i))) return false;
  return true;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isAlnumDash(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2d;
}

function hasLeadingZeroes(s: string): boolean {
  return s.length > 1 && s[0] === "0";
}

/** `strconv.ParseUint(s, 10, 64)` on a string of ASCII digits. */
function parseUint(s: string): bigint {
  if (s.length === 0) throw new LibraryError('strconv.ParseUint: parsing "": invalid syntax');
  const v = BigInt(s);
  if (v > UINT64_MAX) throw new LibraryError(`strconv.ParseUint: parsing ${goQuote(s)}: value out of range`);
  return v;
}

function parseNumber(s: string, what: "major" | "minor" | "patch"): bigint {
  if (!containsOnly(s, isDigit)) throw new LibraryError(`Invalid character(s) found in ${what} number ${goQuote(s)}`);
  if (hasLeadingZeroes(s)) {
    const title = what === "major" ? "Major" : what === "minor" ? "Minor" : "Patch";
    throw new LibraryError(`${title} number must not contain leading zeroes ${goQuote(s)}`);
  }
  return parseUint(s);
}

function parsePreRelease(s: string): PreRelease {
  if (s.length === 0) throw new LibraryError("Prerelease is empty");
  if (containsOnly(s, isDigit)) {
    if (hasLeadingZeroes(s)) {
      throw new LibraryError(`Numeric PreRelease version must not contain leading zeroes ${goQuote(s)}`);
    }
    return { num: parseUint(s) };
  }
  if (containsOnly(s, isAlnumDash)) return { str: s };
  throw new LibraryError(`Invalid character(s) found in prerelease ${goQuote(s)}`);
}

/** Go `strings.SplitN(s, ".", 3)`. */
function splitDots3(s: string): string[] {
  const a = s.indexOf(".");
  if (a < 0) return [s];
  const b = s.indexOf(".", a + 1);
  if (b < 0) return [s.slice(0, a), s.slice(a + 1)];
  return [s.slice(0, a), s.slice(a + 1, b), s.slice(b + 1)];
}

function comparePre(a: PreRelease, b: PreRelease): number {
  if ("num" in a && "num" in b) return a.num === b.num ? 0 : a.num > b.num ? 1 : -1;
  if ("num" in a) return -1;
  if ("num" in b) return 1;
  return a.str === b.str ? 0 : a.str > b.str ? 1 : -1;
}

/** A CEL `kubernetes.Semver` value. Immutable. */
export class Semver {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly pre: readonly PreRelease[];
  readonly build: readonly string[];

  private constructor(major: bigint, minor: bigint, patch: bigint, pre: PreRelease[], build: string[]) {
    this.major = major;
    this.minor = minor;
    this.patch = patch;
    this.pre = pre;
    this.build = build;
  }

  /** blang/semver `Parse`; throws a {@link LibraryError} with its error text. */
  static parse(s: string): Semver {
    if (s.length === 0) throw new LibraryError("Version string empty");
    const parts = splitDots3(s);
    if (parts.length !== 3) throw new LibraryError("No Major.Minor.Patch elements found");
    const major = parseNumber(parts[0]!, "major");
    const minor = parseNumber(parts[1]!, "minor");
    let patchStr = parts[2]!;
    let build: string[] = [];
    let pre: string[] = [];
    const plus = patchStr.indexOf("+");
    if (plus >= 0) {
      build = patchStr.slice(plus + 1).split(".");
      patchStr = patchStr.slice(0, plus);
    }
    const dash = patchStr.indexOf("-");
    if (dash >= 0) {
      pre = patchStr.slice(dash + 1).split(".");
      patchStr = patchStr.slice(0, dash);
    }
    const patch = parseNumber(patchStr, "patch");
    const preParsed = pre.map(parsePreRelease);
    for (const b of build) {
      if (b.length === 0) throw new LibraryError("Build meta data is empty");
      if (!containsOnly(b, isAlnumDash)) {
        throw new LibraryError(`Invalid character(s) found in build meta data ${goQuote(b)}`);
      }
    }
    return new Semver(major, minor, patch, preParsed, build);
  }

  /** Kubernetes' `normalizeAndParse` (the `semver(s, true)` form). */
  static parseNormalized(s: string): Semver {
    if (s.startsWith("v")) s = s.slice(1);
    const parts = splitDots3(s).map((p) => {
      if (p.length <= 1) return p;
      let q = p.replace(/^0+/, "");
      if (q.length === 0 || !isDigit(q.charCodeAt(0))) q = `0${q}`;
      return q;
    });
    if (parts.length < 3) {
      const last = parts[parts.length - 1]!;
      if (last.includes("+") || last.includes("-")) {
        throw new LibraryError("short version cannot contain PreRelease/Build meta data");
      }
      while (parts.length < 3) parts.push("0");
    }
    return Semver.parse(parts.join("."));
  }

  /** blang/semver `Compare`: -1, 0 or 1 (build metadata ignored). */
  cmp(o: Semver): number {
    for (const [a, b] of [
      [this.major, o.major],
      [this.minor, o.minor],
      [this.patch, o.patch],
    ] as const) {
      if (a !== b) return a > b ? 1 : -1;
    }
    if (this.pre.length === 0 && o.pre.length === 0) return 0;
    if (this.pre.length === 0) return 1;
    if (o.pre.length === 0) return -1;
    const n = Math.min(this.pre.length, o.pre.length);
    for (let i = 0; i < n; i++) {
      const c = comparePre(this.pre[i]!, o.pre[i]!);
      if (c !== 0) return c;
    }
    if (this.pre.length === o.pre.length) return 0;
    return this.pre.length < o.pre.length ? -1 : 1;
  }

  /** CEL `v.compareTo(o)`. */
  compareTo(o: Semver): bigint {
    return BigInt(this.cmp(o));
  }

  /** CEL `v.isGreaterThan(o)`. */
  isGreaterThan(o: Semver): boolean {
    return this.cmp(o) === 1;
  }

  /** CEL `v.isLessThan(o)`. */
  isLessThan(o: Semver): boolean {
    return this.cmp(o) === -1;
  }

  /** CEL `==`: equal precedence (`Version.Equals`). */
  equals(o: Semver): boolean {
    return this.cmp(o) === 0;
  }

  /** CEL `v.major()`: Go converts the uint64 with `types.Int(...)`, which wraps above 2^63-1. */
  majorInt(): bigint {
    return BigInt.asIntN(64, this.major);
  }

  /** CEL `v.minor()`. */
  minorInt(): bigint {
    return BigInt.asIntN(64, this.minor);
  }

  /** CEL `v.patch()`. */
  patchInt(): bigint {
    return BigInt.asIntN(64, this.patch);
  }

  /** blang/semver `Version.String`. */
  toString(): string {
    let s = `${this.major}.${this.minor}.${this.patch}`;
    if (this.pre.length > 0) s += `-${this.pre.map((p) => ("num" in p ? p.num.toString() : p.str)).join(".")}`;
    if (this.build.length > 0) s += `+${this.build.join(".")}`;
    return s;
  }
}

/** CEL `semver(s[, normalize])`; throws a {@link LibraryError} when invalid. */
export function parseSemver(s: string, normalize = false): Semver {
  return normalize ? Semver.parseNormalized(s) : Semver.parse(s);
}

/** CEL `isSemver(s[, normalize])`. */
export function isSemver(s: string, normalize = false): boolean {
  try {
    parseSemver(s, normalize);
    return true;
  } catch (e) {
    if (e instanceof LibraryError) return false;
    throw e;
  }
}
